import { Bar, BarChart, CartesianGrid, Cell, LabelList, Tooltip, XAxis, YAxis } from 'recharts';
import { formatUsd } from '../../../lib/format';
import type { CompareBar } from '../utils/compare-state';

const format =
  (unit: CompareBar['unit']) =>
  (v: unknown): string => {
    if (typeof v !== 'number') return '—';
    if (unit === 'usd') return formatUsd(v);
    if (unit === 'percent') return `${v.toFixed(1)} %`;
    return v.toFixed(1);
  };

/** Before and after as two bars per figure, one small chart each (the units differ). */
export default function BeforeAfterChart({ bars }: { bars: readonly CompareBar[] }) {
  return (
    <div className="before-after" data-testid="before-after">
      {bars.map((b) => {
        const f = format(b.unit);
        const data = [
          { name: 'Before', value: b.before },
          { name: 'After', value: b.after },
        ];
        return (
          <figure key={b.metric} className="chart mini-chart" aria-label={`${b.label}: before ${f(b.before)}, after ${f(b.after)}`}>
            <figcaption>{b.label}</figcaption>
            <BarChart responsive style={{ width: '100%', height: 170 }} data={data} margin={{ top: 18, right: 8, bottom: 0, left: 0 }}>
              <CartesianGrid vertical={false} />
              <XAxis dataKey="name" />
              <YAxis
                width={46}
                domain={b.unit === 'percent' ? [0, 100] : [0, 'auto']}
                tickFormatter={(v: number) => (b.unit === 'usd' ? `$${v}` : String(v))}
              />
              <Tooltip formatter={f} cursor={{ className: 'chart-cursor' }} />
              <Bar dataKey="value" name={b.label} isAnimationActive={false}>
                <Cell fill="var(--series-cost)" />
                <Cell fill="var(--series-cpu)" />
                <LabelList dataKey="value" position="top" formatter={f} className="bar-label" />
              </Bar>
            </BarChart>
          </figure>
        );
      })}
    </div>
  );
}
