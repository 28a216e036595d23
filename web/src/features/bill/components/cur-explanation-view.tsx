import type { CostMetric } from '@schemas/cost';
import type { CurResourceExplanation } from '@schemas/bill-cur';
import { ErrorState, LoadingState } from '../../../components/ui/state-message';
import { formatUsd, formatUtcSpan } from '../../../lib/format';
import { useCurExplanation } from '../api/use-bill-cur';

/** A CUR resource-day taken apart: each line with why it costs what it does, the commitment, and the NodeClaim behind it. */
export function CurExplanationView({ e }: { e: CurResourceExplanation }) {
  const n = e.node;
  return (
    <div className="explanation" data-testid="cur-explanation">
      <p className="explanation-summary">{e.summary}</p>
      <dl className="summary">
        <div>
          <dt>Unblended</dt>
          <dd>{formatUsd(e.totals.unblendedUsd)}</dd>
        </div>
        <div>
          <dt>Amortized</dt>
          <dd>{formatUsd(e.totals.amortizedUsd)}</dd>
        </div>
        <div>
          <dt>Net amortized</dt>
          <dd>{formatUsd(e.totals.netAmortizedUsd)}</dd>
        </div>
      </dl>
      <div className="table-scroll">
        <table className="data-table cur-lines">
          <caption className="visually-hidden">
            The CUR lines of {e.resourceId} on {e.day}
          </caption>
          <thead>
            <tr>
              <th scope="col">Line item type</th>
              <th scope="col">Usage type</th>
              <th scope="col" className="num">
                Usage
              </th>
              <th scope="col" className="num">
                Unblended
              </th>
              <th scope="col" className="num">
                Amortized
              </th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {e.lines.map((l) => (
              <tr key={`${l.lineItemType}|${l.usageType}|${l.commitment?.arn ?? ''}`}>
                <th scope="row">
                  {l.lineItemType}
                  {l.commitment === null ? null : (
                    <span className="sub">{l.commitment.kind === 'savings-plan' ? 'Savings Plan' : 'Reservation'}</span>
                  )}
                </th>
                <td>{l.usageType}</td>
                <td className="num">{Number(l.usageAmount.toFixed(4))}</td>
                <td className="num">{formatUsd(l.unblendedUsd)}</td>
                <td className="num">{formatUsd(l.amortizedUsd)}</td>
                <td className="cur-why">{l.text}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {n === null ? null : (
        <dl className="summary" aria-label="The NodeClaim behind it">
          <div>
            <dt>NodeClaim</dt>
            <dd>{n.nodeClaim ?? `${n.nodeName} (not Karpenter's)`}</dd>
          </div>
          <div>
            <dt>Instance</dt>
            <dd>
              {n.instanceType} · {n.capacityType} · {n.zone}
            </dd>
          </div>
          <div>
            <dt>Ran</dt>
            <dd>{formatUtcSpan(n.launchedAt, n.removedAt ?? `${e.day}T23:59:59Z`)}</dd>
          </div>
          <div>
            <dt>Our estimate that day</dt>
            <dd>{n.estimateUsd === null ? '—' : formatUsd(n.estimateUsd)}</dd>
          </div>
        </dl>
      )}
      {n === null || n.reasons === null ? null : (
        <details className="reasons">
          <summary>Why this node</summary>
          <dl>
            <div>
              <dt>Instance type</dt>
              <dd>{n.reasons.instanceType.summary}</dd>
            </div>
            <div>
              <dt>Size</dt>
              <dd>{n.reasons.size.summary}</dd>
            </div>
            <div>
              <dt>Capacity type</dt>
              <dd>{n.reasons.capacityType.summary}</dd>
            </div>
            <div>
              <dt>Launched</dt>
              <dd>{n.reasons.created.summary}</dd>
            </div>
            <div>
              <dt>Removed</dt>
              <dd>{n.reasons.removed.summary}</dd>
            </div>
          </dl>
        </details>
      )}
      {e.notes.length === 0 ? null : (
        <ul className="notes" aria-label="Notes">
          {e.notes.map((t) => (
            <li key={t}>{t}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The explanation of one CUR resource-day, fetched when it is expanded. */
export function StoredCurExplanation({ day, resource, metric }: { day: string; resource: string; metric: CostMetric | undefined }) {
  const e = useCurExplanation(metric === undefined ? { day, resource } : { day, resource, metric });
  if (e.isPending) return <LoadingState label="Taking the CUR lines apart…" />;
  if (e.isError) return <ErrorState title="Could not explain these CUR lines." error={e.error} onRetry={() => void e.refetch()} />;
  const [first] = e.data.explanations;
  if (first === undefined)
    return (
      <p className="card-note">
        No CUR lines for {resource} on {day}.
      </p>
    );
  return <CurExplanationView e={first} />;
}
