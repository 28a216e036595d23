import { useMemo } from 'react';
import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import type { EfficiencyResponse } from '@schemas/efficiency';
import { colorOf, type NodePoolColors } from '../../../lib/colors';
import { formatPercent, formatUtcDateTime, formatUtcDay, formatUtcTime, nodePoolLabel } from '../../../lib/format';
import { showsHourTicks, timeTicks } from '../../../lib/time-ticks';
import { toEfficiencyRows, type EfficiencyRow } from '../utils/efficiency-lines';

export type ResourceChoice = 'cpu' | 'memory' | 'both';

interface EfficiencyChartProps {
  data: EfficiencyResponse;
  resource: ResourceChoice;
  colors: NodePoolColors;
}

const RESOURCE_LABEL = { cpu: 'CPU', memory: 'memory' } as const;
const tooltipPercent = (value: unknown): string => (typeof value === 'number' ? formatPercent(value) : '—');

/**
 * One line per NodePool and resource, percent of allocatable requested; gaps where no snapshot fell. Where usage was
 * collected, a thin line of the same colour shows what the pods used, so the gap between the two is requests nobody uses.
 */
export default function EfficiencyChart({ data, resource, colors }: EfficiencyChartProps) {
  const { rows, nodePools, withUsage } = useMemo(() => toEfficiencyRows(data.series, data.bucketMs), [data.series, data.bucketMs]);
  const fromMs = Date.parse(data.from);
  const toMs = Date.parse(data.to);
  const resources = resource === 'both' ? (['cpu', 'memory'] as const) : ([resource] as const);
  const tick = showsHourTicks(fromMs, toMs) ? formatUtcTime : formatUtcDay;

  return (
    <div
      className="chart"
      data-testid="efficiency-chart"
      role="img"
      aria-label="Packing efficiency per NodePool over time, CPU solid and memory dashed, percent of allocatable requested; thin lines: percent of allocatable the pods used"
    >
      <LineChart responsive style={{ width: '100%', height: 340 }} data={rows} margin={{ top: 8, right: 16, bottom: 0, left: 8 }}>
        <CartesianGrid vertical={false} />
        <XAxis dataKey="t" type="number" scale="time" domain={[fromMs, toMs]} ticks={timeTicks(fromMs, toMs)} tickFormatter={tick} />
        <YAxis domain={[0, 100]} ticks={[0, 25, 50, 75, 100]} tickFormatter={(v: number) => `${v} %`} width={56} />
        <Tooltip formatter={tooltipPercent} labelFormatter={(t) => `${formatUtcDateTime(Number(t))} UTC`} />
        <Legend />
        {nodePools.flatMap((np) =>
          resources.map((r) => (
            <Line
              key={`${np}:${r}`}
              type="linear"
              dataKey={(row: EfficiencyRow) => row[r][np] ?? null}
              name={`${nodePoolLabel(np, 'nodes')} ${RESOURCE_LABEL[r]}`}
              stroke={colorOf(np, colors)}
              strokeWidth={2}
              strokeDasharray={r === 'memory' ? '6 4' : undefined}
              legendType="plainline"
              dot={false}
              connectNulls={false}
              isAnimationActive={false}
            />
          )),
        )}
        {withUsage.flatMap((np) =>
          resources.map((r) => (
            <Line
              key={`${np}:${r}:used`}
              type="linear"
              dataKey={(row: EfficiencyRow) => (r === 'cpu' ? row.cpuUsage : row.memoryUsage)[np] ?? null}
              name={`${nodePoolLabel(np, 'nodes')} ${RESOURCE_LABEL[r]} used`}
              stroke={colorOf(np, colors)}
              strokeWidth={1}
              strokeOpacity={0.7}
              strokeDasharray={r === 'memory' ? '2 3' : undefined}
              legendType="plainline"
              dot={false}
              connectNulls={false}
              isAnimationActive={false}
            />
          )),
        )}
      </LineChart>
    </div>
  );
}
