import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCurMonth, type CurMonthWritten } from '../../bench/cur-generator.js';
import { openDb, type Db } from '../../db/open-db.js';
import { createCurRepository } from '../../db/repositories/cur-repository.js';
import { curAggregateStatement, rowFromRecord } from './aggregate-statement.js';
import { importCurFolder, type CurImportProgress } from './import-folder.js';

/*
 * The import streams the statement's rows from DuckDB into SQLite a chunk (2,048 rows) at a time. Over a month of
 * 40 nodes and 400 pods (bench/cur-generator.ts: ~23,000 CUR lines, ~5,000 statement rows, several chunks) the
 * stored rows are what the statement gives when read whole, and what the generator's rules give worked by hand; a
 * stop part-way leaves the tables as they were.
 */

const dir = mkdtempSync(join(tmpdir(), 'cur-stream-'));
const NODES = 40;
const PODS = 400;
const DAYS = 30;
const ALL = { fromMs: 0, toMs: Date.UTC(2100, 0, 1) };
let month: CurMonthWritten;

/** Every CUR table's rows, ordered by every column. */
function dump(db: Db): string {
  const tables = ['cur_periods', 'cur_files', 'cur_nodepool_daily', 'cur_namespace_daily', 'cur_resource_daily'];
  return JSON.stringify(
    tables.map((t) => {
      const columns = db.prepare(`SELECT COUNT(*) FROM pragma_table_info('${t}')`).pluck().get() as number;
      return db.prepare(`SELECT * FROM ${t} ORDER BY ${Array.from({ length: columns }, (_, i) => i + 1).join(', ')}`).all();
    }),
  );
}
const r9 = (n: number): number => Math.round(n * 1e9) / 1e9;

