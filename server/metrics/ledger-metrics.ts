import { Gauge, Registry } from 'prom-client';
import { RUN_STATUSES } from '../../db/repositories/runs-repository.js';
import { newestFinalBillDay, PACKING_RESOURCES } from '../analytics/exposition.js';
import { utcDay } from '../analytics/range.js';
import type { EfficiencyService } from '../services/efficiency-service.js';
import type { NodePoolCostService } from '../services/nodepool-cost-service.js';
import type { ReportsService } from '../services/reports-service.js';
import { DAY_MS } from '../../core/time.js';
import type { BudgetStatus } from '../../core/budget-model.js';
import { ALERT_RULES } from '../../core/alert-model.js';

/**
 * What GET /metrics exposes (Prometheus text format 0.0.4), computed at scrape time from the newest snapshot and the
 * newest days of the bill through the services the API answers with. Amounts are in the data's currency
 * (`nodepool_ledger_currency_info`), per hour where the name says so; times in seconds since the epoch.
 *
 * Each app has a Registry of its own (never prom-client's global one): two apps in one process do not collide, and
 * nothing else of the process (no default process metrics) leaks in.
 */
export interface LedgerMetricDefinition {
  name: string;
  help: string;
  labelNames: readonly string[];
}

const def = (name: string, help: string, labelNames: readonly string[] = []): LedgerMetricDefinition => ({ name, help, labelNames });

/** Every metric the endpoint exposes, by name: the rules file and the dashboard are checked against this list. */
export const LEDGER_METRICS = {
  currency: def('nodepool_ledger_currency_info', 'The currency every amount is in (1 for the one the data is in).', ['currency']),
  costPerHour: def(
    'nodepool_ledger_estimated_cost_per_hour',
    'Estimated cost per hour of the nodes at the newest snapshot (Σ node prices), per NodePool and capacity type.',
    ['nodepool', 'capacity_type'],
  ),
  nodes: def('nodepool_ledger_nodes', 'Nodes at the newest snapshot, per NodePool and capacity type.', ['nodepool', 'capacity_type']),
  spotSavingsPerHour: def(
    'nodepool_ledger_spot_savings_per_hour',
    'On-demand price minus the price paid, per hour, of the spot nodes at the newest snapshot (absent when an on-demand price is unknown).',
    ['nodepool'],
  ),
  packing: def(
    'nodepool_ledger_packing_ratio',
    'Requested over allocatable at the newest snapshot, per NodePool and resource (cpu, memory, pods, gpu).',
    ['nodepool', 'resource'],
  ),
  idlePerHour: def(
    'nodepool_ledger_idle_cost_per_hour',
    'Cost per hour of the capacity no request covers at the newest snapshot (the node prices less what requests cover, cpu, memory and GPU weighted by relative price).',
    ['nodepool'],
  ),
  billFinalDay: def(
    'nodepool_ledger_bill_final_day_cost',
    'The Cost Explorer bill of the newest final day (no line still estimated), per NodePool tag value, in the metric named.',
    ['nodepool', 'metric'],
  ),
  billFinalDayTimestamp: def(
    'nodepool_ledger_bill_final_day_timestamp_seconds',
    'Start (UTC midnight) of the day nodepool_ledger_bill_final_day_cost is for.',
  ),
  lastSnapshot: def(
    'nodepool_ledger_last_snapshot_timestamp_seconds',
    'When the newest snapshot was taken (the last successful collection).',
  ),
  snapshotAge: def('nodepool_ledger_snapshot_age_seconds', 'Seconds from the newest snapshot to this scrape.'),
  lastRunStatus: def(
    'nodepool_ledger_collector_last_run_status',
    'The status of the newest collection run of each kind: 1 for its status, 0 for the others.',
    ['kind', 'status'],
  ),
  lastRunTimestamp: def(
    'nodepool_ledger_collector_last_run_timestamp_seconds',
    'When the newest collection run of each kind finished (or started, while running).',
    ['kind'],
  ),
  budgetSpent: def(
    'nodepool_ledger_budget_spent_ratio',
    "A budget's spend in its current period over its amount (final days from the bill, the rest estimated; 1 is the whole budget).",
    ['budget', 'scope_kind', 'scope', 'period'],
  ),
  budgetForecast: def(
    'nodepool_ledger_budget_forecast_ratio',
    "A budget's period-end forecast (recent daily run-rate; GET /api/budgets says the method) over its amount.",
    ['budget', 'scope_kind', 'scope', 'period'],
  ),
  budgetAmount: def('nodepool_ledger_budget_amount', "A budget's amount per period, in the data's currency.", [
    'budget',
    'scope_kind',
    'scope',
    'period',
  ]),
  alertFiring: def(
    'nodepool_ledger_alert_firing',
    'The built-in alerts firing now (core/alert-rules.ts): 1 per rule and subject while it fires; absent once resolved.',
    ['rule', 'subject'],
  ),
  alertsFiring: def('nodepool_ledger_alerts_firing', 'How many built-in alerts of each rule are firing now (0 for a rule with none).', [
    'rule',
  ]),
} as const satisfies Record<string, LedgerMetricDefinition>;

export const LEDGER_METRIC_NAMES: readonly string[] = Object.values(LEDGER_METRICS).map((m) => m.name);

export interface LedgerMetricsServices {
  reports: ReportsService;
  /** The alerts firing now (the alert service's list of open ones); absent: the alert gauges are left out. */
  firingAlerts?: () => readonly { rule: string; subject: string }[];
  nodePoolCost: NodePoolCostService;
  efficiency: EfficiencyService;
  /** Every budget's standing at a moment (server/services/budget-service.ts). */
  budgetStatuses: (atMs: number) => readonly BudgetStatus[];
  now: () => number;
}

