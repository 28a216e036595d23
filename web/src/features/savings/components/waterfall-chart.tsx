import { Bar, BarChart, CartesianGrid, Cell, LabelList, Tooltip, XAxis, YAxis } from 'recharts';
import { formatUsd, formatUsdAxis } from '../../../lib/format';
import type { WaterfallStep } from '../utils/waterfall';

const COLORS: Record<WaterfallStep['kind'], string> = { total: 'var(--accent, #3b6fd8)', saving: '#2e9d5b', increase: '#d0453a' };

const signed = (s: WaterfallStep): string =>
  s.kind === 'total' ? formatUsd(s.valueUsd) : s.valueUsd >= 0 ? `−${formatUsd(s.valueUsd)}` : `+${formatUsd(-s.valueUsd)}`;

/** Today's monthly cost stepping down lever by lever: a transparent base bar under each floating saving. */
export default function WaterfallChart({ steps }: { steps: readonly WaterfallStep[] }) {
  return (
    <div className="chart" data-testid="savings-waterfall" role="img" aria-label="Savings per month, lever by lever (simulated)">
      <BarChart responsive style={{ width: '100%', height: 340 }} data={[...steps]} margin={{ top: 20, right: 16, bottom: 40, left: 8 }}>
        <CartesianGrid vertical={false} />
        <XAxis dataKey="label" interval={0} angle={-20} textAnchor="end" height={60} />
        <YAxis tickFormatter={formatUsdAxis} width={72} />
        <Tooltip
          formatter={(_v, _n, item) => {
            const step = (item as { payload?: WaterfallStep }).payload;
            return step === undefined ? '' : [signed(step), 'per month'];
          }}
          cursor={{ className: 'chart-cursor' }}
        />
        <Bar dataKey="baseUsd" stackId="w" fill="transparent" isAnimationActive={false} legendType="none" tooltipType="none" />
        <Bar dataKey="barUsd" stackId="w" isAnimationActive={false}>
          {steps.map((s) => (
            <Cell key={s.key} fill={COLORS[s.kind]} />
          ))}
          <LabelList dataKey="valueUsd" position="top" formatter={(v: unknown) => (typeof v === 'number' ? formatUsd(Math.abs(v)) : '')} />
        </Bar>
      </BarChart>
    </div>
  );
}
