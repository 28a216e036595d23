import { Suspense, useState } from 'react';
import type { EfficiencySeries } from '@schemas/efficiency';
import type { RangeQuery } from '@schemas/common';
import { InView } from '../../../components/ui/in-view';
import { Panel } from '../../../components/ui/panel';
import { Segmented } from '../../../components/ui/segmented';
import { EmptyState, ErrorState, LoadingState } from '../../../components/ui/state-message';
import { colorOf, type NodePoolColors } from '../../../lib/colors';
import { currencyCode, formatPercent, nodePoolLabel } from '../../../lib/format';
import { useEfficiency } from '../api/use-efficiency';
import { meanPercent } from '../utils/efficiency-lines';
import type { ResourceChoice } from './efficiency-chart';
import { lazyNow } from '../../../lib/lazy-now';

// Recharts is loaded with the chart, not with the page.
const EfficiencyChart = lazyNow(() => import('./efficiency-chart'));

const RESOURCES: readonly { value: ResourceChoice; label: string }[] = [
  { value: 'both', label: 'CPU & memory' },
  { value: 'cpu', label: 'CPU' },
  { value: 'memory', label: 'Memory' },
];

const pct = (v: number | null): string => (v === null ? '—' : formatPercent(v));
const meanOf = (s: EfficiencySeries, key: 'nodesAvg' | 'usdPerHourAvg'): number =>
  s.points.length === 0 ? 0 : s.points.reduce((a, p) => a + p[key], 0) / s.points.length;

function AveragesTable({ series, colors }: { series: readonly EfficiencySeries[]; colors: NodePoolColors }) {
  return (
    <table className="averages">
      <caption>Averages over the buckets where the NodePool had nodes</caption>
      <thead>
        <tr>
          <th scope="col">NodePool</th>
          <th scope="col">CPU</th>
          <th scope="col">Memory</th>
          <th scope="col">Nodes</th>
          <th scope="col">{currencyCode()} / hour</th>
        </tr>
      </thead>
      <tbody>
        {series.map((s) => (
          <tr key={s.nodePool}>
            <th scope="row">
              <span className="swatch" style={{ background: colorOf(s.nodePool, colors) }} />
              {nodePoolLabel(s.nodePool, 'nodes')}
            </th>
            <td>{pct(meanPercent(s, 'cpu'))}</td>
            <td>{pct(meanPercent(s, 'memory'))}</td>
            <td>{meanOf(s, 'nodesAvg').toFixed(1)}</td>
            <td>{meanOf(s, 'usdPerHourAvg').toFixed(2)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Bin-packing efficiency per NodePool over time: Σ requests ÷ Σ allocatable for cpu and memory. */
export function EfficiencyPanel({ query, colors }: { query: RangeQuery | undefined; colors: NodePoolColors }) {
  const [resource, setResource] = useState<ResourceChoice>('both');
  const eff = useEfficiency(query ?? {});

  const body = (() => {
    if (query === undefined || eff.isPending) return <LoadingState label="Loading efficiency…" />;
    if (eff.isError) return <ErrorState title="Could not load the efficiency." error={eff.error} onRetry={() => void eff.refetch()} />;
    if (eff.data.series.length === 0) {
      return (
        <EmptyState title="No snapshots in this range.">
          Efficiency comes from Kubernetes snapshots, written by the Kubernetes collector at each interval. Try a longer range, or check
          that the collector is running.
        </EmptyState>
      );
    }
    return (
      <>
        <InView minHeight={340}>
          <Suspense fallback={<LoadingState label="Loading chart…" />}>
            <EfficiencyChart data={eff.data} resource={resource} colors={colors} />
          </Suspense>
        </InView>
        <AveragesTable series={eff.data.series} colors={colors} />
      </>
    );
  })();

  return (
    <Panel
      title="Packing efficiency by NodePool"
      subtitle="Requests ÷ allocatable, percent; solid line CPU, dashed line memory. Buckets are UTC; each is the time-weighted ratio of its snapshots."
      actions={<Segmented label="Resource" value={resource} options={RESOURCES} onChange={setResource} />}
    >
      <div className={eff.isFetching && !eff.isPending ? 'panel-body is-refreshing' : 'panel-body'}>{body}</div>
    </Panel>
  );
}
