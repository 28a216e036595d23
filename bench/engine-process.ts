import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { builtInCatalogue } from '../core/karpenter/scheduling/catalogue-files.js';
import { consolidate, normalizePod, prepare, provision } from '../core/karpenter/scheduling/index.js';
import type { KubeNode, KubeNodePool, KubePod } from '../core/karpenter/scheduling/kube-types.js';
import { scaleScenario } from '../sandbox/scale/scale-scenario.js';
import type { SimNodePool, SimPod } from '../sandbox/scenario/types.js';

/**
 * The scheduling engine at the cluster envelope, each step in its own process so time and peak RSS are the
 * engine's (plus its parsed input, as `simulate` would hold it), not the scenario generator's:
 *   --mode input --out FILE   the scale scenario (5,000 nodes, 30 pods each) as Kubernetes objects, to FILE;
 *   --mode repack --input F   re-place every Karpenter pod from scratch over the full built-in catalogue (nodes and
 *                             NodePool limits set aside: the envelope is far past week4's limits), as the what-if
 *                             "consolidation headroom" does;
 *   --mode predict --input F  the cluster prepared once, then one pending pod placed `--runs` times against the
 *                             existing nodes, as the "predict" box does (the first run, which derives each node's
 *                             free room, is reported on its own).
 * Prints one JSON line with its own figures.
 */

const { values } = parseArgs({
  options: {
    mode: { type: 'string', default: 'repack' },
    nodes: { type: 'string', default: '5000' },
    'pods-per-node': { type: 'string', default: '30' },
    runs: { type: 'string', default: '200' },
    input: { type: 'string' },
    out: { type: 'string' },
  },
});

interface EnvelopeInput {
  region: string;
  zones: string[];
  end: number;
  nodePools: KubeNodePool[];
  nodes: KubeNode[];
  /** Every pod alive at the end, bound to its node. */
  pods: KubePod[];
  daemonSetPods: KubePod[];
  /** `${type}/${zone}` → USD/hour */
  spot: [string, number][];
}

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

function buildInput(): EnvelopeInput {
  const sc = scaleScenario({
    nodes: Number(values.nodes),
    podsPerNode: Number(values['pods-per-node']),
    days: 1,
    seed: 14,
    meanNodeLifetimeDays: 0,
  });
  const alive = sc.pods.filter((p) => p.deletedAt === null);
  // spot where the scenario simulated a price (its last one), else 35% of on-demand, so spot-only NodePools have types
  const spot = new Map<string, number>();
  for (const sp of sc.spotPrices) spot.set(`${sp.instanceType}/${sp.zone}`, sp.usdPerHour);
  for (const e of builtInCatalogue({ region: sc.region, zones: sc.zones })) {
    for (const z of sc.zones)
      if (!spot.has(`${e.name}/${z}`)) spot.set(`${e.name}/${z}`, Number((e.offerings[0].priceUsdPerHour * 0.35).toFixed(5)));
  }
  const nodes: KubeNode[] = sc.nodes
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
  const daemons = new Map(alive.filter((p) => p.ownerKind === 'DaemonSet').map((p) => [`${p.namespace}/${p.ownerName}`, p]));
  return {
    region: sc.region,
    zones: sc.zones,
    end: sc.end,
    nodePools: sc.nodePools.map(toKubeNodePool),
    nodes,
    pods: alive.map((p) => toKubePod(p, true)),
    daemonSetPods: [...daemons.values()].map((p) => toKubePod(p, false)),
    spot: [...spot],
  };
}

function main(): void {
  if (values.mode === 'input') {
    if (!values.out) throw new Error('--mode input needs --out FILE');
    const input = buildInput();
    writeFileSync(values.out, JSON.stringify(input));
    console.log(JSON.stringify({ mode: 'input', nodes: input.nodes.length, pods: input.pods.length }));
    return;
  }
  if (!values.input) throw new Error(`--mode ${values.mode} needs --input FILE (from --mode input)`);
  const input = JSON.parse(readFileSync(values.input, 'utf8')) as EnvelopeInput;
  const catalogue = builtInCatalogue({ region: input.region, zones: input.zones, spotUsdPerHour: new Map(input.spot) });
  if (values.mode === 'repack') {
    // the pods of Karpenter's nodes, unbound: where would Karpenter put them on an empty cluster?
    const karpenterNodes = new Set(input.nodes.filter((n) => n.metadata.labels?.['karpenter.sh/nodepool']).map((n) => n.metadata.name));
    const pods = input.pods
      .filter((p) => p.metadata.ownerReferences?.[0]?.kind !== 'DaemonSet' && karpenterNodes.has(p.spec.nodeName ?? ''))
      .map((p) => ({ ...p, spec: { ...p.spec, nodeName: undefined }, status: { phase: 'Pending' } }));
    input.pods = [];
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const ctx = prepare({ nodePools: input.nodePools, pods, daemonSetPods: input.daemonSetPods, catalogue, now: input.end });
    const t1 = performance.now();
    const r = provision(ctx, { destinations: [] });
    const t2 = performance.now();
    const cpu = process.cpuUsage(cpu0);
    console.log(
      JSON.stringify({
        mode: 'repack',
        pods: pods.length,
        catalogueTypes: catalogue.length,
        nodeClaims: r.nodeClaims.length,
        unschedulable: r.unschedulable.length,
        usdPerHourAfter: r.nodeClaims.reduce((s, nc) => s + nc.launch.usdPerHour, 0),
        prepareMs: t1 - t0,
        solveMs: t2 - t1,
        engineMs: t2 - t0,
        engineCpuMs: (cpu.user + cpu.system) / 1000,
        podsPerSecond: pods.length / ((t2 - t0) / 1000),
      }),
    );
    return;
  }
  const t0 = performance.now();
  const ctx = prepare({
    nodePools: input.nodePools,
    nodes: input.nodes,
    pods: input.pods,
    daemonSetPods: input.daemonSetPods,
    catalogue,
    now: input.end,
  });
  const prepareMs = performance.now() - t0;
  if (values.mode === 'consolidate') {
    const c0 = performance.now();
    const out = consolidate(ctx, provision(ctx));
    const ms = performance.now() - c0;
    console.log(
      JSON.stringify({
        mode: 'consolidate',
        nodes: input.nodes.length,
        pods: input.pods.length,
        prepareMs,
        consolidateMs: ms,
        command: out.command
          ? `${out.command.method} ${out.command.replacement ? 'replace' : 'delete'} ${out.command.candidates.length}`
          : null,
        verdicts: out.unconsolidatable.length,
      }),
    );
    return;
  }
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
  let firstMs = 0;
  let landed = '';
  const runs = Number(values.runs);
  for (let i = 0; i <= runs; i++) {
    const s = performance.now();
    const r = provision(ctx, { pods: candidate });
    const ms = performance.now() - s;
    if (i === 0) firstMs = ms;
    else times.push(ms);
    landed = r.nodeClaims.length
      ? `new ${r.nodeClaims[0].launch.instanceType.name}`
      : `existing ${[...r.onExistingNodes.keys()][0] ?? 'none'}`;
  }
  times.sort((a, b) => a - b);
  const q = (f: number) => times[Math.min(times.length - 1, Math.floor(f * times.length))];
  console.log(
    JSON.stringify({
      mode: 'predict',
      nodes: input.nodes.length,
      pods: input.pods.length,
      prepareMs,
      firstMs,
      runs,
      p50Ms: q(0.5),
      p99Ms: q(0.99),
      landed,
    }),
  );
}

main();
