import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PodRecord } from '../core/model.js';
import { openDb } from '../db/open-db.js';
import { createKubeRepository } from '../db/repositories/kube-repository.js';
import { GiB, type NodeSpec, snapshotWrite } from '../test/fixtures/snapshots.js';

/**
 * Issue 24 item 3, focused: SQLite pages a snapshot writes (WAL frames, 4 KiB each) for NODES nodes of PODS_PER_NODE
 * pods, CHURN of the pods replaced each snapshot, through the collector's writer (kube-repository), the WAL emptied
 * before each snapshot. `npx tsx bench/watch-pages.ts [nodes] [podsPerNode] [churn]`; prints one JSON line.
 */
const [nodes = 500, perNode = 30, churn = 0.01] = process.argv.slice(2).map(Number);
const dir = mkdtempSync(join(tmpdir(), 'ledger-watch-pages-'));
const db = openDb({ path: join(dir, 'ledger.db') });
const kube = createKubeRepository(db);
const T = Date.parse('2026-11-02T10:00:00Z');
let next = 0;
const pod = (nodeName: string): PodRecord => {
  const i = next++;
  return {
    uid: `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
    namespace: `ns-${i % 40}`,
    name: `web-${i % 300}-7d9f8b6c5-${i.toString(36)}`,
    nodeName,
    phase: 'Running',
    ownerKind: 'ReplicaSet',
    ownerName: `web-${i % 300}-7d9f8b6c5`,
    team: null,
    requests: { cpuMillicores: 250, memoryBytes: GiB / 4, pods: 1, gpu: 0 },
    doNotDisrupt: false,
    createdAt: T - 60_000,
    labels: { app: `web-${i % 300}` },
  };
};
const nodeSpecs: NodeSpec[] = Array.from({ length: nodes }, (_, i) => ({
  name: `ip-10-0-${Math.floor(i / 250)}-${i % 250}.ec2.internal`,
  nodePool: i % 3 === 0 ? 'spot' : 'general',
  capacityType: i % 3 === 0 ? 'spot' : 'on-demand',
  instanceType: 'm5.2xlarge',
  cpuMillicores: 7910,
  memoryBytes: 30 * GiB,
  usdPerHour: 0.384,
  requestedCpuMillicores: perNode * 250,
  requestedMemoryBytes: (perNode * GiB) / 4,
}));
let pods: PodRecord[] = nodeSpecs.flatMap((n) => Array.from({ length: perNode }, () => pod(n.name)));
const frames: number[] = [];
for (let s = 0; s < 6; s++) {
  if (s > 0) {
    // churn: the first CHURN of the pods go, as many new ones come on the same nodes
    const gone = Math.round(pods.length * churn);
    pods = [...pods.slice(gone), ...pods.slice(0, gone).map((p) => pod(p.nodeName ?? nodeSpecs[0].name))];
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  const w = snapshotWrite(T + s * 300_000, nodeSpecs);
  w.snapshot.pods = pods;
  kube.writeSnapshot(w);
  const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
  frames.push(log);
}
const pageSize = db.pragma('page_size', { simple: true }) as number;
db.close();
rmSync(dir, { recursive: true, force: true });
const later = frames.slice(1);
const mean = later.reduce((a, b) => a + b, 0) / later.length;
console.log(
  JSON.stringify({
    nodes,
    pods: nodes * perNode,
    churn,
    framesPerSnapshot: frames,
    meanLaterFrames: mean,
    meanLaterBytes: mean * pageSize,
  }),
);
