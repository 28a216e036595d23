import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from 'recharts';
import { colorOf, type NodePoolColors } from '../../../lib/colors';
import { formatDayShort, formatUsd, formatUsdAxis, nodePoolLabel } from '../../../lib/format';
import type { DailyStacks, DayStack } from '../utils/daily-stacks';

export type CostMetric = 'bill' | 'estimate' | 'both';

interface CostChartProps {
  stacks: DailyStacks;
  metric: CostMetric;
  colors: NodePoolColors;
}

const tooltipUsd = (value: unknown): string => (typeof value === 'number' ? formatUsd(value) : String(value ?? ''));

/** Stacked bars per UTC day, one segment per NodePool; "both" puts the estimate stack beside the bill stack. */
export default function CostChart({ stacks, metric, colors }: CostChartProps) {
  const showBill = metric !== 'estimate';
  const showEstimate = metric !== 'bill';
  return (
    <div className="chart" data-testid="cost-chart">
      <BarChart responsive style={{ width: '100%', height: 340 }} data={stacks.days} margin={{ top: 8, right: 16, bottom: 0, left: 8 }} barGap={2}>
        <CartesianGrid vertical={false} />
        <XAxis dataKey="day" tickFormatter={formatDayShort} minTickGap={12} />
        <YAxis tickFormatter={formatUsdAxis} width={64} />
        <Tooltip formatter={tooltipUsd} labelFormatter={(day) => `${String(day)} (UTC)`} cursor={{ className: 'chart-cursor' }} />
        <Legend />
        {showBill
          ? stacks.nodePools.map((np) => (
              <Bar
                key={`bill:${np}`}
                stackId="bill"
                dataKey={(d: DayStack) => d.bill[np] ?? null}
                name={nodePoolLabel(np)}
                fill={colorOf(np, colors)}
                isAnimationActive={false}
              />
            ))
          : null}
        {showEstimate
          ? stacks.nodePools.map((np) => (
              <Bar
                key={`estimate:${np}`}
                stackId="estimate"
                dataKey={(d: DayStack) => d.estimate[np] ?? null}
                name={metric === 'both' ? `${nodePoolLabel(np)} (estimate)` : nodePoolLabel(np)}
                fill={colorOf(np, colors)}
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