/** Days of the bill looked back over for the newest final one (Cost Explorer finalises a day within about three). */
const FINAL_DAY_LOOKBACK_DAYS = 7;

const seconds = (ms: number): number => ms / 1000;

export function createLedgerMetrics(services: LedgerMetricsServices) {
  const registry = new Registry();
  const gauges = Object.fromEntries(
    Object.entries(LEDGER_METRICS).map(([key, m]) => [
      key,
      new Gauge({ name: m.name, help: m.help, labelNames: [...m.labelNames], registers: [registry] }),
    ]),
  ) as Record<keyof typeof LEDGER_METRICS, Gauge>;

  /** Every gauge set afresh from the database: a NodePool gone since the last scrape is gone from this one. */
  const refresh = (): void => {
    for (const g of Object.values(gauges)) g.reset();
    const { reports, nodePoolCost, efficiency, now, firingAlerts } = services;
    const status = reports.status();
    gauges.currency.set({ currency: status.pricing.currency }, 1);

    // Alert state: what the collector's evaluation has firing now.
    if (firingAlerts !== undefined) {
      const firing = firingAlerts();
      for (const rule of ALERT_RULES) gauges.alertsFiring.set({ rule }, firing.filter((a) => a.rule === rule).length);
      for (const a of firing) gauges.alertFiring.set({ rule: a.rule, subject: a.subject }, 1);
    }

    // Collector health. Always exposed, whatever the snapshot says: a stale collector is what it is for.
    for (const run of status.lastRunByKind) {
      for (const s of RUN_STATUSES) gauges.lastRunStatus.set({ kind: run.kind, status: s }, run.status === s ? 1 : 0);
      gauges.lastRunTimestamp.set({ kind: run.kind }, seconds(Date.parse(run.finishedAt ?? run.startedAt)));
    }
    const lastSnapshotAt = status.range.lastSnapshotAt;
    if (lastSnapshotAt !== null) {
      const ms = Date.parse(lastSnapshotAt);
      gauges.lastSnapshot.set(seconds(ms));
      gauges.snapshotAge.set(Math.max(0, seconds(now() - ms)));

      // The newest snapshot's estimate: the comparison's rows at that snapshot, per hour.
      const rows = nodePoolCost.atSnapshot(ms);
      for (const r of rows) {
        const labels = { nodepool: r.nodePool, capacity_type: r.capacityType };
        gauges.costPerHour.set(labels, r.costUsd);
        gauges.nodes.set(labels, r.nodesAvg);
      }
      const savings = new Map<string, number | null>();
      for (const r of rows.filter((x) => x.capacityType === 'spot')) {
        const before = savings.get(r.nodePool);
        savings.set(r.nodePool, before === null || r.savingsUsd === null ? null : (before ?? 0) + r.savingsUsd);
      }
      for (const [nodepool, usd] of savings) if (usd !== null) gauges.spotSavingsPerHour.set({ nodepool }, usd);

      // Packing and idle: the efficiency summary at the same snapshot (its NodePool rows; a few rows whatever the
      // cluster's size, where the node table would read every node: 355 ms at 5,000 nodes).
      for (const r of efficiency.atSnapshot(ms)) {
        if (r.scope !== 'nodepool' || r.nodePool === null) continue;
        const nodepool = r.nodePool;
        gauges.idlePerHour.set({ nodepool }, r.idleUsdPerHourAvg);
        for (const resource of PACKING_RESOURCES) {
          const ratio = r[resource];
          if (ratio !== null) gauges.packing.set({ nodepool, resource }, ratio);
        }
      }
    }

    // Budgets: each one's shares of its amount now (a budget is configuration: exposed whatever the snapshot says).
    for (const b of services.budgetStatuses(now())) {
      const labels = { budget: b.budget.name, scope_kind: b.budget.scope.kind, scope: b.budget.scope.name, period: b.budget.period };
      gauges.budgetSpent.set(labels, b.spentShare);
      gauges.budgetForecast.set(labels, b.forecastShare);
      gauges.budgetAmount.set(labels, b.budget.amount);
    }

    // The bill of the newest final day as a gauge, with the day's start in a gauge of its own. Not one series per day
    // with a `date` label (a label whose values never repeat: a new series every day, forever) and not samples
    // stamped with the day's time: Prometheus refuses samples older than its head block (about an hour) unless
    // out-of-order ingestion is configured, and Cost Explorer finalises a day one to three days after it ends, so a
    // stamped sample would be dropped. A query reads which day with the timestamp gauge, and graphs the bill per day
    // by taking the value at each change of it.
    const lastCostDay = status.range.lastCostDay;
    if (lastCostDay !== null) {
      const toMs = Date.parse(`${lastCostDay}T00:00:00Z`) + DAY_MS;
      const daily = reports.dailyCost({
        from: `${utcDay(toMs - FINAL_DAY_LOOKBACK_DAYS * DAY_MS)}T00:00:00Z`,
        to: `${utcDay(toMs)}T00:00:00Z`,
      });
      const final = newestFinalBillDay(daily.rows);
      if (final !== null) {
        gauges.billFinalDayTimestamp.set(seconds(final.dayMs));
        for (const [nodepool, amount] of final.byNodePool) gauges.billFinalDay.set({ nodepool, metric: daily.metric }, amount);
      }
    }
  };

  return {
    contentType: registry.contentType,
    /** The exposition, computed now. */
    async scrape(): Promise<string> {
      refresh();
      return registry.metrics();
    },
  };
}

export type LedgerMetrics = ReturnType<typeof createLedgerMetrics>;
