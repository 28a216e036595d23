import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseBaseUnits, parseCpuMillicores } from '../../core/quantity.js';
import { loadStaticOnDemandPrices } from '../../core/static-prices.js';
import type { InstanceTypeInfo, NodeSelectorRequirement } from './types.js';

const DATA_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'data');

interface RawCatalog {
  instanceTypes: Record<string, { labels: Record<string, string>; allocatable: Record<string, string> }>;
}

/** On-demand USD/hour per instance type in `region`, from Karpenter's static table, as a plain record. */
export const loadOnDemandPrices = (region: string): Record<string, number> => Object.fromEntries(loadStaticOnDemandPrices(region));

let cached: Map<string, InstanceTypeInfo> | null = null;

/** Instance types that have labels, allocatable and a us-east-1 on-demand price. */
export function loadCatalog(): Map<string, InstanceTypeInfo> {
  if (cached) return cached;
  const raw = JSON.parse(readFileSync(join(DATA_DIR, 'instance-types.json'), 'utf8')) as RawCatalog;
  const prices = loadStaticOnDemandPrices('us-east-1');
  const out = new Map<string, InstanceTypeInfo>();
  for (const name of Object.keys(raw.instanceTypes).sort()) {
    const { labels, allocatable } = raw.instanceTypes[name];
    const price = prices.get(name);
    if (price === undefined || !allocatable.cpu || !allocatable.memory || !allocatable.pods) continue;
    out.set(name, {
      name,
      labels,
      allocatable,
      allocatableParsed: {
        cpuMillicores: parseCpuMillicores(allocatable.cpu),
        memoryBytes: parseBaseUnits(allocatable.memory),
        pods: parseBaseUnits(allocatable.pods),
        gpu: allocatable['nvidia.com/gpu'] ? parseBaseUnits(allocatable['nvidia.com/gpu']) : 0,
      },
      vcpu: Number(labels['karpenter.k8s.aws/instance-cpu']),
      memoryMiB: Number(labels['karpenter.k8s.aws/instance-memory']),
      onDemandUsdPerHour: price,
    });
  }
  cached = out;
  return out;
}

/** Whether a label set satisfies NodeSelectorRequirements (the subset NodePools use). */
export function matchesRequirements(labels: Record<string, string>, reqs: NodeSelectorRequirement[]): boolean {
  return reqs.every((r) => {
    const v = labels[r.key];
    switch (r.operator) {
      case 'In':
        return v !== undefined && (r.values ?? []).includes(v);
      case 'NotIn':
        return v === undefined || !(r.values ?? []).includes(v);
      case 'Exists':
        return v !== undefined;
      case 'DoesNotExist':
        return v === undefined;
      case 'Gt':
        return v !== undefined && Number(v) > Number(r.values?.[0]);
      case 'Lt':
        return v !== undefined && Number(v) < Number(r.values?.[0]);
    }
  });
}
