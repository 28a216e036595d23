import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseBaseUnits, parseCpuMillicores } from '../../core/quantity.js';
import type { InstanceTypeFact } from '../explain/facts.js';

const CATALOG = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'data', 'instance-types.json');

interface RawCatalog {
  instanceTypes: Record<string, { labels: Record<string, string>; allocatable: Record<string, string> }>;
}

let cached: Map<string, InstanceTypeFact> | null = null;

/**
 * The shipped instance-type reference (data/instance-types.json: Karpenter's labels and allocatable per type, see
 * data/README.md), read once: the explainer names the next smaller type a NodePool admits from it.
 */
export function loadInstanceCatalog(path = CATALOG): ReadonlyMap<string, InstanceTypeFact> {
  if (cached && path === CATALOG) return cached;
  const raw = JSON.parse(readFileSync(path, 'utf8')) as RawCatalog;
  const out = new Map<string, InstanceTypeFact>();
  for (const [name, t] of Object.entries(raw.instanceTypes)) {
    const { cpu, memory, pods } = t.allocatable;
    if (!cpu || !memory || !pods) continue;
    out.set(name, {
      name,
      labels: t.labels,
      allocatable: { cpuMillicores: parseCpuMillicores(cpu), memoryBytes: parseBaseUnits(memory), pods: parseBaseUnits(pods) },
    });
  }
  if (path === CATALOG) cached = out;
  return out;
}
