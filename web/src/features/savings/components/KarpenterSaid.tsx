import { useMemo } from 'react';
import type { KarpenterExplanationRow } from '@schemas/karpenter-explanations';
import { useKarpenterExplanations } from '../../consolidation/api/use-karpenter-explanations';
import { formatIsoUtc } from '../../../lib/format';
import { disagreement, newestPerNode, saidRange, type EngineDecision } from '../utils/karpenter-said';

/** Per node name, what Karpenter last said in the hour up to the snapshot (empty until the snapshot is known). */
export function useKarpenterSaid(snapshotAt: string | undefined): Map<string, KarpenterExplanationRow> {
  const said = useKarpenterExplanations(snapshotAt === undefined ? undefined : saidRange(snapshotAt));
  return useMemo(() => newestPerNode(said.data?.rows ?? []), [said.data]);
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
