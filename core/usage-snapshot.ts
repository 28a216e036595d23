import type { KubeSnapshot, PodRecord } from './model.js';
import { podCounts } from './rollup.js';
import type { OomKill, PodMetricsRecord, SnapshotUsage, UsageSample } from './usage.js';
import { workloadOf } from './usage.js';

/**
 * One snapshot's usage joined to its pods and nodes: what the store keeps per container, per namespace × NodePool
 * and per NodePool, the OOM kills the pods' statuses report, and each pod's usage for the attribution methods that
 * take max(request, usage). Pure.
 */

/** A container sample as stored with its snapshot (usage_samples). */
export interface StoredUsageSample extends UsageSample {
  nodeName: string | null;
  nodePool: string | null;
  measuredAt: number;
  windowMs: number;
}

/** Per namespace × NodePool at a snapshot: usage beside the requests of the same pods. */
export interface NamespaceUsageRow {
  namespace: string;
  nodePool: string;
  /** Pods counted (bound, unfinished) and how many of them metrics-server reported. */
  pods: number;
  podsWithUsage: number;
  /** Σ requests of every counted pod, and of those with usage only (usage ÷ request compares like with like). */
  requestCpuMillicores: number;
  requestMemoryBytes: number;
  requestCpuMillicoresWithUsage: number;
  requestMemoryBytesWithUsage: number;
  usageCpuMillicores: number;
  usageMemoryBytes: number;
}

/** Per NodePool at a snapshot: its pods' usage and its nodes' usage (NodeMetrics: every process, not only pods). */
export interface NodePoolUsageRow {
  nodePool: string;
  nodes: number;
  nodesWithUsage: number;
  podUsageCpuMillicores: number;
  podUsageMemoryBytes: number;
  nodeUsageCpuMillicores: number;
  nodeUsageMemoryBytes: number;
}

export interface SnapshotUsageRows {
  /**
   * The container samples, made one at a time as they are read (walking the pods again): at 150,000 pods, kept as
   * objects they were the larger part of what usage added to the collector's peak RSS until the snapshot's
   * transaction (issue 24). Read once, in the write.
   */
  samples: Iterable<StoredUsageSample>;
  /** How many `samples` gives. */
  sampleCount: number;
  namespaces: NamespaceUsageRow[];
  nodePools: NodePoolUsageRow[];
  nodes: { nodeName: string; cpuMillicores: number; memoryBytes: number; measuredAt: number; windowMs: number }[];
  oomKills: (OomKill & { pod: string; podUid: string; memoryLimitBytes: number | null })[];
  /** Pods (bound, unfinished) that metrics-server reported. */
  podsWithUsage: number;
}

const OOM_KILLED = 'OOMKilled';

/**
 * Fills `usage` on the snapshot's pods from the PodMetrics of the same namespace/name (Σ containers at the metrics'
 * timestamp; pods metrics-server did not report keep none) and builds the rows to store. A snapshot whose metrics
 * were not available gets empty rows, but its OOM kills (from the Pod objects) are still returned.
 */
