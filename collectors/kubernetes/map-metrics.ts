import type { V1Container, V1ContainerStatus } from '@kubernetes/client-node';
import { parseBaseUnits, parseCpuMillicores } from '../../core/quantity.js';
import type { ContainerRecord, NodeMetricsRecord, PodMetricsRecord } from '../../core/usage.js';
import { goDurationMs, usageCpuMillicores, usageMemoryBytes } from '../../core/usage.js';

/**
 * Pure mappings of the resource metrics API (metrics.k8s.io/v1beta1 PodMetrics and NodeMetrics, read as plain JSON
 * through the custom objects API) and of a Pod's containers to the ledger's usage records. Items whose quantities
 * cannot be read are dropped (null), not taken as zero.
 */

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function measured(o: Json): { measuredAt: number; windowMs: number } | null {
  const at = Date.parse(str(o.timestamp) ?? '');
  const windowMs = goDurationMs(str(o.window) ?? '0s');
  return Number.isNaN(at) || Number.isNaN(windowMs) ? null : { measuredAt: at, windowMs };
}

function usageOf(v: unknown): { cpuMillicores: number; memoryBytes: number } | null {
  const u = obj(v);
  const cpu = usageCpuMillicores(str(u.cpu) ?? '');
  const mem = usageMemoryBytes(str(u.memory) ?? '');
  return Number.isNaN(cpu) || Number.isNaN(mem) ? null : { cpuMillicores: cpu, memoryBytes: mem };
}

/**
 * A PodMetrics item as the ledger's record; `intern` shares the strings every pod repeats (its namespace, its
 * containers' names) so 150,000 records do not hold 150,000 copies of each.
 */
export function mapPodMetrics(raw: unknown, intern: (s: string) => string = (s) => s): PodMetricsRecord | null {
  const o = obj(raw);
  const md = obj(o.metadata);
  const name = str(md.name);
  const ns = str(md.namespace);
  const namespace = ns === undefined ? undefined : intern(ns);
  const when = measured(o);
  if (!name || !namespace || when === null || !Array.isArray(o.containers)) return null;
  const containers: PodMetricsRecord['containers'] = [];
  for (const c of o.containers) {
    const x = obj(c);
    const u = usageOf(x.usage);
    const cname = str(x.name);
    if (u === null || !cname) return null;
    containers.push({ name: intern(cname), cpuMillicores: u.cpuMillicores, memoryBytes: u.memoryBytes });
  }
  return { namespace, name, measuredAt: when.measuredAt, windowMs: when.windowMs, containers };
}

export function mapNodeMetrics(raw: unknown): NodeMetricsRecord | null {
  const o = obj(raw);
  const name = str(obj(o.metadata).name);
  const when = measured(o);
  const u = usageOf(o.usage);
  if (!name || when === null || u === null) return null;
  return { name, ...when, ...u };
}

const quantityOr = (q: string | undefined, parse: (q: string) => number): number | null => {
  if (q === undefined) return null;
  try {
    return parse(q);
  } catch {
    return null;
  }
};

/** A pod's app containers with their requests, limits, restarts and last termination (what an OOM kill leaves). */
export function mapContainers(spec: V1Container[] | undefined, statuses: V1ContainerStatus[] | undefined): ContainerRecord[] {
  const statusOf = new Map((statuses ?? []).map((s) => [s.name, s]));
  return (spec ?? []).map((c) => {
    const requests = (c.resources?.requests ?? {}) as Record<string, string>;
    const limits = (c.resources?.limits ?? {}) as Record<string, string>;
    const st = statusOf.get(c.name);
    const term = st?.lastState?.terminated;
    const finishedAt = term?.finishedAt === undefined ? Number.NaN : new Date(term.finishedAt).getTime();
    return {
      name: c.name,
      requests: {
        cpuMillicores: quantityOr(requests.cpu, parseCpuMillicores) ?? 0,
        memoryBytes: quantityOr(requests.memory, parseBaseUnits) ?? 0,
      },
      limits: { cpuMillicores: quantityOr(limits.cpu, parseCpuMillicores), memoryBytes: quantityOr(limits.memory, parseBaseUnits) },
      restartCount: st?.restartCount ?? 0,
      lastTermination:
        term === undefined || Number.isNaN(finishedAt) ? null : { reason: term.reason ?? '', finishedAt, exitCode: term.exitCode ?? 0 },
    };
  });
}
