import type { Budget, BudgetCostMetric, BudgetPeriod, BudgetScopeKind } from './budget-model.js';
import type { Currency } from './partitions.js';

/**
 * What a budget must be beyond its shape (types, a positive amount: the API's and the file's schema check those):
 * a scope the ledger has seen, the data's currency, ascending thresholds, a dollar limit only on a NodePool.
 * Pure; each problem names the field, so the API's 400 and the file's error say what to fix.
 */

/** A budget as declared (the API's body, a file's entry): currency, metric, thresholds and dollarLimit may be left out. */
export interface BudgetDeclaration {
  name: string;
  scope: { kind: BudgetScopeKind; name?: string };
  period: BudgetPeriod;
  amount: number;
  currency?: string;
  costMetric?: BudgetCostMetric;
  thresholds?: number[];
  dollarLimit?: boolean;
}

export interface KnownScopes {
  /** The data's currency (the newest snapshot's). */
  currency: Currency;
  nodePools: ReadonlySet<string>;
  teams: ReadonlySet<string>;
  namespaces: ReadonlySet<string>;
}

export interface BudgetProblem {
  field: string;
  message: string;
}

export const DEFAULT_THRESHOLDS: readonly number[] = [0.8, 1];

const KNOWN_OF: Record<Exclude<BudgetScopeKind, 'cluster'>, (k: KnownScopes) => ReadonlySet<string>> = {
  nodepool: (k) => k.nodePools,
  team: (k) => k.teams,
  namespace: (k) => k.namespaces,
};

const sample = (names: ReadonlySet<string>): string => {
  const list = [...names].sort();
  return list.length > 8 ? `${list.slice(0, 8).join(', ')}, …` : list.join(', ');
};

/** The problems of a declaration (none: it is a budget). */
export function budgetProblems(d: BudgetDeclaration, known: KnownScopes): BudgetProblem[] {
  const problems: BudgetProblem[] = [];
  const kind = d.scope.kind;
  const scopeName = (d.scope.name ?? '').trim();
  if (kind !== 'cluster') {
    if (scopeName === '') problems.push({ field: 'scope.name', message: `a ${kind} budget names its ${kind}` });
    else {
      const names = KNOWN_OF[kind](known);
      // A ledger that has seen no such name yet (a first collect on an empty file) cannot tell a typo: it accepts it.
      if (names.size > 0 && !names.has(scopeName))
        problems.push({ field: 'scope.name', message: `unknown ${kind} "${scopeName}" (the ledger knows ${sample(names)})` });
    }
  } else if (scopeName !== '') problems.push({ field: 'scope.name', message: 'a cluster budget names no scope (leave name out)' });
  if (!(Number.isFinite(d.amount) && d.amount > 0))
    problems.push({ field: 'amount', message: `must be a positive amount (got ${d.amount})` });
  if (d.currency !== undefined && d.currency !== known.currency)
    problems.push({ field: 'currency', message: `"${d.currency}" is not the data's currency (${known.currency})` });
  const t = d.thresholds ?? DEFAULT_THRESHOLDS;
  if (t.length === 0) problems.push({ field: 'thresholds', message: 'at least one share, e.g. [0.8, 1]' });
  if (t.some((x) => !(Number.isFinite(x) && x > 0)))
    problems.push({ field: 'thresholds', message: 'each share must be positive (0.8 is 80 %)' });
  else if (t.some((x, i) => i > 0 && x <= (t[i - 1] ?? 0))) problems.push({ field: 'thresholds', message: 'shares must be ascending' });
  if (d.dollarLimit === true && kind !== 'nodepool')
    problems.push({ field: 'dollarLimit', message: 'only a NodePool budget can be a dollar limit' });
  return problems;
}

/** The budget a valid declaration declares, with the defaults filled in. */
export function budgetOf(d: BudgetDeclaration, known: KnownScopes, source: Budget['source']): Budget {
  return {
    name: d.name,
    scope: { kind: d.scope.kind, name: d.scope.kind === 'cluster' ? '' : (d.scope.name ?? '').trim() },
    period: d.period,
    amount: d.amount,
    currency: known.currency,
    costMetric: d.costMetric ?? 'unblended',
    thresholds: [...(d.thresholds ?? DEFAULT_THRESHOLDS)],
    dollarLimit: d.dollarLimit ?? false,
    source,
  };
}
