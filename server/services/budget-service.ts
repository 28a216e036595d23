import { perConnection } from '../../db/per-connection.js';
import { forecastBudget, nodesBeforeLimit } from '../../core/budget-forecast.js';
import type { Budget, BudgetStatus } from '../../core/budget-model.js';
import { budgetPeriodAt } from '../../core/budget-period.js';
import { budgetOf, budgetProblems, type BudgetDeclaration, type KnownScopes } from '../../core/budget-validation.js';
import { DAY_MS, HOUR_MS } from '../../core/time.js';
import type { Db } from '../../db/open-db.js';
import { createAnalyticsPackingRepository } from '../../db/repositories/analytics-packing-repository.js';
import { createAnalyticsTeamsRepository } from '../../db/repositories/analytics-teams-repository.js';
import { createBudgetRepository, type StoredBudget } from '../../db/repositories/budget-repository.js';
import { createReportsRepository } from '../../db/repositories/reports-repository.js';
import { billMetricOf, billScopeDays, shareScopeDays, type ScopeDays } from '../analytics/budget-days.js';
import { dayFloor, isoInstant, parseInstant } from '../analytics/range.js';
import type { DatabaseWriter } from '../database-writer.js';
import type { BudgetDeclarationBody, BudgetsResponse, BudgetStatusView, BudgetView } from '../schemas/budgets.js';
import { pricingStatus } from './reports-service.js';

/**
 * Budgets: each one's standing at a moment (spent, forecast, nodes before a dollar limit), and the API's create, edit
 * and delete. budgetStatusesAt is what the alert rules (branch alerts23) evaluate after each snapshot and bill refresh.
 */

/** Whole days looked back before the period for the forecast's average (7 final ones are wanted; the bill lags 1–3). */
const LOOKBACK_DAYS = 14;
/** The run-rate: our estimate over the last hours before the moment, per hour the snapshots cover. */
const RUN_RATE_HOURS = 3;

/** A budget's standing with what the API says besides the shared shape: spent split by where it came from. */
export interface BudgetStatusDetail extends BudgetStatus {
  budget: StoredBudget;
  spentFinal: number;
  spentEstimated: number;
  finalDays: number;
  estimatedDays: number;
  limitNote: string | null;
}

/** A request the API refuses: 400 (a bad field, named), 404 (no such budget), 409 (declared in a file, or exists). */
export class BudgetRequestError extends Error {
  constructor(
    readonly statusCode: 400 | 404 | 409,
    message: string,
  ) {
    super(message);
    this.name = 'BudgetRequestError';
  }
}

interface Readers {
  budgets: ReturnType<typeof createBudgetRepository>;
  reports: ReturnType<typeof createReportsRepository>;
  teams: ReturnType<typeof createAnalyticsTeamsRepository>;
  packing: ReturnType<typeof createAnalyticsPackingRepository>;
}

/**
 * The repositories a budget's standing reads, made once per database: each prepares its statements when made (37 a
 * call when made per call), and the alert evaluation asks for every budget's standing after every snapshot.
 */
const readers = perConnection((db): Readers => ({
  budgets: createBudgetRepository(db),
  reports: createReportsRepository(db),
  teams: createAnalyticsTeamsRepository(db),
  packing: createAnalyticsPackingRepository(db),
}));

/** The scope's whole days from `fromMs` and today until `atMs`, and its cost per hour over the last hours. */
/**
 * The scope's whole days from `fromMs` and today until `atMs`, and its cost per hour over the last hours: of the
 * budget's cluster only (a budget on NodePool default of one cluster never counts another cluster's default), or of
 * every cluster for a budget of the whole ledger (clusterId null).
 */
