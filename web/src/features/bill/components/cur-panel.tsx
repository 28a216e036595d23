import { Fragment, useId } from 'react';
import type { CostMetric } from '@schemas/cost';
import { Panel } from '../../../components/ui/panel';
import { EmptyState, ErrorState, LoadingState } from '../../../components/ui/state-message';
import { colorOf, type NodePoolColors } from '../../../lib/colors';
import { formatUsd, nodePoolLabel } from '../../../lib/format';
import type { ParamUpdates } from '../../../lib/url-params';
import { useCurLines } from '../api/use-bill-cur';
import { toggleResourceUpdates, type BillPageState } from '../utils/bill-days';
import { StoredCurExplanation } from './cur-explanation-view';

interface CurPanelProps {
  state: BillPageState;
  nodePool: string | undefined;
  metric: CostMetric | undefined;
  onChange: (updates: ParamUpdates) => void;
  colors: NodePoolColors;
}

/** A UTC day of the Cost and Usage Report, one row per resource (instance, volume…); each expands into its lines explained. */
export function CurPanel({ state, nodePool, metric, onChange, colors }: CurPanelProps) {
  const dayId = useId();
  const lines = useCurLines({ day: state.day, nodepool: nodePool, metric });
  const data = lines.data;
  const days = data?.days ?? [];
  const day = data?.day ?? undefined;
  const dayIndex = day === undefined ? -1 : days.indexOf(day);
  const expanded = new Set(state.resources);

  const controls =
    days.length === 0 ? undefined : (
      <div className="panel-tools">
        <span className="field day-picker">
          <button
            type="button"
            className="button"
            aria-label="Previous day"
            disabled={dayIndex <= 0}
            onClick={() => onChange({ day: days[dayIndex - 1], resource: undefined })}
          >
            ←
          </button>
          <label className="select-label" htmlFor={dayId}>
            Day (UTC)
          </label>
          <select id={dayId} value={day} onChange={(e) => onChange({ day: e.target.value, resource: undefined })}>
            {days.map((d) => (
              <option key={d} value={d}>
                {d}
              </option>
            ))}
          </select>
          <button
            type="button"
            className="button"
            aria-label="Next day"
            disabled={dayIndex < 0 || dayIndex >= days.length - 1}
            onClick={() => onChange({ day: days[dayIndex + 1], resource: undefined })}
          >
            →
          </button>
        </span>
      </div>
    );

  const body = (() => {
    if (lines.isError) return <ErrorState title="Could not load the CUR lines." error={lines.error} onRetry={() => void lines.refetch()} />;
    if (lines.isPending || data === undefined) return <LoadingState label="Loading the CUR lines…" />;
    if (data.resources.length === 0 || day === undefined) {
      return (
        <EmptyState title="No Cost and Usage Report lines.">
          {data.source.text} Import a CUR 2.0 export with <code>nodepool-ledger cur import PATH|s3://bucket/prefix</code>
          {nodePool === undefined ? '' : ', or clear the NodePool filter'}.
        </EmptyState>
      );
    }
    return (
      <>
        <dl className="summary">
          <div>
            <dt>{day} total</dt>
            <dd>{formatUsd(data.totals.billUsd)}</dd>
          </div>
          {data.totals.byNodePool.map((p) => (
            <div key={`${p.cluster ?? ''}/${p.nodePool}`}>
              <dt>{p.cluster === undefined ? nodePoolLabel(p.nodePool) : `${nodePoolLabel(p.nodePool)} (${p.cluster || 'no cluster'})`}</dt>
              <dd>{formatUsd(p.billUsd)}</dd>
            </div>
          ))}
        </dl>
        <div className="table-scroll">
          <table className="data-table bill-lines" data-testid="cur-resources">
            <caption className="visually-hidden">CUR resources of {day}</caption>
            <thead>
              <tr>
                <th scope="col">
                  <span className="visually-hidden">Expand</span>
                </th>
                <th scope="col">Resource</th>
                <th scope="col">NodePool / NodeClaim</th>
                <th scope="col">Line item types</th>
                <th scope="col" className="num">
                  Cost ({data.metric})
                </th>
              </tr>
            </thead>
            <tbody>
              {data.resources.map((r) => {
                const open = expanded.has(r.resourceId);
                const detailId = `cur-${r.resourceId}`;
                return (
                  <Fragment key={r.resourceId}>
                    <tr>
                      <td className="expand-cell">
                        <button
                          type="button"
                          className="expand-button"
                          aria-expanded={open}
                          aria-controls={open ? detailId : undefined}
                          aria-label={`${open ? 'Hide' : 'Explain'} ${r.resourceId}`}
                          onClick={() => onChange(toggleResourceUpdates(state, r.resourceId))}
                        >
                          {open ? '▾' : '▸'}
                        </button>
                      </td>
                      <th scope="row">
                        {r.resourceId}
                        <span className="sub">{r.resourceKind}</span>
                      </th>
                      <td>
                        <span className="swatch" style={{ background: colorOf(r.nodePool, colors) }} />
                        {nodePoolLabel(r.nodePool)}
                        {r.cluster === undefined ? null : <span className="sub">cluster {r.cluster || '(none)'}</span>}
                        {r.nodeClaim === '' ? null : <span className="sub">{r.nodeClaim}</span>}
                      </td>
                      <td>
                        {r.lineItemTypes.join(', ')}
                        {r.committed ? <span className="sub">covered by a commitment</span> : null}
                      </td>
                      <td className="num">{formatUsd(r.billUsd)}</td>
                    </tr>
                    {open ? (
                      <tr className="detail-row">
                        <td />
                        <td colSpan={4} id={detailId}>
                          <StoredCurExplanation day={day} resource={r.resourceId} metric={metric} />
                        </td>
                      </tr>
                    ) : null}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        </div>
        <ul className="notes">
          <li>Source: {data.source.text}</li>
        </ul>
      </>
    );
  })();

  return (
    <Panel
      title="Cost and Usage Report lines"
      subtitle="One UTC day of the CUR, one row per resource in the chosen metric. Expand a resource for its lines — usage × rate, the Savings Plan or reservation that covered it, amortized against unblended — and the NodeClaim behind it."
      actions={controls}
    >
      <div className={lines.isFetching && !lines.isPending ? 'panel-body is-refreshing' : 'panel-body'}>{body}</div>
    </Panel>
  );
}
