import { PageHeader } from '../components/ui/page-header';
import { useDailyCost } from '../features/cost/api/use-daily-cost';
import { CostPanel } from '../features/cost/components/cost-panel';
import { EfficiencyPanel } from '../features/efficiency/components/efficiency-panel';
import { useNodePoolColors } from '../features/filters/api/use-nodepool-colors';
import { FilterBar } from '../features/filters/components/filter-bar';
import { useUrlFilters } from '../features/filters/hooks/use-url-filters';
import { rangeQuery, resolveRange, withMetric } from '../features/filters/utils/url-filters';
import { CardsPanel } from '../features/nodepools/components/cards-panel';
import { ComparePanel } from '../features/nodepools/components/compare-panel';
import { KarpenterSetupPanel } from '../features/nodepools/components/karpenter-setup-panel';
import { useStatus } from '../features/status/api/use-status';

/** NodePools: one card each, cost and packing side by side, on-demand against spot. Composes only. */
export default function NodePoolsPage() {
  const status = useStatus();
  const { filters, update } = useUrlFilters();
  const colors = useNodePoolColors();
  const query = rangeQuery(filters, status);
  const resolved = resolveRange(filters.range, status.data?.defaultRange.to);
  const billQuery = withMetric(query, filters.metric);
  const metricInEffect = useDailyCost(billQuery ?? {}).data?.metric;
  return (
    <>
      <PageHeader
        title="NodePools"
        question="How is each NodePool set up, what does it cost, how well does it pack, and what does spot save?"
      >
        <FilterBar filters={filters} resolved={resolved} onChange={update} metric={{ inEffect: metricInEffect }} />
      </PageHeader>
      <div className="panels">
        <CardsPanel query={query} nodePool={filters.nodePool} metric={filters.metric} colors={colors} />
        <div className="panels-2">
          <CostPanel query={billQuery} colors={colors} />
          <EfficiencyPanel query={query} colors={colors} />
        </div>
        <ComparePanel query={query} colors={colors} />
        <KarpenterSetupPanel nodePool={filters.nodePool} />
      </div>
    </>
  );
}
