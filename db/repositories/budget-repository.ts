import type { Budget, BudgetCostMetric, BudgetPeriod, BudgetScopeKind } from '../../core/budget-model.js';
import type { Currency } from '../../core/partitions.js';
import type { Db } from '../open-db.js';

/**
 * All SQL for budgets (migration 0024): the rows as Budget, written one at a time or a whole file's in one
 * transaction, and the names a budget's scope may take (the NodePools, teams and namespaces the ledger has seen).
 */

interface RawBudget {
  name: string;
  scope_kind: string;
  scope_name: string;
  period: string;
  amount: number;
  currency: string;
  cost_metric: string;
  thresholds_json: string;
  dollar_limit: number;
  source: string;
  source_file: string | null;
  cluster_id: number | null;
  cluster_name: string | null;
}

/**
 * A stored budget and, for one declared in a file, the file's path; the cluster it is of (clusters.id and name), or
 * null for the whole ledger (every cluster's rows added).
 */
export type StoredBudget = Budget & { sourceFile: string | null; clusterId: number | null; cluster: string | null };

const thresholdsOf = (json: string): number[] => {
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : [];
  } catch {
    return [];
  }
};

const toBudget = (r: RawBudget): StoredBudget => ({
  name: r.name,
  scope: { kind: r.scope_kind as BudgetScopeKind, name: r.scope_name },
  period: r.period as BudgetPeriod,
  amount: r.amount,
  currency: r.currency as Currency,
  costMetric: r.cost_metric as BudgetCostMetric,
  thresholds: thresholdsOf(r.thresholds_json),
  dollarLimit: r.dollar_limit === 1,
  source: r.source === 'file' ? 'file' : 'api',
  sourceFile: r.source_file,
  clusterId: r.cluster_id,
  cluster: r.cluster_name,
});

export function createBudgetRepository(db: Db) {
  const WITH_CLUSTER = 'SELECT b.*, (SELECT name FROM clusters WHERE id = b.cluster_id) AS cluster_name FROM budgets b';
  const all = db.prepare(`${WITH_CLUSTER} ORDER BY b.name`);
  const one = db.prepare(`${WITH_CLUSTER} WHERE b.name = ?`);
  const clusterCount = db.prepare('SELECT COUNT(*) FROM clusters').pluck();
  const clusterIds = db.prepare('SELECT id FROM clusters ORDER BY id').pluck();
  const upsert = db.prepare(`
    INSERT INTO budgets (name, scope_kind, scope_name, period, amount, currency, cost_metric, thresholds_json, dollar_limit,
                         source, source_file, updated_at, cluster_id)
    VALUES (@name, @scopeKind, @scopeName, @period, @amount, @currency, @costMetric, @thresholds, @dollarLimit,
            @source, @sourceFile, @updatedAt, @clusterId)
    ON CONFLICT(name) DO UPDATE SET scope_kind = excluded.scope_kind, scope_name = excluded.scope_name,
      period = excluded.period, amount = excluded.amount, currency = excluded.currency, cost_metric = excluded.cost_metric,
      thresholds_json = excluded.thresholds_json, dollar_limit = excluded.dollar_limit, source = excluded.source,
      source_file = excluded.source_file, updated_at = excluded.updated_at, cluster_id = excluded.cluster_id`);
  const remove = db.prepare('DELETE FROM budgets WHERE name = ?');
  const fileNames = db.prepare("SELECT name FROM budgets WHERE source = 'file'").pluck();
  const nodePools = db
    .prepare(`SELECT name FROM nodepools UNION SELECT DISTINCT nodepool FROM rollup_nodepools WHERE span_ms = 86400000 AND nodepool <> ''`)
    .pluck();
  const teams = db
    .prepare(
      `SELECT team FROM namespaces WHERE team IS NOT NULL AND team <> ''
       UNION SELECT DISTINCT team FROM rollup_namespaces WHERE span_ms = 86400000 AND team IS NOT NULL AND team <> ''`,
    )
    .pluck();
  const namespaces = db
    .prepare(`SELECT name FROM namespaces UNION SELECT DISTINCT namespace FROM rollup_namespaces WHERE span_ms = 86400000`)
    .pluck();
  const snapshotAtOrBefore = db
    .prepare('SELECT MAX(taken_at) FROM snapshots WHERE taken_at <= @atMs AND (@clusterId IS NULL OR cluster_id = @clusterId)')
    .pluck();

  const write = (b: StoredBudget, atMs: number): void => {
    upsert.run({
      name: b.name,
      scopeKind: b.scope.kind,
      scopeName: b.scope.kind === 'cluster' ? '' : b.scope.name,
      period: b.period,
      amount: b.amount,
      currency: b.currency,
      costMetric: b.costMetric,
      thresholds: JSON.stringify(b.thresholds),
      dollarLimit: b.dollarLimit ? 1 : 0,
      source: b.source,
      sourceFile: b.sourceFile,
      updatedAt: atMs,
      clusterId: b.clusterId,
    });
  };

  /** A file's budgets: each upserted (the file wins over the API for a name it declares), file budgets it no longer declares removed. */
  const applyFile = db.transaction((budgets: readonly StoredBudget[], atMs: number): { written: number; removed: string[] } => {
    const declared = new Set(budgets.map((b) => b.name));
    const removed = (fileNames.all() as string[]).filter((n) => !declared.has(n));
    for (const n of removed) remove.run(n);
    for (const b of budgets) write(b, atMs);
    return { written: budgets.length, removed };
  });

  return {
    list: (): StoredBudget[] => (all.all() as RawBudget[]).map(toBudget),
    get: (name: string): StoredBudget | null => {
      const r = one.get(name) as RawBudget | undefined;
      return r === undefined ? null : toBudget(r);
    },
    save: (b: StoredBudget, atMs: number): void => write(b, atMs),
    remove: (name: string): boolean => remove.run(name).changes > 0,
    /** One transaction: every budget of the file written, or none. */
    applyFile: (budgets: readonly StoredBudget[], atMs: number) => applyFile.immediate(budgets, atMs),
    /** The names a scope may take, as the ledger has seen them. */
    knownScopes: (): { nodePools: Set<string>; teams: Set<string>; namespaces: Set<string> } => ({
      nodePools: new Set(nodePools.all() as string[]),
      teams: new Set(teams.all() as string[]),
      namespaces: new Set(namespaces.all() as string[]),
    }),
    /** The newest snapshot taken at or before `atMs` (of one cluster; null: of any), or null. */
    snapshotAtOrBefore: (atMs: number, clusterId: number | null = null): number | null =>
      (snapshotAtOrBefore.get({ atMs, clusterId }) as number | null) ?? null,
    /** How many clusters the ledger holds (budgets name their cluster when it holds several). */
    clusterCount: (): number => clusterCount.get() as number,
    /** Every cluster's id. */
    clusterIds: (): number[] => clusterIds.all() as number[],
  };
}

export type BudgetRepository = ReturnType<typeof createBudgetRepository>;
