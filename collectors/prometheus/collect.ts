import type { Db } from '../../db/open-db.js';
import { createApiRequestsRepository } from '../../db/repositories/api-requests-repository.js';
import { createUsageRepository, type PrometheusBackfillStatus } from '../../db/repositories/usage-repository.js';
import { hourStart, WorkloadHourAccumulator, workloadFromPodName, type WorkloadRef, workloadOf } from '../../core/usage.js';
import { HOUR_MS } from '../../core/time.js';
import type { PrometheusClient, PrometheusSeries } from './client.js';

/**
 * Backfills usage history from a Prometheus-compatible API: cAdvisor's container_cpu_usage_seconds_total (as a
 * rate) and container_memory_working_set_bytes, summed by namespace, pod and container (the pause container and the
 * pod-level cgroup series, container="" and "POD", excluded) within each scrape job, the largest of the jobs' figures
 * where two jobs scrape cAdvisor, at the snapshot interval, over the closed hours not asked for before. Rolled up per workload × container × hour like metrics-server's samples and written in one
 * transaction at the end (a failure writes nothing), into hours metrics-server did not measure.
 */

/** Prometheus refuses a range query of more than 11,000 points per series. */
export const MAX_POINTS_PER_SERIES = 11_000;
/** A chunk never spans more than a day: one answer of a big cluster stays bounded (series x 288 points at 5 min). */
const MAX_CHUNK_MS = 24 * HOUR_MS;

/** The series the usage queries read: cAdvisor's, without the pause container and the pod's own cgroup. */
export const CADVISOR_SELECTOR = 'container_cpu_usage_seconds_total{container!="", container!="POD"}';

/**
 * The two queries, with the rate window: at least 5 minutes, and at least one step (no gaps between steps). With
 * `job`, over that scrape job's series only (a cluster whose cAdvisor two jobs scrape: see backfillPrometheus).
 */
export function usageQueries(stepMs: number, job?: string): { cpu: string; memory: string } {
  const windowMinutes = Math.max(5, Math.ceil(stepMs / 60_000));
  const selector = `{container!="", container!="POD"${job === undefined ? '' : `, job=${JSON.stringify(job)}`}}`;
  return {
    cpu: `sum by (namespace, pod, container) (rate(container_cpu_usage_seconds_total${selector}[${windowMinutes}m]))`,
    memory: `sum by (namespace, pod, container) (container_memory_working_set_bytes${selector})`,
  };
}

/**
 * [start, end] pairs (ms, both evaluated) covering [fromMs, toMs) at `stepMs`: each at most MAX_POINTS_PER_SERIES
 * points and a day, starting on an hour, the last point of one chunk a step before the first of the next.
 */
export function chunkRange(fromMs: number, toMs: number, stepMs: number): [number, number][] {
  const byPoints = Math.floor(((MAX_POINTS_PER_SERIES - 1) * stepMs) / HOUR_MS) * HOUR_MS;
  const span = Math.max(HOUR_MS, Math.min(MAX_CHUNK_MS, byPoints));
  const out: [number, number][] = [];
  for (let start = fromMs; start < toMs; start += span) {
    const end = Math.min(start + span, toMs) - stepMs;
    if (end >= start) out.push([start, end]);
  }
  return out;
}

export interface BackfillDeps {
  db: Db;
  client: PrometheusClient;
  /** Now (the collection time): only hours before the current one are asked for. */
  now: number;
  stepMs: number;
  sinceMs: number;
  runId: number | null;
  /** The cluster whose usage this Prometheus holds (clusters.id; 1, a one-cluster ledger's): its pods name the workloads, its rows are written. */
  clusterId?: number;
  /** Progress: called after each chunk with (chunks done, chunks in all). */
  onChunk?: (done: number, total: number) => void;
}

export interface BackfillResult {
  fromMs: number;
  toMs: number;
  requests: number;
  series: number;
  rollupsWritten: number;
  /** True when there was nothing new to ask for. */
  upToDate: boolean;
}

const number = (v: string): number | null => {
  const x = Number(v);
  return Number.isFinite(x) ? x : null;
};

/**
 * One series per namespace, pod and container from the answers of several scrape jobs: at each time, the largest
 * value any job gave. Two jobs scraping the same kubelet's cAdvisor (the Prometheus Operator's kubelet job beside a
 * chart's kubernetes-cadvisor job, say) read the same counters, so their rates and working sets are the same
 * figure twice: summing them doubles a container's usage, any one of them is right. The maximum rather than the
 * mean: where jobs scrape disjoint nodes a container is in one job only (max and mean agree), and where one job
 * missed a scrape its lagging point does not pull the figure down. Pure.
 */
export function maxAcrossJobs(answers: readonly PrometheusSeries[][]): PrometheusSeries[] {
  if (answers.length === 1) return answers[0];
  const byKey = new Map<string, { metric: Record<string, string>; at: Map<number, string> }>();
  for (const series of answers)
    for (const s of series) {
      const key = `${s.metric.namespace}\u0000${s.metric.pod}\u0000${s.metric.container}`;
      let merged = byKey.get(key);
      if (merged === undefined) {
        merged = { metric: { namespace: s.metric.namespace, pod: s.metric.pod, container: s.metric.container }, at: new Map() };
        byKey.set(key, merged);
      }
      for (const [t, v] of s.values) {
        const before = merged.at.get(t);
        const x = number(v);
        if (x === null) continue;
        if (before === undefined || x > Number(before)) merged.at.set(t, v);
      }
    }
  return [...byKey.values()].map((m) => ({ metric: m.metric, values: [...m.at].sort((a, b) => a[0] - b[0]) }));
}

