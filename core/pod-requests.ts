import type { ResourceAmounts } from './model.js';
import { parseBaseUnits, parseCpuMillicores } from './quantity.js';

/** The part of a container spec (Kubernetes V1Container) that requests resources. */
export interface RequestingContainer {
  resources?: { requests?: Record<string, string> };
}

/**
 * Effective pod requests by the Kubernetes rule: per resource, max(sum over containers, max over init
 * containers) + pod overhead. A pod also takes one pod slot. (Restartable "sidecar" init containers are
 * summed like app containers, as the scheduler does.)
 */
export function effectiveRequests(
  containers: RequestingContainer[],
  initContainers: (RequestingContainer & { restartPolicy?: string })[] = [],
  overhead: Record<string, string> = {},
): ResourceAmounts {
  const sidecars = initContainers.filter((c) => c.restartPolicy === 'Always');
  const amount = (c: RequestingContainer, key: string, parse: (q: string) => number) => {
    const q = c.resources?.requests?.[key];
    return q === undefined ? 0 : parse(q);
  };
  const one = (key: string, parse: (q: string) => number): number => {
    const appAndSidecars = [...containers, ...sidecars].reduce((a, c) => a + amount(c, key, parse), 0);
    // An init container runs alone (with the sidecars started before it), so it needs its own request plus theirs.
    let initPeak = 0;
    let sidecarsSoFar = 0;
    for (const c of initContainers) {
      if (c.restartPolicy === 'Always') sidecarsSoFar += amount(c, key, parse);
      else initPeak = Math.max(initPeak, sidecarsSoFar + amount(c, key, parse));
    }
    const over = overhead[key] === undefined ? 0 : parse(overhead[key]);
    return Math.max(appAndSidecars, initPeak) + over;
  };
  return {
    cpuMillicores: one('cpu', parseCpuMillicores),
    memoryBytes: one('memory', parseBaseUnits),
    pods: 1,
    gpu: one('nvidia.com/gpu', parseBaseUnits),
  };
}
