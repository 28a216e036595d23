import type { NodePool } from '@schemas/nodepools';
import { formatBudget, limitBars, limitBarText, type LimitBar } from '../utils/nodepool-spec';

function LimitMeter({ bar }: { bar: LimitBar }) {
  const text = limitBarText(bar);
  return (
    <li className={`limit limit-${bar.level}`} data-testid="limit-bar">
      <span className="limit-label" title={bar.label}>
        {bar.label}
      </span>
      <span
        className="limit-track"
        role="meter"
        aria-label={`${bar.label} against the NodePool limit`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={bar.percent === null ? 0 : Math.min(100, Math.round(bar.percent))}
        aria-valuetext={text}
      >
        <span className="limit-fill" style={{ width: `${bar.widthPercent}%` }} />
      </span>
      <span className="limit-text">
        {bar.percent === null ? null : <span className="limit-percent">{Math.round(bar.percent)} %</span>}{' '}
        {bar.level === 'none' ? `${bar.usedText} · no limit` : `${bar.usedText} / ${bar.limitText}`}
      </span>
    </li>
  );
}

/**
 * A NodePool's limits as usage bars (capacity of its nodes now, what Karpenter counts; amber from 80 %, red at
 * 100 %), then its requirements and disruption budgets as short lines.
 */
export function NodePoolLimits({ spec }: { spec: NodePool }) {
  const bars = limitBars(spec);
  return (
    <>
      <h4 className="card-subhead">Limits · capacity of the nodes now</h4>
      <ul className="limits" aria-label="Limits">
        {bars.map((b) => (
          <LimitMeter key={b.label} bar={b} />
        ))}
      </ul>
      {spec.usage.nodesWithoutCapacity > 0 ? (
        <p className="card-note">
          {spec.usage.nodesWithoutCapacity} node(s) collected before capacity was recorded: their allocatable is counted.
        </p>
      ) : null}
      {spec.requirements.length === 0 && spec.budgets.length === 0 ? null : (
        <ul className="spec-lines" aria-label="Requirements and disruption budgets">
          {spec.requirements.map((r, i) => (
            <li key={`r${i}`}>{r.text}</li>
          ))}
          {spec.budgets.map((b, i) => (
            <li key={`b${i}`}>{formatBudget(b)}</li>
          ))}
        </ul>
      )}
    </>
  );
}
