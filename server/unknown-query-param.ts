/**
 * The 400 message for query parameters a route does not declare (pure, no I/O). Without it a typo such as
 * `?nodPool=general` would be dropped and the answer would cover every NodePool, looking right but being wrong.
 */

/** Longer names are cut: the message must not echo a huge input back. */
export const MAX_NAME_CHARS = 40;
/** More unknown names than this are counted, not listed. */
export const MAX_NAMES_LISTED = 3;

const quoted = (name: string): string => `"${name.length > MAX_NAME_CHARS ? `${name.slice(0, MAX_NAME_CHARS)}…` : name}"`;

/** Levenshtein distance, two rows at a time (names are short: a route takes a dozen parameters at most). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j] + 1, current[j - 1] + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length];
}

/**
 * The accepted parameter `name` was most likely meant to be: the same but for case, else the nearest within one
 * edit per three characters (so "fro" finds "from" but "xx" does not find "to"). Ties go to the first accepted.
 */
export function closestParam(name: string, accepted: readonly string[]): string | null {
  if (name.length > MAX_NAME_CHARS) return null;
  const lower = name.toLowerCase();
  const sameButCase = accepted.find((a) => a.toLowerCase() === lower);
  if (sameButCase !== undefined) return sameButCase;
  const allowed = Math.max(1, Math.floor(name.length / 3));
  let best: { name: string; distance: number } | null = null;
  for (const a of accepted) {
    const distance = editDistance(lower, a.toLowerCase());
    if (distance <= allowed && (best === null || distance < best.distance)) best = { name: a, distance };
  }
  return best?.name ?? null;
}

/**
 * `Unknown query parameter "nodPool" (did you mean "nodepool"?); this route takes from, to, nodepool`.
 * `unknown` must not be empty; at most MAX_NAMES_LISTED names are shown, each cut to MAX_NAME_CHARS.
 */
export function unknownQueryParamMessage(unknown: readonly string[], accepted: readonly string[]): string {
  const listed = unknown.slice(0, MAX_NAMES_LISTED).map((name) => {
    const guess = closestParam(name, accepted);
    return guess === null ? quoted(name) : `${quoted(name)} (did you mean "${guess}"?)`;
  });
  const more = unknown.length > MAX_NAMES_LISTED ? ` and ${unknown.length - MAX_NAMES_LISTED} more` : '';
  const takes = accepted.length === 0 ? 'this route takes no query parameters' : `this route takes ${accepted.join(', ')}`;
  return `Unknown query parameter${unknown.length > 1 ? 's' : ''} ${listed.join(', ')}${more}; ${takes}`;
}
