import './budgets.css';
import type { BudgetStatusView } from '@schemas/budgets';
import { currentCluster } from '../../../lib/cluster';
import { formatUsd, formatFraction } from '../../../lib/format';
import { budgetLevel } from '../utils/budget-form';

interface BudgetTableProps {
  items: readonly BudgetStatusView[];
  onEdit: (b: BudgetStatusView) => void;
  onDelete: (name: string) => void;
  busy: boolean;
}

const scopeText = (s: BudgetStatusView['budget']['scope']): string => (s.kind === 'cluster' ? 'the cluster' : `${s.kind} ${s.name}`);

/** Every budget: scope, period, amount, spent (final and estimated), forecast with its spread and method, room left. */
export function BudgetTable({ items, onEdit, onDelete, busy }: BudgetTableProps) {
  // All clusters of a ledger holding several: the cluster each budget watches (null: the whole ledger).
  const showCluster = currentCluster() === undefined && items.some((s) => s.budget.cluster !== undefined);
  return (
    <div className="table-scroll">
      <table className="data-table budget-table" data-testid="budget-table">
        <thead>
          <tr>
            <th scope="col">Budget</th>
            {showCluster ? <th scope="col">Cluster</th> : null}
            <th scope="col">Scope</th>
            <th scope="col">Period</th>
            <th scope="col" className="num">
              Amount
            </th>
            <th scope="col" className="num">
              Spent
            </th>
            <th scope="col" className="num">
              Forecast
            </th>
            <th scope="col" className="num">
              Nodes before limit
            </th>
            <th scope="col">Declared</th>
          </tr>
        </thead>
        <tbody>
          {items.map((s) => {
            const b = s.budget;
            const level = budgetLevel(Math.max(s.spentShare, s.forecastShare), b.thresholds);
            return (
              <tr key={b.name} data-budget={b.name} data-level={level}>
                <th scope="row">{b.name}</th>
                {showCluster ? <td>{b.cluster ?? 'whole ledger'}</td> : null}
                <td>{scopeText(b.scope)}</td>
                <td>
                  {b.period}{' '}
                  <span className="muted">
                    ({s.periodStart.slice(0, 10)} – {s.periodEnd.slice(0, 10)})
                  </span>
                </td>
                <td className="num">
                  {formatUsd(b.amount)} <span className="muted">{b.costMetric}</span>
                </td>
                <td
                  className="num"
                  title={`${formatUsd(s.spentFinal)} final on the bill (${s.finalDays} days), ${formatUsd(s.spentEstimated)} estimated (${s.estimatedDays} days and today)`}
                >
                  {formatUsd(s.spent)} <span className="muted">{formatFraction(s.spentShare)}</span>
                  <div className="sub">
                    {formatUsd(s.spentFinal)} final · {formatUsd(s.spentEstimated)} estimated
                  </div>
                </td>
                <td className="num">
                  {formatUsd(s.forecast)} <span className="muted">{formatFraction(s.forecastShare)}</span>
                  <div className="sub">
                    {formatUsd(s.forecastLow)} – {formatUsd(s.forecastHigh)}
                  </div>
                  <details>
                    <summary>how</summary>
                    <p className="sub">{s.forecastMethod}</p>
                  </details>
                </td>
                <td className="num" title={s.limitNote ?? undefined}>
                  {s.nodesBeforeLimit === null ? (b.dollarLimit ? '—' : '') : s.nodesBeforeLimit}
                </td>
                <td>
                  {b.source === 'file' ? (
                    <span data-testid="read-only">
                      <span className="badge">read-only</span> <span className="sub">in {b.sourceFile ?? 'a file'}</span>
                    </span>
                  ) : (
                    <span className="row-actions">
                      <button type="button" className="button" disabled={busy} onClick={() => onEdit(s)}>
                        Edit
                      </button>
                      <button type="button" className="button" disabled={busy} onClick={() => onDelete(b.name)}>
                        Delete
                      </button>
                    </span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
