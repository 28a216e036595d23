import type { ClusterReadOptions, ClusterSnapshot } from '../../db/repositories/cluster-snapshot-repository.js';
import { nodePoolKarpenter, readsNodeLabels } from '../analytics/nodepool-karpenter.js';
import { isoInstant } from '../analytics/range.js';
import type { NodePoolKarpenterQuery, NodePoolKarpenterResponse } from '../schemas/nodepool-karpenter.js';
import { NotFoundError, optionalInstant } from './analytics-range.js';

/** What the service reads: the cluster at a stored snapshot (db/repositories/cluster-snapshot-repository.ts). */
export interface ClusterSnapshotSource {
  clusterObjectsAt(at?: number, options?: ClusterReadOptions): ClusterSnapshot | null;
}

const round = (n: number): number => Math.round(n * 1e6) / 1e6;
const roundOrNull = (n: number | null): number | null => (n === null ? null : round(n));

/** Static pools, limits.nodes, overlay prices and reservations per NodePool at a snapshot (the NodePools page). */
export function createNodePoolKarpenterService(source: ClusterSnapshotSource) {
  return {
    setup(q: NodePoolKarpenterQuery, clusterId: number | null = null): NodePoolKarpenterResponse {
      const at = optionalInstant('at', q.at);
      // Nothing here looks at pods (at the envelope, 150,000 of them were nearly all of a read), nor at the nodes'
      // versions or the kinds other than NodeOverlay and EC2NodeClass; the nodes' stored labels only when an overlay
      // prices nodes or a NodeClass lists reservations (at 5,000 nodes they were most of what was left).
      const read = { pods: false, nodeVersions: false, kinds: ['NodeOverlay', 'EC2NodeClass'], clusterId } as const;
      const light = source.clusterObjectsAt(at, { ...read, nodeLabels: false });
      const snap = light !== null && readsNodeLabels(light.objects) ? source.clusterObjectsAt(at, read) : light;
      if (snap === null)
        throw new NotFoundError(at === undefined ? 'no snapshot is stored yet: collect first' : `no snapshot at or before ${q.at}`);
      const r = nodePoolKarpenter(snap.objects, (node) => snap.nodePrices[node]?.pricePerHour ?? null);
      return {
        snapshotAt: isoInstant(snap.snapshot.takenAt),
        currency: snap.snapshot.currency,
        karpenterVersion: snap.karpenterVersion?.version ?? null,
        nodePools: r.nodePools.map((p) => ({
          ...p,
          usdPerHour: roundOrNull(p.usdPerHour),
          fixedUsdPerHour: roundOrNull(p.fixedUsdPerHour),
        })),
        overlays: r.overlays,
        overlayPrices: r.overlayPrices.map((p) => ({
          ...p,
          usdPerHour: round(p.usdPerHour),
          karpenterUsdPerHour: round(p.karpenterUsdPerHour),
        })),
        reservations: r.reservations,
      };
    },
  };
}

export type NodePoolKarpenterService = ReturnType<typeof createNodePoolKarpenterService>;
