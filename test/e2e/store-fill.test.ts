import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillStore, STEP_MS } from '../../bench/store-fill.js';
import { openDb, type Db } from '../../db/open-db.js';
import { createClusterSnapshotRepository } from '../../db/repositories/cluster-snapshot-repository.js';

/*
 * The store bench's fill (bench/store-fill.ts) at a toy size: 2 days of 5-minute snapshots of 6 nodes, 10 pods each,
 * the first day generated in bulk, the second written through the kube repository as the collector writes it. The
 * what-if routes are timed on its last snapshot: it must hold the cluster's pods, not only the ones new in its last
 * 5 minutes (the fill wrote each pod once, at first sight, and the writer closed it at the next snapshot).
 */

let dir: string;
let db: Db;
let endMs: number;
const details: Record<string, unknown> = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-store-fill-'));
  db = openDb({ path: join(dir, 'store.db') });
  endMs = await fillStore({ quick: true, tmp: dir, log: () => undefined }, db, { nodes: 6, podsPerNode: 10, days: 2 }, details);
}, 180_000);

afterAll(() => {
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the store bench fill', () => {
  it('leaves every pod of the cluster alive at the last snapshot, as the collector would', () => {
    const last = createClusterSnapshotRepository(db).clusterObjectsAt(endMs);
    // The last snapshot: 5 minutes before the end (snapshots every 5 minutes, the end excluded).
    expect(last?.snapshot.takenAt).toBe(endMs - STEP_MS);
    // The scale scenario runs nodes x podsPerNode pods at its end (its DaemonSet pods included): 6 x 10 = 60, on the
    // snapshot's 6 nodes.
    expect(last?.objects.nodes.length).toBe(6);
    expect(last?.objects.pods.length).toBe(60);
    // The bench says so in its details.
    expect((details.fill as { atEnd: unknown }).atEnd).toEqual({ nodes: 6, pods: 60 });
  });
});
