import type { Db } from '../db/open-db.js';

/**
 * What a ledger file is made of (issue 24): bytes per table and per index from SQLite's dbstat (every page, free
 * space included), each table's rows, and an envelope estimate from a scaled-down store's bytes per row. Used by the
 * 13-month store bench (bench/store-year-bench.ts) and `tsx bench/store-size.ts FILE` to look at any ledger.
 */

export interface ObjectBytes {
  /** Table or index name as in sqlite_schema. */
  name: string;
  /** The table it belongs to (itself for a table). */
  table: string;
  kind: 'table' | 'index';
  bytes: number;
  /** Bytes of records (cells' payload) in it. */
  payload: number;
  /** Leaf cells (rows of a table or entries of an index). */
  cells: number;
}

/** Every b-tree in the file: its pages' bytes, payload and leaf cells. */
export function objectBytes(db: Db): ObjectBytes[] {
  const rows = db
    .prepare(
      `SELECT d.name, COALESCE(m.tbl_name, d.name) AS tbl, COALESCE(m.type, 'table') AS type, SUM(d.pgsize) AS bytes, SUM(d.payload) AS payload,
              SUM(CASE WHEN d.pagetype = 'leaf' THEN d.ncell ELSE 0 END) AS cells
       FROM dbstat d LEFT JOIN sqlite_schema m ON m.name = d.name GROUP BY d.name ORDER BY bytes DESC`,
    )
    .all() as { name: string; tbl: string; type: string; bytes: number; payload: number; cells: number }[];
  return rows.map((r) => ({
    name: r.name,
    table: r.tbl,
    kind: r.type === 'index' ? 'index' : 'table',
    bytes: r.bytes,
    payload: r.payload,
    cells: r.cells,
  }));
}

/** Bytes per table, its indexes included. */
export function bytesByTable(objects: readonly ObjectBytes[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const o of objects) out[o.table] = (out[o.table] ?? 0) + o.bytes;
  return Object.fromEntries(Object.entries(out).sort((a, b) => b[1] - a[1]));
}

/** Rows of each table (views left out). */
export function rowsByTable(db: Db): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of db
    .prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
    .pluck()
    .all() as string[])
    out[t] = db.prepare(`SELECT COUNT(*) FROM "${t}"`).pluck().get() as number;
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { openDb } = await import('../db/open-db.js');
  const file = process.argv[2];
  if (file === undefined) throw new Error('usage: tsx bench/store-size.ts FILE');
  const db = openDb({ path: file, readonly: true });
  const rows = rowsByTable(db);
  for (const o of objectBytes(db).slice(0, 25))
    console.log(
      `${o.name.padEnd(40)} ${o.kind.padEnd(5)} ${(o.bytes / 2 ** 20).toFixed(1).padStart(9)} MiB ${String(o.cells).padStart(10)} cells ${(o.bytes / Math.max(1, o.cells)).toFixed(1).padStart(7)} B/cell (rows ${rows[o.table] ?? '-'})`,
    );
  db.close();
}
