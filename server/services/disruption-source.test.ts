import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../db/open-db.js';
import { createDisruptionsRepository } from '../../db/repositories/disruptions-repository.js';
import { keptDisruptions } from './disruption-source.js';
import { HOUR_MS } from '../../core/time.js';

/* Timeline markers read from the kept disruptions: counted per bucket in SQL, then thinned (server/analytics/disruptions.ts). */

const T = Date.parse('2026-11-02T10:00:00Z'); // on the hour
const MIN = 60_000;
// Kept rows as the writer leaves them (id, minutes after T, NodePool, reason, blocked, seq, cluster). `b` is written
// before `a` at the same time, but `a` comes first by seq; `c` is a blocked attempt (never a marker); `g` is cluster 2's.
const ROWS: [string, number, string, string, number, number, number][] = [
  ['b', 10, 'general', 'Underutilized', 0, 1, 1],
  ['a', 10, 'general', 'Underutilized', 0, 0, 1],
  ['c', 20, 'general', 'Underutilized', 1, 2, 1],
  ['g', 30, 'general', 'Underutilized', 0, 6, 2],
  ['d', 40, 'general', 'Empty', 0, 3, 1],
  ['e', 50, 'general', 'Underutilized', 0, 4, 1],
  ['f', 90, 'general', 'Underutilized', 0, 5, 1],
];

let db: Db;
beforeAll(() => {
  db = openDb({ path: join(mkdtempSync(join(tmpdir(), 'disruption-source-')), 'ledger.db') });
  db.prepare("INSERT INTO clusters (id, name, named_from, added_at) VALUES (2, 'second', 'collect', 0)").run();
  const insert = db.prepare(`
    INSERT INTO disruptions (id, at, node_name, nodeclaim, nodepool, reason, action, source, spot_interrupted, instance_type,
      capacity_type, replacements_json, message, blocked, seq, cluster_id)
    VALUES (?, ?, NULL, NULL, ?, ?, 'Delete', 'event', 0, NULL, NULL, '[]', '', ?, ?, ?)`);
  for (const [id, min, pool, reason, blocked, seq, cluster] of ROWS) insert.run(id, T + min * MIN, pool, reason, blocked, seq, cluster);
});
afterAll(() => db?.close());

const range = { fromMs: T, toMs: T + 3 * HOUR_MS };

describe('markerGroups', () => {
  it('counts the disruptions per hour x cluster x NodePool x reason, each group with its first by time then seq and its last time', () => {
    const groups = createDisruptionsRepository(db).markerGroups({ ...range, bucketMs: HOUR_MS });
    // Hour 0, cluster 1, general/Underutilized: a (00:10, seq 0), b (00:10, seq 1), e (00:50) -> 3, first a, last 00:50
    // (c is blocked). Hour 0, cluster 2: g (00:30). Hour 0, general/Empty: d (00:40). Hour 1: f (01:30). By first time.
    expect(groups.map((g) => [g.id, (g.atMs - T) / MIN, g.clusterId, g.reason, g.count, (g.lastAtMs - T) / MIN])).toEqual([
      ['a', 10, 1, 'Underutilized', 3, 50],
      ['g', 30, 2, 'Underutilized', 1, 30],
      ['d', 40, 1, 'Empty', 1, 40],
      ['f', 90, 1, 'Underutilized', 1, 90],
    ]);
    // One cluster's: cluster 1 without g; one NodePool of none: nothing.
    expect(
      createDisruptionsRepository(db)
        .markerGroups({ ...range, bucketMs: HOUR_MS, clusterId: 1 })
        .map((g) => `${g.id}x${g.count}`),
    ).toEqual(['ax3', 'dx1', 'fx1']);
    expect(createDisruptionsRepository(db).markerGroups({ ...range, bucketMs: HOUR_MS, nodePool: 'spot' })).toEqual([]);
  });

  it('names a bucket that is not a positive whole number of ms', () => {
    expect(() => createDisruptionsRepository(db).markerGroups({ ...range, bucketMs: 0.5 })).toThrow(
      /bucketMs must be a positive integer, got 0.5/,
    );
  });
});

