import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { NodeClaimRecord } from '../../core/model.js';
import { GiB, type NodeSpec, snapshotWrite } from '../../test/fixtures/snapshots.js';
import { type Db, openDb } from '../open-db.js';
import { createAnalyticsEventsRepository } from './analytics-events-repository.js';
import { createBillContextRepository } from './bill-context-repository.js';
import { createKubeRepository } from './kube-repository.js';
import { OPEN_LAST_SEEN } from './pod-rows.js';
import { createRetentionPruneRepository } from './retention-prune-repository.js';

/*
 * Issue 24 (the collector as a good tenant): a snapshot no longer rewrites the row of every node and NodeClaim it lists
 * again. last_seen is open while the cluster's newest snapshot lists the node and closed, at the last snapshot that
 * did, by the first that does not (db/repositories/node-sightings.ts); the readers that show it read an open one as the
 * newest snapshot's instant, what the row held before.
 */

const dir = mkdtempSync(join(tmpdir(), 'ledger-node-sightings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T = Date.parse('2026-11-02T10:00:00Z');
const STEP = 300_000;

const spec = (name: string): NodeSpec => ({
  name,
  nodePool: 'general',
  capacityType: 'on-demand',
  instanceType: 'm5.large',
  cpuMillicores: 1930,
  memoryBytes: 7 * GiB,
  usdPerHour: 0.096,
  requestedCpuMillicores: 500,
  requestedMemoryBytes: GiB,
});

const claim = (name: string, i: number): NodeClaimRecord => ({
  name,
  nodePool: 'general',
  nodeName: name,
  instanceType: 'm5.large',
  capacityType: 'on-demand',
  zone: 'us-west-2a',
  instanceId: `i-0${String(i).padStart(16, '0')}`,
  createdAt: T - STEP,
  disruptionReason: null,
  expireAfter: '720h',
  conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', lastTransitionTime: new Date(T - STEP).toISOString() }],
});

/** One snapshot at `at` listing `names` (each node with its NodeClaim of the same name). */
function write(db: Db, at: number, names: string[]): void {
  const w = snapshotWrite(at, names.map(spec));
  w.snapshot.nodeClaims = names.map((n, i) => claim(n, i));
  createKubeRepository(db).writeSnapshot(w);
}

/** What the bill context and the disruptions' NodeClaim source read of each: [first seen, last seen, deleted]. */
function read(db: Db): { nodes: Record<string, number[]>; claims: Record<string, (number | null)[]> } {
  const nodes = createBillContextRepository(db).nodesOverlapping(T - 10 * STEP, T + 100 * STEP, 1);
  const claims = createAnalyticsEventsRepository(db).nodeClaims({ fromMs: T - 10 * STEP, toMs: T + 100 * STEP, clusterId: 1 });
  return {
    nodes: Object.fromEntries(nodes.map((n) => [n.name, [n.firstSeen, n.lastSeen, n.deletedAt ?? -1]])),
    claims: Object.fromEntries(claims.map((c) => [c.name, [c.lastSeenMs, c.deletedAtMs]])),
  };
}

describe('nodes and NodeClaims: last seen open while listed, closed when gone', () => {
  it('reads a node seen in snapshots 1-3, absent in 4, back in 5 as its sightings say, after each snapshot', () => {
    const db = openDb({ path: join(dir, 'gone-and-back.db') });
    // t1..t5 = T, T+5 min, …, T+20 min. n-a is listed by every snapshot; n-b by 1-3 and 5.
    const t = (k: number) => T + (k - 1) * STEP;
    const listed = [['n-a', 'n-b'], ['n-a', 'n-b'], ['n-a', 'n-b'], ['n-a'], ['n-a', 'n-b']];
    const after: ReturnType<typeof read>[] = [];
    listed.forEach((names, i) => {
      write(db, t(i + 1), names);
      after.push(read(db));
    });
    // After 3: both listed by the newest (t3): first seen t1, last seen t3, not gone (-1).
    expect(after[2].nodes).toEqual({ 'n-a': [t(1), t(3), -1], 'n-b': [t(1), t(3), -1] });
    expect(after[2].claims).toEqual({ 'n-a': [t(3), null], 'n-b': [t(3), null] });
    // After 4: n-b last seen at t3 (the last snapshot that listed it), gone at t4 (the first that did not); n-a at t4.
    expect(after[3].nodes).toEqual({ 'n-a': [t(1), t(4), -1], 'n-b': [t(1), t(3), t(4)] });
    expect(after[3].claims).toEqual({ 'n-a': [t(4), null], 'n-b': [t(3), t(4)] });
    // After 5: n-b back: first seen still t1 (one row a name, as before), last seen t5, no longer gone.
    expect(after[4].nodes).toEqual({ 'n-a': [t(1), t(5), -1], 'n-b': [t(1), t(5), -1] });
    expect(after[4].claims).toEqual({ 'n-a': [t(5), null], 'n-b': [t(5), null] });
    // Stored: open while listed; n-b's row was closed at t3 in between and opened again.
    expect(db.prepare('SELECT name, last_seen FROM nodes ORDER BY name').raw().all()).toEqual([
      ['n-a', OPEN_LAST_SEEN],
      ['n-b', OPEN_LAST_SEEN],
    ]);
    db.close();
  });

  it('prunes a node last seen before the cut, and an open one only when its cluster has no snapshot since the cut', () => {
    const db = openDb({ path: join(dir, 'prune.db') });
    // n-c listed at t1 only (closed at t1, gone at t2); n-a at t1 and t2 (open).
    write(db, T, ['n-a', 'n-c']);
    write(db, T + STEP, ['n-a']);
    const prune = (cut: number) => {
      const steps = createRetentionPruneRepository(db).steps.filter((s) => s.name === 'nodes' || s.name === 'nodeclaims');
      for (const s of steps) for (let more = true; more;) more = s.batch(cut, 1000).more;
      return db.prepare('SELECT name FROM nodes UNION ALL SELECT name FROM nodeclaims ORDER BY 1').pluck().all();
    };
    // Cut between t1 and t2: n-c (last seen t1) goes; n-a, last seen t2 (the newest snapshot), stays.
    expect(prune(T + 1)).toEqual(['n-a', 'n-a']);
    // Cut after t2, the cluster's newest snapshot: n-a was last seen before it too, and goes as it did before.
    expect(prune(T + STEP + 1)).toEqual([]);
    db.close();
  });

  it('writes no page of nodes, NodeClaims or their indexes for 1,000 of each seen again as they were', () => {
    // Before: every snapshot rewrote each node's and NodeClaim's row (last_seen, deleted_at = NULL, …) and the NodeClaims'
    // instance-id and deleted_at index entries: 300 of the 391 WAL frames of a 1,000-node snapshot (bench/watch-pages.ts).
    const path = join(dir, 'seen-again.db');
    const db = openDb({ path });
    const names = Array.from({ length: 1000 }, (_, i) => `ip-10-0-${Math.floor(i / 250)}-${i % 250}.ec2.internal`);
    write(db, T, names);
    db.pragma('wal_checkpoint(TRUNCATE)');
    write(db, T + STEP, names);
    // The pages the second snapshot wrote: the WAL's frames (a 32-byte header, then a 24-byte header, page number
    // first, and the page), each page's table or index from dbstat.
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const wal = readFileSync(`${path}-wal`);
    const owner = new Map(db.prepare('SELECT pageno, name FROM dbstat').raw().all() as [number, string][]);
    const written = new Set<string>();
    for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) written.add(owner.get(wal.readUInt32BE(at)) ?? '?');
    const nodeObjects = db
      .prepare("SELECT name FROM sqlite_schema WHERE tbl_name IN ('nodes', 'nodeclaims') AND type IN ('table', 'index')")
      .pluck()
      .all() as string[];
    expect(nodeObjects).toContain('nodeclaims_instance_id');
    expect(written.has('snapshot_node_rows')).toBe(true); // the snapshot itself was written
    expect([...written].filter((o) => nodeObjects.includes(o))).toEqual([]);
    expect(db.prepare('SELECT COUNT(*) FROM nodeclaims WHERE last_seen = ?').pluck().get(OPEN_LAST_SEEN)).toBe(1000);
    db.close();
  });
});
