import { Suspense } from 'react';
import { Panel } from '../../../components/ui/panel';
import { EmptyState, ErrorState, LoadingState } from '../../../components/ui/state-message';
import { useTeamCostSeries, type TeamCostParams } from '../api/use-team-cost';
import { toTeamChart } from '../utils/team-series';
import { lazyNow } from '../../../lib/lazy-now';

// Recharts is loaded with the chart, not with the page.
const TeamChart = lazyNow(() => import('./team-chart'));

interface TeamChartPanelProps {
  /** The team-cost query of the whole range (the server cuts it into days or weeks); undefined while it is unknown. */
  params: TeamCostParams | undefined;
  groupBy: 'team' | 'namespace';
}

/** Cost per day (or week) by team or namespace, idle as its own band. */
export function TeamChartPanel({ params, groupBy }: TeamChartPanelProps) {
  const series = useTeamCostSeries(params);
  // Cheap (a bar per day): recomputed on each render rather than memoised.
  const chart = toTeamChart(series.data);
  const weekly = series.data?.bucket === 'week';

  const body = (() => {
    if (params === undefined || series.isPending) return <LoadingState label="Splitting the cost over the teams…" />;
    if (series.isError)
      return <ErrorState title="Could not load the cost per team." error={series.error} onRetry={() => void series.refetch()} />;
    if (chart.keys.length === 0) {
      return (
        <EmptyState title="No node cost in this range.">
          Team cost needs Kubernetes snapshots with pods. Pick a range inside the data.
        </EmptyState>
      );
    }
    return (
      <Suspense fallback={<LoadingState label="Loading chart…" />}>
        <TeamChart chart={chart} groupBy={groupBy} weekly={weekly} method={series.data?.method ?? 'request-share'} />
      </Suspense>
    );
  })();
  return (
    <Panel
      title={`Cost per ${weekly ? 'week' : 'day'} by ${groupBy}`}
      subtitle="Our estimate of node cost, split over pods by the chosen method; what it charges to no pod is idle, shown as its own striped band unless spread over the teams."
    >
      <div className={series.isFetching ? 'panel-body is-refreshing' : 'panel-body'}>{body}</div>
    </Panel>
  );
}
