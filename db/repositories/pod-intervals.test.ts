import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PodRecord } from '../../core/model.js';
import { GiB, type NodeSpec, snapshotWrite } from '../../test/fixtures/snapshots.js';
import { type Db, openDb } from '../open-db.js';
import { createBillContextRepository } from './bill-context-repository.js';
import { createClusterSnapshotRepository } from './cluster-snapshot-repository.js';
import { createKubeRepository } from './kube-repository.js';
import { OPEN_LAST_SEEN } from './pod-rows.js';
import { createRetentionPruneRepository } from './retention-prune-repository.js';
import { createUsageRepository } from './usage-repository.js';

/*
 * Issue 24 item 3: a snapshot no longer rewrites the last sighting of every pod it lists again; a pod's interval is
 * open while its cluster's newest snapshot lists it and closed by the first that does not. Six snapshots five
 * minutes apart with pods coming and going (by hand below) are written by the collector's writer; a copy of the file
 * is given what the writer before this change left (every pod's last_seen its last listing's instant, worked out from
 * the table below, not read from the code), and every reader of pods' last_seen answers the same on both.
 */

const dir = mkdtempSync(join(tmpdir(), 'ledger-pod-intervals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T = Date.parse('2026-11-02T10:00:00Z');
const STEP = 300_000;
const NODES = ['n-a', 'n-b', 'n-c'];

/** The pods each snapshot lists (index = snapshot): name -> node (null: pending). */
const LISTED: Record<string, string | null>[] = [
  { web1: 'n-a', web2: 'n-a', job1: 'n-b', pend1: null },
  { web1: 'n-a', web2: 'n-a', job1: 'n-b', pend1: 'n-c' }, // pend1 bound
  { web1: 'n-a', web2: 'n-a', pend1: 'n-c', web3: 'n-b' }, // job1 gone
  { web1: 'n-a', pend1: 'n-c', web3: 'n-b' }, // web2 gone
  { web1: 'n-a', pend1: 'n-c', web3: 'n-b', web4: null },
  { web1: 'n-a', web3: 'n-b', web4: 'n-c' }, // pend1 gone, web4 bound
];
/** Each pod's last listing, by hand from LISTED: what the old writer's last_seen held. */
const LAST_LISTED: Record<string, number> = {
  job1: T + 1 * STEP,
  web2: T + 2 * STEP,
  pend1: T + 4 * STEP,
  web1: T + 5 * STEP,
  web3: T + 5 * STEP,
  web4: T + 5 * STEP,
};

const uid = (name: string): string => `00000000-0000-4000-8000-${name.padStart(12, '0').replace(/[^0-9a-f]/g, 'a')}`;

function pod(name: string, nodeName: string | null, i: number): PodRecord {
  return {
    uid: uid(name),
    namespace: name.startsWith('job') ? 'batch' : 'shop',
    name,
    nodeName,
    phase: nodeName === null ? 'Pending' : 'Running',
    ownerKind: 'ReplicaSet',
    ownerName: name.replace(/\d+$/, ''),
    team: null,
    requests: { cpuMillicores: 250, memoryBytes: GiB / 4, pods: 1, gpu: 0 },
    doNotDisrupt: false,
    createdAt: T - STEP + i,
    labels: { app: name },
  };
}

function write(db: Db): void {
  const kube = createKubeRepository(db);
  LISTED.forEach((listed, i) => {
    const nodes: NodeSpec[] = NODES.map((name) => ({
      name,
      nodePool: 'general',
      capacityType: 'on-demand',
      instanceType: 'm5.large',
      cpuMillicores: 1930,
      memoryBytes: 7 * GiB,
      usdPerHour: 0.096,
      requestedCpuMillicores: 250 * Object.values(listed).filter((n) => n === name).length,
      requestedMemoryBytes: (GiB / 4) * Object.values(listed).filter((n) => n === name).length,
    }));
    const w = snapshotWrite(T + i * STEP, nodes);
    w.snapshot.pods = Object.entries(listed).map(([name, node]) => pod(name, node, i));
    kube.writeSnapshot(w);
  });
}

/** What every reader of pods' last_seen answers on a file. */
function readers(path: string) {
  const db = openDb({ path });
  try {
    const snapshots = createClusterSnapshotRepository(db);
    const atEach = LISTED.map((_, i) =>
      (snapshots.clusterObjectsAt(T + i * STEP)?.objects.pods ?? []).map((p) => `${p.metadata.name}@${p.spec.nodeName ?? '-'}`).sort(),
    );
    const launches = createBillContextRepository(db).launches(NODES, 1);
    const owners = [...createUsageRepository(db).podOwners(1).entries()];
    // Retention at a cut between snapshots 2 and 3: the pods last seen before it go (job1's, web2's rows).
    const prune = createRetentionPruneRepository(db).steps.find((s) => s.name === 'pods');
    let deleted = 0;
    for (let more = true; more;) {
      const b = prune?.batch(T + 2 * STEP + 1, 1000) ?? { deleted: 0, more: false };
      deleted += b.deleted;
      more = b.more;
    }
    const left = db.prepare('SELECT name FROM pods ORDER BY name').pluck().all();
    return { atEach, launches, owners, deleted, left };
  } finally {
    db.close();
  }
}

describe('pod intervals: open while listed, closed when gone', () => {
  it("stores each pod's last listing (open while the newest snapshot lists it), and every reader answers as on the old writer's file", () => {
    const path = join(dir, 'new.db');
    const db = openDb({ path });
    write(db);
    const stored = Object.fromEntries(db.prepare('SELECT name, last_seen FROM pods').raw().all() as [string, number][]);
    db.close();
    // Gone pods closed at their last listing; the newest snapshot's pods open.
    expect(stored).toEqual({ ...LAST_LISTED, web1: OPEN_LAST_SEEN, web3: OPEN_LAST_SEEN, web4: OPEN_LAST_SEEN });

    // The old writer's file: the same, every pod's last_seen its last listing.
    const oldPath = join(dir, 'old.db');
    copyFileSync(path, oldPath);
    const old = openDb({ path: oldPath });
    const set = old.prepare('UPDATE pods SET last_seen = ? WHERE name = ?');
    for (const [name, at] of Object.entries(LAST_LISTED)) set.run(at, name);
    expect(old.prepare('SELECT COUNT(*) FROM pods WHERE last_seen = ?').pluck().get(OPEN_LAST_SEEN)).toBe(0);
    old.close();

    const got = readers(path);
    const want = readers(oldPath);
    // The readers see pods: each snapshot lists what LISTED says.
    expect(want.atEach.map((names) => names.length)).toEqual(LISTED.map((l) => Object.keys(l).length));
    expect(want.atEach[1]).toEqual(['job1@n-b', 'pend1@n-c', 'web1@n-a', 'web2@n-a']);
    expect(want.deleted).toBe(2);
    // Launches: the pods on each node at its first snapshot (the view's node is a pod's last one: pend1, pending then,
    // counts on n-c, on either file).
    expect(want.launches.pods.map((p) => p.name).sort()).toEqual(['job1', 'pend1', 'web1', 'web2']);
    expect(want.owners.length).toBe(6);
    expect(got).toEqual(want);
  });
});
