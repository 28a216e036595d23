import { Suspense } from 'react';
import type { RangeQuery } from '@schemas/common';
import { InView } from '../../../components/ui/in-view';
import { Panel } from '../../../components/ui/panel';
import { EmptyState, ErrorState, LoadingState } from '../../../components/ui/state-message';
import { colorOf, type NodePoolColors } from '../../../lib/colors';
import { currencyCode, formatFraction, formatUsd, nodePoolLabel } from '../../../lib/format';
import { useNodePoolCompare } from '../api/use-nodepool-data';
import { lazyNow } from '../../../lib/lazy-now';

// Recharts is loaded with the chart, not with the page.
const CompareChart = lazyNow(() => import('./compare-chart'));

interface ComparePanelProps {
  query: RangeQuery | undefined;
  colors: NodePoolColors;
}

const usd4 = (v: number | null): string => (v === null ? '—' : `$${v.toFixed(4)}`);
const usd = (v: number | null): string => (v === null ? '—' : formatUsd(v));

/** On-demand against spot: what a vCPU-hour cost, allocatable and requested, and what spot saved. */
export function ComparePanel({ query, colors }: ComparePanelProps) {
  const compare = useNodePoolCompare(query);
  const body = (() => {
    if (query === undefined || compare.isPending) return <LoadingState label="Loading the comparison…" />;
    if (compare.isError) {
      return <ErrorState title="Could not load the NodePool comparison." error={compare.error} onRetry={() => void compare.refetch()} />;
    }
    const { rows, totals } = compare.data;
    if (rows.length === 0)
      return <EmptyState title="No node-hours in this range.">Pick a range inside the data (the banner above shows it).</EmptyState>;
    return (
      <>
        <InView minHeight={Math.max(160, 40 + rows.length * 44)}>
          <Suspense fallback={<LoadingState label="Loading chart…" />}>
            <CompareChart rows={rows} />
          </Suspense>
        </InView>
        <div className="table-scroll">
          <table className="data-table" data-testid="compare-table">
            <caption className="visually-hidden">Cost per vCPU-hour and spot savings by NodePool and capacity type</caption>
            <thead>
              <tr>
                <th scope="col">NodePool</th>
                <th scope="col">Capacity</th>
                <th scope="col" className="num">
                  Cost
                </th>
                <th scope="col" className="num">
                  Node-hours
                </th>
                <th scope="col" className="num">
                  {currencyCode()} / allocatable vCPU-h
                </th>
                <th scope="col" className="num">
                  {currencyCode()} / requested vCPU-h
                </th>
                <th scope="col" className="num">
                  {currencyCode()} / requested GiB-h
                </th>
                <th scope="col" className="num">
                  At on-demand prices
                </th>
                <th scope="col" className="num">
                  Savings
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={`${r.nodePool}|${r.capacityType}`}>
                  <th scope="row">
                    <span className="swatch" style={{ background: colorOf(r.nodePool, colors) }} />
                    {nodePoolLabel(r.nodePool, 'nodes')}
                  </th>
                  <td>
                    <span className={`capacity capacity-${r.capacityType}`}>{r.capacityType}</span>
                  </td>
                  <td className="num">{formatUsd(r.costUsd)}</td>
                  <td className="num">{r.nodeHours.toFixed(1)}</td>
                  <td className="num">{usd4(r.usdPerVcpuHourAllocatable)}</td>
                  <td className="num">{usd4(r.usdPerVcpuHourRequested)}</td>
                  <td className="num">{usd4(r.usdPerGiBHourRequested)}</td>
                  <td className="num">{usd(r.onDemandEquivalentUsd)}</td>
                  <td className="num">
                    {r.savingsUsd === null || r.capacityType === 'on-demand'
                      ? '—'
                      : `${formatUsd(r.savingsUsd)}${r.savingsFraction === null ? '' : ` (${formatFraction(r.savingsFraction)})`}`}
                  </td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row" colSpan={2}>
                  Total
                </th>
                <td className="num">{formatUsd(totals.costUsd)}</td>
                <td className="num">{totals.nodeHours.toFixed(1)}</td>
                <td colSpan={3} />
                <td className="num">{usd(totals.onDemandEquivalentUsd)}</td>
                <td className="num">{usd(totals.savingsUsd)}</td>
              </tr>
            </tfoot>
          </table>
        </div>
      </>
    );
  })();
  return (
    <Panel
      title="On-demand vs spot"
      subtitle="Our estimate over the range. A requested vCPU-hour costs more than an allocatable one by the share left idle; savings are against the same instances at on-demand prices."
    >
      <div className={compare.isFetching && !compare.isPending ? 'panel-body is-refreshing' : 'panel-body'}>{body}</div>
    </Panel>
  );
}
