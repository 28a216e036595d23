/** One colour per NodePool, the same in every chart. Readable on light and dark backgrounds. */

const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#59a14f', '#b07aa1', '#76b7b2', '#edc948', '#ff9da7', '#9c755f', '#86bcb6'];
/** Untagged cost and nodes without a NodePool. */
export const UNTAGGED_COLOR = '#8c8c8c';

export type NodePoolColors = Readonly<Record<string, string>>;

/** Colours by position in the sorted list of names, so two pools never share one below ten. */
export function nodePoolColors(names: readonly string[]): NodePoolColors {
  const sorted = [...new Set(names)].filter((n) => n !== '').sort();
  return Object.fromEntries([['', UNTAGGED_COLOR], ...sorted.map((n, i) => [n, PALETTE[i % PALETTE.length]])]);
}

/** The colour of `name`, or one derived from its characters when the list did not know it. */
export function colorOf(name: string, colors: NodePoolColors): string {
  const known = colors[name];
  if (known !== undefined) return known;
  let h = 0;
  for (const ch of name) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return PALETTE[h % PALETTE.length];
}

/** The i-th colour of the palette, for categories that are not NodePools (teams). */
export const paletteColor = (i: number): string => PALETTE[i % PALETTE.length];
