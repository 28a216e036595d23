import { PageHeader } from '../components/ui/page-header';
import { Link } from '../lib/router';
import { pickParams } from '../lib/url-params';
import { useDailyCost } from '../features/cost/api/use-daily-cost';
import { CostPanel } from '../features/cost/components/cost-panel';
import { CurCheckPanel } from '../features/cost/components/cur-check-panel';
import { GapPanel } from '../features/cost/components/gap-panel';
import { TimelinePanel } from '../features/consolidation/components/timeline-panel';
import { useNodePoolColors } from '../features/filters/api/use-nodepool-colors';
import { FilterBar } from '../features/filters/components/filter-bar';
import { useUrlFilters } from '../features/filters/hooks/use-url-filters';
import { FILTER_KEYS, rangeDays } from '../features/filters/utils/url-filters';
import { PeriodPanel } from '../features/period/components/period-panel';
import { useStatus } from '../features/status/api/use-status';
import { overviewRanges } from './overview-queries';

/** Overview: cost per day, packing over time with disruptions, this period against the previous. Composes only. */
export default function OverviewPage() {
  const status = useStatus();
  const { filters, params, update } = useUrlFilters();
  const colors = useNodePoolColors();
  const { query, resolved, previous, billQuery } = overviewRanges(filters, status);
  const days = resolved === undefined ? 0 : rangeDays(resolved);
  const metricInEffect = useDailyCost(billQuery ?? {}).data?.metric;

  return (
    <>
      <PageHeader
        title="Overview"
        question="What did the cluster cost per day, how well were its nodes packed, and is it better or worse than before?"
      >
        <FilterBar filters={filters} resolved={resolved} onChange={update} metric={{ inEffect: metricInEffect }} />
      </PageHeader>
      <div className="panels">
        <PeriodPanel
          current={query}
          previous={previous}
          metric={filters.metric}
          nodePool={filters.nodePool}
          periodLabel={days === 1 ? '24 hours' : `${days} days`}
        />
        <CostPanel query={billQuery} colors={colors} />
        <GapPanel query={billQuery} />
        <CurCheckPanel query={billQuery} />
        {/* The fifth panel: below the first screen at 1280 × 900, its chart drawn once scrolled near. */}
        <TimelinePanel
          whenNear
          query={query}
          nodePool={filters.nodePool}
          title={filters.nodePool === undefined ? 'Cluster packing over time' : `Packing of ${filters.nodePool} over time`}
          subtitle="Requests ÷ allocatable (left axis) and our cost per hour (right axis); each mark along the top is a disruption, coloured by reason."
          footer={
            <p className="chart-note">
              <Link to={`/consolidation${pickParams(params.toString(), FILTER_KEYS)}`}>
                Compare before and after an event on the Consolidation page →
              </Link>
            </p>
          }
        />
      </div>
    </>
  );
}
