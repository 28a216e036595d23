import { describe, expect, it } from 'vitest';
import { hourlyBoundaryMs, retentionSettings } from '../../core/retention.js';
import { DAY_MS, HOUR_MS } from '../../core/time.js';
import { openDb, type Db } from '../open-db.js';
import { fillEnvelopeStore, type EnvelopeStoreSize } from './retention-envelope-store.js';
import { createRetentionFoldRepository } from './retention-fold-repository.js';

/*
 * The generated 13-month store (bench/retention-bench.ts, bench/store-year-bench.ts) is meant to be what retention
 * leaves: its days past --hourly-retention written as one snapshot per UTC day. Checked against retention itself: the
 * same store generated hourly throughout, then folded by the collector's day fold (retention-fold-repository.ts) one
 * snapshot at a time, must equal the store generated with its old days already folded — every table, every row, every
 * value to float noise (the fold blends means one snapshot at a time; the generator divides sums once).
 */

const END = Date.UTC(2026, 10, 1);
// Four days, the last at 5 minutes, the one before it hourly, the first two folded into days; nodes live 5 days, so
// some are replaced inside a folded day (their node rows weigh their own hours).
const SIZE: EnvelopeStoreSize = { nodes: 7, podsPerNode: 2, endMs: END, days: 4, rawDays: 1, sampleHours: 1, workloads: 3, namespaces: 4 };
const HOURLY_DAYS = 2;

function tables(db: Db): string[] {
  return db
    .prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
    .pluck()
    .all() as string[];
}

function rowsOf(db: Db, table: string): Record<string, unknown>[] {
  const cols = db.prepare(`SELECT name, pk FROM pragma_table_info('${table}')`).all() as { name: string; pk: number }[];
  const key = cols.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
  const order = (key.length > 0 ? key : cols).map((c) => `"${c.name}"`).join(', ');
  return db.prepare(`SELECT * FROM "${table}" ORDER BY ${order}`).all() as Record<string, unknown>[];
}

const MADE_AT = new Set(['clusters.added_at']);

/** The rows that differ (numbers by more than 1e-9 relative), as text; empty when equal. */
function differences(table: string, got: Record<string, unknown>[], want: Record<string, unknown>[]): string[] {
  if (got.length !== want.length) return [`${table}: ${got.length} rows, want ${want.length}`];
  const out: string[] = [];
  want.forEach((row, i) => {
    for (const [c, v] of Object.entries(row)) {
      // When the file was made (clusters.added_at, by the migration): the two files were made apart.
      if (MADE_AT.has(`${table}.${c}`)) continue;
      const g = got[i][c];
      const same =
        typeof v === 'number' && typeof g === 'number'
          ? Math.abs(g - v) <= 1e-9 * Math.max(1, Math.abs(v))
          : g === v || String(g) === String(v);
      if (!same) out.push(`${table} row ${i} ${c}: ${String(g)}, want ${String(v)}`);
    }
  });
  return out;
}

