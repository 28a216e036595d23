/**
 * A NodeClaim's spec.expireAfter as milliseconds. Karpenter writes it as a Go duration (time.ParseDuration:
 * "720h", "1h30m", "720h0m0s", "1.5h") or "Never" (pkg/apis/v1/duration.go NillableDuration). Pure.
 */

const UNIT_MS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/gy;

/** Milliseconds, or null for "Never", an empty value, or text that is not a positive Go duration. */
export function expireAfterMs(text: string | null | undefined): number | null {
  const s = (text ?? '').trim();
  if (s === '' || s === 'Never') return null;
  let total = 0;
  let end = 0;
  PART.lastIndex = 0;
  for (let m = PART.exec(s); m !== null; m = PART.exec(s)) {
    total += Number(m[1]) * UNIT_MS[m[2]];
    end = PART.lastIndex;
  }
  if (end !== s.length || !(total > 0)) return null;
  return Math.round(total);
}
