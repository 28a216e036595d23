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
  const names = new Set<string>(Object.keys(overhead));
  for (const c of [...containers, ...initContainers]) for (const k of Object.keys(c.resources?.requests ?? {})) names.add(k);
  const amount = (c: RequestingContainer, key: string) => {
    const q = c.resources?.requests?.[key];
    return q === undefined ? 0 : parse(key, q);
  };
  const out: Record<string, number> = {};
  for (const key of names) {
    let appAndSidecars = 0;
    for (const c of containers) appAndSidecars += amount(c, key);
    // An init container runs alone (with the sidecars started before it), so it needs its own request plus theirs.
    let initPeak = 0;
    let sidecarsSoFar = 0;
    for (const c of initContainers) {
      if (c.restartPolicy === 'Always') {
        sidecarsSoFar += amount(c, key);
        appAndSidecars += amount(c, key);
      } else initPeak = Math.max(initPeak, sidecarsSoFar + amount(c, key));
    }
    const over = overhead[key] === undefined ? 0 : parse(key, overhead[key]);
    out[key] = Math.max(appAndSidecars, initPeak) + over;
  }
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
