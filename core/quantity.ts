/**
 * Kubernetes resource quantities parsed exactly ("3920m", "15Gi", "14320468Ki", "18242267924", "1e3", "0.5").
 * CPU is returned in millicores, everything else in base units (bytes, count), as integers rounded up
 * the way the API server rounds a quantity to its smallest unit.
 */
const BINARY: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
const DECIMAL_EXP: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const PATTERN = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?\d+))?$/;

export class QuantityError extends Error {}

/** Parses to a rational n / 10^scale held as bigint, then scales by `unitExp10` (3 for milli) and rounds up. */
function parseScaled(text: string, unitExp10: number): number {
  const m = PATTERN.exec(text.trim());
  if (!m) throw new QuantityError(`not a Kubernetes quantity: "${text}"`);
  const [, sign, num, suffix, exp] = m;
  const [intPart, fracPart = ''] = num.split('.');
  let mantissa = BigInt((intPart || '0') + fracPart);
  let exp10 = -fracPart.length + unitExp10;
  if (suffix && suffix in BINARY) mantissa *= BINARY[suffix];
  else if (suffix !== undefined) exp10 += DECIMAL_EXP[suffix];
  else if (exp !== undefined) exp10 += Number(exp);
  let value: bigint;
  if (exp10 >= 0) value = mantissa * 10n ** BigInt(exp10);
  else {
    const div = 10n ** BigInt(-exp10);
    value = (mantissa + div - 1n) / div; // ceil: the API server never rounds a request down
  }
  const out = Number(value);
  if (!Number.isSafeInteger(out)) throw new QuantityError(`quantity out of range: "${text}"`);
  return sign === '-' ? -out : out;
}

// A cluster repeats the same few hundred quantity strings across 150,000 pods; parsing (BigInt arithmetic) is
// remembered per string, the table dropped when it grows past a bound so odd inputs cannot grow it for ever.
const MEMO_LIMIT = 50_000;
const memo = [new Map<string, number>(), new Map<string, number>()];
function remembered(q: string, unitExp10: 0 | 3): number {
  const table = memo[unitExp10 === 3 ? 1 : 0];
  let v = table.get(q);
  if (v === undefined) {
    v = parseScaled(q, unitExp10);
    if (table.size >= MEMO_LIMIT) table.clear();
    table.set(q, v);
  }
  return v;
}

/** "3920m" -> 3920, "2" -> 2000, "0.5" -> 500. */
export const parseCpuMillicores = (q: string): number => remembered(q, 3);
/** "15Gi" -> 16106127360, "14320468Ki" -> bytes, "1G" -> 1e9. Also used for pods and GPUs (counts). */
export const parseBaseUnits = (q: string): number => remembered(q, 0);

export const formatCpu = (millicores: number): string => (millicores % 1000 === 0 ? String(millicores / 1000) : `${millicores}m`);
export const formatMemory = (bytes: number): string => {
  for (const [suffix, unit] of [
    ['Gi', 1 << 30],
    ['Mi', 1 << 20],
    ['Ki', 1 << 10],
  ] as const) {
    if (bytes % unit === 0) return `${bytes / unit}${suffix}`;
  }
  return String(bytes);
};
export const GIB = 1024 ** 3;

/**
 * An int-or-string quantity as JSON carries it: the API server returns `spec.limits: {cpu: 100}` as a number when
 * that is how it was written (Karpenter's own examples do), `"100"` or `"1000Gi"` as strings. The string form of
 * either (100 -> "100", 1.5 -> "1.5"); null for anything else.
 */
export function quantityFromJson(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

/** A JSON object of int-or-string quantities (spec.limits) as strings; entries of any other type are dropped. */
export function quantitiesFromJson(v: unknown): Record<string, string> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return {};
  const out: Record<string, string> = {};
  for (const [resource, q] of Object.entries(v)) {
    const text = quantityFromJson(q);
    if (text !== null) out[resource] = text;
  }
  return out;
}