function scopeDays(r: Readers, b: StoredBudget, fromMs: number, atMs: number): ScopeDays & { runRatePerHour: number | null } {
  const todayStartMs = dayFloor(atMs);
  const metric = billMetricOf(b.costMetric);
  const rateFromMs = atMs - RUN_RATE_HOURS * HOUR_MS;
  const clusterId = b.clusterId;
  const hours = r.packing.coverage({ fromMs: rateFromMs, toMs: atMs, clusterId }).hours;
  if (b.scope.kind === 'cluster' || b.scope.kind === 'nodepool') {
    const nodePool = b.scope.kind === 'nodepool' ? b.scope.name : undefined;
    const days = billScopeDays(
      r.reports.billByDay({ fromMs, toMs: todayStartMs, nodePool, clusterId }),
      r.reports.estimateByDay({ fromMs, toMs: atMs, nodePool, clusterId }),
      metric,
      todayStartMs,
    );
    const recent = r.reports.estimateByDay({ fromMs: rateFromMs, toMs: atMs, nodePool, clusterId }).reduce((t, e) => t + e.usd, 0);
    return { ...days, runRatePerHour: hours > 0 ? recent / hours : null };
  }
  const kind = b.scope.kind;
  const mine = (row: { namespace: string; team: string | null }) =>
    kind === 'namespace' ? row.namespace === b.scope.name : row.team === b.scope.name;
  const shares = r.teams
    .bucketNamespaceSums({ fromMs, toMs: atMs, bucketMs: DAY_MS, clusterId })
    .filter(mine)
    .map((s) => ({ dayMs: s.bucketStartMs, nodePool: s.nodePool, usd: s.requestShareUsd }));
  const days = shareScopeDays(
    shares,
    r.reports.billByDay({ fromMs, toMs: todayStartMs, clusterId }),
    r.reports.estimateByDay({ fromMs, toMs: todayStartMs, clusterId }),
    metric,
    todayStartMs,
  );
  const recent = r.teams
    .namespaceSums({ fromMs: rateFromMs, toMs: atMs, clusterId })
    .filter(mine)
    .reduce((t, s) => t + s.requestShareUsd, 0);
  return { ...days, runRatePerHour: hours > 0 ? recent / hours : null };
}

/**
 * The running nodes of a NodePool at the newest snapshot at or before atMs (of the budget's cluster; of each cluster for
 * a budget of the whole ledger): how many, and what they cost per hour.
 */
function runningNodes(r: Readers, nodePool: string, atMs: number, clusterId: number | null): { nodes: number; costPerHour: number } {
  const ids = clusterId === null ? r.budgets.clusterIds() : [clusterId];
  const rows = ids.flatMap((id) => {
    const takenAt = r.budgets.snapshotAtOrBefore(atMs, id);
    return takenAt === null ? [] : r.packing.poolRowsAt(takenAt, id).filter((p) => p.nodePool === nodePool);
  });
  return { nodes: rows.reduce((t, p) => t + p.nodeHours, 0), costPerHour: rows.reduce((t, p) => t + p.costUsd, 0) };
}

function statusOf(r: Readers, b: StoredBudget, atMs: number): BudgetStatusDetail {
  const { startMs, endMs } = budgetPeriodAt(b.period, atMs);
  const fromMs = Math.min(startMs, dayFloor(atMs) - LOOKBACK_DAYS * DAY_MS);
  const s = scopeDays(r, b, fromMs, atMs);
  const f = forecastBudget({ periodStartMs: startMs, periodEndMs: endMs, atMs, ...s });
  let limit: number | null = null;
  let limitNote: string | null = null;
  if (b.dollarLimit && b.scope.kind === 'nodepool') {
    const running = runningNodes(r, b.scope.name, atMs, b.clusterId);
    const hoursLeft = (endMs - atMs) / HOUR_MS;
    limit = nodesBeforeLimit({
      amount: b.amount,
      spent: f.spent,
      runningNodes: running.nodes,
      runningCostPerHour: running.costPerHour,
      hoursLeft,
    });
    limitNote =
      limit === null
        ? `No node of ${b.scope.name} runs: no mix to price.`
        : `${running.nodes} node(s) of ${b.scope.name} run at ${(running.costPerHour / running.nodes).toFixed(4)} ${b.currency} per node-hour on average; ` +
          `with ${hoursLeft.toFixed(1)} h left they cost ${(running.costPerHour * hoursLeft).toFixed(2)} more, and each node more ${((running.costPerHour / running.nodes) * hoursLeft).toFixed(2)}.`;
  }
  return {
    budget: b,
    periodStartMs: startMs,
    periodEndMs: endMs,
    spent: f.spent,
    spentFinal: f.spentFinal,
    spentEstimated: f.spentEstimated,
    finalDays: f.finalDays,
    estimatedDays: f.estimatedDays,
    forecast: f.forecast,
    forecastLow: f.forecastLow,
    forecastHigh: f.forecastHigh,
    forecastMethod: f.forecastMethod,
    spentShare: f.spent / b.amount,
    forecastShare: f.forecast / b.amount,
    nodesBeforeLimit: limit,
    limitNote,
  };
}

/** Every budget's standing at `atMs` (epoch ms UTC): its period around atMs, spent until atMs and the period-end forecast. */
export function budgetStatusesAt(db: Db, atMs: number): BudgetStatusDetail[] {
  const r = readers(db);
  return r.budgets.list().map((b) => statusOf(r, b, atMs));
}

/** The data's currency and the names a scope may take. */
export function knownScopes(db: Db): KnownScopes {
  const r = readers(db);
  return { currency: pricingStatus(r.reports).currency, ...r.budgets.knownScopes() };
}

/** The problems of a declaration as one message naming the fields, or null. */
export function declarationProblems(d: BudgetDeclaration, known: KnownScopes): string | null {
  const problems = budgetProblems(d, known);
  return problems.length === 0 ? null : problems.map((p) => `${p.field}: ${p.message}`).join('; ');
}

