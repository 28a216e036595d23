import { Suspense, useMemo, useState } from 'react';
import type { DailyCostQuery } from '@schemas/cost';
import { InView } from '../../../components/ui/in-view';
import { Panel } from '../../../components/ui/panel';
import { Segmented } from '../../../components/ui/segmented';
import { EmptyState, ErrorState, LoadingState } from '../../../components/ui/state-message';
import type { NodePoolColors } from '../../../lib/colors';
import { currencyCode, formatSignedFraction, formatUsd } from '../../../lib/format';
import { useDailyCost } from '../api/use-daily-cost';
import { toDailyStacks } from '../utils/daily-stacks';
import type { CostMetric } from './cost-chart';
import { lazyNow } from '../../../lib/lazy-now';

// Recharts is loaded with the chart, not with the page.
const CostChart = lazyNow(() => import('./cost-chart'));

const METRICS: readonly { value: CostMetric; label: string }[] = [
  { value: 'bill', label: 'Bill' },
  { value: 'estimate', label: 'Our estimate' },
  { value: 'both', label: 'Both' },
];

/** How the panel names a Cost Explorer metric. */
export const METRIC_NAME: Record<string, string> = {
  unblended: 'UnblendedCost',
  amortized: 'AmortizedCost',
  'net-unblended': 'NetUnblendedCost',
  'net-amortized': 'NetAmortizedCost',
};

function Summary({
  billUsd,
  estimateUsd,
  estimateVsBill,
  notFinalDays,
  storageNetworkUsd,
  metric,
}: {
  billUsd: number;
  estimateUsd: number;
  estimateVsBill: number | null;
  notFinalDays: number;
  storageNetworkUsd: number;
  metric: string;
}) {
  return (
    <dl className="summary">
      <div>
        <dt>Bill ({METRIC_NAME[metric] ?? metric})</dt>
        <dd data-testid="bill-total">{formatUsd(billUsd)}</dd>
      </div>
      <div>
        <dt>of which storage and network</dt>
        <dd>{formatUsd(storageNetworkUsd)}</dd>
      </div>
      <div>
        <dt>Our estimate</dt>
        <dd>{formatUsd(estimateUsd)}</dd>
      </div>
      <div>
        <dt>Estimate vs bill</dt>
        <dd>{estimateVsBill === null ? '—' : formatSignedFraction(estimateVsBill)}</dd>
      </div>
      {notFinalDays > 0 ? (
        <div className="summary-note">
          {notFinalDays} day{notFinalDays === 1 ? ' is' : 's are'} not final in Cost Explorer yet.
        </div>
      ) : null}
    </dl>
  );
}

/** Cost per UTC day by NodePool: the Cost Explorer bill (in the chosen metric) and our estimate from snapshots. */
export function CostPanel({ query, colors }: { query: DailyCostQuery | undefined; colors: NodePoolColors }) {
  const [metric, setMetric] = useState<CostMetric>('bill');
  const cost = useDailyCost(query ?? {});
  const stacks = useMemo(
    () => (cost.data === undefined ? undefined : toDailyStacks(cost.data.rows, cost.data.from, cost.data.to)),
    [cost.data],
  );

  const body = (() => {
    if (query === undefined || cost.isPending) return <LoadingState label="Loading daily cost…" />;
    if (cost.isError) return <ErrorState title="Could not load the daily cost." error={cost.error} onRetry={() => void cost.refetch()} />;
    if (stacks === undefined || stacks.nodePools.length === 0) {
      return (
        <EmptyState title="No cost in this range.">
          The bill appears after the Cost Explorer collector runs, and only for tags activated as cost allocation tags (activation takes up
          to 24 h and is not retroactive). The estimate needs Kubernetes snapshots. Try a longer range.
        </EmptyState>
      );
    }
    return (
      <>
        <Summary
          billUsd={stacks.billTotalUsd}
          estimateUsd={stacks.estimateTotalUsd}
          estimateVsBill={stacks.estimateVsBill}
          notFinalDays={stacks.days.filter((d) => d.billNotFinal).length}
          storageNetworkUsd={cost.data?.totals.storageNetworkUsd ?? 0}
          metric={cost.data?.metric ?? 'unblended'}
        />
        <InView minHeight={340}>
          <Suspense fallback={<LoadingState label="Loading chart…" />}>
            <CostChart stacks={stacks} metric={metric} colors={colors} />
          </Suspense>
        </InView>
      </>
    );
  })();

  return (
    <Panel
      title="Cost per day"
      subtitle={`${currencyCode()} per UTC day, by NodePool and capacity type (solid on-demand, striped spot, cross-hatched storage and network: the NodePool's volumes and data transfer). Bill: Cost Explorer ${METRIC_NAME[cost.data?.metric ?? 'unblended']} by the karpenter.sh/nodepool tag. Estimate: node prices × time seen in snapshots.`}
      actions={<Segmented label="Cost figure" value={metric} options={METRICS} onChange={setMetric} />}
    >
      <div className={cost.isFetching && !cost.isPending ? 'panel-body is-refreshing' : 'panel-body'}>{body}</div>
    </Panel>
  );
}
