import { quantileSorted, type WorkloadHourRollup } from './usage.js';
import { DAY_MS, HOUR_MS } from './time.js';

/**
 * Right-sized requests per workload (owner kind/name, namespace) and container, from its hourly usage rollups over a
 * window. The rules and their defaults are the published ones of Robusta KRR's `simple` strategy (CPU request at the
 * 95th percentile of usage, memory at the peak working set + 15 %, an OOM kill's limit counted as a memory peak) and
 * Kubecost's request right-sizing API (minimum recommendations of 10m CPU and 20 MiB memory); each is a setting.
 */

export interface RightsizingOptions {
  /** The usage quantile the CPU request is set at (KRR `--cpu_percentile` 95). */
  cpuQuantile: number;
  /** Memory headroom over the peak working set, a fraction (KRR `--memory_buffer_percentage` 15 -> 0.15). */
  memoryBuffer: number;
  /** The smallest CPU request recommended (Kubecost `minRecCPUMillicores`, 10). */
  minCpuMillicores: number;
  /** The smallest memory request recommended (Kubecost `minRecRAMBytes`, 20 MiB). */
  minMemoryBytes: number;
  /** History shorter than this is flagged `short-history` (one day: a daily cycle not yet seen whole). */
  minHistoryMs: number;
  /**
   * A CPU quantile at or above this fraction of the container's CPU limit is flagged `throttled` (0.9: the CFS quota
   * cuts a container off at its limit within each 100 ms period, so a p95 within 10 % of it means periods throttled).
   */
  cpuLimitNearFraction: number;
}

export const MIB = 2 ** 20;

export const DEFAULT_RIGHTSIZING: RightsizingOptions = {
  cpuQuantile: 0.95,
  memoryBuffer: 0.15,
  minCpuMillicores: 10,
  minMemoryBytes: 20 * MIB,
  minHistoryMs: DAY_MS,
  cpuLimitNearFraction: 0.9,
};

/** The fields of an hourly rollup a recommendation reads. */
export type RightsizingHour = Pick<
  WorkloadHourRollup,
  | 'hourStart'
  | 'samples'
  | 'cpuP95Millicores'
  | 'cpuMaxMillicores'
  | 'memoryMaxBytes'
  | 'requestCpuMillicores'
  | 'requestMemoryBytes'
  | 'oomKills'
>;

/** One workload container's history over the window. */
export interface ContainerHistory {
  namespace: string;
  workloadKind: string;
  workloadName: string;
  container: string;
  /** Its hourly rollups in the window, any order. */
  hours: readonly RightsizingHour[];
  /** The memory limit at each OOM kill in the window (null: no limit known). */
  oomKillLimitsBytes: readonly (number | null)[];
  /** The container's CPU limit when known (null: none or not recorded). */
  cpuLimitMillicores: number | null;
}

/**
 * short-history: the usage seen spans less than minHistoryMs. throttled: a CPU limit throttles, i.e. the CPU peak
 * reached it or the window's CPU quantile is at or near it (cpuLimitNearFraction); only a limit throttles.
 * above-request: the quantile is above the request (the container needs more than it asks for; it is not throttled
 * for it, it borrows idle CPU). `throttledBy` lists both causes ('limit', 'request') as before. oom-killed: an OOM
 * kill in the window (memory is not lowered). no-request: no request was ever seen (the current requests read as 0).
 */
export type RightsizingFlag = 'short-history' | 'throttled' | 'above-request' | 'oom-killed' | 'no-request';

export interface Recommendation {
  namespace: string;
  workloadKind: string;
  workloadName: string;
  container: string;
  /** The request at the newest hour that knew it; null when none did. */
  currentCpuMillicores: number | null;
  currentMemoryBytes: number | null;
  /** Whole millicores, rounded up. */
  recommendedCpuMillicores: number;
  /** Whole MiB, rounded up (what a `resources:` block would say). */
  recommendedMemoryBytes: number;
  /** The window's CPU quantile (of the hourly p95s) and peak, and the memory peak, that the recommendation read. */
  cpuQuantileMillicores: number;
  cpuMaxMillicores: number;
  memoryMaxBytes: number;
  /** The highest memory limit an OOM kill happened at (null: no kill, or no limit known). */
  oomPeakBytes: number | null;
  /** Per replica: recommended − current (current null = 0). */
  deltaCpuMillicores: number;
  deltaMemoryBytes: number;
  /** From the first hour's start to the last hour's end. */
  historyMs: number;
  samples: number;
  flags: RightsizingFlag[];
  /** The CPU limit the throttling was read against (null: none known). */
  cpuLimitMillicores: number | null;
  /** The CPU flags' causes: 'limit' (`throttled`: p95 at or near the CPU limit, or the peak at it), 'request' (`above-request`: p95 above the request). */
  throttledBy: ('limit' | 'request')[];
}

