/**
 * Go duration strings as Karpenter's NodePool fields hold them ("30s", "1h30m", "720h", "Never"), in milliseconds;
 * `null` for "Never". An unparseable string throws, naming it.
 */
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;

export function parseGoDurationMs(text: string): number | null {
  const s = text.trim();
  if (s === 'Never') return null;
  if (s === '0') return 0;
  let sign = 1;
  let i = 0;
  if (s[0] === '-' || s[0] === '+') {
    sign = s[0] === '-' ? -1 : 1;
    i = 1;
  }
  if (i >= s.length) throw new Error(`not a duration: "${text}"`);
  let total = 0;
  while (i < s.length) {
    PART.lastIndex = i;
    const m = PART.exec(s);
    if (!m) throw new Error(`not a duration: "${text}" (expected e.g. 30s, 5m, 1h30m or Never)`);
    total += Number(m[1]) * UNIT_MS[m[2]];
    i = PART.lastIndex;
  }
  return sign * total;
}
