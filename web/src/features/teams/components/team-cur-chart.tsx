import { Bar, BarChart, CartesianGrid, Legend, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';
import { paletteColor } from '../../../lib/colors';
import { formatDayShort, formatUsd, formatUsdAxis } from '../../../lib/format';
import type { CurDiffChart, CurDiffChartRow } from '../utils/team-cur';
import { IDLE_KEY, type TeamMethod } from '../utils/team-series';
import { bandLabel } from './team-chart';

const tooltipUsd = (value: unknown): string => (typeof value === 'number' ? formatUsd(value) : String(value ?? ''));

/** Per CUR day, CUR − our method per team, side by side: above zero AWS billed the team more than we estimated. */
export default function TeamCurChart({
  chart,
  groupBy,
  method,
}: {
  chart: CurDiffChart;
  groupBy: 'team' | 'namespace';
  method: TeamMethod;
}) {
  return (
    <div className="chart" data-testid="team-cur-chart" role="img" aria-label={`AWS split (CUR) minus our estimate per day by ${groupBy}`}>
      <BarChart responsive style={{ width: '100%', height: 260 }} data={chart.rows} margin={{ top: 8, right: 16, bottom: 0, left: 8 }}>
        <CartesianGrid vertical={false} />
        <XAxis dataKey="day" tickFormatter={(d: string) => formatDayShort(d)} minTickGap={12} />
        <YAxis tickFormatter={formatUsdAxis} width={64} />
        <ReferenceLine y={0} stroke="currentColor" strokeOpacity={0.5} />
        <Tooltip formatter={tooltipUsd} labelFormatter={(d) => `${String(d)} (UTC): CUR − ours`} cursor={{ className: 'chart-cursor' }} />
        <Legend itemSorter={null} />
        {chart.keys.map((k, i) => (
          <Bar
            key={k}
            dataKey={(r: CurDiffChartRow) => r.usd[k] ?? null}
            name={k === IDLE_KEY ? 'Idle (AWS unused − our idle)' : bandLabel(k, groupBy, method)}
            fill={k === IDLE_KEY ? '#8a8f98' : paletteColor(i + 4)}
            isAnimationActive={false}
          />
        ))}
      </BarChart>
    </div>
  );
}
