import { loadInstanceCatalog } from '../../core/instance-catalog.js';
import { loadStaticOnDemandPrices } from '../../core/static-prices.js';
import type { InstanceTypeInfo } from './types.js';

/** On-demand USD/hour per instance type in `region`, from Karpenter's static table, as a plain record. */
export const loadOnDemandPrices = (region: string): Record<string, number> => Object.fromEntries(loadStaticOnDemandPrices(region));

let cached: Map<string, InstanceTypeInfo> | null = null;

/**
 * The instance types the sandbox can launch: those of the shipped catalogue (core/instance-catalog.ts) that have
 * a us-east-1 on-demand price in Karpenter's static table, sorted by name.
 */
export function loadCatalog(): Map<string, InstanceTypeInfo> {
  if (cached) return cached;
  const prices = loadStaticOnDemandPrices('us-east-1');
  const out = new Map<string, InstanceTypeInfo>();
  for (const t of loadInstanceCatalog().types.values()) {
    const price = prices.get(t.name);
    if (price === undefined) continue;
    out.set(t.name, {
      name: t.name,
      labels: { ...t.labels },
      allocatable: { ...t.allocatableQuantities },
      allocatableParsed: { ...t.allocatable },
      vcpu: t.vcpu,
      memoryMiB: t.memoryMiB,
      onDemandUsdPerHour: price,
    });
  }
  cached = out;
  return out;
}

/** The label keys the catalogue's types carry: a requirement on any other key says nothing about a type. */
export const catalogLabelKeys = (): ReadonlySet<string> => loadInstanceCatalog().labelKeys;
