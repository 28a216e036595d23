import type { GapCause, ReconciliationQuery } from '@schemas/cost';
import { Panel } from '../../../components/ui/panel';
import { EmptyState, ErrorState, LoadingState } from '../../../components/ui/state-message';
import { currencyCode, formatUsd } from '../../../lib/format';
import { useReconciliation } from '../api/use-reconciliation';
import { METRIC_NAME } from './cost-panel';

const CAUSE_LABEL: Record<GapCause['cause'], string> = {
  commitments: 'Savings Plans / Reserved Instances',
  'credits-discounts': 'Credits and private discounts',
  volumes: 'Volumes and data transfer',
  untagged: 'Untagged hours',
  'spot-within-hour': 'Spot price within the hour',
  other: 'Sampling and the rest',
};

/** One bar per cause, signed around a zero line: the bar's width is its share of the largest amount. */
function CauseBars({ causes }: { causes: readonly GapCause[] }) {
  const largest = Math.max(...causes.map((c) => Math.abs(c.amountUsd ?? 0)), 1e-9);
  return (
    <table className="gap-causes">
      <thead>
        <tr>
          <th scope="col">Cause</th>
          <th scope="col" className="num">
            Bill − estimate
          </th>
          <th scope="col" aria-hidden="true" />
        </tr>
      </thead>
      <tbody>
        {causes.map((c) => {
          const amount = c.amountUsd;
          const width = amount === null ? 0 : (Math.abs(amount) / largest) * 50;
          return (
            <tr key={c.cause} data-cause={c.cause} title={c.text}>
              <th scope="row">{CAUSE_LABEL[c.cause]}</th>
              <td className="num">{amount === null ? 'not in the data' : formatUsd(amount)}</td>
              <td className="gap-bar-cell" aria-hidden="true">
                <svg viewBox="0 0 100 10" preserveAspectRatio="none" width="100%" height="10">
                  <line x1="50" x2="50" y1="0" y2="10" stroke="currentColor" strokeOpacity="0.4" />
                  {amount === null ? null : (
                    <rect
                      x={amount < 0 ? 50 - width : 50}
                      width={width}
                      y="2"
                      height="6"
                      className={amount < 0 ? 'gap-bar-below' : 'gap-bar-above'}
                    />
                  )}
                </svg>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Why the bill and our estimate differ over the range, cause by cause, in the chosen metric. */
export function GapPanel({ query }: { query: ReconciliationQuery | undefined }) {
  const rec = useReconciliation(query ?? {});
  const body = (() => {
    if (query === undefined || rec.isPending) return <LoadingState label="Loading the reconciliation…" />;
    if (rec.isError) return <ErrorState title="Could not load the reconciliation." error={rec.error} onRetry={() => void rec.refetch()} />;
    if (rec.data.rows.length === 0)
      return (
        <EmptyState title="Nothing to reconcile in this range.">
          The reconciliation needs the Cost Explorer bill and Kubernetes snapshots over the same days.
        </EmptyState>
      );
    const t = rec.data.totals;
    return (
      <>
        <dl className="summary">
          <div>
            <dt>Bill ({METRIC_NAME[rec.data.metric]})</dt>
            <dd>{formatUsd(t.billUsd)}</dd>
          </div>
          <div>
            <dt>Our estimate</dt>
            <dd>{formatUsd(t.estimateUsd)}</dd>
          </div>
          <div>
            <dt>Gap</dt>
            <dd data-testid="gap-total">{formatUsd(t.differenceUsd)}</dd>
          </div>
        </dl>
        <CauseBars causes={rec.data.causes} />
      </>
    );
  })();
  return (
    <Panel
      title="Bill vs estimate, by cause"
      subtitle={`${currencyCode()} over the range; a bar right of the line means the bill is higher. Hover a cause for how it is worked out.`}
    >
      <div className={rec.isFetching && !rec.isPending ? 'panel-body is-refreshing' : 'panel-body'}>{body}</div>
    </Panel>
  );
}
