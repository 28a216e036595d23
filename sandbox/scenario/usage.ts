import { parseBaseUnits, parseCpuMillicores } from '../../core/quantity.js';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../core/time.js';
import type { ScenarioFile } from './scenario-file.js';
import type { EpochMs, Scenario, SimContainer, SimPod } from './types.js';

/**
 * What the simulated containers use, moment by moment: the sandbox's metrics-server (PodMetrics, NodeMetrics) and
 * Prometheus (cAdvisor's container_cpu_usage_seconds_total and container_memory_working_set_bytes) both answer
 * from here, so they agree. Usage is a pure function of the seed, the pod, the container and the time — no state,
 * no draw from the simulation's random stream — so the same seed gives the same usage whatever is asked, in any
 * order, and the simulation's history is unchanged by it.
 *
 * Profiles are declared per workload in the scenario file (`usage`); a workload without one uses DEFAULT_PROFILE.
 */

/** A value relative to the container's request: a constant, or [low, high] following the workload's daily cycle. */
export type RequestFraction = number | [number, number];

export interface UsageProfileSpec {
  /** CPU used as a fraction of the CPU request (above 1: runs above its request). */
  cpu: RequestFraction;
  /** Memory working set as a fraction of the memory request. */
  memory: RequestFraction;
  /** Relative noise per pod and 5-minute step (0.1: within ±10 %); default 0.08. */
  noise?: number;
  /** Bursty work: in this share of 5-minute steps, CPU jumps to `cpu` × request. */
  bursts?: { probability: number; cpu: number };
  /** Container limits served on the pod. CPU use never exceeds the CPU limit: a container held there is throttled. */
  limits?: { cpu?: string; memory?: string };
  /**
   * A memory leak: the working set grows by this share of the memory limit per hour from its base; at the limit the
   * kernel OOM-kills the container, which restarts from its base (restartCount + 1, lastState OOMKilled).
   */
  leakPerHour?: number;
}

export const DEFAULT_PROFILE: UsageProfileSpec = { cpu: [0.2, 0.4], memory: 0.55, noise: 0.08 };
/** A container with no memory request (aws-node, kube-proxy) still uses some. */
const MEMORY_WITHOUT_REQUEST_BYTES = 48 * 2 ** 20;
const CPU_WITHOUT_REQUEST_MILLICORES = 5;
const STEP_MS = 5 * MINUTE_MS;
const PAGE_BYTES = 4096;

export interface ContainerUsageNow {
  cpuMillicores: number;
  memoryBytes: number;
}

export interface ContainerLimits {
  cpuMillicores: number | null;
  memoryBytes: number | null;
}

/** Restarts of a container up to a time, and the last one (an OOM kill) if any. */
export interface RestartState {
  restartCount: number;
  lastOomKillAt: EpochMs | null;
}

interface Resolved {
  profile: UsageProfileSpec;
  peakHourUtc: number;
  limits: ContainerLimits;
  limitsSpec: { cpu?: string; memory?: string } | null;
}