export function joinSnapshotUsage(s: KubeSnapshot, usage: SnapshotUsage | null): SnapshotUsageRows {
  // By namespace, then name: no key string made per pod.
  const metricsByPod = new Map<string, Map<string, PodMetricsRecord>>();
  for (const m of usage?.pods ?? []) {
    let inNamespace = metricsByPod.get(m.namespace);
    if (inNamespace === undefined) {
      inNamespace = new Map();
      metricsByPod.set(m.namespace, inNamespace);
    }
    inNamespace.set(m.name, m);
  }
  const metricsOf = (p: PodRecord): PodMetricsRecord | undefined => metricsByPod.get(p.namespace)?.get(p.name);
  const poolOfNode = new Map(s.nodes.map((n) => [n.name, n.nodePool ?? '']));
  let sampleCount = 0;
  const namespaces = new Map<string, NamespaceUsageRow>();
  const pools = new Map<string, NodePoolUsageRow>();
  const oomKills: SnapshotUsageRows['oomKills'] = [];
  let podsWithUsage = 0;
  const poolRow = (nodePool: string): NodePoolUsageRow => {
    let r = pools.get(nodePool);
    if (r === undefined) {
      r = {
        nodePool,
        nodes: 0,
        nodesWithUsage: 0,
        podUsageCpuMillicores: 0,
        podUsageMemoryBytes: 0,
        nodeUsageCpuMillicores: 0,
        nodeUsageMemoryBytes: 0,
      };
      pools.set(nodePool, r);
    }
    return r;
  };
  for (const n of s.nodes) poolRow(n.nodePool ?? '').nodes += 1;

  for (const p of s.pods) {
    const workload = workloadOf(p);
    for (const c of p.containers ?? []) {
      if (c.lastTermination?.reason === OOM_KILLED)
        oomKills.push({
          at: c.lastTermination.finishedAt,
          namespace: p.namespace,
          workloadKind: workload.kind,
          workloadName: workload.name,
          container: c.name,
          pod: p.name,
          podUid: p.uid,
          memoryLimitBytes: c.limits.memoryBytes,
        });
    }
    if (!podCounts(p)) continue;
    const nodePool = poolOfNode.get(p.nodeName ?? '');
    if (nodePool === undefined) continue;
    const key = `${p.namespace}|${nodePool}`;
    let ns = namespaces.get(key);
    if (ns === undefined) {
      ns = {
        namespace: p.namespace,
        nodePool,
        pods: 0,
        podsWithUsage: 0,
        requestCpuMillicores: 0,
        requestMemoryBytes: 0,
        requestCpuMillicoresWithUsage: 0,
        requestMemoryBytesWithUsage: 0,
        usageCpuMillicores: 0,
        usageMemoryBytes: 0,
      };
      namespaces.set(key, ns);
    }
    ns.pods += 1;
    ns.requestCpuMillicores += p.requests.cpuMillicores;
    ns.requestMemoryBytes += p.requests.memoryBytes;
    const m = metricsOf(p);
    if (m === undefined) continue;
    let cpu = 0;
    let mem = 0;
    for (const c of m.containers) {
      cpu += c.cpuMillicores;
      mem += c.memoryBytes;
    }
    sampleCount += m.containers.length;
    setUsage(p, cpu, mem);
    podsWithUsage += 1;
    ns.podsWithUsage += 1;
    ns.requestCpuMillicoresWithUsage += p.requests.cpuMillicores;
    ns.requestMemoryBytesWithUsage += p.requests.memoryBytes;
    ns.usageCpuMillicores += cpu;
    ns.usageMemoryBytes += mem;
    const pool = poolRow(nodePool);
    pool.podUsageCpuMillicores += cpu;
    pool.podUsageMemoryBytes += mem;
  }

  const nodes: SnapshotUsageRows['nodes'] = [];
  for (const n of usage?.nodes ?? []) {
    const nodePool = poolOfNode.get(n.name);
    if (nodePool === undefined) continue; // metrics of a node the snapshot no longer lists
    nodes.push({
      nodeName: n.name,
      cpuMillicores: n.cpuMillicores,
      memoryBytes: n.memoryBytes,
      measuredAt: n.measuredAt,
      windowMs: n.windowMs,
    });
    const pool = poolRow(nodePool);
    pool.nodesWithUsage += 1;
    pool.nodeUsageCpuMillicores += n.cpuMillicores;
    pool.nodeUsageMemoryBytes += n.memoryBytes;
  }
  // Without metrics there is no usage to put beside the requests: no rows rather than rows of zeros.
  const available = usage?.status.state === 'available';
  const sorted = <T>(m: Map<string, T>, cmp: (a: T, b: T) => number) => (available ? [...m.values()].sort(cmp) : []);
  // The samples: the same walk over the pods, each pod's containers with metrics, made as the write reads them.
  function* samples(): Generator<StoredUsageSample> {
    for (const p of s.pods) {
      if (!podCounts(p)) continue;
      const nodePool = poolOfNode.get(p.nodeName ?? '');
      if (nodePool === undefined) continue;
      const m = metricsOf(p);
      if (m === undefined) continue;
      const workload = workloadOf(p);
      for (const c of m.containers) {
        const spec = p.containers?.find((x) => x.name === c.name);
        yield {
          at: s.takenAt,
          namespace: p.namespace,
          workloadKind: workload.kind,
          workloadName: workload.name,
          container: c.name,
          pod: p.name,
          cpuMillicores: c.cpuMillicores,
          memoryBytes: c.memoryBytes,
          requestCpuMillicores: spec?.requests.cpuMillicores ?? null,
          requestMemoryBytes: spec?.requests.memoryBytes ?? null,
          limitCpuMillicores: spec?.limits.cpuMillicores ?? null,
          nodeName: p.nodeName,
          nodePool,
          measuredAt: m.measuredAt,
          windowMs: m.windowMs,
        };
      }
    }
  }
  return {
    samples: { [Symbol.iterator]: samples },
    sampleCount,
    namespaces: sorted(namespaces, (a, b) => a.namespace.localeCompare(b.namespace) || a.nodePool.localeCompare(b.nodePool)),
    nodePools: sorted(pools, (a, b) => a.nodePool.localeCompare(b.nodePool)),
    nodes,
    oomKills,
    podsWithUsage,
  };
}

/** The pod's usage, as the attribution methods read it (max(request, usage) per resource). */
function setUsage(p: PodRecord, cpuMillicores: number, memoryBytes: number): void {
  p.usage = { cpuMillicores, memoryBytes };
}
