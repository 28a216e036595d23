import type { EpochMs, SimNodeOverlay } from './types.js';
import { isoSeconds, uidFor } from './uid.js';

/**
 * A NodeOverlay as the API server returns it (karpenter.sh/v1alpha1, kubernetes-sigs/karpenter v1.14.1
 * pkg/apis/v1alpha1/nodeoverlay.go): the spec as written, and no status: its ValidationSucceeded/Ready conditions
 * are written by the nodeoverlay controller, which runs only with the NodeOverlay feature gate on (off by default in
 * v1.14.1, pkg/operator/options/options.go; the sandbox's controller keeps the default, so it prices with none).
 */
export function nodeOverlayObject(o: SimNodeOverlay, createdAt: EpochMs) {
  return {
    apiVersion: 'karpenter.sh/v1alpha1',
    kind: 'NodeOverlay',
    metadata: {
      name: o.name,
      uid: uidFor('NodeOverlay', o.name),
      resourceVersion: String(Math.floor(createdAt / 1000)),
      generation: 1,
      creationTimestamp: isoSeconds(createdAt),
    },
    spec: {
      requirements: o.requirements,
      ...(o.priceAdjustment !== undefined ? { priceAdjustment: o.priceAdjustment } : {}),
      ...(o.price !== undefined ? { price: o.price } : {}),
      ...(o.capacity !== undefined ? { capacity: o.capacity } : {}),
      ...(o.weight !== undefined ? { weight: o.weight } : {}),
    },
  };
}
