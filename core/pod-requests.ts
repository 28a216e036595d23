import type { ResourceAmounts } from './model.js';
import { parseBaseUnits, parseCpuMillicores } from './quantity.js';

/** The part of a container spec (Kubernetes V1Container) that requests resources. */
export interface RequestingContainer {
  resources?: { requests?: Record<string, string | number> };
}

const parse = (name: string, q: string | number): number => (name === 'cpu' ? parseCpuMillicores(String(q)) : parseBaseUnits(String(q)));

/**
 * Effective pod requests by the Kubernetes rule, for every resource named anywhere in the pod: per resource,
 * max(sum over containers, max over init containers) + pod overhead. CPU in millicores, everything else in base
 * units. (Restartable "sidecar" init containers are summed like app containers, as the scheduler does.) The pod
 * slot itself is not included.
 */
export function effectiveRequestList(
  containers: RequestingContainer[],
  initContainers: (RequestingContainer & { restartPolicy?: string })[] = [],
  overhead: Record<string, string | number> = {},
): Record<string, number> {
  // one pass per container list, no closures: this runs for every pod of a 150,000-pod cluster
  const sum: Record<string, number> = {};
  for (const c of containers) {
    const req = c.resources?.requests;
    if (req) for (const k in req) sum[k] = (sum[k] ?? 0) + parse(k, req[k]);
  }
  // An init container runs alone (with the sidecars started before it), so it needs its own request plus theirs.
  const initPeak: Record<string, number> = {};
  const sidecars: Record<string, number> = {};
  for (const c of initContainers) {
    const req = c.resources?.requests;
    if (c.restartPolicy === 'Always') {
      if (req) {
        for (const k in req) {
          const v = parse(k, req[k]);
          sidecars[k] = (sidecars[k] ?? 0) + v;
          sum[k] = (sum[k] ?? 0) + v;
        }
      }
      continue;
    }
    // every resource the pod names, including those this init container leaves out (it still waits on sidecars)
    const names = new Set([...Object.keys(req ?? {}), ...Object.keys(sidecars)]);
    for (const k of names) {
      const v = (sidecars[k] ?? 0) + (req?.[k] === undefined ? 0 : parse(k, req[k]));
      if (v > (initPeak[k] ?? 0)) initPeak[k] = v;
    }
  }
  const out: Record<string, number> = {};
  for (const k in sum) out[k] = sum[k];
  for (const k in initPeak) if (initPeak[k] > (out[k] ?? 0)) out[k] = initPeak[k];
  for (const k in overhead) out[k] = (out[k] ?? 0) + parse(k, overhead[k]);
  return out;
}

/** Effective requests of the four resources the ledger stores, plus the one pod slot a pod takes. */
export function effectiveRequests(
  containers: RequestingContainer[],
  initContainers: (RequestingContainer & { restartPolicy?: string })[] = [],
  overhead: Record<string, string | number> = {},
): ResourceAmounts {
  const list = effectiveRequestList(containers, initContainers, overhead);
  return {
    cpuMillicores: list.cpu ?? 0,
    memoryBytes: list.memory ?? 0,
    pods: 1,
    gpu: list['nvidia.com/gpu'] ?? 0,
  };
}