/** A budget as the API shows it; in a ledger of several clusters with its cluster (null: the whole ledger). */
const view = (b: StoredBudget, named = false): BudgetView => {
  const { clusterId: _id, cluster, ...rest } = b;
  return { ...rest, scope: { ...b.scope }, thresholds: [...b.thresholds], ...(named ? { cluster } : {}) };
};

export const statusView = (s: BudgetStatusDetail, named = false): BudgetStatusView => ({
  budget: view(s.budget, named),
  periodStart: isoInstant(s.periodStartMs),
  periodEnd: isoInstant(s.periodEndMs),
  spent: s.spent,
  spentFinal: s.spentFinal,
  spentEstimated: s.spentEstimated,
  finalDays: s.finalDays,
  estimatedDays: s.estimatedDays,
  forecast: s.forecast,
  forecastLow: s.forecastLow,
  forecastHigh: s.forecastHigh,
  forecastMethod: s.forecastMethod,
  spentShare: s.spentShare,
  forecastShare: s.forecastShare,
  nodesBeforeLimit: s.nodesBeforeLimit,
  limitNote: s.limitNote,
});

const readOnly = (b: StoredBudget): BudgetRequestError =>
  new BudgetRequestError(
    409,
    `budget "${b.name}" is declared in ${b.sourceFile ?? 'a budgets file'}: it is read-only here; edit the file (it wins at the next start)`,
  );

/** The API's budgets: reads on `db`, writes through `writer` (under the collector lock, server/database-writer.ts). */
export function createBudgetService(db: Db, writer: DatabaseWriter, now: () => number) {
  const r = readers(db);
  const checked = (d: BudgetDeclaration): Budget => {
    const known = knownScopes(db);
    const problems = declarationProblems(d, known);
    if (problems !== null) throw new BudgetRequestError(400, `Invalid budget "${d.name}": ${problems}`);
    return budgetOf(d, known, 'api');
  };
  const statusNow = (name: string): BudgetStatusView => {
    const b = r.budgets.get(name);
    if (b === null) throw new BudgetRequestError(404, `No budget "${name}"`);
    return statusView(statusOf(r, b, now()), r.budgets.clusterCount() > 1);
  };

  return {
    /** `clusterId`: that cluster's budgets and the whole ledger's; null: every budget. */
    list(q: { at?: string }, clusterId: number | null = null): BudgetsResponse {
      const atMs = q.at === undefined ? now() : parseInstant('at', q.at);
      const named = r.budgets.clusterCount() > 1;
      return {
        at: isoInstant(atMs),
        currency: pricingStatus(r.reports).currency,
        items: r.budgets
          .list()
          .filter((b) => clusterId === null || b.clusterId === null || b.clusterId === clusterId)
          .map((b) => statusView(statusOf(r, b, atMs), named)),
      };
    },

    /** A budget made under ?cluster= is that cluster's; without, the whole ledger's. */
    create(body: BudgetDeclarationBody, clusterId: number | null = null): BudgetStatusView {
      const budget = checked(body);
      writer.write(`Creating budget "${budget.name}"`, (wdb) => {
        const repo = createBudgetRepository(wdb);
        const existing = repo.get(budget.name);
        if (existing?.source === 'file') throw readOnly(existing);
        if (existing !== null)
          throw new BudgetRequestError(409, `budget "${budget.name}" exists: PUT /api/budgets/${budget.name} edits it`);
        repo.save({ ...budget, sourceFile: null, clusterId, cluster: null }, now());
      });
      return statusNow(budget.name);
    },

    edit(name: string, body: Omit<BudgetDeclarationBody, 'name'>): BudgetStatusView {
      const budget = checked({ ...body, name });
      writer.write(`Editing budget "${name}"`, (wdb) => {
        const repo = createBudgetRepository(wdb);
        const existing = repo.get(name);
        if (existing === null) throw new BudgetRequestError(404, `No budget "${name}"`);
        if (existing.source === 'file') throw readOnly(existing);
        // An edit keeps the budget's cluster.
        repo.save({ ...budget, sourceFile: null, clusterId: existing.clusterId, cluster: existing.cluster }, now());
      });
      return statusNow(name);
    },

    remove(name: string): { deleted: string } {
      writer.write(`Deleting budget "${name}"`, (wdb) => {
        const repo = createBudgetRepository(wdb);
        const existing = repo.get(name);
        if (existing === null) throw new BudgetRequestError(404, `No budget "${name}"`);
        if (existing.source === 'file') throw readOnly(existing);
        repo.remove(name);
      });
      return { deleted: name };
    },
  };
}

export type BudgetService = ReturnType<typeof createBudgetService>;
