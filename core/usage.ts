import { parseGoDuration } from './duration.js';
import type { PodRecord } from './model.js';
import { HOUR_MS, MINUTE_MS, SECOND_MS } from './time.js';

/**
 * What containers really use, as the resource metrics API (metrics.k8s.io/v1beta1, served by metrics-server) and a
 * Prometheus-compatible API report it, and the pure arithmetic over it: quantities, workload names, percentiles and
 * hourly rollups. Times are epoch ms UTC; CPU in millicores (fractional: metrics-server reports nanocores), memory in
 * bytes (the working set, what the kubelet's OOM and eviction decisions read).
 */

export interface ContainerUsage {
  name: string;
  cpuMillicores: number;
  memoryBytes: number;
}

/** One PodMetrics item: a pod's containers over the window that ends at `measuredAt`. */
export interface PodMetricsRecord {
  namespace: string;
  name: string;
  measuredAt: number;
  windowMs: number;
  containers: ContainerUsage[];
}

/** One NodeMetrics item: the whole node (every process, not only pods). */
export interface NodeMetricsRecord {
  name: string;
  measuredAt: number;
  windowMs: number;
  cpuMillicores: number;
  memoryBytes: number;
}

/**
 * Whether usage could be read: `available`; `absent` (the metrics.k8s.io group is not served: no metrics-server,
 * 404); `unavailable` (its APIService is registered but not answering, 503); `forbidden` (401/403: RBAC);
 * `failed` (anything else).
 */
export type MetricsState = 'available' | 'absent' | 'unavailable' | 'forbidden' | 'failed';

export interface MetricsStatus {
  state: MetricsState;
  /** One sentence for the user: what happened and what to do. */
  message: string;
  checkedAt: number;
}

/** What a snapshot collected from the resource metrics API; pods and nodes are empty unless state is `available`. */
export interface SnapshotUsage {
  status: MetricsStatus;
  pods: PodMetricsRecord[];
  nodes: NodeMetricsRecord[];
}

/** A container's spec and status as the usage rollups need them (from the Pod object). */
export interface ContainerRecord {
  name: string;
  requests: { cpuMillicores: number; memoryBytes: number };
  /** null: no limit set. */
  limits: { cpuMillicores: number | null; memoryBytes: number | null };
  restartCount: number;
  /** status.containerStatuses[].lastState.terminated, when the container was restarted. */
  lastTermination: { reason: string; finishedAt: number; exitCode: number } | null;
}

/** The workload a pod belongs to: a ReplicaSet stamped by a Deployment is the Deployment. */
export interface WorkloadRef {
  kind: string;
  name: string;
}

/**
 * The owning workload of a pod: a ReplicaSet named `<deployment>-<pod-template-hash>` (the hash is the pod's
 * `pod-template-hash` label) is that Deployment; StatefulSet, Job, DaemonSet and other owners are themselves; a
 * pod without an owner (or owned by its Node, a static pod) is its own workload, kind `Pod`.
 */
export function workloadOf(p: Pick<PodRecord, 'name' | 'ownerKind' | 'ownerName' | 'labels'>): WorkloadRef {
  if (p.ownerKind === null || p.ownerName === null || p.ownerKind === 'Node') return { kind: 'Pod', name: p.name };
  if (p.ownerKind === 'ReplicaSet') {
    const hash = p.labels['pod-template-hash'];
    if (hash && p.ownerName.endsWith(`-${hash}`)) return { kind: 'Deployment', name: p.ownerName.slice(0, -(hash.length + 1)) };
  }
  return { kind: p.ownerKind, name: p.ownerName };
}

/**
 * The workload of a pod known only by its name (a Prometheus series of a pod the collector never listed): the
 * names controllers give pods. `<deployment>-<hash of 6-10 lowercase alphanumerics>-<5>` is a Deployment's;
 * `<name>-<ordinal>` a StatefulSet's; anything else is its own workload, kind `Pod`.
 */
export function workloadFromPodName(podName: string): WorkloadRef {
  const deployment = /^(.+)-[a-z0-9]{6,10}-[a-z0-9]{5}$/.exec(podName);
  if (deployment) return { kind: 'Deployment', name: deployment[1] };
  const statefulSet = /^(.+)-(\d+)$/.exec(podName);
  if (statefulSet) return { kind: 'StatefulSet', name: statefulSet[1] };
  return { kind: 'Pod', name: podName };
}

const DECIMAL_EXP: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12 };
const BINARY_SUFFIX: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };
const QUANTITY = /^(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|n|u|m|k|M|G|T)?$/;