describe('the generated 13-month store', () => {
  it('writes the days past --hourly-retention as the collector’s day fold leaves them', () => {
    const folded = openDb({ path: ':memory:' });
    const generated = openDb({ path: ':memory:' });
    try {
      // Retention's way: hourly to the start, then the day fold up to the hourly boundary.
      fillEnvelopeStore(folded, SIZE);
      const settings = retentionSettings('1d', '13mo', `${HOURLY_DAYS}d`);
      const boundary = hourlyBoundaryMs(END, settings.hourly, END - HOUR_MS);
      expect(boundary).toBe(END - HOURLY_DAYS * DAY_MS);
      const fold = createRetentionFoldRepository(folded);
      const pending = fold.pendingDays(boundary);
      expect(pending).toBe(2 * 24);
      let n = 0;
      while (fold.foldDayOne(boundary) !== null) n += 1;
      expect(n).toBe(pending);

      fillEnvelopeStore(generated, { ...SIZE, hourlyDays: HOURLY_DAYS });
      const daily = generated.prepare(`SELECT COUNT(*) FROM snapshots WHERE fold_span_ms = ${DAY_MS}`).pluck().get();
      expect(daily).toBe(2);
      // Nodes replaced inside a folded day: a day holds more node rows than slots, each weighing its own hours.
      const partial = generated
        .prepare(
          `SELECT COUNT(*) FROM snapshot_node_rows r JOIN snapshots s ON s.id = r.snapshot_id WHERE s.fold_span_ms = ${DAY_MS} AND r.fold_ms < ${DAY_MS}`,
        )
        .pluck()
        .get() as number;
      expect(partial).toBeGreaterThan(0);

      expect(tables(generated)).toEqual(tables(folded));
      const rows = tables(folded).map((t) => [t, rowsOf(folded, t).length] as const);
      expect(rows.find(([t]) => t === 'snapshot_node_rows')?.[1]).toBeGreaterThan(0);
      expect(
        tables(folded)
          .flatMap((t) => differences(t, rowsOf(generated, t), rowsOf(folded, t)))
          .slice(0, 20),
      ).toEqual([]);
    } finally {
      folded.close();
      generated.close();
    }
  });

  it('keeps per-node usage and container samples for the last sampleHours only, as the collector’s --usage-retention does', () => {
    const db = openDb({ path: ':memory:' });
    try {
      // A day at 5 minutes, usage kept 1 hour: the snapshots at END - 60 min, - 55, ..., - 5 min.
      fillEnvelopeStore(db, { ...SIZE, days: 1 });
      const count = (sql: string): number => db.prepare(sql).pluck().get() as number;
      expect(count('SELECT COUNT(*) FROM snapshots')).toBe(288); // 24 h x 12 an hour
      // 12 snapshots in the last hour x 7 nodes (a slot holds one node at any time) = 84.
      expect(count('SELECT COUNT(*) FROM usage_node_rows')).toBe(84);
      // ... and 2 pods on each: 12 x 7 x 2 = 168.
      expect(count('SELECT COUNT(*) FROM usage_samples')).toBe(168);
      expect(count(`SELECT MIN(s.taken_at) FROM usage_node_rows u JOIN snapshots s ON s.id = u.snapshot_id`)).toBe(END - HOUR_MS);
    } finally {
      db.close();
    }
  });

  it('writes the quarter-day rollups and marker counts (migration 0033) as sums of the hours and counts of the disruptions', () => {
    const db = openDb({ path: ':memory:' });
    try {
      // 11 days, so that nodes of 5 days are replaced (and disrupted) in it.
      fillEnvelopeStore(db, { ...SIZE, days: 11 });
      const count = (sql: string): number => db.prepare(sql).pluck().get() as number;
      // 11 days: 44 quarters, each with a row for general on-demand (slots 0–4) and general spot (slots 5 and 6): 88.
      expect(count(`SELECT COUNT(*) FROM rollup_nodepools WHERE span_ms = ${6 * HOUR_MS}`)).toBe(88);
      expect(count(`SELECT COUNT(*) FROM rollup_spans WHERE span_ms = ${6 * HOUR_MS}`)).toBe(44);
      // Each quarter is the sum of its six hours: the node-hours and snapshots match quarter by quarter.
      const quarters = db
        .prepare(
          `SELECT q.bucket_ms, q.node_hours - (SELECT TOTAL(h.node_hours) FROM rollup_nodepools h WHERE h.span_ms = ${HOUR_MS}
             AND h.bucket_ms >= q.bucket_ms AND h.bucket_ms < q.bucket_ms + ${6 * HOUR_MS} AND h.nodepool = q.nodepool AND h.capacity_type = q.capacity_type) AS gap
           FROM rollup_nodepools q WHERE q.span_ms = ${6 * HOUR_MS}`,
        )
        .raw()
        .all() as [number, number][];
      for (const [, gap] of quarters) expect(Math.abs(gap)).toBeLessThan(1e-9);
      expect(count('SELECT TOTAL(node_hours) FROM rollup_nodepools WHERE span_ms = 21600000')).toBeGreaterThan(0);
      // Every kept disruption counted once in its quarter.
      expect(count('SELECT TOTAL(disruptions) FROM disruption_quarters')).toBe(count('SELECT COUNT(*) FROM disruptions WHERE blocked = 0'));
      expect(count('SELECT COUNT(*) FROM disruptions')).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });

  it('writes no usage with usage: false, as the collector without --usage leaves a store (the store bench’s month)', () => {
    const db = openDb({ path: ':memory:' });
    try {
      fillEnvelopeStore(db, { ...SIZE, days: 1, usage: false });
      const count = (sql: string): number => db.prepare(sql).pluck().get() as number;
      for (const t of [
        'usage_snapshots',
        'usage_nodepools',
        'usage_namespaces',
        'usage_node_rows',
        'usage_samples',
        'usage_workload_hours',
      ])
        expect({ table: t, rows: count(`SELECT COUNT(*) FROM ${t}`) }).toEqual({ table: t, rows: 0 });
      // The snapshots and the namespaces' rows are there, none with pods measured.
      expect(count('SELECT COUNT(*) FROM snapshots')).toBe(288);
      expect(count('SELECT COUNT(*) FROM snapshot_namespaces WHERE usage_pods <> 0')).toBe(0);
      expect(count('SELECT COUNT(*) FROM snapshot_namespaces')).toBeGreaterThan(0);
      expect(count('SELECT COUNT(*) FROM rollup_namespaces WHERE usage_pod_hours <> 0')).toBe(0);
    } finally {
      db.close();
    }
  });

  it('writes CUR resource days as the cur_resource_daily view’s INSERT trigger does, keys and stored figures alike', () => {
    const db = openDb({ path: ':memory:' });
    try {
      fillEnvelopeStore(db, SIZE);
      const narrow = ['cur_period_keys', 'cur_line_kinds', 'cur_resource_keys', 'cur_resource_lines'];
      for (const t of narrow) db.exec(`CREATE TEMP TABLE bulk_${t} AS SELECT * FROM main.${t}`);
      // The same days again, through the view's trigger, in the order the generator fed it before (by node, then day;
      // resource ids are the slot and generation in zero-padded hex, so their order).
      db.exec(`CREATE TEMP TABLE days AS SELECT * FROM cur_resource_daily ORDER BY resource_id, day_ms;
        DELETE FROM cur_resource_lines; DELETE FROM cur_resource_keys; DELETE FROM cur_line_kinds; DELETE FROM cur_period_keys;
        INSERT INTO cur_resource_daily SELECT * FROM temp.days ORDER BY rowid`);
      const count = (sql: string): number => db.prepare(sql).pluck().get() as number;
      // 7 slots over 4 days: at least a row per slot and day (a node and its replacement each have theirs).
      expect(count('SELECT COUNT(*) FROM temp.days')).toBeGreaterThanOrEqual(7 * 4);
      // Slots 0–6 are all general on-demand m6i.2xlarge (slot % 10 < 5): one kind of line.
      expect(count('SELECT COUNT(*) FROM cur_line_kinds')).toBe(1);
      expect(count('SELECT COUNT(*) FROM cur_resource_keys')).toBeGreaterThanOrEqual(7);
      for (const t of narrow) {
        const diff = count(
          `SELECT (SELECT COUNT(*) FROM (SELECT * FROM main.${t} EXCEPT SELECT * FROM temp.bulk_${t}))
                + (SELECT COUNT(*) FROM (SELECT * FROM temp.bulk_${t} EXCEPT SELECT * FROM main.${t}))`,
        );
        expect({ table: t, rows: count(`SELECT COUNT(*) FROM temp.bulk_${t}`), differing: diff }).toEqual({
          table: t,
          rows: count(`SELECT COUNT(*) FROM main.${t}`),
          differing: 0,
        });
      }
    } finally {
      db.close();
    }
  });
});
