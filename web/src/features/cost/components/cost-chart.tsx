import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from 'recharts';
import { colorOf, type NodePoolColors } from '../../../lib/colors';
import { formatDayShort, formatUsd, formatUsdAxis, nodePoolLabel } from '../../../lib/format';
import type { DailyStacks, DayStack, PurchaseKind, Segment } from '../utils/daily-stacks';

export type CostMetric = 'bill' | 'estimate' | 'both';

interface CostChartProps {
  stacks: DailyStacks;
  metric: CostMetric;
  colors: NodePoolColors;
}

const tooltipUsd = (value: unknown): string => (typeof value === 'number' ? formatUsd(value) : String(value ?? ''));

const KIND_LABEL: Record<PurchaseKind, string> = {
  'on-demand': 'on-demand',
  spot: 'spot',
  reserved: 'reserved',
  other: 'other purchase',
  'storage-network': 'storage and network',
};
const segmentLabel = (s: Segment): string => `${nodePoolLabel(s.nodePool)} · ${KIND_LABEL[s.kind]}`;
const patternId = (i: number): string => `cost-pattern-${i}`;

/** Spot is striped, reserved and other purchases dotted, storage and network cross-hatched, on-demand solid: the NodePool keeps its colour. */
function SegmentPatterns({ segments, colors }: { segments: readonly Segment[]; colors: NodePoolColors }) {
  return (
    <defs>
      {segments.map((s, i) => {
        const color = colorOf(s.nodePool, colors);
        if (s.kind === 'spot') {
          return (
            <pattern key={s.key} id={patternId(i)} patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)">
              <rect width="6" height="6" fill={color} fillOpacity="0.35" />
              <rect width="3" height="6" fill={color} />
            </pattern>
          );
        }
        if (s.kind === 'on-demand') return null;
        if (s.kind === 'storage-network') {
          return (
            <pattern key={s.key} id={patternId(i)} patternUnits="userSpaceOnUse" width="6" height="6">
              <rect width="6" height="6" fill={color} fillOpacity="0.25" />
              <path d="M0 3h6M3 0v6" stroke={color} strokeWidth="1.2" />
            </pattern>
          );
        }
        return (
          <pattern key={s.key} id={patternId(i)} patternUnits="userSpaceOnUse" width="5" height="5">
            <rect width="5" height="5" fill={color} fillOpacity="0.3" />
            <circle cx="2.5" cy="2.5" r="1.4" fill={color} />
          </pattern>
        );
      })}
    </defs>
  );
}

const fillOf = (s: Segment, i: number, colors: NodePoolColors): string =>
  s.kind === 'on-demand' ? colorOf(s.nodePool, colors) : `url(#${patternId(i)})`;

/**
 * Stacked bars per UTC day, one segment per NodePool × capacity type; "both" puts the estimate stack
 * beside the bill stack.
 */
export default function CostChart({ stacks, metric, colors }: CostChartProps) {
  const showBill = metric !== 'estimate';
  const showEstimate = metric !== 'bill';
  return (
    <div
      className="chart"
      data-testid="cost-chart"
      role="img"
      aria-label={`Cost per day, stacked by NodePool and capacity type (${metric === 'both' ? 'bill and estimate' : metric})`}
    >
      <BarChart
        responsive
        style={{ width: '100%', height: 340 }}
        data={stacks.days}
        margin={{ top: 8, right: 16, bottom: 0, left: 8 }}
        barGap={2}
      >
        <SegmentPatterns segments={stacks.segments} colors={colors} />
        <CartesianGrid vertical={false} />
        <XAxis dataKey="day" tickFormatter={formatDayShort} minTickGap={12} />
        <YAxis tickFormatter={formatUsdAxis} width={64} />
        <Tooltip formatter={tooltipUsd} labelFormatter={(day) => `${String(day)} (UTC)`} cursor={{ className: 'chart-cursor' }} />
        <Legend itemSorter={null} />
        {showBill
          ? stacks.segments.map((s, i) => (
              <Bar
                key={`bill:${s.key}`}
                stackId="bill"
                dataKey={(d: DayStack) => d.bill[s.key] ?? null}
                name={segmentLabel(s)}
                fill={fillOf(s, i, colors)}
                isAnimationActive={false}
              />
            ))
          : null}
        {showEstimate
          ? stacks.segments.map((s, i) => (
              <Bar
                key={`estimate:${s.key}`}
                stackId="estimate"
                dataKey={(d: DayStack) => d.estimate[s.key] ?? null}
                name={metric === 'both' ? `${segmentLabel(s)} (estimate)` : segmentLabel(s)}
                fill={fillOf(s, i, colors)}
                fillOpacity={metric === 'both' ? 0.45 : 1}
                legendType={metric === 'both' ? 'none' : 'square'}
                isAnimationActive={false}
              />
            ))
          : null}
      </BarChart>
      {metric === 'both' ? <p className="chart-note">Left bar of each day: the bill. Right, lighter bar: our estimate.</p> : null}
    </div>
  );
}
