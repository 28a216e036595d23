/**
 * The one CSV writer (RFC 4180, CRLF): every table the API answers as CSV goes through toCsv (pure, no I/O).
 *
 * Nested objects become dotted columns (before.cpu), lists are joined with ";", null is an empty cell.
 * Text cells starting with = + - @ (or tab / carriage return) are prefixed with ' so a spreadsheet does not
 * run them as formulas (CSV injection); numbers are written as numbers, negative ones included, since they
 * come from our arithmetic, not from cluster input.
 *
 * Hand-written rather than csv-stringify: quoting is one rule (below), and the parts that matter here — flattening
 * nested answers, numbers kept apart from text so that "-1.5" is a number and "-cmd" a defused formula — would have
 * to be written around the library anyway (its formula escaping works on the cast text, negative numbers included).
 */

export type CsvCell = string | number | boolean | null;

/** A table to download: its rows (nested objects allowed) and the columns to put first (kept when there are no rows). */
export interface CsvTable {
  columns: readonly string[];
  rows: readonly object[];
}

const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell as CSV text. */
export function csvCell(v: CsvCell): string {
  if (v === null) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  const safe = FORMULA_START.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function flatten(value: unknown, prefix: string, out: Map<string, CsvCell>): void {
  if (value === null || value === undefined) {
    out.set(prefix, null);
  } else if (Array.isArray(value)) {
    out.set(prefix, value.map((x) => (typeof x === 'object' && x !== null ? JSON.stringify(x) : String(x))).join(';'));
  } else if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix === '' ? k : `${prefix}.${k}`, out);
  } else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    out.set(prefix, value);
  } else {
    out.set(prefix, String(value));
  }
}

/**
 * Rows of (possibly nested) objects as CSV with a header; lines end with CRLF. `columns` come first in their order
 * (so a table with no rows still has its header), then any other column in first-seen order.
 */
export function toCsv(rows: readonly object[], columns: readonly string[] = []): string {
  const flat = rows.map((r) => {
    const m = new Map<string, CsvCell>();
    flatten(r, '', m);
    return m;
  });
  const header = [...columns];
  const seen = new Set<string>(columns);
  for (const m of flat)
    for (const k of m.keys())
      if (!seen.has(k)) {
        seen.add(k);
        header.push(k);
      }
  const lines = [header.map(csvCell), ...flat.map((m) => header.map((c) => csvCell(m.get(c) ?? null)))];
  return lines.map((l) => l.join(',')).join('\r\n') + '\r\n';
}