/** Runs the backfill; throws a PrometheusError (nothing written, the failure recorded) when the API fails for good. */
export async function backfillPrometheus(d: BackfillDeps): Promise<BackfillResult> {
  const usage = createUsageRepository(d.db);
  const requests = createApiRequestsRepository(d.db);
  const clusterId = d.clusterId ?? 1;
  const previous = usage.prometheusStatus(clusterId);
  const toMs = hourStart(d.now);
  let fromMs = hourStart(d.now - d.sinceMs);
  // Hours already asked of the same API are not asked again.
  if (previous?.ok && previous.url === d.client.url && previous.toMs > fromMs) fromMs = previous.toMs;
  const status: PrometheusBackfillStatus = {
    url: d.client.url,
    at: d.now,
    ok: true,
    message: null,
    fromMs,
    toMs,
    requests: 0,
    series: 0,
    rollupsWritten: 0,
  };
  if (fromMs >= toMs) return { fromMs, toMs, requests: 0, series: 0, rollupsWritten: 0, upToDate: true };

  const owners = usage.podOwners(clusterId);
  const workloadCache = new Map<string, WorkloadRef>();
  const workload = (namespace: string, pod: string): WorkloadRef => {
    const key = `${namespace}/${pod}`;
    let w = workloadCache.get(key);
    if (w === undefined) {
      const known = owners.get(key);
      w = known ? workloadOf({ name: pod, ...known }) : workloadFromPodName(pod);
      workloadCache.set(key, w);
    }
    return w;
  };
  const acc = new WorkloadHourAccumulator();
  const seriesSeen = new Set<string>();
  const chunks = chunkRange(fromMs, toMs, d.stepMs);
  let requestsSent = 0;
  // Every HTTP attempt (retries included) is one api_requests row, as for the AWS APIs.
  const counted = async <T>(operation: string, call: () => Promise<T>): Promise<T> => {
    const before = d.client.attempts();
    try {
      return await call();
    } finally {
      for (let i = before; i < d.client.attempts(); i++) {
        requestsSent += 1;
        requests.recordApiRequest({ runId: d.runId, at: d.now, service: 'prometheus', operation });
      }
    }
  };
  try {
    // The scrape jobs cAdvisor's series come from: with two or more, each is asked apart and the answers merged by
    // maxAcrossJobs (summed by one query they would double). An API without the label values endpoint (404) is
    // taken to have one.
    const jobs = (await counted('label_values', () => d.client.labelValues('job', CADVISOR_SELECTOR, fromMs, toMs))) ?? [];
    const queries = jobs.length > 1 ? jobs.map((job) => usageQueries(d.stepMs, job)) : [usageQueries(d.stepMs)];
    const ask = async (pick: (q: { cpu: string; memory: string }) => string, start: number, end: number) => {
      const answers: PrometheusSeries[][] = [];
      for (const q of queries) answers.push(await counted('query_range', () => d.client.queryRange(pick(q), start, end, d.stepMs)));
      return maxAcrossJobs(answers);
    };
    for (const [i, [start, end]] of chunks.entries()) {
      const cpu = await ask((q) => q.cpu, start, end);
      const memory = await ask((q) => q.memory, start, end);
      // Memory by series and time, joined to CPU: a sample needs both.
      const memAt = new Map<string, number>();
      for (const s of memory) {
        const key = `${s.metric.namespace}\u0000${s.metric.pod}\u0000${s.metric.container}`;
        for (const [t, v] of s.values) {
          const x = number(v);
          if (x !== null) memAt.set(`${key}\u0000${t}`, x);
        }
      }
      for (const s of cpu) {
        const { namespace, pod, container } = s.metric;
        if (!namespace || !pod || !container) continue;
        const key = `${namespace}\u0000${pod}\u0000${container}`;
        seriesSeen.add(key);
        const w = workload(namespace, pod);
        for (const [t, v] of s.values) {
          const cores = number(v);
          const mem = memAt.get(`${key}\u0000${t}`);
          if (cores === null || mem === undefined) continue;
          acc.add({
            at: Math.round(t * 1000),
            namespace,
            workloadKind: w.kind,
            workloadName: w.name,
            container,
            pod,
            cpuMillicores: cores * 1000,
            memoryBytes: mem,
            requestCpuMillicores: null,
            requestMemoryBytes: null,
          });
        }
      }
      d.onChunk?.(i + 1, chunks.length);
    }
  } catch (err) {
    usage.noteBackfillFailure({ ...status, ok: false, requests: requestsSent, message: (err as Error).message }, clusterId);
    throw err;
  }
  status.requests = requestsSent;
  status.series = seriesSeen.size;
  const rollupsWritten = usage.writeBackfill(acc.finish(), status, clusterId);
  return { fromMs, toMs, requests: requestsSent, series: seriesSeen.size, rollupsWritten, upToDate: false };
}
