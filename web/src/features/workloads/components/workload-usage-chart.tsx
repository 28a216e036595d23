import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import type { WorkloadUsageResponse } from '@schemas/workloads';
import { formatBytes, formatMillicores, formatUtcDateTime, formatUtcDay, formatUtcTime } from '../../../lib/format';
import { showsHourTicks, timeTicks } from '../../../lib/time-ticks';

type Point = WorkloadUsageResponse['points'][number];

interface Props {
  points: readonly Point[];
  resource: 'cpu' | 'memory';
}

/** A workload container over time: its request (and CPU limit) as lines, usage p95 and max (memory: max) beside them. */
export function WorkloadUsageChart({ points, resource }: Props) {
  const fromMs = points[0]?.hourMs ?? 0;
  const toMs = (points.at(-1)?.hourMs ?? 0) + 3_600_000;
  const tick = showsHourTicks(fromMs, toMs) ? formatUtcTime : formatUtcDay;
  const cpu = resource === 'cpu';
  const format = (v: unknown): string => (typeof v !== 'number' ? '—' : cpu ? formatMillicores(Math.round(v)) : formatBytes(v));
  const lines: { key: string; name: string; value: (p: Point) => number | null; color: string; dash?: string }[] = cpu
    ? [
        { key: 'request', name: 'CPU request', value: (p) => p.requestCpuMillicores, color: 'var(--chart-request, #6b7280)', dash: '6 4' },
        { key: 'limit', name: 'CPU limit', value: (p) => p.limitCpuMillicores, color: 'var(--chart-limit, #b91c1c)', dash: '2 3' },
        { key: 'p95', name: 'CPU usage p95', value: (p) => p.cpuP95Millicores, color: 'var(--chart-usage, #2563eb)' },
        { key: 'max', name: 'CPU usage max', value: (p) => p.cpuMaxMillicores, color: 'var(--chart-usage-max, #93c5fd)' },
      ]
    : [
        { key: 'request', name: 'Memory request', value: (p) => p.requestMemoryBytes, color: 'var(--chart-request, #6b7280)', dash: '6 4' },
        { key: 'max', name: 'Memory working set max', value: (p) => p.memoryMaxBytes, color: 'var(--chart-usage, #2563eb)' },
      ];
  const shown = lines.filter((l) => points.some((p) => l.value(p) !== null));
  return (
    <div
      className="chart"
      data-testid="workload-usage-chart"
      role="img"
      aria-label={`${cpu ? 'CPU' : 'Memory'} request beside usage per hour${cpu ? ' (p95 and max)' : ' (max working set)'}`}
    >
      <LineChart
        responsive
        style={{ width: '100%', height: 240 }}
        data={points as Point[]}
        margin={{ top: 8, right: 16, bottom: 0, left: 8 }}
      >
        <CartesianGrid vertical={false} />
        <XAxis dataKey="hourMs" type="number" scale="time" domain={[fromMs, toMs]} ticks={timeTicks(fromMs, toMs)} tickFormatter={tick} />
        <YAxis tickFormatter={format} width={72} />
        <Tooltip formatter={format} labelFormatter={(t) => `${formatUtcDateTime(Number(t))} UTC`} />
        <Legend />
        {shown.map((l) => (
          <Line
            key={l.key}
            type={l.dash === undefined ? 'linear' : 'stepAfter'}
            dataKey={l.value}
            name={l.name}
            stroke={l.color}
            strokeWidth={2}
            strokeDasharray={l.dash}
            legendType="plainline"
            dot={false}
            isAnimationActive={false}
          />
        ))}
      </LineChart>
    </div>
  );
}
