import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DescribeSpotPriceHistoryCommand, EC2Client } from '@aws-sdk/client-ec2';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/main.js';
import { seedFromSandbox } from '../../cli/seed-sandbox.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import type { SimulationResult } from '../../core/karpenter/scheduling/index.js';
import { createClusterSnapshotRepository } from '../../db/repositories/cluster-snapshot-repository.js';
import { createSnapshotPricesRepository } from '../../db/repositories/snapshot-prices-repository.js';
import type { NodesResponse } from '../../server/schemas/efficiency.js';
import type {
  HeadroomResponse,
  NodePoolEditResponse,
  PredictResponse,
  WhyNotResponse,
  WorkloadPlacementResponse,
} from '../../server/schemas/whatif.js';
import type { RecommendationsResponse } from '../../server/schemas/workloads.js';
import { createWhatIfWorlds } from '../../server/services/whatif-world.js';
import { startSeededApi, type SeededApi } from '../fixtures/seeded-api.js';

/*
 * Issue 21 through the path a user takes: the week4 sandbox (sandbox21: tainted `dedicated` pool with its own
 * DaemonSet, a PDB on payments-api, zone-spread checkout-web, arm64-only image-resizer beside amd64-only
 * fraud-scorer in `steady`, the EBS-backed ledger-db StatefulSet, finished reconcile CronJob pods, the on-demand-only
 * `steady` pool) read by the real collectors into SQLite (seedFromSandbox, one day, a snapshot every 5 minutes: the
 * day e2e/analytics-sandbox.test.ts reads, from the seeded-database cache, seeded once for both), and the what-if API
 * over it on 127.0.0.1. One sandbox for the file: it also serves `kubectl get -o yaml` for the
 * agreement with `simulate` (item 5). Needs kubectl (/usr/bin/kubectl; CI installs it): it does not skip.
 */

const HOUR = 3_600_000;
const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';
let api: SeededApi;

beforeAll(async () => {
  api = await startSeededApi({ prefix: 'ledger-whatif-week4-', days: 1, usage: true, cached: true });
}, 300_000);

afterAll(async () => {
  await api?.close();
});

