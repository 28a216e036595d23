import { parseArgs } from 'node:util';
import { builtInCatalogue } from '../core/karpenter/scheduling/catalogue-files.js';
import { normalizePod, prepare, provision } from '../core/karpenter/scheduling/index.js';
import type { KubeNodePool, KubePod } from '../core/karpenter/scheduling/kube-types.js';
import { scaleScenario } from '../sandbox/scale/scale-scenario.js';
import type { SimNodePool, SimPod } from '../sandbox/scenario/types.js';

/**
 * The scheduling engine at the cluster envelope, in its own process so its peak RSS is its own:
 *   --mode repack   re-place every Karpenter pod of the scale scenario (5,000 nodes, 150,000 pods) from scratch
 *                   over the full built-in catalogue (nodes and NodePool limits set aside: the envelope is far
 *                   past week4's limits), as the what-if "consolidation headroom" does;
 *   --mode predict  a prepared 5,000-node cluster, then one pending pod placed `--runs` times (each a fresh
 *                   provisioning round against the existing nodes), as the "predict" box does.
 * Prints one JSON line with its own figures.
 */

const { values } = parseArgs({
  options: {
    mode: { type: 'string', default: 'repack' },
    nodes: { type: 'string', default: '5000' },
    'pods-per-node': { type: 'string', default: '30' },
    runs: { type: 'string', default: '200' },
  },
});

const toKubePod = (p: SimPod, bound: boolean): KubePod => ({
  metadata: {
    name: p.name,
    namespace: p.namespace,
    uid: p.uid,
    labels: p.labels,
    annotations: p.annotations,
    creationTimestamp: new Date(p.createdAt).toISOString(),
    ownerReferences: [{ apiVersion: p.ownerKind === 'Node' ? 'v1' : 'apps/v1', kind: p.ownerKind, name: p.ownerName, controller: true }],
  },
  spec: {
    containers: p.containers,
    initContainers: p.initContainers,
    nodeSelector: p.nodeSelector,
    tolerations: p.tolerations,
    ...(bound ? { nodeName: p.nodeName } : {}),
  },
  status: { phase: bound ? 'Running' : 'Pending' },
});

const toKubeNodePool = (p: SimNodePool): KubeNodePool => ({
  metadata: { name: p.name },
  spec: {
    weight: p.weight,
    template: {
      spec: {
        requirements: p.requirements,
        ...(p.taints ? { taints: p.taints } : {}),
        expireAfter: p.expireAfter,
        nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: p.nodeClassName },
      },
    },
    disruption: { consolidationPolicy: p.consolidationPolicy, consolidateAfter: p.consolidateAfter, budgets: p.budgets },
  },
});

function main(): void {
  const t0 = performance.now();
  const sc = scaleScenario({
    nodes: Number(values.nodes),
    podsPerNode: Number(values['pods-per-node']),
    days: 1,
    seed: 14,
    meanNodeLifetimeDays: 0,
  });
  const alive = sc.pods.filter((p) => p.deletedAt === null);
  const karpenterNodes = new Set(sc.nodes.filter((n) => n.deletedAt === null && n.nodePool !== null).map((n) => n.name));
  const daemonSetPods = [
    ...new Map(alive.filter((p) => p.ownerKind === 'DaemonSet').map((p) => [`${p.namespace}/${p.ownerName}`, p])).values(),
  ].map((p) => toKubePod(p, false));
  // spot where the scenario simulated a price (its last one), else 35% of on-demand, so spot-only NodePools have types
  const spot = new Map<string, number>();
  for (const sp of sc.spotPrices) spot.set(`${sp.instanceType}/${sp.zone}`, sp.usdPerHour);
  const onDemandOnly = builtInCatalogue({ region: sc.region, zones: sc.zones });
  for (const e of onDemandOnly) {
    for (const z of sc.zones)
      if (!spot.has(`${e.name}/${z}`)) spot.set(`${e.name}/${z}`, Number((e.offerings[0].priceUsdPerHour * 0.35).toFixed(5)));
  }
  const catalogue = builtInCatalogue({ region: sc.region, zones: sc.zones, spotUsdPerHour: spot });
  const nodePools = sc.nodePools.map(toKubeNodePool);
  const t1 = performance.now();
  if (values.mode === 'repack') {
    const pods = alive.filter((p) => p.ownerKind !== 'DaemonSet' && karpenterNodes.has(p.nodeName)).map((p) => toKubePod(p, false));
    const t2 = performance.now();
    const cpu0 = process.cpuUsage();
    const ctx = prepare({ nodePools, pods, daemonSetPods, catalogue, now: sc.end });
    const t3 = performance.now();
    const r = provision(ctx, { destinations: [] });
    const t4 = performance.now();
    const cpu = process.cpuUsage(cpu0);
    const usd = r.nodeClaims.reduce((s, nc) => s + nc.launch.usdPerHour, 0);
    console.log(
      JSON.stringify({
        mode: 'repack',
        pods: pods.length,
        catalogueTypes: catalogue.length,
        nodeClaims: r.nodeClaims.length,
        unschedulable: r.unschedulable.length,
        usdPerHourAfter: usd,
        scenarioMs: t1 - t0,
        prepareMs: t3 - t2,
        solveMs: t4 - t3,
        engineMs: t4 - t2,
        engineCpuMs: (cpu.user + cpu.system) / 1000,
        podsPerSecond: pods.length / ((t4 - t2) / 1000),
        rssBytes: process.memoryUsage().rss,
      }),
    );
    return;
  }
  const nodes = sc.nodes
    .filter((n) => n.deletedAt === null)
    .map((n) => ({
      metadata: {
        name: n.name,
        labels: {
          'kubernetes.io/hostname': n.name,
          'node.kubernetes.io/instance-type': n.instanceType,
          'topology.kubernetes.io/zone': n.zone,
          'karpenter.sh/capacity-type': n.capacityType,
          ...(n.nodePool ? { 'karpenter.sh/nodepool': n.nodePool } : { 'eks.amazonaws.com/nodegroup': 'karpenter-mng' }),
        },
        creationTimestamp: new Date(n.createdAt).toISOString(),
      },
      status: {
        allocatable: {
          cpu: `${n.allocatable.cpuMillicores}m`,
          memory: String(n.allocatable.memoryBytes),
          pods: String(n.allocatable.pods),
        },
      },
    }));
  const pods = alive.map((p) => toKubePod(p, true));
  const t2 = performance.now();
  const ctx = prepare({ nodePools, nodes, pods, daemonSetPods, catalogue, now: sc.end });
  const t3 = performance.now();
  const candidate = [
    normalizePod({
      metadata: { name: 'predict-me', namespace: 'default' },
      spec: {
        containers: [{ resources: { requests: { cpu: '1500m', memory: '3Gi' } } }],
        nodeSelector: { 'karpenter.sh/nodepool': 'general' },
      },
    }),
  ];
  const times: number[] = [];
  let placedOnExisting = 0;
  for (let i = 0; i < Number(values.runs); i++) {
    const s = performance.now();
    const r = provision(ctx, { pods: candidate });
    times.push(performance.now() - s);
    placedOnExisting = r.onExistingNodes.size;
  }
  times.sort((a, b) => a - b);
  const q = (f: number) => times[Math.min(times.length - 1, Math.floor(f * times.length))];
  console.log(
    JSON.stringify({
      mode: 'predict',
      nodes: nodes.length,
      pods: pods.length,
      prepareMs: t3 - t2,
      runs: times.length,
      p50Ms: q(0.5),
      p99Ms: q(0.99),
      placedOnExisting,
      rssBytes: process.memoryUsage().rss,
    }),
  );
}

main();
