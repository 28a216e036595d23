import { useMemo } from 'react';
import { PageHeader } from '../components/ui/page-header';
import { ComparePanel } from '../features/consolidation/components/compare-panel';
import { EventsPanel } from '../features/consolidation/components/events-panel';
import { KarpenterExplanationsPanel } from '../features/consolidation/components/karpenter-explanations-panel';
import { TimelinePanel } from '../features/consolidation/components/timeline-panel';
import { parseCompare, pickEventUpdates, pickTimeUpdates, selectedInstantMs } from '../features/consolidation/utils/compare-state';
import { firstPage, pageSizeUpdates, pageUpdates, parseEventsPage } from '../features/consolidation/utils/events-page';
import { FilterBar } from '../features/filters/components/filter-bar';
import { useUrlFilters } from '../features/filters/hooks/use-url-filters';
import { rangeQuery, resolveRange } from '../features/filters/utils/url-filters';
import { useStatus } from '../features/status/api/use-status';

/** Consolidation: pick a disruption or a time, compare equal windows before and after. Composes only. */
export default function ConsolidationPage() {
  const status = useStatus();
  const { filters, params, update } = useUrlFilters();
  const compare = useMemo(() => parseCompare(params), [params]);
  const eventsPage = useMemo(() => parseEventsPage(params), [params]);
  const query = rangeQuery(filters, status);
  const resolved = resolveRange(filters.range, status.data?.defaultRange.to);
  return (
    <>
      <PageHeader
        title="Consolidation"
        question="What did a consolidation change: nodes, cost per hour, packing — and which nodes went and came?"
      >
        <FilterBar filters={filters} resolved={resolved} onChange={(u) => update(firstPage(u))} />
      </PageHeader>
      <div className="panels">
        <TimelinePanel
          query={query}
          nodePool={filters.nodePool}
          title="Timeline"
          subtitle="Click anywhere on the chart to compare before and after that time. Packing on the left axis, cost per hour on the right; disruptions as marks along the top."
          selectedMs={selectedInstantMs(compare)}
          onPick={(t) => update(pickTimeUpdates(t))}
        />
        <ComparePanel
          state={compare}
          nodePool={filters.nodePool}
          onWindow={(w) => update({ window: w === '1h' ? undefined : w })}
          onAt={(iso) => update(pickTimeUpdates(Date.parse(iso)))}
        />
        <EventsPanel
          query={query}
          reason={compare.reason}
          selected={compare.event}
          page={eventsPage}
          onPage={(p) => update(pageUpdates(p))}
          onPageSize={(s) => update(pageSizeUpdates(s))}
          onReason={(r) => update(firstPage({ reason: r }))}
          onPick={(id) => update(pickEventUpdates(id))}
        />
        <KarpenterExplanationsPanel query={query} />
      </div>
    </>
  );
}
