/**
 * Tables to CSV (RFC 4180) for every table route (pure, no I/O).
 *
 * Nested objects become dotted columns (before.cpu), lists are joined with ";", null is an empty cell.
 * Text cells starting with = + - @ (or tab / carriage return) are prefixed with ' so a spreadsheet does not
 * run them as formulas (CSV injection); numbers are written as numbers, negative ones included, since they
 * come from our arithmetic, not from cluster input.
 */

type Cell = string | number | boolean | null;

const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell as CSV text. */
export function csvCell(v: Cell): string {
  if (v === null) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  const safe = FORMULA_START.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function flatten(value: unknown, prefix: string, out: Map<string, Cell>): void {
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

/** Rows of (possibly nested) objects as CSV with a header; columns in first-seen order; lines end with CRLF. */
export function toCsv(rows: readonly object[]): string {
  const flat = rows.map((r) => {
    const m = new Map<string, Cell>();
    flatten(r, '', m);
    return m;
  });
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const m of flat)
    for (const k of m.keys())
      if (!seen.has(k)) {
        seen.add(k);
        columns.push(k);
      }
  const lines = [columns.map(csvCell), ...flat.map((m) => columns.map((c) => csvCell(m.get(c) ?? null)))];
  return lines.map((l) => l.join(',')).join('\r\n') + '\r\n';
}
