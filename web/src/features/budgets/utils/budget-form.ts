import type { ApiWriteBody } from '@schemas/api-routes';
import type { BudgetStatusView, BudgetView } from '@schemas/budgets';

/** The create/edit form as typed (strings where the user types numbers): thresholds in percent, "80, 100". */
export interface BudgetFormState {
  name: string;
  scopeKind: BudgetView['scope']['kind'];
  scopeName: string;
  period: BudgetView['period'];
  amount: string;
  costMetric: BudgetView['costMetric'];
  thresholds: string;
  dollarLimit: boolean;
}

export const EMPTY_FORM: BudgetFormState = {
  name: '',
  scopeKind: 'nodepool',
  scopeName: '',
  period: 'monthly',
  amount: '',
  costMetric: 'unblended',
  thresholds: '80, 100',
  dollarLimit: false,
};

const percent = (share: number): string => String(Math.round(share * 1000) / 10);

export function formFromBudget(b: BudgetView): BudgetFormState {
  return {
    name: b.name,
    scopeKind: b.scope.kind,
    scopeName: b.scope.name,
    period: b.period,
    amount: String(b.amount),
    costMetric: b.costMetric,
    thresholds: b.thresholds.map(percent).join(', '),
    dollarLimit: b.dollarLimit,
  };
}

export type Declaration = ApiWriteBody<'POST /api/budgets'>;

/** The body the form declares, or the field it cannot make one from (the server checks the rest and names it). */
export function declarationOf(f: BudgetFormState): { body: Declaration } | { field: string; message: string } {
  const name = f.name.trim();
  if (name === '') return { field: 'name', message: 'Give the budget a name (lower-case letters, digits, "-").' };
  const amount = Number(f.amount);
  if (f.amount.trim() === '' || !Number.isFinite(amount) || amount <= 0)
    return { field: 'amount', message: 'The amount is a positive number.' };
  const parts = f.thresholds
    .split(/[,\s]+/)
    .map((s) => s.replace(/%$/, ''))
    .filter((s) => s !== '');
  const thresholds = parts.map((s) => Number(s) / 100);
  if (parts.length === 0 || thresholds.some((t) => !Number.isFinite(t) || t <= 0))
    return { field: 'thresholds', message: 'Thresholds are percents of the amount, like 80, 100.' };
  const scopeName = f.scopeName.trim();
  if (f.scopeKind !== 'cluster' && scopeName === '') return { field: 'scopeName', message: `Name the ${f.scopeKind}.` };
  return {
    body: {
      name,
      scope: f.scopeKind === 'cluster' ? { kind: 'cluster' } : { kind: f.scopeKind, name: scopeName },
      period: f.period,
      amount,
      costMetric: f.costMetric,
      thresholds,
      dollarLimit: f.scopeKind === 'nodepool' && f.dollarLimit,
    },
  };
}

/** One bar pair per budget: spent and forecast in percent of the amount, with the forecast's spread. */
export interface BudgetBar {
  name: string;
  spentPct: number;
  forecastPct: number;
  spread: [number, number];
}

export const budgetBars = (items: readonly BudgetStatusView[]): BudgetBar[] =>
  items.map((s) => ({
    name: s.budget.name,
    spentPct: s.spentShare * 100,
    forecastPct: s.forecastShare * 100,
    spread: [(s.forecastLow / s.budget.amount) * 100, (s.forecastHigh / s.budget.amount) * 100],
  }));

/** Where a budget stands against its thresholds: 'over' past the last, 'warn' past an earlier, else 'ok'. */
export function budgetLevel(share: number, thresholds: readonly number[]): 'ok' | 'warn' | 'over' {
  const last = thresholds[thresholds.length - 1] ?? 1;
  if (share >= last) return 'over';
  return thresholds.some((t) => share >= t) ? 'warn' : 'ok';
}
