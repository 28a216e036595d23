import type { RangeQuery } from '@schemas/common';
import { Panel } from '../../../components/ui/panel';
import { EmptyState, ErrorState, LoadingState } from '../../../components/ui/state-message';
import { apiUrl } from '../../../lib/api-client';
import { formatCount, formatUtcDateTime } from '../../../lib/format';
import { useKarpenterExplanations } from '../api/use-karpenter-explanations';

/** Shown at most; the CSV has them all. */
const SHOWN = 200;

/**
 * What Karpenter itself said about consolidation in the range, newest first: candidates, rejections (budget,
 * scheduling, churn, or a Balanced score under its threshold), approvals, and why a node is unconsolidatable.
 */
export function KarpenterExplanationsPanel({ query }: { query: RangeQuery | undefined }) {
  const q = query === undefined ? undefined : { from: query.from, to: query.to, nodepool: query.nodepool };
  const said = useKarpenterExplanations(q);
  const body = (() => {
    if (q === undefined || said.isPending) return <LoadingState label="Loading Karpenter’s explanations…" />;
    if (said.isError)
      return <ErrorState title="Could not load Karpenter’s explanations." error={said.error} onRetry={() => void said.refetch()} />;
    if (said.data.rows.length === 0)
      return (
        <EmptyState title="Karpenter explained nothing in this range.">
          Karpenter v1.9 and later write ConsolidationCandidate and ConsolidationRejected events (v1.14 also ConsolidationApproved); older
          releases only Unconsolidatable.
        </EmptyState>
      );
    const rows = [...said.data.rows].reverse().slice(0, SHOWN);
    return (
      <div className="table-scroll events-scroll">
        <table className="data-table" data-testid="karpenter-explanations-table">
          <caption className="visually-hidden">Karpenter’s explanations, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Time (UTC)</th>
              <th scope="col">NodePool</th>
              <th scope="col">Node</th>
              <th scope="col">Karpenter said</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={`${r.atMs}|${r.nodeClaim ?? r.nodeName ?? r.nodePool ?? ''}|${r.kind}|${r.message}`} data-kind={r.kind}>
                <td className="period">{formatUtcDateTime(r.atMs)}</td>
                <td>{r.nodePool ?? '—'}</td>
                <td className="node-name">
                  <span title={r.nodeClaim ?? undefined}>{r.nodeName ?? r.nodeClaim ?? '—'}</span>
                </td>
                <td title={r.message}>{r.said}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    );
  })();
  const total = said.data?.total;
  return (
    <Panel
      title={total === undefined ? 'What Karpenter said' : `What Karpenter said (${formatCount(total)})`}
      subtitle={`Karpenter’s own explanations of its consolidation decisions, newest first${total !== undefined && total > SHOWN ? ` (the newest ${SHOWN}; the CSV has all)` : ''}.`}
      actions={
        q === undefined ? undefined : (
          <a className="button" href={apiUrl('/api/consolidation/karpenter-explanations', { ...q, format: 'csv' })} download>
            CSV
          </a>
        )
      }
    >
      {body}
    </Panel>
  );
}
