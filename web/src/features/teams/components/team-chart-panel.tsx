import { lazy, Suspense, useMemo } from 'react';
import { Panel } from '../../../components/ui/panel';
import { EmptyState, ErrorState, LoadingState } from '../../../components/ui/state-message';
import { useTeamCostBuckets, type TeamCostParams } from '../api/use-team-cost';
import { teamBuckets, toTeamChart } from '../utils/team-series';

// Recharts is loaded with the chart, not with the page.
const TeamChart = lazy(() => import('./team-chart'));

interface TeamChartPanelProps {
  /** The team-cost query of the whole range (from/to are cut into buckets); undefined while it is unknown. */
  params: TeamCostParams | undefined;
  groupBy: 'team' | 'namespace';
}

/** Cost per day (or week) by team or namespace, idle as its own band. */
export function TeamChartPanel({ params, groupBy }: TeamChartPanelProps) {
  const from = params?.from;
  const to = params?.to;
  const buckets = useMemo(() => (from === undefined || to === undefined ? [] : teamBuckets(from, to)), [from, to]);
  const results = useTeamCostBuckets(params, buckets);
  // Cheap (a bar per day): recomputed on each render rather than memoised over a list of results.
  const chart = toTeamChart(buckets, results.map((r) => r.data));
  const weekly = buckets.length > 1 && Date.parse(buckets[0]?.to ?? '') - Date.parse(buckets[0]?.from ?? '') > 86_400_000;
  const failed = results.find((r) => r.isError);
  const pending = results.filter((r) => r.isPending).length;

  const body = (() => {
    if (params === undefined || (pending > 0 && pending === results.length)) return <LoadingState label="Splitting the cost over the teams…" />;
    if (buckets.length === 0) {
      return <EmptyState title="No time range to chart.">The data range is unknown (the status could not be read): pick custom days above.</EmptyState>;
    }
    if (failed !== undefined) return <ErrorState title="Could not load the cost per team." error={failed.error} onRetry={() => void failed.refetch()} />;
    if (chart.keys.length === 0) {
      return <EmptyState title="No node cost in this range.">Team cost needs Kubernetes snapshots with pods. Pick a range inside the data.</EmptyState>;
    }
    return (
      <Suspense fallback={<LoadingState label="Loading chart…" />}>
        <TeamChart chart={chart} groupBy={groupBy} weekly={weekly} />
      </Suspense>
    );
  })();
  return (
    <Panel
      title={`Cost per ${weekly ? 'week' : 'day'} by ${groupBy}`}
      subtitle="Our estimate of node cost, split over pods by their requests; what no pod requested is idle, shown as its own striped band unless spread over the teams."
    >
      <div className={pending > 0 ? 'panel-body is-refreshing' : 'panel-body'}>{body}</div>
    </Panel>
  );
}
