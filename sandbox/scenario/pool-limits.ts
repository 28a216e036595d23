import { parseBaseUnits, parseCpuMillicores, quantityFromJson } from '../../core/quantity.js';
import type { InstanceTypeInfo } from './types.js';

/**
 * Whether one more node of `type` keeps a NodePool within its spec.limits, as Karpenter's scheduler checks them:
 * the capacity of the NodePool's nodes plus the new node's must not exceed any limit (pkg/controllers/provisioning/
 * scheduling: types over the remaining resources are filtered out), and `nodes` (v1.4+) counts nodes. Limits are
 * int-or-string quantities (`cpu: 16`, `memory: "64Gi"`, `nodes: 50`). A resource the simulation does not model is
 * not checked.
 */
export function withinLimits(
  limits: Readonly<Record<string, string | number>>,
  running: readonly InstanceTypeInfo[],
  type: InstanceTypeInfo,
): boolean {
  const capacity = (t: InstanceTypeInfo, resource: string): number | null => {
    if (resource === 'cpu') return t.vcpu * 1000;
    if (resource === 'memory') return t.memoryMiB * 1024 * 1024;
    if (resource === 'pods') return t.allocatableParsed.pods;
    if (resource === 'nvidia.com/gpu') return t.allocatableParsed.gpu;
    if (resource === 'nodes') return 1;
    return null;
  };
  for (const [resource, written] of Object.entries(limits)) {
    const text = quantityFromJson(written);
    const add = capacity(type, resource);
    if (text === null || add === null) continue;
    const limit = resource === 'cpu' ? parseCpuMillicores(text) : parseBaseUnits(text);
    const used = running.reduce((sum, t) => sum + (capacity(t, resource) ?? 0), 0);
    if (used + add > limit) return false;
  }
  return true;
}
