import type { CurDailyQuery } from '@schemas/cost-cur';
import { Panel } from '../../../components/ui/panel';
import { ErrorState } from '../../../components/ui/state-message';
import { currencyCode, formatDayShort, formatUsd } from '../../../lib/format';
import { useCurDaily } from '../api/use-cur-daily';
import { METRIC_NAME } from './cost-panel';

const usd = (v: number | null): string => (v === null ? '—' : formatUsd(v));

/**
 * The reconciliation the Cost and Usage Report adds: per day the CUR, Cost Explorer and our estimate side by side in
 * the chosen metric. Shown only once a CUR is imported (the gap panel above covers Cost Explorer alone).
 */
export function CurCheckPanel({ query }: { query: CurDailyQuery | undefined }) {
  const cur = useCurDaily(query);
  if (cur.isError) return <ErrorState title="Could not read the CUR." error={cur.error} onRetry={() => void cur.refetch()} />;
  const data = cur.data;
  if (data === undefined || !data.available) return null;
  const days = data.reconciliation.filter((d) => d.curUsd !== null);
  return (
    <Panel
      title="The bill three ways: CUR, Cost Explorer, our estimate"
      subtitle={`${currencyCode()}, ${METRIC_NAME[data.metric]}, per UTC day the CUR covers. Our estimate prices instances only; the CUR and Cost Explorer include volumes and data transfer.`}
    >
      <div className="panel-body" data-testid="cur-check">
        <dl className="summary">
          <div>
            <dt>CUR</dt>
            <dd data-testid="cur-check-total">{formatUsd(data.totals.curUsd)}</dd>
          </div>
          <div>
            <dt>Cost Explorer</dt>
            <dd>{formatUsd(data.totals.costExplorerUsd)}</dd>
          </div>
          <div>
            <dt>Our estimate</dt>
            <dd>{formatUsd(data.totals.estimateUsd)}</dd>
          </div>
        </dl>
        <div className="table-scroll">
          <table className="data-table">
            <caption className="visually-hidden">Per day: the CUR, Cost Explorer and our estimate</caption>
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                <th scope="col" className="num">
                  CUR
                </th>
                <th scope="col" className="num">
                  Cost Explorer
                </th>
                <th scope="col" className="num">
                  Our estimate
                </th>
                <th scope="col" className="num">
                  CUR − estimate
                </th>
                <th scope="col" className="num">
                  CUR − Cost Explorer
                </th>
              </tr>
            </thead>
            <tbody>
              {days.map((d) => (
                <tr key={d.day}>
                  <th scope="row">{formatDayShort(d.day)}</th>
                  <td className="num">{usd(d.curUsd)}</td>
                  <td className="num">{usd(d.costExplorerUsd)}</td>
                  <td className="num">{usd(d.estimateUsd)}</td>
                  <td className="num">{usd(d.curMinusEstimateUsd)}</td>
                  <td className="num">{usd(d.curMinusCostExplorerUsd)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <ul className="notes">
          <li>Source: {data.source.text}</li>
          {data.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      </div>
    </Panel>
  );
}