describe('keptDisruptions markers', () => {
  const shape = (ms: { id: string; count: number }[]) => ms.map((m) => `${m.id}x${m.count}`);

  it('every disruption while there are at most max, in time then seq order', () => {
    // Six disruptions (c is blocked): a, b at 00:10 (seq 0, 1), g 00:30, d 00:40, e 00:50, f 01:30.
    const ms = keptDisruptions(createDisruptionsRepository(db)).markers({ ...range, bucketMs: HOUR_MS, max: 6 });
    expect(shape(ms)).toEqual(['ax1', 'bx1', 'gx1', 'dx1', 'ex1', 'fx1']);
  });

  it('past max, hourly groups merged into 2-hour buckets until at most max are left', () => {
    // Hourly: a x3, g x1, d x1, f x1 = 4 markers > 3. Two hours (00:00-02:00 holds all): a x(3 + 1 of f) = 4, g x1, d x1.
    const ms = keptDisruptions(createDisruptionsRepository(db)).markers({ ...range, bucketMs: HOUR_MS, max: 3 });
    expect(shape(ms)).toEqual(['ax4', 'gx1', 'dx1']);
    expect(ms.map((m) => (m.atMs - T) / MIN)).toEqual([10, 30, 40]);
    // Four allowed: the hourly groups as they are.
    expect(shape(keptDisruptions(createDisruptionsRepository(db)).markers({ ...range, bucketMs: HOUR_MS, max: 4 }))).toEqual([
      'ax3',
      'gx1',
      'dx1',
      'fx1',
    ]);
  });
});

/*
 * Buckets of whole quarter days (a 90-day timeline's 12 hours) read the quarters' counts (migration 0033) inside the
 * range and the disruptions themselves at its ragged edges. Quarters start at 00:00, 06:00, 12:00 and 18:00 UTC.
 * Range [2 Nov 10:00, 4 Nov 01:30): whole quarters 2 Nov 12:00 to 4 Nov 00:00; raw edges 2 Nov 10:00–12:00 and
 * 4 Nov 00:00–01:30. Kept rows (id, time, NodePool, reason, blocked, seq):
 */
const Q = (iso: string) => Date.parse(`2026-11-0${iso}Z`);
const QUARTER_ROWS: [string, number, string, string, number, number][] = [
  ['p', Q('2T09:00:00'), 'general', 'Underutilized', 0, 0], // before the range
  ['q1', Q('2T11:00:00'), 'general', 'Underutilized', 0, 1], // raw edge, 12-hour bucket 2 Nov 00:00
  ['q2', Q('2T13:00:00'), 'general', 'Underutilized', 0, 3], // quarter 2 Nov 12:00 (bucket 2 Nov 12:00), after q3 by seq
  ['q3', Q('2T13:00:00'), 'general', 'Underutilized', 0, 2],
  ['x', Q('2T14:00:00'), 'general', 'Underutilized', 1, 4], // blocked: never a marker
  ['q4', Q('2T19:30:00'), 'general', 'Underutilized', 0, 5], // quarter 2 Nov 18:00, same bucket
  ['e1', Q('3T02:00:00'), 'general', 'Empty', 0, 6], // quarter 3 Nov 00:00, bucket 3 Nov 00:00
  ['q5', Q('3T07:00:00'), 'general', 'Underutilized', 0, 7], // quarter 3 Nov 06:00, same bucket
  ['r1', Q('3T13:00:00'), 'batch', 'Underutilized', 0, 8], // quarter 3 Nov 12:00, bucket 3 Nov 12:00
  ['q6', Q('4T00:30:00'), 'general', 'Underutilized', 0, 9], // raw edge, bucket 4 Nov 00:00
  ['q7', Q('4T02:00:00'), 'general', 'Underutilized', 0, 10], // after the range
];

