import { useMemo } from 'react';
import type { RangeQuery } from '@schemas/common';
import { Panel } from '../../../components/ui/panel';
import { ErrorState, LoadingState } from '../../../components/ui/state-message';
import { formatFraction, formatSignedFraction, formatUsd } from '../../../lib/format';
import { idleWeightingSentence } from '../../../lib/idle-weighting';
import type { CostMetric } from '@schemas/cost';
import { usePeriod } from '../api/use-period';
import { compareFigures, periodFigures, type FigureDelta, type FigureKey } from '../utils/period-delta';

interface PeriodPanelProps {
  current: RangeQuery | undefined;
  previous: RangeQuery | undefined;
  /** The bill's cost metric (the URL's); undefined = the server's default. */
  metric?: CostMetric;
  nodePool: string | undefined;
  /** "7 days", for the labels. */
  periodLabel: string;
}

const LABEL: Record<FigureKey, string> = {
  billUsd: 'Bill',
  estimateUsd: 'Our estimate',
  nodesAvg: 'Nodes (average)',
  cpu: 'CPU packed',
  memory: 'Memory packed',
  idleUsdPerHour: 'Idle cost per hour',
};

function formatValue(key: FigureKey, v: number | null): string {
  if (v === null) return '—';
  if (key === 'cpu' || key === 'memory') return formatFraction(v);
  if (key === 'nodesAvg') return v.toFixed(1);
  return formatUsd(v);
}

function formatChange(d: FigureDelta): string {
  if (d.change === null) return '—';
  if (d.key === 'cpu' || d.key === 'memory') {
    const points = (d.change * 100).toFixed(1);
    return Number(points) === 0 ? '0.0 points' : `${d.change > 0 ? '+' : ''}${points} points`;
  }
  return d.relative === null ? `${d.change > 0 ? '+' : ''}${d.change.toFixed(2)}` : formatSignedFraction(d.relative);
}

function Figure({ d }: { d: FigureDelta }) {
  const arrow = d.change === null || d.change === 0 ? '' : d.change > 0 ? '▲ ' : '▼ ';
  return (
    <div className={`figure is-${d.verdict}`} data-testid={`figure-${d.key}`}>
      <dt>{LABEL[d.key]}</dt>
      <dd>
        <span className="figure-value">{formatValue(d.key, d.current)}</span>
        {d.previous === null ? (
          <span className="figure-previous">no data for the period before</span>
        ) : (
          <>
            <span className="figure-change">
              <span aria-hidden="true">{arrow}</span>
              {formatChange(d)}
              {d.verdict === 'better' || d.verdict === 'worse' ? <span className="visually-hidden"> ({d.verdict})</span> : null}
            </span>
            <span className="figure-previous">before: {formatValue(d.key, d.previous)}</span>
          </>
        )}
      </dd>
    </div>
  );
}

/** This period against the one just before it, of equal length. */
export function PeriodPanel({ current, previous, metric, nodePool, periodLabel }: PeriodPanelProps) {
  const now = usePeriod(current, metric);
  const before = usePeriod(previous, metric);
  const deltas = useMemo(
    () =>
      compareFigures(
        periodFigures(now.cost.data, now.summary.data, nodePool),
        periodFigures(before.cost.data, before.summary.data, nodePool),
      ),
    [now.cost.data, now.summary.data, before.cost.data, before.summary.data, nodePool],
  );
  // The rates idle was priced at this period, for the row the figures come from.
  const idleRates = now.summary.data?.rows.find((r) =>
    nodePool === undefined ? r.scope === 'cluster' : r.nodePool === nodePool,
  )?.idleRates;
  const failed = [now.cost, now.summary].find((q) => q.isError);
  const body = (() => {
    if (current === undefined || now.cost.isPending || now.summary.isPending) return <LoadingState label="Comparing periods…" />;
    if (failed !== undefined) {
      return (
        <ErrorState
          title="Could not compare the periods."
          error={failed.error}
          onRetry={() => {
            void now.cost.refetch();
            void now.summary.refetch();
          }}
        />
      );
    }
    return (
      <dl className="figures">
        {deltas.map((d) => (
          <Figure key={d.key} d={d} />
        ))}
      </dl>
    );
  })();
  return (
    <Panel
      title={`This period vs the previous ${periodLabel}`}
      subtitle={`Totals and time-weighted averages; arrows show the change, green where it saves money or packs nodes better. ${idleWeightingSentence(idleRates, 'this period')}`}
    >
      {body}
    </Panel>
  );
}
