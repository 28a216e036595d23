import { useQuery } from '@tanstack/react-query';
import { ErrorState, LoadingState } from '../../../components/ui/state-message';
import { onCluster } from '../../../components/ui/tool-cluster';
import { formatIsoUtc } from '../../../lib/format';
import { jsonQuery } from '../../../lib/json-query';
import { commandText } from '../utils/command-text';

/**
 * A NodePool switched to consolidationPolicy Balanced (v1.14, k = 2) in the edit form: Karpenter's next round then,
 * what it saves and disrupts, and the score of each move, beside today's round.
 */
export function BalancedResult({ nodePool, at, cluster }: { nodePool: string; at: string | undefined; cluster: string | undefined }) {
  const r = useQuery(jsonQuery('/api/whatif/balanced', { nodepool: nodePool, at, cluster }));
  if (r.isPending) return <LoadingState label="Simulating Balanced consolidation…" />;
  if (r.isError) return <ErrorState title="Could not simulate Balanced." error={r.error} onRetry={() => void r.refetch()} />;
  return (
    <dl className="try-answer" data-testid="balanced-answer" data-cluster={cluster} aria-live="polite">
      <dt>Today ({r.data.policyToday})</dt>
      <dd>{commandText(r.data.today)}</dd>
      <dt>{nodePool} on Balanced (k = 2)</dt>
      <dd>
        {commandText(r.data.balanced)}
        {(r.data.balanced?.scores ?? []).map((s) => (
          <span key={s.nodePool} className="sub" data-testid="balanced-score">
            {s.nodePool}: {s.message}
          </span>
        ))}
      </dd>
      {r.data.keptByScore.length === 0 ? null : (
        <>
          <dt>Kept by the score</dt>
          <dd>{r.data.keptByScore.map((k) => `${k.node}: ${k.reason}`).join('; ')}</dd>
        </>
      )}
      <dd className="sub">
        Simulation{onCluster(cluster)} · snapshot {formatIsoUtc(r.data.snapshotAt)} · Karpenter v1.14 Balanced consolidation.
      </dd>
    </dl>
  );
}
