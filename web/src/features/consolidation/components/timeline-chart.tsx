import { type SVGProps, useMemo } from 'react';
import { CartesianGrid, ComposedChart, Legend, Line, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';
import type { ConsolidationTimelineResponse } from '@schemas/consolidation';
import { formatPercent, formatUsd, formatUsdAxis, formatUtcDateTime, formatUtcDay, formatUtcTime } from '../../../lib/format';
import { showsHourTicks, timeTicks } from '../../../lib/time-ticks';
import { markTitle, reasonColor } from '../utils/reasons';
import { pickSeries, toTimelineRows } from '../utils/timeline-rows';

interface TimelineChartProps {
  data: ConsolidationTimelineResponse;
  nodePool: string | undefined;
  /** A chosen instant to mark (epoch ms). */
  selectedMs?: number;
  /** Called with the bucket start clicked. */
  onPick?: (tMs: number) => void;
  height?: number;
}

/** Disruptions are drawn as short marks in a strip above 100 %. */
const MARK_BOTTOM = 103;
const MARK_TOP = 112;

const tooltipValue = (value: unknown, name: unknown): string => {
  if (typeof value !== 'number') return '—';
  return String(name).startsWith('Cost') ? formatUsd(value) : formatPercent(value);
};

/** CPU and memory packing (left axis) and cost per hour (right axis) over time; each disruption a mark in its reason's colour along the top. */
export default function TimelineChart({ data, nodePool, selectedMs, onPick, height = 320 }: TimelineChartProps) {
  const series = pickSeries(data.series, nodePool, data.totals);
  const rows = useMemo(() => toTimelineRows(series?.points ?? [], data.bucketMs), [series, data.bucketMs]);
  const fromMs = Date.parse(data.from);
  const toMs = Date.parse(data.to);
  const tick = showsHourTicks(fromMs, toMs) ? formatUtcTime : formatUtcDay;
  return (
    <div
      className={onPick === undefined ? 'chart' : 'chart is-pickable'}
      data-testid="timeline-chart"
      role="img"
      aria-label={`CPU and memory packing and cost per hour over time, ${data.events.reduce((n, e) => n + e.count, 0)} disruptions marked`}
    >
      <ComposedChart
        responsive
        style={{ width: '100%', height }}
        data={rows}
        margin={{ top: 8, right: 8, bottom: 0, left: 8 }}
        onClick={
          onPick === undefined
            ? undefined
            : (state) => {
                const t = Number(state.activeLabel);
                if (Number.isFinite(t)) onPick(t);
              }
        }
      >
        <CartesianGrid vertical={false} />
        <XAxis dataKey="t" type="number" scale="time" domain={[fromMs, toMs]} ticks={timeTicks(fromMs, toMs)} tickFormatter={tick} />
        {/* Up to 112 %: the band above 100 % holds the event marks, clear of the lines. */}
        <YAxis
          yAxisId="pct"
          domain={[0, MARK_TOP]}
          ticks={[0, 25, 50, 75, 100]}
          tickFormatter={(v: number) => `${v} %`}
          width={52}
          allowDataOverflow
        />
        {/* Scaled so the highest cost sits at the 100 % line, below the marks. */}
        <YAxis
          yAxisId="usd"
          orientation="right"
          domain={[0, (max: number) => (max > 0 ? (max * MARK_TOP) / 100 : 1)]}
          tickFormatter={formatUsdAxis}
          width={56}
        />
        <Tooltip formatter={tooltipValue} labelFormatter={(t) => `${formatUtcDateTime(Number(t))} UTC`} />
        <Legend itemSorter={null} />
        {data.events.map((e) => (
          <ReferenceLine
            key={e.id}
            yAxisId="pct"
            segment={[
              { x: e.atMs, y: MARK_BOTTOM },
              { x: e.atMs, y: MARK_TOP },
            ]}
            stroke={reasonColor(e.reason)}
            strokeWidth={e.count > 1 ? 3 : 2}
            ifOverflow="hidden"
            shape={(props: SVGProps<SVGLineElement>) => (
              <line {...props} className="recharts-reference-line-line timeline-mark">
                <title>{markTitle(e)}</title>
              </line>
            )}
          />
        ))}
        {selectedMs === undefined ? null : (
          <ReferenceLine yAxisId="pct" x={selectedMs} className="selected-marker" strokeWidth={2} ifOverflow="hidden" />
        )}
        <Line
          yAxisId="pct"
          dataKey="cpuPercent"
          name="CPU packed"
          stroke="var(--series-cpu)"
          strokeWidth={2}
          dot={false}
          connectNulls={false}
          isAnimationActive={false}
        />
        <Line
          yAxisId="pct"
          dataKey="memoryPercent"
          name="Memory packed"
          stroke="var(--series-memory)"
          strokeWidth={2}
          strokeDasharray="6 4"
          dot={false}
          connectNulls={false}
          isAnimationActive={false}
        />
        <Line
          yAxisId="usd"
          dataKey="usdPerHour"
          name="Cost per hour"
          stroke="var(--series-cost)"
          strokeWidth={1.5}
          dot={false}
          type="stepAfter"
          connectNulls={false}
          isAnimationActive={false}
        />
      </ComposedChart>
    </div>
  );
}