async function get<T>(path: string): Promise<T> {
  const res = await fetch(`${api.base}${path}`);
  if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

const iso = (offsetMs: number) => new Date(api.startMs + offsetMs).toISOString();

describe('issue 21 items 1-3 and 5 on week4, collector -> SQLite -> API', () => {
  it('zone spread: checkout-web (6 replicas, maxSkew 1 over 3 zones, DoNotSchedule) re-packs onto 3 nodes, not 1', async () => {
    // Hand-worked: 6 x 500m / 1 GiB = 3 vCPU / 6 GiB fits one 4-vCPU node, but maxSkew 1 over us-east-1a/b/c puts 2
    // pods in each zone, so each zone needs a node of its own: 3 nodes. Without the stored spread: 1 node.
    const at = iso(12 * HOUR);
    const r = await get<WorkloadPlacementResponse>(
      `/api/whatif/workload?at=${at}&namespace=storefront&kind=Deployment&name=checkout-web&nodepools=steady`,
    );
    expect(r.placements).toHaveLength(1);
    expect(r.placements[0].unschedulable).toEqual([]);
    expect(r.placements[0].footprint.nodes).toBe(3);
  });

  it('the Graviton edit (steady: arch=arm64) does not move the amd64-only fraud-scorer: its 2 pods are unschedulable', async () => {
    const at = iso(12 * HOUR);
    const r = await get<NodePoolEditResponse>(`/api/whatif/nodepool-edit?at=${at}&nodepool=steady&arch=arm64`);
    // fraud-scorer requires kubernetes.io/arch In [amd64] (node affinity); checkout-web allows both, image-resizer
    // asks for arm64. Only fraud-scorer's two replicas are left without a node.
    expect(r.unschedulable.map((u) => u.pod.replace(/-[a-z0-9]+-[a-z0-9]+$/, '')).sort()).toEqual([
      'payments/fraud-scorer',
      'payments/fraud-scorer',
    ]);
    expect(r.savingsUsdPerHour).toBeNull();
  });

  it('finished CronJob pods take no room: at 12:30 (reconcile ran 12:15-12:21) why-not and the packing count the same pods per node', async () => {
    const at = iso(12.5 * HOUR);
    const w = await get<WhyNotResponse>(`/api/whatif/why-not?at=${at}`);
    const { rows } = await get<NodesResponse>(`/api/nodes?at=${at}&limit=5000`);
    const packing = new Map(rows.map((n) => [n.name, n.requestedPods]));
    // The Nodes page's count is a time-weighted average over the snapshot's step (5 minutes): the same pods all along
    // give the whole count to float noise (7 as 6.999999999999999), so to 9 places; a pod more or less is off by 1.
    for (const n of w.nodes) expect(n.pods, n.node).toBeCloseTo(packing.get(n.node) ?? Number.NaN, 9);
  });

  it('Savings and Workloads price one NodePool alike: the Workloads re-pack before right-sizing is the Savings re-pack', async () => {
    const rec = await get<RecommendationsResponse>('/api/workloads/recommendations');
    expect(rec.pricesAt).not.toBeNull();
    const h = await get<HeadroomResponse>(`/api/whatif/headroom?at=${rec.pricesAt ?? ''}`);
    const engine = rec.nodePools.filter((p) => p.dollarMethod === 'engine-repack');
    expect(engine.length).toBeGreaterThan(0);
    for (const p of engine) {
      const row = h.rows.find((r) => r.nodePool === p.nodePool);
      expect(p.usdPerHourBefore, p.nodePool).toBeCloseTo(row?.repack.usdPerHour ?? -1, 6);
      expect(p.nodesBefore, p.nodePool).toBe(row?.repack.nodes);
    }
  });
});

/** kubectl against the sandbox with its clock at `at`. */
async function kubectl(at: number, args: string[]): Promise<string> {
  const res = await fetch(`${api.sandbox.url}/_sandbox/clock`, {
    method: 'POST',
    body: JSON.stringify({ time: new Date(at).toISOString() }),
  });
  expect(res.ok).toBe(true);
  // Asynchronously: the sandbox answers from this process.
  const { stdout } = await promisify(execFile)(KUBECTL, ['--kubeconfig', api.sandbox.kubeconfigPath, ...args], {
    encoding: 'utf8',
    maxBuffer: 256 * 2 ** 20,
  });
  return stdout;
}

async function simulateJson(argv: string[]): Promise<SimulationResult> {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  const code = await main(['simulate', ...argv, '--json']);
  vi.restoreAllMocks();
  expect(err.join('\n')).toBe('');
  expect(code).toBe(0);
  return JSON.parse(out.join('\n')) as SimulationResult;
}

const KINDS = 'nodepools,nodes,pods,pdb,daemonsets,pvc,pv,storageclass,csinode,ec2nodeclass,nodeoverlay';

/**
 * The agreement at +`hours`: the sandbox's objects then (kubectl, every kind the engine reads) fed to `simulate
 * --json` with the catalogue the what-if used and the collected Karpenter release, against /api/whatif/why-not,
 * headroom and predict at the snapshot of the same moment.
 */
const agreement = async (hours: number): Promise<void> => {
  const atMs = api.startMs + hours * HOUR;
  const dir = api.dir;
  const dump = join(dir, `objects-${hours}.yaml`);
  writeFileSync(dump, await kubectl(atMs, ['get', KINDS, '-A', '-o', 'yaml']));
  // The catalogue the what-if used (its stored prices at the snapshot), written for simulate's --instance-types.
  const world = createWhatIfWorlds({
    snapshots: createClusterSnapshotRepository(api.db),
    prices: createSnapshotPricesRepository(api.db),
  }).load(atMs).world;
  const types = join(dir, `types-${hours}.json`);
  writeFileSync(types, JSON.stringify(world.catalogue));
  const version = world.karpenterVersion === undefined ? [] : ['--karpenter-version', world.karpenterVersion];
  const sim = await simulateJson(['--objects', dump, '--instance-types', types, '--now', new Date(atMs).toISOString(), ...version]);

  const w = await get<WhyNotResponse>(`/api/whatif/why-not?at=${new Date(atMs).toISOString()}`);
  const h = await get<HeadroomResponse>(`/api/whatif/headroom?at=${new Date(atMs).toISOString()}`);
  const decision = sim.consolidation.decisions[0] ?? null;
  expect(w.command === null ? null : { action: w.command.action, candidates: [...w.command.candidates].sort() }).toEqual(
    decision === null ? null : { action: decision.action, candidates: [...decision.candidates].sort() },
  );
  const simReasons = Object.fromEntries(sim.consolidation.unconsolidatable.map((u) => [u.node, u.reason]));
  const apiReasons = Object.fromEntries(w.nodes.filter((n) => n.decision === 'keep').map((n) => [n.node, n.reason]));
  expect(apiReasons).toEqual(simReasons);
  const cents = (usd: number) => Math.round(usd * 100);
  expect(cents(h.totals.todayUsdPerHour)).toBe(cents(sim.costUsdPerHour.before));

  // Predict: the same Deployment placed by the API and by simulate on the dump with it added.
  const deployment = [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata: {name: api, namespace: shop}',
    'spec:',
    '  replicas: 4',
    '  selector: {matchLabels: {app: api}}',
    '  template:',
    '    metadata: {labels: {app: api}}',
    '    spec:',
    '      containers: [{name: c, image: x, resources: {requests: {cpu: "3", memory: 6Gi}}}]',
  ].join('\n');
  const res = await fetch(`${api.base}/api/whatif/predict?at=${new Date(atMs).toISOString()}`, {
    method: 'POST',
    body: deployment,
    headers: { 'content-type': 'application/yaml' },
  });
  expect(res.status).toBe(200);
  const p = (await res.json()) as PredictResponse;
  const withDeployment = join(dir, `objects-predict-${hours}.yaml`);
  writeFileSync(withDeployment, `${await kubectl(atMs, ['get', KINDS, '-A', '-o', 'yaml'])}\n---\n${deployment}\n`);
  const simP = await simulateJson([
    '--objects',
    withDeployment,
    '--instance-types',
    types,
    '--now',
    new Date(atMs).toISOString(),
    ...version,
  ]);
  const ours = (pods: string[]) => pods.filter((x) => x.startsWith('shop/api-'));
  const claims = (list: { nodePool: string; instanceType: string; capacityType: string; zone: string; pods: string[] }[]) =>
    list
      .filter((nc) => ours(nc.pods).length > 0)
      .map((nc) => ({
        nodePool: nc.nodePool,
        instanceType: nc.instanceType,
        capacityType: nc.capacityType,
        zone: nc.zone,
        pods: ours(nc.pods).sort(),
      }))
      .sort((a, b) => a.pods[0].localeCompare(b.pods[0]));
  expect(claims(p.nodeClaims)).toEqual(claims(simP.provisioning.nodeClaims));
};

describe('agreement (issue 21 "What it must show"): kubectl get -o yaml | simulate --json and the what-if API at the same snapshot', () => {
  it.each([3, 8, 12])(
    'at +%s h: the same decision, the same reasons per node, the same cost before to the cent, the same predict',
    agreement,
  );

  // At 20:30 the reconcile CronJob pod that ran 20:15-20:21 has finished and is still listed. Karpenter's
  // nodeclaim.podevents controller (v1.14.1 pkg/controllers/nodeclaim/podevents/controller.go, "if this is a newly
  // terminal pod") restarted the node's consolidateAfter clock at 20:21, so that node waits 540 s of its 30 min. Both
  // paths date the finish by the container's state.terminated.finishedAt: simulate off the dump, the what-if off the
  // store (pods.finished_at, the pod served finished). Red before: simulate counted from the pod's start (900 s) and the
  // store dated the finish by the snapshot that saw it and left the pod out, offering the node for deletion.
  it('at +20.5 h (a CronJob pod finished 9 minutes before): the same decision and reasons on the node it ran on', () => agreement(20.5));
});

/** kubectl get KIND -o json at `at` (the sandbox's objects: the independent record the figures below are worked from). */
async function items<T>(at: number, args: string[]): Promise<T[]> {
  return (JSON.parse(await kubectl(at, ['get', ...args, '-o', 'json'])) as { items: T[] }).items;
}

const predictYaml = (name: string, cpu: string, extra: string[] = []): string =>
  [
    'apiVersion: apps/v1',
    'kind: Deployment',
    `metadata: {name: ${name}, namespace: shop}`,
    'spec:',
    '  replicas: 1',
    `  selector: {matchLabels: {app: ${name}}}`,
    '  template:',
    `    metadata: {labels: {app: ${name}}}`,
    '    spec:',
    ...extra,
    `      containers: [{name: c, image: x, resources: {requests: {cpu: "${cpu}", memory: 1Gi}}}]`,
  ].join('\n');

async function predictAt(atMs: number, yaml: string): Promise<PredictResponse> {
  const res = await fetch(`${api.base}/api/whatif/predict?at=${new Date(atMs).toISOString()}`, {
    method: 'POST',
    body: yaml,
    headers: { 'content-type': 'application/yaml' },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as PredictResponse;
}

describe('issue 21 item 2 by hand on week4, collector -> SQLite -> API', () => {
  it("the EBS-backed ledger-db pinned to its PV's zone: a pod mounting data-ledger-db-0 (PV in us-east-1a) is not placed in us-east-1b", async () => {
    const atMs = api.startMs + 12 * HOUR;
    // The PV's zone as the sandbox serves it (nodeAffinity on topology.ebs.csi.aws.com/zone): us-east-1a.
    const pvs = await items<{
      spec: {
        claimRef?: { name: string };
        nodeAffinity?: { required?: { nodeSelectorTerms: { matchExpressions: { values: string[] }[] }[] } };
      };
    }>(atMs, ['pv']);
    const pv = pvs.find((x) => x.spec.claimRef?.name === 'data-ledger-db-0');
    expect(pv?.spec.nodeAffinity?.required?.nodeSelectorTerms[0].matchExpressions[0].values).toEqual(['us-east-1a']);
    const mounting = (zone: string) =>
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata: {name: ledger-reader, namespace: payments}',
        'spec:',
        '  replicas: 1',
        '  selector: {matchLabels: {app: ledger-reader}}',
        '  template:',
        '    metadata: {labels: {app: ledger-reader}}',
        '    spec:',
        `      nodeSelector: {karpenter.sh/nodepool: general, topology.kubernetes.io/zone: ${zone}}`,
        '      volumes: [{name: data, persistentVolumeClaim: {claimName: data-ledger-db-0}}]',
        '      containers: [{name: c, image: x, resources: {requests: {cpu: "100m", memory: 128Mi}}}]',
      ].join('\n');
    // us-east-1b: the PV's zone and the pod's disagree, so no node of any zone will do (general allows all three).
    const b = await predictAt(atMs, mounting('us-east-1b'));
    expect(b.nodeClaims).toEqual([]);
    expect(b.existingNodes.flatMap((n) => n.pods)).toEqual([]);
    expect(b.unschedulable).toHaveLength(1);
    // us-east-1a: it goes (onto a node there, new or running).
    const a = await predictAt(atMs, mounting('us-east-1a'));
    expect(a.unschedulable).toEqual([]);
    expect(a.nodeClaims.every((c) => c.zone === 'us-east-1a')).toBe(true);
  });

  it('DaemonSet overhead on the tainted dedicated pool: 25m + 100m + 10m + 50m + 50m = 235m, so a new xlarge (3920m) takes a 3685m pod, not 3686m', async () => {
    // Hand-worked from week4's DaemonSets: aws-node 25m, kube-proxy 100m, ebs-csi-node 10m (tolerate everything),
    // node-exporter 50m (tolerates NoSchedule), log-router 50m (tolerates dedicated=analytics, selects the pool):
    // 235m. A 4-vCPU type keeps 4000 - (60 + 10 + 5 + 5) = 3920m allocatable (Karpenter's kube-reserved CPU), so
    // 3920 - 235 = 3685m is left for a pod; 3686m fits no xlarge.
    const atMs = api.startMs + 12 * HOUR;
    const spec = [
      '      nodeSelector: {karpenter.sh/nodepool: dedicated, karpenter.k8s.aws/instance-size: xlarge}',
      '      tolerations: [{key: dedicated, operator: Equal, value: analytics, effect: NoSchedule}]',
    ];
    const fits = await predictAt(atMs, predictYaml('fits', '3685m', spec));
    expect(fits.unschedulable).toEqual([]);
    expect(fits.nodeClaims.map((c) => c.nodePool)).toEqual(['dedicated']);
    const over = await predictAt(atMs, predictYaml('over', '3686m', spec));
    expect(over.nodeClaims).toEqual([]);
    expect(over.existingNodes.flatMap((n) => n.pods)).toEqual([]);
    expect(over.unschedulable.map((u) => u.pod)).toHaveLength(1);
  });

  /** One more snapshot through the collectors at `atMs` (after the seeded day: the store only moves forward). */
  async function collectAt(atMs: number): Promise<void> {
    const last = createKubeRepository(api.db).latestSnapshotAt();
    expect(last).not.toBeNull();
    const sc = api.sandbox.scenario;
    await seedFromSandbox({
      db: api.db,
      sandboxUrl: api.sandbox.url,
      kubeconfigPath: api.sandbox.kubeconfigPath,
      clusterName: sc.clusterName,
      region: sc.region,
      startMs: atMs,
      endMs: atMs + 1,
      stepMs: atMs - (last ?? 0),
      quiet: true,
      usage: false,
    });
  }

  const hostnamePod = (node: string) => predictYaml('pinned', '100m', [`      nodeSelector: {kubernetes.io/hostname: ${node}}`]);

  it.each([
    // week4: ip-10-0-32-27 is disrupted (Empty) 25:35-25:40, tainted karpenter.sh/disrupted:NoSchedule meanwhile
    ['karpenter.sh/disrupted', 25.6, 'ip-10-0-32-27.ec2.internal'],
    // week4's cordon incident: ip-10-0-32-18 (general) cordoned 2026-11-02 10:00-13:00
    ['cordoned', 35, 'ip-10-0-32-18.ec2.internal'],
  ])(
    'a %s node is no destination: a 100m pod selecting its hostname is unschedulable, on another general node it lands',
    async (_what, hours, node) => {
      const atMs = api.startMs + hours * HOUR;
      await collectAt(atMs);
      const { rows } = await get<NodesResponse>(`/api/nodes?at=${new Date(atMs).toISOString()}&limit=5000`);
      expect(rows.map((n) => n.name)).toContain(node);
      const p = await predictAt(atMs, hostnamePod(node));
      expect(p.existingNodes.flatMap((n) => n.pods)).toEqual([]);
      expect(p.unschedulable).toHaveLength(1);
      // the control: the same pod on another general node of the snapshot with room for it
      const others = rows.filter((n) => n.nodePool === 'general' && n.name !== node && n.name !== 'ip-10-0-32-18.ec2.internal');
      let landed: string[] = [];
      for (const other of others) {
        const q = await predictAt(atMs, hostnamePod(other.name));
        landed = q.existingNodes.map((n) => n.node);
        if (landed.length > 0) {
          expect(landed).toEqual([other.name]);
          break;
        }
      }
      expect(landed).toHaveLength(1);
    },
  );
});

describe('the steady pool (on-demand only) at 12:00 worked by hand: headroom and its spot lever', () => {
  const at = () => iso(12 * HOUR);

  it('today and best: c7i-flex.2xlarge 0.33915 + c7g.2xlarge 0.29 + c7g.large 0.0725 = 0.70165 USD/h (us-east-1 on-demand list prices); no headroom', async () => {
    const h = await get<HeadroomResponse>(`/api/whatif/headroom?at=${at()}`);
    const steady = h.rows.find((r) => r.nodePool === 'steady');
    expect(steady?.today.usdPerHour).toBeCloseTo(0.70165, 9);
    // The re-pack needs the same three shapes (below), at the same on-demand prices: nothing to gain.
    expect(steady?.best.usdPerHour).toBeCloseTo(0.70165, 9);
    expect(steady?.headroomUsdPerHour).toBeCloseTo(0, 9);
    // every pod placed: none listed, none counted (the list is capped, the count is all of them)
    expect(h.unschedulable).toEqual([]);
    expect(h.unschedulableCount).toBe(0);
  });

  it('the spot lever: the same three nodes at the cheapest spot prices EC2 gives for types steady admits, one per zone', async () => {
    // The nodes, worked by hand: checkout-web's 6 pods (500m, 1 GiB) spread 2 per zone (maxSkew 1, 3 zones), so 3
    // nodes in 3 zones; fraud-scorer's 2 pods (2 vCPU, 4 GiB) need amd64, image-resizer's 3 (1 vCPU, 1 GiB) arm64,
    // so one node holds fraud-scorer x2 + checkout x2 (5 vCPU + 185m of DaemonSets: an 8-vCPU amd64 type), one
    // image-resizer x3 + checkout x2 (4 vCPU + 185m: an 8-vCPU arm64 type; a 4-vCPU one keeps 3920m), and one
    // checkout x2 (1 vCPU + 185m: any admitted type). Spot: the price in effect at 12:00 per type and zone from the
    // sandbox's DescribeSpotPriceHistory, the cheapest admitted type per node in its zone. Steady admits c and m, generation >= 7, large/xlarge/2xlarge, amd64 or arm64.
    const data = JSON.parse(readFileSync(join(process.cwd(), 'data/instance-types.json'), 'utf8')) as {
      instanceTypes: Record<string, { labels: Record<string, string> }>;
    };
    const admitted = Object.entries(data.instanceTypes)
      .map(([name, t]) => ({ name, l: t.labels }))
      .filter(
        ({ l }) =>
          ['c', 'm'].includes(l['karpenter.k8s.aws/instance-category']) &&
          Number(l['karpenter.k8s.aws/instance-generation']) >= 7 &&
          ['large', 'xlarge', '2xlarge'].includes(l['karpenter.k8s.aws/instance-size']),
      )
      .map(({ name, l }) => ({ name, arch: l['kubernetes.io/arch'], vcpu: Number(l['karpenter.k8s.aws/instance-cpu']) }));
    const atMs = api.startMs + 12 * HOUR;
    const ec2 = new EC2Client({ region: 'us-east-1' });
    const price = new Map<string, { t: number; p: number }>();
    let token: string | undefined;
    do {
      const out = await ec2.send(
        new DescribeSpotPriceHistoryCommand({
          InstanceTypes: admitted.map((t) => t.name) as never,
          ProductDescriptions: ['Linux/UNIX'],
          StartTime: new Date(atMs - 7 * 24 * HOUR),
          EndTime: new Date(atMs),
          NextToken: token,
        }),
      );
      for (const i of out.SpotPriceHistory ?? []) {
        const t = i.Timestamp?.getTime() ?? 0;
        const key = `${i.InstanceType}/${i.AvailabilityZone}`;
        if (t <= atMs && (price.get(key)?.t ?? -1) < t) price.set(key, { t, p: Number(i.SpotPrice) });
      }
      token = out.NextToken || undefined;
    } while (token);
    ec2.destroy();
    const zones = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
    const cheapest = (ok: (t: (typeof admitted)[number]) => boolean, zone: string) =>
      Math.min(...admitted.filter(ok).map((t) => price.get(`${t.name}/${zone}`)?.p ?? Number.POSITIVE_INFINITY));
    const shapes = [
      (t: (typeof admitted)[number]) => t.arch === 'amd64' && t.vcpu >= 8,
      (t: (typeof admitted)[number]) => t.arch === 'arm64' && t.vcpu >= 8,
      () => true,
    ];
    // Zones: the nodes are made in Karpenter's pod order (CPU, then memory, descending: fraud-scorer's first, then
    // image-resizer's, then checkout-web's last), and checkout-web's spread gives each the first of the zones still
    // empty of it (all tie at 0): us-east-1a, 1b, 1c. The cheapest way over all six orders would be 0.0013/h less
    // (0.2313: the amd64 node in 1c); Karpenter does not search it, nor does the engine.
    const spot = cheapest(shapes[0], zones[0]) + cheapest(shapes[1], zones[1]) + cheapest(shapes[2], zones[2]);
    expect(Number.isFinite(spot)).toBe(true);
    const h = await get<HeadroomResponse>(`/api/whatif/headroom?at=${at()}`);
    const steady = h.rows.find((r) => r.nodePool === 'steady');
    expect(steady?.spot.nodes).toBe(3);
    expect(steady?.spot.usdPerHour).toBeCloseTo(spot, 9);
    expect(steady?.spotUsdPerHour).toBeCloseTo(0.70165 - spot, 9);
  });
});

/*
 * The spot lever's zones against Karpenter's own choice (v1.14.1), worked by hand from the sandbox's spot prices in
 * effect at 12:00 (DescribeSpotPriceHistory, Linux/UNIX, the types steady admits). Karpenter, for a batch of pods:
 * - sorts them by CPU then memory, descending (core pkg/controllers/provisioning/scheduling/queue.go:38,72):
 *   fraud-scorer x2 (2 vCPU, amd64), image-resizer x3 (1 vCPU, arm64), checkout-web x6 (500m, spread over zones);
 * - puts each on the earliest in-flight NodeClaim that can take it, else a new one (scheduler.go:601-607, 658-690):
 *   NodeClaim A takes the fraud-scorers, B the image-resizers, neither pinned to a zone yet;
 * - for a zone spread, narrows the NodeClaim to one domain of least count within maxSkew (topologygroup.go:259-289,
 *   topology.go:226-248), and a tie goes to whichever domain Go's map order gives first: "If there are multiple
 *   eligible domains, we return any random domain" (topologygroup.go:226). So checkout-web's 1st pod pins A to one of
 *   the three zones, the 2nd pins B to one of the other two, the 3rd opens C in the last; pods 4-6 follow (maxSkew 1);
 * - launches each NodeClaim with CreateFleet over the offerings compatible with its requirements, its zone among them
 *   (aws pkg/providers/instance/instance.go:505-520), spot as price-capacity-optimized, on-demand as lowest-price
 *   (aws pkg/providers/instance/types.go:234,244).
 * So Karpenter honours the spread, then takes the cheapest offering in the zone the spread chose; the zone order
 * itself is random. The engine breaks the tie by name (core/karpenter/scheduling/README.md, deliberate differences):
 * A in us-east-1a, B in us-east-1b, C in us-east-1c, one of Karpenter's six equally likely orders; spot's
 * price-capacity-optimized taken as the lowest price. The cheapest spot types per node and zone at 12:00:
 *   A (amd64, >= 8 vCPU):  1a m8i.2xlarge 0.1157  1b m7i-flex.2xlarge 0.1058  1c c7i.2xlarge 0.1166
 *   B (arm64, >= 8 vCPU):  1a m8g.2xlarge 0.1104  1b m7g.2xlarge 0.0915       1c c7gd.2xlarge 0.1029
 *   C (any):               1a c7g.large 0.0232    1b c7i-flex.large 0.0239     1c m7g.large 0.0254
 * The engine's order: 0.1157 + 0.0915 + 0.0254 = 0.2326 USD/h; the lever 0.70165 - 0.2326 = 0.46905 USD/h,
 * x 730 = 342.4065 USD/month. Karpenter's other orders (A, B, C in): 1a,1c,1b 0.2425; 1b,1a,1c 0.2416; 1b,1c,1a
 * 0.2319; 1c,1a,1b 0.2509; 1c,1b,1a 0.2313 (the cheapest). Seen red with the engine's tie broken the other way
 * (the spread's candidate zones tried in reverse name order: another mix).
 */
describe("the steady pool's spot lever zone by zone, as Karpenter places a zone-spread batch", () => {
  it('A in us-east-1a (m8i.2xlarge 0.1157), B in 1b (m7g.2xlarge 0.0915), C in 1c (m7g.large 0.0254): 0.2326 USD/h, the lever 342.41 USD/month', async () => {
    const h = await get<HeadroomResponse>(`/api/whatif/headroom?at=${iso(12 * HOUR)}`);
    const steady = h.rows.find((r) => r.nodePool === 'steady');
    expect(steady?.spotSource).toBe('repack');
    expect(steady?.spot.mix.map((m) => [m.instanceType, m.capacityType, m.nodes, Number(m.usdPerHour.toFixed(6))])).toEqual([
      ['m8i.2xlarge', 'spot', 1, 0.1157],
      ['m7g.2xlarge', 'spot', 1, 0.0915],
      ['m7g.large', 'spot', 1, 0.0254],
    ]);
    expect(steady?.spot.usdPerHour).toBeCloseTo(0.2326, 9);
    expect(steady?.spotUsdPerHour).toBeCloseTo(0.46905, 9);
    expect(steady?.spotUsdPerMonth).toBeCloseTo(342.4065, 6);
  });
});

describe('issue 21 items 4-5 in the stored path: the reservation and the feature gates the what-if runs with', () => {
  const world = () =>
    createWhatIfWorlds({
      snapshots: createClusterSnapshotRepository(api.db),
      prices: createSnapshotPricesRepository(api.db),
    }).load(api.startMs + 12 * HOUR).world;

  it("the system reservation (EC2NodeClass system's status: cr-0a1b2c3d4e5f60718, m6i.large, us-east-1b) offered at 0.096 / 10,000,000", () => {
    const m6i = world().catalogue.find((e) => e.name === 'm6i.large');
    // m6i.large on-demand in us-east-1: 0.096 USD/h (AWS price list); Karpenter's reserved price is that / 10^7.
    expect(m6i?.offerings.filter((o) => o.capacityType === 'reserved')).toEqual([
      expect.objectContaining({
        zone: 'us-east-1b',
        reservationId: 'cr-0a1b2c3d4e5f60718',
        priceUsdPerHour: 0.0000000096,
        available: true,
        nodeClass: 'system',
      }),
    ]);
  });

  it("the controller's FEATURE_GATES (the chart's for 1.14.1) are collected and given to the engine", () => {
    expect(world().featureGates).toEqual({
      reservedCapacity: true,
      spotToSpotConsolidation: false,
      nodeOverlay: false,
      staticCapacity: false,
    });
  });
});
