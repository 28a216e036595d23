import { type Static, Type } from '@sinclair/typebox';
import { CurrencySchema, IsoInstantQuery, Nullable } from './common.js';

/**
 * Budgets over the API (issue 23): the list with each budget's standing, and the declaration the API and a
 * `--budgets FILE` entry both take (the file is checked against the same schema). Amounts in the data's currency.
 */

export const BUDGET_NAME_PATTERN = '^[a-z0-9]([-a-z0-9._]*[a-z0-9])?$';

const ScopeKindSchema = Type.Union([Type.Literal('cluster'), Type.Literal('nodepool'), Type.Literal('team'), Type.Literal('namespace')]);
const PeriodSchema = Type.Union([Type.Literal('monthly'), Type.Literal('weekly')]);
const CostMetricSchema = Type.Union([Type.Literal('unblended'), Type.Literal('amortized'), Type.Literal('net')], {
  description: "Cost Explorer's UnblendedCost, AmortizedCost or NetUnblendedCost (net: the gross figure on days the bill has no net one)",
});

const declarationProperties = {
  scope: Type.Object(
    {
      kind: ScopeKindSchema,
      name: Type.Optional(Type.String({ maxLength: 253, description: "The NodePool, team or namespace; left out for 'cluster'" })),
    },
    { additionalProperties: false },
  ),
  period: PeriodSchema,
  amount: Type.Number({ exclusiveMinimum: 0, description: 'Per period, in the data currency' }),
  currency: Type.Optional(Type.String({ maxLength: 8, description: "Must be the data's currency when given" })),
  costMetric: Type.Optional(CostMetricSchema),
  thresholds: Type.Optional(
    Type.Array(Type.Number({ exclusiveMinimum: 0, maximum: 10 }), {
      maxItems: 10,
      description: 'Shares of amount that raise an alert when spent or forecast, ascending; default [0.8, 1]',
    }),
  ),
  dollarLimit: Type.Optional(Type.Boolean({ description: 'A NodePool budget that is a dollar limit (nodesBeforeLimit is given)' })),
};

/** POST /api/budgets, and each entry of a budgets file. */
export const BudgetDeclarationSchema = Type.Object(
  {
    name: Type.String({ pattern: BUDGET_NAME_PATTERN, maxLength: 63, description: 'Unique; the file entry key' }),
    ...declarationProperties,
  },
  { additionalProperties: false },
);
export type BudgetDeclarationBody = Static<typeof BudgetDeclarationSchema>;

/**
 * One entry of a `--budgets FILE`: a declaration and, optionally, the cluster it watches (its name as the ledger holds
 * it; absent: the whole ledger, every cluster's figures added). The API takes the cluster from `?cluster=` instead.
 */
export const BudgetFileEntrySchema = Type.Object(
  {
    name: Type.String({ pattern: BUDGET_NAME_PATTERN, maxLength: 63, description: 'Unique; the file entry key' }),
    ...declarationProperties,
    cluster: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'The cluster watched (absent: every cluster of the ledger)' }),
    ),
  },
  { additionalProperties: false },
);

/** PUT /api/budgets/:name: the same without the name (the path names it). */
export const BudgetEditSchema = Type.Object(declarationProperties, { additionalProperties: false });

export const BudgetNameParamsSchema = Type.Object(
  { name: Type.String({ pattern: BUDGET_NAME_PATTERN, maxLength: 63 }) },
  { additionalProperties: false },
);

export const BudgetsQuerySchema = Type.Object(
  { at: Type.Optional(IsoInstantQuery('The moment to look from (default now): its period, spend and forecast')) },
  { additionalProperties: false },
);

export const BudgetSchema = Type.Object({
  name: Type.String(),
  scope: Type.Object({ kind: ScopeKindSchema, name: Type.String() }),
  period: PeriodSchema,
  amount: Type.Number(),
  currency: CurrencySchema,
  costMetric: CostMetricSchema,
  thresholds: Type.Array(Type.Number()),
  dollarLimit: Type.Boolean(),
  source: Type.Union([Type.Literal('api'), Type.Literal('file')]),
  /** The file that declares it (read-only through the API), else null. */
  sourceFile: Nullable(Type.String()),
  /**
   * In a ledger of several clusters: the cluster whose figures it watches (made under ?cluster=), or null for the whole
   * ledger (every cluster's added). Absent in a one-cluster ledger.
   */
  cluster: Type.Optional(Nullable(Type.String())),
});
export type BudgetView = Static<typeof BudgetSchema>;

export const BudgetStatusSchema = Type.Object({
  budget: BudgetSchema,
  periodStart: Type.String({ description: 'ISO instant, UTC' }),
  periodEnd: Type.String(),
  spent: Type.Number({ description: 'spentFinal + spentEstimated' }),
  spentFinal: Type.Number({ description: 'Days final on the bill, in the budget metric' }),
  spentEstimated: Type.Number({ description: "Days not final yet and today so far: the ledger's estimate" }),
  finalDays: Type.Integer(),
  estimatedDays: Type.Integer({ description: 'Whole days of the period estimated (today not counted)' }),
  forecast: Type.Number(),
  forecastLow: Type.Number(),
  forecastHigh: Type.Number(),
  forecastMethod: Type.String(),
  spentShare: Type.Number(),
  forecastShare: Type.Number(),
  nodesBeforeLimit: Nullable(Type.Integer()),
  /** A sentence on how nodesBeforeLimit was made, or null. */
  limitNote: Nullable(Type.String()),
});
export type BudgetStatusView = Static<typeof BudgetStatusSchema>;

export const BudgetsResponseSchema = Type.Object({
  at: Type.String(),
  currency: CurrencySchema,
  items: Type.Array(BudgetStatusSchema),
});
export type BudgetsResponse = Static<typeof BudgetsResponseSchema>;

export const BudgetDeletedSchema = Type.Object({ deleted: Type.String() });

/** What a body field of the budget routes expects, for the 400 that names it (server/app.ts). */
export const BUDGET_FIELD_HINTS: Readonly<Record<string, string>> = {
  name: 'a name of lower-case letters, digits, "-", "_" and "." (at most 63)',
  'scope.kind': '"cluster", "nodepool", "team" or "namespace"',
  'scope.name': 'the NodePool, team or namespace name',
  period: '"monthly" or "weekly"',
  amount: 'a positive number, in the data currency',
  costMetric: '"unblended", "amortized" or "net"',
  thresholds: 'a list of positive shares of amount, ascending, like [0.8, 1]',
  dollarLimit: 'true or false',
};
