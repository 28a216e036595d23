import { Suspense, type ReactNode } from 'react';
import type { RangeQuery } from '@schemas/common';
import { InView } from '../../../components/ui/in-view';
import { Panel } from '../../../components/ui/panel';
import { EmptyState, ErrorState, LoadingState } from '../../../components/ui/state-message';
import { useTimeline } from '../api/use-timeline';
import { ReasonLegend } from './reason-legend';
import { lazyNow } from '../../../lib/lazy-now';

// Recharts is loaded with the chart, not with the page.
const TimelineChart = lazyNow(() => import('./timeline-chart'));

interface TimelinePanelProps {
  query: RangeQuery | undefined;
  nodePool: string | undefined;
  title: string;
  subtitle: string;
  selectedMs?: number;
  onPick?: (tMs: number) => void;
  /** Under the chart (a hint, a link). */
  footer?: ReactNode;
  /**
   * Draw the chart only once it is scrolled near (InView): where the panel is below the page's first screen (the
   * Overview's, at 1280 × 900), so its Recharts render does not hold up the first screen's.
   */
  whenNear?: boolean;
}

/** The chart's height, px: the box kept for it until drawn has the same. */
const CHART_HEIGHT_PX = 320;

/** Packing and cost per hour over time, disruptions marked. */
export function TimelinePanel({ query, nodePool, title, subtitle, selectedMs, onPick, footer, whenNear = false }: TimelinePanelProps) {
  const timeline = useTimeline(query);
  const body = (() => {
    if (query === undefined || timeline.isPending) return <LoadingState label="Loading the timeline…" />;
    if (timeline.isError)
      return <ErrorState title="Could not load the timeline." error={timeline.error} onRetry={() => void timeline.refetch()} />;
    if (timeline.data.series.every((s) => s.points.length === 0)) {
      return (
        <EmptyState title="No snapshots in this range.">
          Packing comes from Kubernetes snapshots written by the collector. Pick a range inside the data (the banner above shows it).
        </EmptyState>
      );
    }
    const chart = (
      <Suspense fallback={<LoadingState label="Loading chart…" />}>
        <TimelineChart data={timeline.data} nodePool={nodePool} selectedMs={selectedMs} onPick={onPick} height={CHART_HEIGHT_PX} />
      </Suspense>
    );
    return (
      <>
        {whenNear ? <InView minHeight={CHART_HEIGHT_PX}>{chart}</InView> : chart}
        <ReasonLegend events={timeline.data.events} />
        {footer}
      </>
    );
  })();
  return (
    <Panel title={title} subtitle={subtitle}>
      <div className={timeline.isFetching && !timeline.isPending ? 'panel-body is-refreshing' : 'panel-body'}>{body}</div>
    </Panel>
  );
}
