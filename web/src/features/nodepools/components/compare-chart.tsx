import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from 'recharts';
import type { NodePoolCompareRow } from '@schemas/nodepools';
import { nodePoolLabel } from '../../../lib/format';

interface CompareChartProps {
  rows: readonly NodePoolCompareRow[];
}

const usd4 = (v: unknown): string => (typeof v === 'number' ? `$${v.toFixed(4)}` : '—');

/** USD per vCPU-hour, allocatable against requested, per NodePool × capacity type. */
export default function CompareChart({ rows }: CompareChartProps) {
  const data = rows.map((r) => ({
    label: `${nodePoolLabel(r.nodePool, 'nodes')} · ${r.capacityType}`,
    allocatable: r.usdPerVcpuHourAllocatable,
    requested: r.usdPerVcpuHourRequested,
  }));
  return (
    <div
      className="chart"
      data-testid="compare-chart"
      role="img"
      aria-label="Cost per vCPU-hour by NodePool and capacity type, allocatable and requested"
    >
      <BarChart
        responsive
        layout="vertical"
        style={{ width: '100%', height: Math.max(160, 40 + data.length * 44) }}
        data={data}
        margin={{ top: 4, right: 24, bottom: 0, left: 8 }}
      >
        <CartesianGrid horizontal={false} />
        <XAxis type="number" tickFormatter={(v: number) => `$${v.toFixed(3)}`} />
        <YAxis type="category" dataKey="label" width={170} />
        <Tooltip formatter={usd4} cursor={{ className: 'chart-cursor' }} />
        <Legend itemSorter={null} />
        <Bar dataKey="allocatable" name="per allocatable vCPU-hour" fill="var(--series-cpu)" isAnimationActive={false} />
        <Bar dataKey="requested" name="per requested vCPU-hour" fill="var(--series-memory)" isAnimationActive={false} />
      </BarChart>
    </div>
  );
}
