const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** `90d`, `5m`, `12h`, `30s`, `500ms`, `2w` as milliseconds; null when the text is not one of those. */
export function parseDuration(text: string): number | null {
  const m = /^(\d+)(ms|s|m|h|d|w)$/.exec(text.trim());
  if (!m) return null;
  const ms = Number(m[1]) * UNIT_MS[m[2]];
  return Number.isSafeInteger(ms) && ms > 0 ? ms : null;
}
