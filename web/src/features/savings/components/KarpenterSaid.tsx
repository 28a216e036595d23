import { useQueries } from '@tanstack/react-query';
import type { KarpenterExplanationRow } from '@schemas/karpenter-explanations';
import { formatIsoUtc } from '../../../lib/format';
import { jsonQuery } from '../../../lib/json-query';
import { disagreement, newestPerNode, saidRange, type EngineDecision } from '../utils/karpenter-said';

/** One cluster's part of the why-not answer: its name (undefined: the answer is about one cluster) and its snapshot. */
export interface SaidSection {
  cluster: string | undefined;
  snapshotAt: string;
}

/**
 * What Karpenter last said about a node in the hour up to its cluster's snapshot (nothing until the snapshots are
 * known). Under "All clusters" each cluster's explanations are asked of that cluster, in the hour up to its own
 * snapshot, and a node is looked up within its cluster: two clusters may hold nodes of the same name.
 */
export function useKarpenterSaid(
  sections: readonly SaidSection[],
): (cluster: string | undefined, node: string) => KarpenterExplanationRow | undefined {
  const said = useQueries({
    queries: sections.map((s) =>
      // Without a cluster of its own the request keeps the page's (json-query adds it).
      jsonQuery(
        '/api/consolidation/karpenter-explanations',
        s.cluster === undefined ? saidRange(s.snapshotAt) : { ...saidRange(s.snapshotAt), cluster: s.cluster },
      ),
    ),
  });
  // An hour of explanations per cluster: cheap to index again on each render.
  const byCluster = new Map(sections.map((s, i) => [s.cluster ?? '', newestPerNode(said[i]?.data?.rows ?? [])]));
  return (cluster, node) => byCluster.get(cluster ?? '')?.get(node);
}

export function KarpenterSaidHeader() {
  return (
    <th scope="col" title="Karpenter’s own explanation (its Consolidation* and Unconsolidatable events) in the hour up to the snapshot">
      Karpenter said
    </th>
  );
}

/** Karpenter's word on the node, and where it differs from the engine's decision, the two side by side. */
export function KarpenterSaidCell({ said, engine }: { said: KarpenterExplanationRow | undefined; engine: EngineDecision }) {
  if (said === undefined) return <td className="karpenter-said muted">—</td>;
  const differs = disagreement(said, engine);
  return (
    <td
      className="karpenter-said"
      data-disagrees={differs === null ? undefined : 'true'}
      title={`${said.message} (${formatIsoUtc(said.at)})`}
    >
      {said.said}
      {differs === null ? null : (
        <span className="finding" data-testid="karpenter-disagrees">
          <br />
          Differs: {differs}
        </span>
      )}
    </td>
  );
}