/**
 * A usage quantity × 10^scaleExp10, fractions kept ("429151n" at scale 3 -> 0.429151 millicores, "408Ki" -> 417792);
 * NaN when malformed. Decimal suffixes shift the exponent and divide once, so "9559630n" is 9.55963, not
 * 9.559630000000001.
 */
function usageScaled(q: string, scaleExp10: number): number {
  const m = QUANTITY.exec(q.trim());
  if (!m) return Number.NaN;
  const unit = m[2] ?? '';
  const binary = BINARY_SUFFIX[unit];
  const value = Number(m[1]) * (binary ?? 1);
  const exp = (binary === undefined ? DECIMAL_EXP[unit] : 0) + scaleExp10;
  return exp >= 0 ? value * 10 ** exp : value / 10 ** -exp;
}

/** "9559630n" -> 9.55963 millicores; "7m" -> 7; "0" -> 0. Not rounded (requests round up; a measurement does not). */
export const usageCpuMillicores = (q: string): number => usageScaled(q, 3);
/** "22244Ki" -> 22777856 bytes. */
export const usageMemoryBytes = (q: string): number => Math.round(usageScaled(q, 0));

/** A Go duration as metav1.Duration prints it ("30s", "1m0s", "34.475s", "1h2m3.5s", "500ms") in ms; NaN when malformed. */
export function goDurationMs(text: string): number {
  return parseGoDuration(text) ?? Number.NaN;
}

/** A Go duration string for ms, as metav1.Duration marshals it ("10.5s", "1m0s", "0s"). */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / HOUR_MS);
  const m = Math.floor((ms % HOUR_MS) / MINUTE_MS);
  const s = (ms % MINUTE_MS) / SECOND_MS;
  const sec = `${Number.isInteger(s) ? s : s.toFixed(3).replace(/0+$/, '')}s`;
  if (h > 0) return `${h}h${m}m${sec}`;
  if (m > 0) return `${m}m${sec}`;
  return sec;
}

/**
 * The p-quantile (0..1) of ascending `sorted` values by linear interpolation between closest ranks, the definition
 * Prometheus' quantile_over_time and numpy's default percentile use: rank = p × (n − 1), interpolated between the
 * values below and above it. NaN for an empty series.
 */
