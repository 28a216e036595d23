import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from 'recharts';
import { paletteColor, UNTAGGED_COLOR } from '../../../lib/colors';
import { formatDayShort, formatUsd, formatUsdAxis } from '../../../lib/format';
import {
  CLUSTER_SEPARATOR,
  IDLE_KEY,
  idleRowLabel,
  OTHER_KEY,
  UNLABELLED_KEY,
  type TeamChart as TeamChartData,
  type TeamChartRow,
  type TeamMethod,
} from '../utils/team-series';

const tooltipUsd = (value: unknown): string => (typeof value === 'number' ? formatUsd(value) : String(value ?? ''));

export const bandLabel = (key: string, groupBy: 'team' | 'namespace', method: TeamMethod): string =>
  key === IDLE_KEY
    ? idleRowLabel(method)
    : key === OTHER_KEY
      ? `Other ${groupBy === 'team' ? 'teams' : 'namespaces'}`
      : key === UNLABELLED_KEY
        ? '(no team label)'
        : key.startsWith(`${UNLABELLED_KEY}${CLUSTER_SEPARATOR}`)
          ? `(no team label)${key.slice(UNLABELLED_KEY.length)}`
          : key;

const fillOf = (key: string, i: number): string =>
  key === IDLE_KEY ? 'url(#idle-pattern)' : key === OTHER_KEY ? '#6f7782' : key === UNLABELLED_KEY ? '#a7a7a7' : paletteColor(i);

/** Cost per bucket stacked by team (or namespace), idle as a striped band on top. */
export default function TeamChart({
  chart,
  groupBy,
  weekly,
  method,
}: {
  chart: TeamChartData;
  groupBy: 'team' | 'namespace';
  weekly: boolean;
  method: TeamMethod;
}) {
  return (
    <div
      className="chart"
      data-testid="team-chart"
      role="img"
      aria-label={`Cost per ${weekly ? 'week' : 'day'} by ${groupBy}, idle cost as its own band`}
    >
      <BarChart responsive style={{ width: '100%', height: 340 }} data={chart.rows} margin={{ top: 8, right: 16, bottom: 0, left: 8 }}>
        <defs>
          <pattern id="idle-pattern" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)">
            <rect width="6" height="6" fill={UNTAGGED_COLOR} fillOpacity="0.25" />
            <rect width="2.5" height="6" fill={UNTAGGED_COLOR} />
          </pattern>
        </defs>
        <CartesianGrid vertical={false} />
        <XAxis dataKey="day" tickFormatter={(d: string) => (weekly ? `wk ${formatDayShort(d)}` : formatDayShort(d))} minTickGap={12} />
        <YAxis tickFormatter={formatUsdAxis} width={64} />
        <Tooltip
          formatter={tooltipUsd}
          labelFormatter={(d) => `${weekly ? 'Week from ' : ''}${String(d)} (UTC)`}
          cursor={{ className: 'chart-cursor' }}
        />
        <Legend itemSorter={null} />
        {chart.keys.map((k, i) => (
          <Bar
            key={k}
            stackId="cost"
            dataKey={(r: TeamChartRow) => r.usd[k] ?? null}
            name={bandLabel(k, groupBy, method)}
            fill={fillOf(k, i + 4)}
            isAnimationActive={false}
          />
        ))}
      </BarChart>
    </div>
  );
}
