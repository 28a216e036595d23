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