beforeAll(async () => {
  month = await writeCurMonth(join(dir, 'export'), { nodes: NODES, pods: PODS });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cur import streams the statement into SQLite, chunk by chunk', () => {
  it('stores, across chunks, the rows the statement gives read whole and the figures worked from the generator', async () => {
    const db = openDb({ path: join(dir, 'streamed.db') });
    const writes: CurImportProgress[] = [];
    const result = await importCurFolder(db, month.exportRoot, { onProgress: (p) => p.phase === 'write' && writes.push(p) });
    const [period] = result.periods;
    expect(period?.curRows).toBe(month.rows);
    // Several chunks reached SQLite before the commit: the resource part's (one chunk of DuckDB's holds up to 2,048
    // resources' days, nested, handed over 64 resources at a time: 123 and more here) and the split part's.
    expect(writes.filter((p) => p.note.endsWith('CUR lines written')).length).toBeGreaterThanOrEqual(3);

    // Resource days: per day, each node's instance line (3 nodes covered by the Savings Plan: covered + negation),
    // volume and data transfer, and the plan's fee: 30 x (40 + 3 + 40 + 40 + 1).
    const repo = createCurRepository(db);
    const stored = repo.resourceDays(ALL);
    expect(stored.length).toBe(DAYS * (NODES + 3 + NODES + NODES + 1));

    // The same rows as the statement read whole, in one piece, by DuckDB here (no NodeClaims to fill: every line but
    // the plan's fee carries its NodePool tag).
    const duck = await DuckDBInstance.create(':memory:');
    const c = await duck.connect();
    await c.run("SET TimeZone = 'UTC'");
    await c.run(`CREATE VIEW cur AS SELECT * FROM read_parquet('${month.dataFile}')`);
    const whole = (await c.runAndReadAll(curAggregateStatement({ table: 'cur', billingPeriod: '2026-11' })))
      .getRowObjectsJS()
      .map((r) => rowFromRecord(r));
    c.closeSync();
    duck.closeSync();
    const key = (r: { usageDay?: string; day?: string; resourceId: string; lineItemType: string; usageType: string; operation: string }) =>
      [r.usageDay ?? r.day, r.resourceId, r.lineItemType, r.usageType, r.operation].join('|');
    const expected = whole
      .filter((r) => r.rowKind === 'resource')
      .map((r) => ({
        key: key(r),
        nodePool: r.nodePool,
        by: r.nodePool === '' ? 'none' : 'tag',
        amortized: r9(r.amortizedUsd),
        unblended: r9(r.unblendedUsd),
        lines: r.lineCount,
      }))
      .sort((a, b) => a.key.localeCompare(b.key));
    const got = stored
      .map((r) => ({
        key: key(r),
        nodePool: r.nodePool,
        by: r.attributedBy,
        amortized: r.amortizedUsd,
        unblended: r.unblendedUsd,
        lines: r.lineCount,
      }))
      .sort((a, b) => a.key.localeCompare(b.key));
    expect(got).toEqual(expected);

    // NodePool days by hand: nodes n % 3 = 0 are system (14 of 40), 1 general (13), 2 spot-batch (13); each node's
    // 20 GB gp3 volume costs 20 / 30 x 0.08 a day, its data transfer 0.012.
    const pools = { system: 14, general: 13, 'spot-batch': 13 };
    const days = repo.nodePoolDays(ALL);
    for (const [pool, nodes] of Object.entries(pools)) {
      const of = (category: string) => days.filter((d) => d.nodePool === pool && d.category === category);
      expect(of('volumes').map((d) => [d.lineCount, Math.round(d.unblendedUsd * 1e6) / 1e6])).toEqual(
        Array.from({ length: DAYS }, () => [nodes, Math.round(((nodes * 20) / 30) * 0.08 * 1e6) / 1e6]),
      );
      expect(of('data-transfer').map((d) => [d.lineCount, Math.round(d.unblendedUsd * 1e6) / 1e6])).toEqual(
        Array.from({ length: DAYS }, () => [nodes, Math.round(nodes * 0.012 * 1e6) / 1e6]),
      );
    }

    // Namespace days by hand: pod p is in team-(p mod 40), on node p mod 40 (so team-k's NodePool is node k's), and
    // runs from day p mod 8 to day 30 - (7p mod 8); two split lines (vCPU, memory) per pod and day.
    const poolOf = (n: number) => ['system', 'general', 'spot-batch'][n % 3];
    const want = new Map<string, { pods: number; lines: number }>();
    for (let p = 0; p < PODS; p++) {
      for (let d = p % 8; d < DAYS - ((7 * p) % 8); d++) {
        const k = `2026-11-${String(d + 1).padStart(2, '0')}|${poolOf(p % NODES)}|team-${p % 40}`;
        const w = want.get(k) ?? { pods: 0, lines: 0 };
        w.pods += 1;
        w.lines += 2;
        want.set(k, w);
      }
    }
    const namespaces = repo.namespaceDays(ALL);
    expect(new Map(namespaces.map((n) => [`${n.day}|${n.nodePool}|${n.namespace}`, { pods: n.podCount, lines: n.lineCount }]))).toEqual(
      want,
    );
    db.close();
  });

  it('a stop part-way (after the first chunk is written) leaves the tables as they were, and the next import works', async () => {
    const db = openDb({ path: join(dir, 'stopped.db') });
    await importCurFolder(db, month.exportRoot, { source: 'export' });
    const before = dump(db);
    // AWS re-states the month (another ETag): the period is read again, and stopped after its first chunk.
    const stop = new AbortController();
    const again = importCurFolder(db, month.exportRoot, {
      source: 'export',
      etagOf: () => 'restated',
      signal: stop.signal,
      onProgress: (p) => {
        if (p.phase === 'write' && p.note.endsWith('CUR lines written')) stop.abort(new Error('stopped by the test'));
      },
    });
    await expect(again).rejects.toThrow('stopped by the test');
    expect(db.inTransaction).toBe(false);
    expect(dump(db)).toBe(before);
    const third = await importCurFolder(db, month.exportRoot, { source: 'export', etagOf: () => 'restated' });
    expect(third.periods.map((p) => [p.status, p.curRows])).toEqual([['imported', month.rows]]);
    expect(
      createCurRepository(db)
        .filesOf('export', '2026-11')
        .map((f) => f.etag),
    ).toEqual(['restated']);
    db.close();
  });
});
