/** Range presets anchored at the end of the data (not at "now": sandbox data may be elsewhere in time). */

export const RANGE_PRESET_DAYS = [7, 14, 30, 90] as const;
export type RangePresetDays = (typeof RANGE_PRESET_DAYS)[number];

const DAY_MS = 86_400_000;

/** `days` days ending at `endIso` (exclusive), as ISO instants for the API's from / to. */
export function presetRange(days: number, endIso: string): { from: string; to: string } {
  const toMs = Date.parse(endIso);
  return { from: new Date(toMs - days * DAY_MS).toISOString(), to: new Date(toMs).toISOString() };
}

/**
 * The query for the overview's panels: `days` ending at the end of the data. Undefined while the
 * status (which knows where the data ends) is loading; without it, the server's default range.
 */
export function overviewQuery(
  days: number,
  nodePool: string | undefined,
  status: { isPending: boolean; data?: { defaultRange: { to: string } } },
): { from?: string; to?: string; nodepool?: string } | undefined {
  if (status.isPending) return undefined;
  const range = status.data === undefined ? {} : presetRange(days, status.data.defaultRange.to);
  return nodePool === undefined ? range : { ...range, nodepool: nodePool };
}
