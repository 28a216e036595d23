import { describe, expect, it } from 'vitest';
import { effectiveRequests } from './pod-requests.js';

const c = (cpu?: string, memory?: string, restartPolicy?: string) => ({
  resources: { requests: { ...(cpu ? { cpu } : {}), ...(memory ? { memory } : {}) } },
  ...(restartPolicy ? { restartPolicy } : {}),
});
const Mi = 1024 ** 2;

describe('effectiveRequests (Kubernetes rule)', () => {
  it.each([
    // containers, inits, overhead, cpu m, memory bytes
    ['two app containers add up', [c('500m', '1Gi'), c('250m', '256Mi')], [], {}, 750, 1280 * Mi],
    ['a bigger init container wins per resource', [c('1', '6Gi')], [c('1500m', '512Mi')], {}, 1500, 6144 * Mi],
    ['overhead is added on top', [c('100m', '64Mi')], [], { cpu: '250m', memory: '120Mi' }, 350, 184 * Mi],
    ['no requests at all', [{}], [], {}, 0, 0],
    // sidecar 100m runs beside the app (500m) -> 600m; the init after it needs 1 + 0.1 = 1100m -> peak wins
    ['a sidecar counts with the app and with later inits', [c('500m')], [c('100m', undefined, 'Always'), c('1')], {}, 1100, 0],
  ])('%s', (_name, containers, inits, overhead, cpu, mem) => {
    const r = effectiveRequests(containers, inits, overhead as Record<string, string>);
    expect(r.cpuMillicores).toBe(cpu);
    expect(r.memoryBytes).toBe(mem);
    expect(r.pods).toBe(1);
  });
});