const newestRequest = (hours: readonly RightsizingHour[], pick: (h: RightsizingHour) => number | null): number | null => {
  let at = -Infinity;
  let value: number | null = null;
  for (const h of hours) {
    const v = pick(h);
    if (v !== null && h.hourStart >= at) {
      at = h.hourStart;
      value = v;
    }
  }
  return value;
};

/**
 * The recommendation for one container. CPU: the cpuQuantile of the hourly p95s, each hour weighing the same (a
 * percentile over time, as KRR's over evenly stepped Prometheus samples; the hourly rollups keep no raw samples).
 * Memory: the peak working set × (1 + memoryBuffer); after an OOM kill the peak is at least the limit it was killed
 * at (the working set metrics-server saw may have missed the spike), and the request is never lowered. Both floored.
 * Null when the window holds no sample.
 */
export function recommend(h: ContainerHistory, o: RightsizingOptions = DEFAULT_RIGHTSIZING): Recommendation | null {
  const measured = h.hours.filter((x) => x.samples > 0);
  if (measured.length === 0) return null;
  const p95s = measured.map((x) => x.cpuP95Millicores).sort((a, b) => a - b);
  const cpuQuantile = quantileSorted(p95s, o.cpuQuantile);
  const cpuMax = Math.max(...measured.map((x) => x.cpuMaxMillicores));
  const memoryMax = Math.max(...measured.map((x) => x.memoryMaxBytes));
  const currentCpu = newestRequest(h.hours, (x) => x.requestCpuMillicores);
  const currentMemory = newestRequest(h.hours, (x) => x.requestMemoryBytes);
  const oomKilled = h.oomKillLimitsBytes.length > 0 || h.hours.some((x) => x.oomKills > 0);
  const limits = h.oomKillLimitsBytes.filter((x): x is number => x !== null);
  const oomPeak = limits.length === 0 ? null : Math.max(...limits);

  const cpu = Math.max(o.minCpuMillicores, Math.ceil(cpuQuantile - 1e-9));
  let memory = Math.max(memoryMax, oomPeak ?? 0) * (1 + o.memoryBuffer);
  if (oomKilled) memory = Math.max(memory, currentMemory ?? 0);
  memory = Math.max(o.minMemoryBytes, Math.ceil(memory / MIB - 1e-9) * MIB);

  const starts = measured.map((x) => x.hourStart);
  const historyMs = Math.max(...starts) + HOUR_MS - Math.min(...starts);
  const flags: RightsizingFlag[] = [];
  if (historyMs < o.minHistoryMs) flags.push('short-history');
  const limit = h.cpuLimitMillicores;
  const atLimit = limit !== null && limit > 0 && (cpuMax >= limit || cpuQuantile >= o.cpuLimitNearFraction * limit);
  const overRequest = currentCpu !== null && cpuQuantile > currentCpu;
  const throttledBy: ('limit' | 'request')[] = [];
  if (atLimit) throttledBy.push('limit');
  if (overRequest) throttledBy.push('request');
  if (atLimit) flags.push('throttled');
  if (overRequest) flags.push('above-request');
  if (oomKilled) flags.push('oom-killed');
  if (currentCpu === null && currentMemory === null) flags.push('no-request');

  return {
    namespace: h.namespace,
    workloadKind: h.workloadKind,
    workloadName: h.workloadName,
    container: h.container,
    currentCpuMillicores: currentCpu,
    currentMemoryBytes: currentMemory,
    recommendedCpuMillicores: cpu,
    recommendedMemoryBytes: memory,
    cpuQuantileMillicores: cpuQuantile,
    cpuMaxMillicores: cpuMax,
    memoryMaxBytes: memoryMax,
    oomPeakBytes: oomPeak,
    deltaCpuMillicores: cpu - (currentCpu ?? 0),
    deltaMemoryBytes: memory - (currentMemory ?? 0),
    historyMs,
    samples: measured.reduce((s, x) => s + x.samples, 0),
    flags,
    cpuLimitMillicores: limit,
    throttledBy,
  };
}