describe('markerGroups over quarter days', () => {
  let qdb: Db;
  const quarterRange = { fromMs: Q('2T10:00:00'), toMs: Q('4T01:30:00'), bucketMs: 12 * HOUR_MS };
  const groupsOf = (r: typeof quarterRange) =>
    createDisruptionsRepository(qdb)
      .markerGroups(r)
      .map((g) => [
        g.id,
        new Date(g.atMs).toISOString().slice(8, 16),
        g.nodePool,
        g.reason,
        g.count,
        new Date(g.lastAtMs).toISOString().slice(8, 16),
      ]);
  beforeAll(() => {
    qdb = openDb({ path: join(mkdtempSync(join(tmpdir(), 'disruption-quarters-')), 'ledger.db') });
    const insert = qdb.prepare(`
      INSERT INTO disruptions (id, at, node_name, nodeclaim, nodepool, reason, action, source, spot_interrupted, instance_type,
        capacity_type, replacements_json, message, blocked, seq, cluster_id)
      VALUES (?, ?, NULL, NULL, ?, ?, 'Delete', 'event', 0, NULL, NULL, '[]', '', ?, ?, 1)`);
    for (const [id, at, pool, reason, blocked, seq] of QUARTER_ROWS) insert.run(id, at, pool, reason, blocked, seq);
    // Written here by hand, so counted by hand too (refresh() does it after it rebuilds).
    createDisruptionsRepository(qdb).recountQuarters(0);
  });
  afterAll(() => qdb?.close());

  it('counts 12-hour buckets from the quarters inside the range and the disruptions at its edges', () => {
    // 2 Nov 00:00: q1 alone (p is before the range). 2 Nov 12:00: q3 (13:00, seq 2, before q2), q2, q4 -> 3, last 19:30
    // (x is blocked). 3 Nov 00:00: e1 (Empty) and q5 (Underutilized) apart. 3 Nov 12:00: r1 (batch). 4 Nov 00:00: q6
    // (q7 is after the range). By first time.
    expect(groupsOf(quarterRange)).toEqual([
      ['q1', '02T11:00', 'general', 'Underutilized', 1, '02T11:00'],
      ['q3', '02T13:00', 'general', 'Underutilized', 3, '02T19:30'],
      ['e1', '03T02:00', 'general', 'Empty', 1, '03T02:00'],
      ['q5', '03T07:00', 'general', 'Underutilized', 1, '03T07:00'],
      ['r1', '03T13:00', 'batch', 'Underutilized', 1, '03T13:00'],
      ['q6', '04T00:30', 'general', 'Underutilized', 1, '04T00:30'],
    ]);
    // One NodePool: batch's alone.
    expect(
      createDisruptionsRepository(qdb)
        .markerGroups({ ...quarterRange, nodePool: 'batch' })
        .map((g) => g.id),
    ).toEqual(['r1']);
  });

  it('recounts from the quarter holding the change on, as refresh() replaces the kept rows from a time', () => {
    // q4 (19:30) goes: the 2 Nov 18:00 quarter is recounted (and holds nothing now), the 12:00 one kept -> q3 x2, last 13:00.
    // Quarters left: 2 Nov 06:00 (p, q1), 12:00 (q2, q3), 3 Nov 00:00, 06:00, 12:00, 4 Nov 00:00 (q6, q7): 6.
    qdb.prepare("DELETE FROM disruptions WHERE id = 'q4'").run();
    createDisruptionsRepository(qdb).recountQuarters(Q('2T19:00:00'));
    expect(groupsOf(quarterRange)[1]).toEqual(['q3', '02T13:00', 'general', 'Underutilized', 2, '02T13:00']);
    expect(qdb.prepare('SELECT COUNT(*) FROM disruption_quarters').pluck().get()).toBe(6);
  });
});