/** 32-bit FNV-1a of a string, then mixed: a stable hash to seed per-pod, per-step noise. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return (h >>> 0) / 4294967296;
}

const fractionAt = (f: RequestFraction, shape: number): number => (typeof f === 'number' ? f : f[0] + (f[1] - f[0]) * shape);

export class UsageModel {
  private readonly byWorkload = new Map<string, { profile: UsageProfileSpec; peakHourUtc: number }>();
  private readonly resolved = new Map<string, Resolved>();

  constructor(
    private readonly seed: number,
    workloads: readonly {
      namespace: string;
      name: string;
      usage?: UsageProfileSpec;
      replicas?: ScenarioFile['workloads'][number]['replicas'];
    }[],
  ) {
    for (const w of workloads) {
      const daily = w.replicas && 'daily' in w.replicas ? w.replicas.daily.peakHourUtc : 15;
      this.byWorkload.set(`${w.namespace}/${w.name}`, { profile: w.usage ?? DEFAULT_PROFILE, peakHourUtc: daily });
    }
  }

  /** The profile of a pod's workload (by namespace and `app` label, which names the workload or DaemonSet). */
  private resolve(p: SimPod): Resolved {
    const key = `${p.namespace}/${p.labels.app ?? p.ownerName}`;
    let r = this.resolved.get(key);
    if (r === undefined) {
      const w = this.byWorkload.get(key) ?? { profile: DEFAULT_PROFILE, peakHourUtc: 15 };
      const spec = w.profile.limits ?? null;
      r = {
        profile: w.profile,
        peakHourUtc: w.peakHourUtc,
        limitsSpec: spec,
        limits: {
          cpuMillicores: spec?.cpu ? parseCpuMillicores(spec.cpu) : null,
          memoryBytes: spec?.memory ? parseBaseUnits(spec.memory) : null,
        },
      };
      this.resolved.set(key, r);
    }
    return r;
  }

  /** The limits to serve on a pod's containers (null: none). */
  limitsOf(p: SimPod): { cpu?: string; memory?: string } | null {
    return this.resolve(p).limitsSpec;
  }

  private requestOf(c: SimContainer): { cpu: number; memory: number } {
    const r = c.resources.requests;
    return {
      cpu: r.cpu ? parseCpuMillicores(r.cpu) : CPU_WITHOUT_REQUEST_MILLICORES,
      memory: r.memory ? parseBaseUnits(r.memory) : MEMORY_WITHOUT_REQUEST_BYTES,
    };
  }

  /** Hours between OOM kills of a leaking container (null: it never reaches its limit). */
  private oomPeriodMs(p: SimPod, c: SimContainer): number | null {
    const r = this.resolve(p);
    const leak = r.profile.leakPerHour;
    const limit = r.limits.memoryBytes;
    if (!leak || limit === null) return null;
    const base = this.requestOf(c).memory * fractionAt(r.profile.memory, 0.5);
    if (base >= limit) return null;
    return ((limit - base) / (leak * limit)) * HOUR_MS;
  }

  /** Restarts of a container by time t (each one an OOM kill of a leaking container). */
  restartsAt(p: SimPod, c: SimContainer, t: EpochMs): RestartState {
    const period = this.oomPeriodMs(p, c);
    if (period === null || t < p.createdAt) return { restartCount: 0, lastOomKillAt: null };
    const n = Math.floor((t - p.createdAt) / period);
    return { restartCount: n, lastOomKillAt: n === 0 ? null : Math.round(p.createdAt + n * period) };
  }

  /** The times in [from, to) at which the pod's containers were OOM-killed (the Pod object changes then). */
  oomKillTimes(p: SimPod, from: EpochMs, to: EpochMs): EpochMs[] {
    const out = new Set<EpochMs>();
    for (const c of p.containers) {
      const period = this.oomPeriodMs(p, c);
      if (period === null) continue;
      for (let k = Math.max(1, Math.ceil((from - p.createdAt) / period)); p.createdAt + k * period < to; k++)
        out.add(Math.round(p.createdAt + k * period));
    }
    return [...out].sort((a, b) => a - b);
  }

  /** What a container of a running pod uses at t. */
  usageAt(p: SimPod, c: SimContainer, t: EpochMs): ContainerUsageNow {
    const r = this.resolve(p);
    const req = this.requestOf(c);
    const hour = (t % DAY_MS) / HOUR_MS;
    const shape = 0.5 + 0.5 * Math.cos(((hour - r.peakHourUtc) / 24) * 2 * Math.PI);
    const step = Math.floor(t / STEP_MS);
    const noise = r.profile.noise ?? 0.08;
    const jitter = (salt: string) => 1 + noise * (2 * hash(`${this.seed}|${p.uid}|${c.name}|${step}|${salt}`) - 1);
    let cpu = req.cpu * fractionAt(r.profile.cpu, shape) * jitter('cpu');
    const burst = r.profile.bursts;
    if (burst && hash(`${this.seed}|${p.uid}|${c.name}|${step}|burst`) < burst.probability)
      cpu = req.cpu * burst.cpu * jitter('burst-size');
    if (r.limits.cpuMillicores !== null) cpu = Math.min(cpu, r.limits.cpuMillicores);
    let memory = req.memory * fractionAt(r.profile.memory, shape) * jitter('memory');
    const period = this.oomPeriodMs(p, c);
    if (period !== null && r.limits.memoryBytes !== null) {
      const base = req.memory * fractionAt(r.profile.memory, 0.5);
      const sinceRestart = (t - p.createdAt) % period;
      memory = Math.min(
        r.limits.memoryBytes - PAGE_BYTES,
        base + ((r.profile.leakPerHour ?? 0) * r.limits.memoryBytes * sinceRestart) / HOUR_MS,
      );
    } else if (r.limits.memoryBytes !== null) memory = Math.min(memory, r.limits.memoryBytes - PAGE_BYTES);
    // Nanocores, as the kubelet reports them; the working set in whole pages.
    return {
      cpuMillicores: Math.max(0, Math.round(cpu * 1e6) / 1e6),
      memoryBytes: Math.max(PAGE_BYTES, Math.round(memory / PAGE_BYTES) * PAGE_BYTES),
    };
  }

  /** What a node uses beyond its pods (kubelet, container runtime, system daemons). */
  nodeOverhead(allocatableCpuMillicores: number): ContainerUsageNow {
    return { cpuMillicores: 60 + allocatableCpuMillicores * 0.015, memoryBytes: 520 * 2 ** 20 };
  }

  /** metrics-server's scrape: its timestamp a little before t (a 15 s resolution) and a window of about 15 s. */
  scrapeOf(key: string, t: EpochMs): { measuredAt: EpochMs; windowMs: number } {
    const h = hash(`${this.seed}|${key}|${Math.floor(t / STEP_MS)}|scrape`);
    return { measuredAt: Math.floor((t - 1000 - h * 14_000) / 1000) * 1000, windowMs: 14_000 + Math.round(h * 2000) };
  }
}

/** The usage model of a scenario: its file's workload profiles (DaemonSets and unknown workloads use the default). */
export function usageModelFor(scenario: Pick<Scenario, 'seed'>, file: Pick<ScenarioFile, 'workloads'> | null): UsageModel {
  return new UsageModel(scenario.seed, file?.workloads ?? []);
}
