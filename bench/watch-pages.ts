import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NodeClaimRecord, PodRecord } from '../core/model.js';
import { openDb } from '../db/open-db.js';
import { createKubeRepository } from '../db/repositories/kube-repository.js';
import { GiB, type NodeSpec, snapshotWrite } from '../test/fixtures/snapshots.js';

/**
 * Issue 24 item 3, focused: SQLite pages a snapshot writes (WAL frames, 4 KiB each) for NODES nodes of PODS_PER_NODE
 * pods, CHURN of the pods replaced each snapshot, through the collector's writer (kube-repository), the WAL emptied
 * before each snapshot. Every Karpenter node has its NodeClaim, with the conditions a ready one carries. Prints one JSON
 * line: the frames of each snapshot, and of the later ones by table or index (the WAL's page numbers mapped through
 * dbstat). `npx tsx bench/watch-pages.ts [nodes] [podsPerNode] [churn]`.
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
const claimConditions = () =>
  ['Launched', 'Registered', 'Initialized', 'Ready', 'Consolidatable'].map((type) => ({
    type,
    status: 'True',
    reason: type,
    message: '',
    lastTransitionTime: new Date(T - 3_600_000).toISOString(),
  }));
const nodeClaims: NodeClaimRecord[] = nodeSpecs.map((n, i) => ({
  name: n.name,
  nodePool: n.nodePool,
  nodeName: n.name,
  instanceType: n.instanceType ?? 'm5.2xlarge',
  capacityType: n.capacityType,
  zone: 'us-west-2a',
  instanceId: `i-0${i.toString(16).padStart(16, '0')}`,
  createdAt: T - 3_600_000,
  disruptionReason: null,
  expireAfter: '720h',
  conditions: claimConditions(),
}));
let pods: PodRecord[] = nodeSpecs.flatMap((n) => Array.from({ length: perNode }, () => pod(n.name)));
const frames: number[] = [];
const byObject = new Map<string, number>();
const walPages = (): number[] => {
  // WAL: a 32-byte header, then frames of a 24-byte header (the page number first, big-endian) and the page.
  const wal = readFileSync(join(dir, 'ledger.db-wal'));
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const pages: number[] = [];
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) pages.push(wal.readUInt32BE(at));
  return pages;
};
for (let s = 0; s < 6; s++) {
  if (s > 0) {
    // churn: the first CHURN of the pods go, as many new ones come on the same nodes
    const gone = Math.round(pods.length * churn);
    pods = [...pods.slice(gone), ...pods.slice(0, gone).map((p) => pod(p.nodeName ?? nodeSpecs[0].name))];
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  const w = snapshotWrite(T + s * 300_000, nodeSpecs);
  w.snapshot.pods = pods;
  w.snapshot.nodeClaims = nodeClaims;
  kube.writeSnapshot(w);
  if (s > 0) {
    const owner = new Map(
      (db.prepare('SELECT pageno, name FROM dbstat').raw().all() as [number, string][]).map(([page, name]) => [page, name]),
    );
    for (const page of new Set(walPages())) {
      const name = owner.get(page) ?? '(free or header)';
      byObject.set(name, (byObject.get(name) ?? 0) + 1);
    }
  }
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
    meanLaterFramesByObject: Object.fromEntries(
      [...byObject].sort((a, b) => b[1] - a[1]).map(([name, n]) => [name, Math.round((n / later.length) * 10) / 10]),
    ),
  }),
);