export function quantileSorted(sorted: readonly number[], p: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const rank = Math.min(Math.max(p, 0), 1) * (n - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
}

export const hourStart = (t: number): number => Math.floor(t / HOUR_MS) * HOUR_MS;

/** One container's usage at one instant, with what it belongs to: the input of the hourly rollup. */
export interface UsageSample {
  at: number;
  namespace: string;
  workloadKind: string;
  workloadName: string;
  container: string;
  pod: string;
  cpuMillicores: number;
  memoryBytes: number;
  /** The container's requests then (null when not known, e.g. a Prometheus sample of a pod never listed). */
  requestCpuMillicores: number | null;
  requestMemoryBytes: number | null;
  /** The container's CPU limit then (null: none, or not known; absent in samples read before limits were stored). */
  limitCpuMillicores?: number | null;
}

/** Per workload (kind/name) × container × UTC hour: the distribution of CPU and the peak of memory. */
export interface WorkloadHourRollup {
  hourStart: number;
  namespace: string;
  workloadKind: string;
  workloadName: string;
  container: string;
  samples: number;
  /** Distinct pods seen in the hour. */
  pods: number;
  cpuP50Millicores: number;
  cpuP95Millicores: number;
  cpuP99Millicores: number;
  cpuMaxMillicores: number;
  cpuAvgMillicores: number;
  memoryMaxBytes: number;
  memoryAvgBytes: number;
  /** The largest request seen in the hour (null when no sample knew it). */
  requestCpuMillicores: number | null;
  requestMemoryBytes: number | null;
  /** The largest CPU limit seen in the hour (null when no sample had one; migration 0015). */
  limitCpuMillicores: number | null;
  oomKills: number;
}

export const workloadKey = (r: { namespace: string; workloadKind: string; workloadName: string; container: string }): string =>
  `${r.namespace}\u0000${r.workloadKind}\u0000${r.workloadName}\u0000${r.container}`;

/** An OOM kill seen on a container: when it ended (lastState.terminated.finishedAt). */
export interface OomKill {
  at: number;
  namespace: string;
  workloadKind: string;
  workloadName: string;
  container: string;
}

/** The fields of a sample the hourly rollup reads (the store streams these, not whole sample objects). */
export type RollupInput = Pick<
  UsageSample,
  | 'at'
  | 'namespace'
  | 'workloadKind'
  | 'workloadName'
  | 'container'
  | 'pod'
  | 'cpuMillicores'
  | 'memoryBytes'
  | 'requestCpuMillicores'
  | 'requestMemoryBytes'
  | 'limitCpuMillicores'
>;

interface Group {
  hour: number;
  namespace: string;
  workloadKind: string;
  workloadName: string;
  container: string;
  cpu: number[];
  memMax: number;
  memSum: number;
  pods: Set<string>;
  reqCpu: number | null;
  reqMem: number | null;
  limCpu: number | null;
  oomKills: number;
}

/**
 * Rolls samples up per workload × container × UTC hour, fed one sample at a time (only numbers are kept per group,
 * so an hour of 150,000 pods' samples streams through without holding the rows): p50/p95/p99 (quantileSorted over
 * every sample of every pod of the workload in the hour), max and mean CPU; max and mean memory working set; the
 * sample and distinct pod counts; the largest request; the OOM kills that ended in the hour (an hour with kills but
 * no samples, a container that died before metrics-server saw it, still gets a row).
 */
export class WorkloadHourAccumulator {
  private readonly groups = new Map<string, Group>();

  private group(hour: number, r: { namespace: string; workloadKind: string; workloadName: string; container: string }): Group {
    const key = `${hour}\u0000${workloadKey(r)}`;
    let g = this.groups.get(key);
    if (g === undefined) {
      g = {
        hour,
        namespace: r.namespace,
        workloadKind: r.workloadKind,
        workloadName: r.workloadName,
        container: r.container,
        cpu: [],
        memMax: 0,
        memSum: 0,
        pods: new Set(),
        reqCpu: null,
        reqMem: null,
        limCpu: null,
        oomKills: 0,
      };
      this.groups.set(key, g);
    }
    return g;
  }

  add(s: RollupInput): void {
    const g = this.group(hourStart(s.at), s);
    g.cpu.push(s.cpuMillicores);
    g.memMax = Math.max(g.memMax, s.memoryBytes);
    g.memSum += s.memoryBytes;
    g.pods.add(s.pod);
    if (s.requestCpuMillicores !== null) g.reqCpu = Math.max(g.reqCpu ?? 0, s.requestCpuMillicores);
    if (s.requestMemoryBytes !== null) g.reqMem = Math.max(g.reqMem ?? 0, s.requestMemoryBytes);
    const lim = s.limitCpuMillicores ?? null;
    if (lim !== null) g.limCpu = Math.max(g.limCpu ?? 0, lim);
  }

  addOomKill(k: OomKill): void {
    this.group(hourStart(k.at), k).oomKills += 1;
  }

  /** The rollups, sorted by hour, then namespace, workload kind, name and container. */
  finish(): WorkloadHourRollup[] {
    const out: WorkloadHourRollup[] = [];
    for (const g of this.groups.values()) {
      const cpu = g.cpu.sort((a, b) => a - b);
      const n = cpu.length;
      out.push({
        hourStart: g.hour,
        namespace: g.namespace,
        workloadKind: g.workloadKind,
        workloadName: g.workloadName,
        container: g.container,
        samples: n,
        pods: g.pods.size,
        cpuP50Millicores: n === 0 ? 0 : quantileSorted(cpu, 0.5),
        cpuP95Millicores: n === 0 ? 0 : quantileSorted(cpu, 0.95),
        cpuP99Millicores: n === 0 ? 0 : quantileSorted(cpu, 0.99),
        cpuMaxMillicores: n === 0 ? 0 : cpu[n - 1],
        cpuAvgMillicores: n === 0 ? 0 : cpu.reduce((a, x) => a + x, 0) / n,
        memoryMaxBytes: g.memMax,
        memoryAvgBytes: n === 0 ? 0 : g.memSum / n,
        requestCpuMillicores: g.reqCpu,
        limitCpuMillicores: g.limCpu,
        requestMemoryBytes: g.reqMem,
        oomKills: g.oomKills,
      });
    }
    const key = (r: WorkloadHourRollup) => workloadKey(r);
    return out.sort((a, b) => a.hourStart - b.hourStart || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  }
}

/** rollupWorkloadHours over arrays: the same rollup as WorkloadHourAccumulator. */
export function rollupWorkloadHours(samples: readonly RollupInput[], oomKills: readonly OomKill[] = []): WorkloadHourRollup[] {
  const acc = new WorkloadHourAccumulator();
  for (const s of samples) acc.add(s);
  for (const k of oomKills) acc.addOomKill(k);
  return acc.finish();
}
