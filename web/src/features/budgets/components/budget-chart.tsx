import { Bar, BarChart, CartesianGrid, ErrorBar, Legend, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';
import type { BudgetStatusView } from '@schemas/budgets';
import { budgetBars } from '../utils/budget-form';

const pct = (v: unknown): string => (typeof v === 'number' ? `${v.toFixed(1)} %` : '—');

/** Spent and forecast per budget, in percent of its amount; the forecast's spread as an error bar; 100 % marked. */
export default function BudgetChart({ items }: { items: readonly BudgetStatusView[] }) {
  const data = budgetBars(items).map((b) => ({ ...b, spreadBelowAbove: [b.forecastPct - b.spread[0], b.spread[1] - b.forecastPct] }));
  return (
    <div className="chart" data-testid="budget-chart" role="img" aria-label="Spent and forecast of each budget, in percent of its amount">
      <BarChart
        responsive
        layout="vertical"
        style={{ width: '100%', height: Math.max(140, 50 + data.length * 52) }}
        data={data}
        margin={{ top: 4, right: 24, bottom: 0, left: 8 }}
      >
        <CartesianGrid horizontal={false} />
        <XAxis
          type="number"
          tickFormatter={(v: number) => `${v} %`}
          domain={[0, (max: number) => Math.max(120, Math.ceil(max / 10) * 10)]}
        />
        <YAxis type="category" dataKey="name" width={160} />
        <Tooltip formatter={pct} cursor={{ className: 'chart-cursor' }} />
        <Legend itemSorter={null} />
        <ReferenceLine x={100} stroke="var(--danger, #c0392b)" strokeDasharray="4 3" />
        <Bar dataKey="spentPct" name="spent" fill="var(--series-cpu)" isAnimationActive={false} />
        <Bar dataKey="forecastPct" name="forecast (period end)" fill="var(--series-memory)" isAnimationActive={false}>
          <ErrorBar dataKey="spreadBelowAbove" width={6} direction="x" stroke="currentColor" />
        </Bar>
      </BarChart>
    </div>
  );
}
