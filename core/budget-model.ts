import type { Currency } from './partitions.js';

/**
 * Budgets and alerts as every layer sees them (issue 23). Branch `budgets23` gives budgets their table, API,
 * YAML file and page; branch `alerts23` evaluates rules over them. Times: epoch ms UTC; amounts in `currency`.
 */

export type BudgetScopeKind = 'cluster' | 'nodepool' | 'team' | 'namespace';
export type BudgetPeriod = 'monthly' | 'weekly';
/** Which bill figure a budget is spent in: Cost Explorer's UnblendedCost, AmortizedCost or NetUnblendedCost. */
export type BudgetCostMetric = 'unblended' | 'amortized' | 'net';

export interface Budget {
  /** Stable name, unique in the ledger (`general-monthly`); the YAML file's key. */
  name: string;
  scope: { kind: BudgetScopeKind; /** NodePool, team or namespace name; '' for the cluster. */ name: string };
  period: BudgetPeriod;
  /** The amount per period, in `currency` (must be the data's currency). */
  amount: number;
  currency: Currency;
  costMetric: BudgetCostMetric;
  /** Shares of `amount` that raise an alert when spent or forecast, ascending, e.g. [0.8, 1]. */
  thresholds: number[];
  /** A NodePool budget that is a dollar limit: its alert says how many more nodes of the current mix fit. */
  dollarLimit: boolean;
  /** Where it was declared: the UI/API, or a `--budgets FILE` (read-only in the UI; the file wins). */
  source: 'api' | 'file';
}

/** A budget's standing at one moment of its current period. */
export interface BudgetStatus {
  budget: Budget;
  periodStartMs: number;
  periodEndMs: number;
  /** Spent so far in the period (final days from the bill, the rest estimated), in `budget.currency`. */
  spent: number;
  /** Month/week-end forecast and its spread (low..high); `forecastMethod` says how it was made. */
  forecast: number;
  forecastLow: number;
  forecastHigh: number;
  forecastMethod: string;
  /** spent / amount and forecast / amount. */
  spentShare: number;
  forecastShare: number;
  /** For a dollar-limit NodePool budget: nodes of the current mix that still fit before the limit; else null. */
  nodesBeforeLimit: number | null;
}
