import { perConnection } from '../../db/per-connection.js';
import {
  ALERT_RULES,
  type AlertRule,
  type AlertSettings,
  type AlertState,
  type AlertTransition,
  type RuleVerdict,
} from '../../core/alert-model.js';
import {
  billGapRule,
  budgetThresholdRule,
  collectorStaleRule,
  idleShareRule,
  limitNodePoolOf,
  nearLimitRule,
  packingDropRule,
  type ConsolidationChange,
  spotFallbackRule,
  tagInactiveRule,
  unschedulableLimitsRule,
  type PoolCapacityCost,
  type PoolLimitUse,
} from '../../core/alert-rules.js';
import { alertSettingsFrom } from '../../core/alert-settings.js';
import { disruptionSettingsEdits } from '../../core/alert-settings-changes.js';
import { stepAlerts } from '../../core/alert-state.js';
import type { BudgetStatus } from '../../core/budget-model.js';
import { DAY_MS } from '../../core/time.js';
import type { Db } from '../../db/open-db.js';
import { createAlertRepository, type DeliveryTarget } from '../../db/repositories/alert-repository.js';
import { createAnalyticsPackingRepository } from '../../db/repositories/analytics-packing-repository.js';
import { createDisruptionsRepository } from '../../db/repositories/disruptions-repository.js';
import { createNodePoolSettingsRepository } from '../../db/repositories/nodepool-settings-repository.js';
import { createReportsRepository } from '../../db/repositories/reports-repository.js';
import { ALLOCATION_TAGS_SETTING, createRunsRepository } from '../../db/repositories/runs-repository.js';
import { utcDay } from '../analytics/range.js';
import { alertPayload } from './alert-payload.js';
import { createEfficiencyService } from './efficiency-service.js';
import { createReportsService, pricingStatus } from './reports-service.js';

const TAG_NODEPOOL = 'karpenter.sh/nodepool';
/**
 * Disruption reasons that are consolidation decisions (Karpenter's DisruptionTerminating "Disrupting Node: ...") that
 * can lower packing: moving pods off an underutilized node. Deleting an Empty node removes capacity no pod requests,
 * which can only raise packing (week4's spot-batch drops after Empty deletes were batch pods finishing).
 */
const CONSOLIDATION_REASONS = new Set(['Underutilized']);

export interface EvaluateAlertsOptions {
  /** The evaluation's time: the newest snapshot's, or the collector's clock after a failed one or a bill refresh. */
  atMs: number;
  /** Where transitions are delivered (queued here, sent by the delivery loop); none: recorded only. */
  targets?: readonly DeliveryTarget[];
  /** The dashboard's base URL, to make links absolute in deliveries (e.g. http://127.0.0.1:5173). */
  dashboardUrl?: string;
  /**
   * Budget statuses at a time (branch budgets23's budgetStatusesAt(db, atMs)); absent: the budget rule has nothing to
   * judge (its open alerts are kept as they are).
   */
  budgetStatuses?: (db: Db, atMs: number) => BudgetStatus[];
  /** Settings over the stored ones (tests, `collect --interval`'s snapshot interval). */
  settings?: (stored: AlertSettings) => AlertSettings;
}

export interface EvaluateAlertsResult {
  transitions: AlertTransition[];
  /** Problems with the stored settings (each ignored field named once per evaluation). */
  settingsProblems: string[];
  ms: number;
}

/**
 * The repositories an evaluation reads, made once per database: each prepares its statements when made (198 of them
 * an evaluation when made per call), and the collector evaluates after every snapshot (the demo replays hundreds).
 */
interface EvaluationRepositories {
  alerts: ReturnType<typeof createAlertRepository>;
  reports: ReturnType<typeof createReportsRepository>;
  packing: ReturnType<typeof createAnalyticsPackingRepository>;
  disruptions: ReturnType<typeof createDisruptionsRepository>;
  nodePoolSettings: ReturnType<typeof createNodePoolSettingsRepository>;
  runs: ReturnType<typeof createRunsRepository>;
}
const repositories = perConnection((db): EvaluationRepositories => ({
  alerts: createAlertRepository(db),
  reports: createReportsRepository(db),
  packing: createAnalyticsPackingRepository(db),
  disruptions: createDisruptionsRepository(db),
  nodePoolSettings: createNodePoolSettingsRepository(db),
  runs: createRunsRepository(db),
}));

/** The stored alert settings over the defaults. */
export function loadAlertSettings(db: Db): { settings: AlertSettings; problems: string[] } {
  const json = repositories(db).alerts.settingsJson();
  let parsed: unknown = {};
  if (json !== null) {
    try {
      parsed = JSON.parse(json);
    } catch {
      return { ...alertSettingsFrom({}), problems: ['the stored alert settings are not JSON: the defaults apply'] };
    }
  }
  return alertSettingsFrom(parsed);
}

/**
 * Evaluates every rule at `atMs` over the database and steps the alert states: a transition (fired, resolved) is
 * stored with its deliveries queued in one transaction, so it happens once and is never lost across a restart. Called
 * by the collector after each snapshot (and failed one) and each bill refresh; takes tens of ms, sends nothing.
 */
export function evaluateAlerts(db: Db, o: EvaluateAlertsOptions): EvaluateAlertsResult {
  const t0 = performance.now();
  const repo = repositories(db).alerts;
  const loaded = loadAlertSettings(db);
  // Time runs forward: an evaluation before the newest one (a stale caller) would reopen what has resolved since.
  if (o.atMs < (repo.evaluatedAtMs() ?? -Infinity))
    return { transitions: [], settingsProblems: loaded.problems, ms: performance.now() - t0 };
  const settings = o.settings ? o.settings(loaded.settings) : loaded.settings;
  const clusters = repo.clusters();
  const world = evaluationWorld(db, o.atMs, repo);
  /** The deliveries' bodies of alerts about `cluster` (null: the whole ledger), each naming it. */
  const payloadAbout = (cluster: string | null) => (t: AlertTransition, target: DeliveryTarget) =>
    JSON.stringify(alertPayload(t, target.format, o.dashboardUrl, { name: cluster, several: clusters.length > 1 }));
  if (clusters.length <= 1) {
    // One cluster: every rule over the ledger's rows, as before the ledger could hold several.
    const verdicts = judge(world, o, settings, null, new Set(ALERT_RULES));
    const step = stepAlerts(repo.open(), verdicts, o.atMs, settings);
    repo.applyStep(step, o.targets ?? [], payloadAbout(clusters[0]?.name ?? null));
    repo.noteEvaluatedAt(o.atMs);
    return { transitions: step.transitions, settingsProblems: loaded.problems, ms: performance.now() - t0 };
  }
  // Several clusters: each cluster's rules over its own rows only (a NodePool `default` of one cluster is never
  // judged with another's), its alerts stored with its cluster; the ledger-wide rules once, about no cluster.
  const transitions: AlertTransition[] = [];
  const perCluster = ALERT_RULES.filter((r) => !LEDGER_WIDE_RULES.has(r));
  const groups: { clusterId: number | null; rules: readonly AlertRule[]; open: AlertState[] }[] = [
    { clusterId: null, rules: [...LEDGER_WIDE_RULES], open: repo.openOf([...LEDGER_WIDE_RULES], 'any') },
    // The first cluster also takes the per-cluster alerts stored without one (when the ledger held it alone).
    ...clusters.map((c, i) => ({ clusterId: c.id, rules: perCluster, open: repo.openOf(perCluster, c.id, i === 0) })),
  ];
  for (const g of groups) {
    const verdicts = judge(world, o, settings, g.clusterId, new Set(g.rules));
    const step = stepAlerts(g.open, verdicts, o.atMs, settings);
    const name = g.clusterId === null ? null : (clusters.find((c) => c.id === g.clusterId)?.name ?? null);
    repo.applyStep(step, o.targets ?? [], payloadAbout(name), g.clusterId);
    transitions.push(...step.transitions);
  }
  repo.noteEvaluatedAt(o.atMs);
  return { transitions, settingsProblems: loaded.problems, ms: performance.now() - t0 };
}

/**
 * Rules about the ledger as a whole, judged once whatever the clusters: budgets (each watches its own cluster or the
 * whole ledger) and the account's cost allocation tag.
 */
const LEDGER_WIDE_RULES: ReadonlySet<AlertRule> = new Set<AlertRule>(['budget-threshold', 'nodepool-tag-inactive']);

/**
 * What every group of one evaluation judges with: the repositories (their statements prepared once per database) and
 * the services over them, and the ledger-wide facts (the currency, the newest bill day), which no group's step changes
 * (a step writes alerts only). Nothing of one cluster is kept here: each group reads its own rows.
 */
interface EvaluationWorld {
  db: Db;
  packing: ReturnType<typeof createAnalyticsPackingRepository>;
  reports: ReturnType<typeof createReportsService>;
  efficiency: ReturnType<typeof createEfficiencyService>;
  disruptions: ReturnType<typeof createDisruptionsRepository>;
  nodePoolSettings: ReturnType<typeof createNodePoolSettingsRepository>;
  alerts: ReturnType<typeof createAlertRepository>;
  runs: ReturnType<typeof createRunsRepository>;
  /** The ledger's currency (/api/status's pricing.currency). */
  currency: string;
  /** The newest day with bill lines, YYYY-MM-DD (/api/status's range.lastCostDay); null: none. */
  lastCostDay: string | null;
}

function evaluationWorld(db: Db, atMs: number, alerts: ReturnType<typeof createAlertRepository>): EvaluationWorld {
  const { reports: reportsRepo, packing, disruptions, nodePoolSettings, runs } = repositories(db);
  const lastCostDayMs = reportsRepo.dataRange().lastCostDayMs;
  return {
    db,
    packing,
    reports: createReportsService(reportsRepo, () => atMs),
    efficiency: createEfficiencyService(packing, { extent: () => reportsRepo.dataRange(), now: () => atMs }),
    disruptions,
    nodePoolSettings,
    alerts,
    runs,
    currency: pricingStatus(reportsRepo).currency,
    lastCostDay: lastCostDayMs === null ? null : utcDay(lastCostDayMs),
  };
}

/**
 * The verdicts of `rules` (those enabled) at `atMs`, from the newest snapshot at or before it: of one cluster's rows
 * (`clusterId`), or of the whole ledger's (null); a rule not asked for has no verdict (its open alerts stay as they are).
 */
function judge(
  world: EvaluationWorld,
  o: EvaluateAlertsOptions,
  settings: AlertSettings,
  clusterId: number | null,
  rules: ReadonlySet<AlertRule>,
): Partial<Record<AlertRule, RuleVerdict>> {
  const atMs = o.atMs;
  const { db, packing, reports, efficiency, currency } = world;
  const snapshotMs = packing.snapshotAtOrBefore(atMs, clusterId);
  const on = (rule: AlertRule) => settings.rules[rule].enabled && rules.has(rule);
  const v: Partial<Record<AlertRule, RuleVerdict>> = {};
  for (const rule of ALERT_RULES) if (rules.has(rule)) v[rule] = null;

  if (on('budget-threshold') && o.budgetStatuses) v['budget-threshold'] = budgetThresholdRule(o.budgetStatuses(db, atMs));
  if (rules.has('collector-stale')) v['collector-stale'] = collectorStaleRule({ atMs, lastSnapshotAtMs: snapshotMs }, settings);

  const pools = reports.nodePools(clusterId).items;
  if (snapshotMs !== null) {
    // Cost per capacity type per snapshot over the baseline window (each snapshot whole in its bucket).
    if (on('spot-fallback')) {
      const bucketMs = settings.snapshotIntervalMs;
      const fromMs = snapshotMs - settings.spotBaselineMs;
      const rows = packing.bucketSums({ fromMs, toMs: snapshotMs + 1, bucketMs, originMs: fromMs, clusterId });
      const byKey = new Map<string, PoolCapacityCost>();
      // Earlier snapshots from the rollups (a snapshot stands for the time until the next one), the newest from its
      // own rows (it stands for no time yet), per hour.
      // A bucket's cost is over the hours its snapshots stand for (5 min: 1/12 h): per hour is that over the hours, as
      // the newest's is, or the rule's "more on-demand spend than then" compared USD/h with USD per 5 min and held
      // whenever a night's scale-down left the on-demand node alone (11-05 06:00 and 11-13 03:30 in the demo).
      const hoursOf = new Map(
        packing.bucketCoverage({ fromMs, toMs: snapshotMs + 1, bucketMs, clusterId }).map((c) => [c.bucketStartMs, c.hours]),
      );
      const now = packing.poolRowsAt(snapshotMs, clusterId).map((r) => ({ ...r, bucketStartMs: snapshotMs }));
      const earlier = rows
        .filter((x) => x.bucketStartMs < snapshotMs && (hoursOf.get(x.bucketStartMs) ?? 0) > 0)
        .map((x) => {
          const h = hoursOf.get(x.bucketStartMs) ?? 1;
          return { ...x, costUsd: x.costUsd / h, onDemandUsd: x.onDemandUsd / h, onDemandUnknownUsd: x.onDemandUnknownUsd / h };
        });
      // Each node at its on-demand price: the shares are of capacity, not of spend. At spot's own prices a cheap spot
      // fleet is a small share of the cost, and losing it all raises the on-demand share little: week4's general ran
      // 18 spot nodes at 0.27 USD/h beside 4 on-demand at 1.00 (78 % on-demand) before its spot shortage at
      // 2026-11-11T14:00Z, so 100 % during it was 22 points up and the demo raised nothing; at on-demand prices the 18
      // spot nodes are 1.12 USD/h (47 % on-demand), and 100 % is 53 points up. A node without an on-demand price counts
      // at its own.
      const atOnDemand = (r: { costUsd: number; onDemandUsd: number; onDemandUnknownUsd: number }) => r.onDemandUsd + r.onDemandUnknownUsd;
      for (const r0 of [...earlier, ...now]) {
        const r = { ...r0, costUsd: atOnDemand(r0) };
        const k = `${r.bucketStartMs} ${r.nodePool}`;
        const c = byKey.get(k) ?? { atMs: r.bucketStartMs, nodePool: r.nodePool, onDemandPerHour: 0, spotPerHour: 0, otherPerHour: 0 };
        if (r.capacityType === 'on-demand') c.onDemandPerHour += r.costUsd;
        else if (r.capacityType === 'spot') c.spotPerHour += r.costUsd;
        else c.otherPerHour += r.costUsd;
        byKey.set(k, c);
      }
      const spotPools = pools.filter((p) => p.capacityTypes.includes('spot')).map((p) => p.name);
      v['spot-fallback'] = spotFallbackRule({ atMs: snapshotMs, spotPools, history: [...byKey.values()], currency }, settings);
    }
    if (on('idle-share')) {
      // Nodes without a NodePool (a managed node group) are no NodePool to tune: left out.
      const rows = efficiency
        .atSnapshot(snapshotMs, clusterId)
        .filter((r) => r.scope === 'nodepool' && r.nodePool !== null && r.nodePool !== '');
      v['idle-share'] = idleShareRule(
        {
          atMs: snapshotMs,
          pools: rows.map((r) => ({ nodePool: r.nodePool ?? '', costPerHour: r.usdPerHourAvg, idlePerHour: r.idleUsdPerHourAvg })),
          currency,
        },
        settings,
      );
    }
    if (on('packing-drop')) {
      const w = settings.packingWindowMs;
      const fromMs = snapshotMs - 2 * w;
      const rows = packing.bucketSums({
        fromMs,
        toMs: snapshotMs + 1,
        bucketMs: settings.snapshotIntervalMs,
        originMs: fromMs,
        clusterId,
      });
      const sums = new Map<string, { atMs: number; nodePool: string; req: number; alloc: number }>();
      const now = packing.poolRowsAt(snapshotMs, clusterId).map((r) => ({ ...r, bucketStartMs: snapshotMs }));
      for (const r of [...rows.filter((x) => x.bucketStartMs < snapshotMs), ...now]) {
        const k = `${r.bucketStartMs} ${r.nodePool}`;
        const s = sums.get(k) ?? { atMs: r.bucketStartMs, nodePool: r.nodePool, req: 0, alloc: 0 };
        s.req += r.reqCpuMillicoreHours;
        s.alloc += r.allocCpuMillicoreHours;
        sums.set(k, s);
      }
      const samples = [...sums.values()]
        .filter((s) => s.alloc > 0)
        .map((s) => ({ atMs: s.atMs, nodePool: s.nodePool, cpuPacking: s.req / s.alloc }));
      const changes: ConsolidationChange[] = world.disruptions
        .markerRows({ fromMs: snapshotMs - w, toMs: snapshotMs + 1, clusterId })
        .filter((d) => CONSOLIDATION_REASONS.has(d.reason))
        .map((d) => ({
          atMs: d.atMs,
          nodePool: d.nodePool,
          what: `a consolidation (${d.reason}${d.action === null ? '' : `, ${d.action}`})`,
          kind: 'disruption' as const,
        }));
      // Edits of a NodePool's disruption settings (a policy that stops consolidating, a longer consolidateAfter, a
      // tighter budget), from the NodePool versions the snapshots kept, within the window.
      const edits = disruptionSettingsEdits(world.nodePoolSettings.history(snapshotMs, clusterId))
        .filter((e) => e.atMs >= snapshotMs - w)
        .map((e) => ({ ...e, kind: 'settings' as const }));
      changes.push(...edits);
      v['packing-drop'] = packingDropRule({ atMs: snapshotMs, nodePools: pools.map((p) => p.name), samples, changes }, settings);
    }
    if (on('nodepool-near-limit')) {
      const limits: PoolLimitUse[] = [];
      for (const p of pools)
        for (const r of p.limits.resources) {
          if (r.limit === null || r.limit <= 0) continue;
          const scale = r.unit === 'millicores' ? 1000 : r.unit === 'bytes' ? 2 ** 30 : 1;
          const unit = r.unit === 'millicores' ? 'cores' : r.unit === 'bytes' ? 'GiB' : r.resource === 'nodes' ? 'nodes' : '';
          limits.push({ nodePool: p.name, resource: r.resource, used: r.used / scale, limit: r.limit / scale, unit });
        }
      v['nodepool-near-limit'] = nearLimitRule({ atMs: snapshotMs, limits }, settings);
    }
  }
  if (on('pods-unschedulable-limits')) {
    const events = world.alerts.failedScheduling(atMs - settings.unschedulableWindowMs, atMs, clusterId).flatMap((e) => {
      const nodePool = limitNodePoolOf('FailedScheduling', e.message);
      return nodePool === null ? [] : [{ atMs: e.atMs, nodePool, pod: e.pod }];
    });
    v['pods-unschedulable-limits'] = unschedulableLimitsRule({ atMs, nodePools: pools.map((p) => p.name), events }, settings);
  }
  if (on('bill-estimate-gap')) v['bill-estimate-gap'] = billGapRule({ newestFinalDay: newestFinalGap(world, atMs, clusterId) }, settings);
  if (on('nodepool-tag-inactive')) {
    const stored = world.runs.getSetting(ALLOCATION_TAGS_SETTING);
    if (stored !== null) {
      let tags: { active?: string[]; inactive?: string[] } = {};
      try {
        tags = JSON.parse(stored) as typeof tags;
      } catch {
        tags = {};
      }
      const status = tags.active?.includes(TAG_NODEPOOL) ? 'Active' : tags.inactive?.includes(TAG_NODEPOOL) ? 'Inactive' : 'absent';
      v['nodepool-tag-inactive'] = tagInactiveRule({ atMs, tagKey: TAG_NODEPOOL, status });
    }
  }
  return v;
}

/** The newest day of the last 7 whose every bill line is final: the compute bill against our estimate of it. */
function newestFinalGap(world: EvaluationWorld, atMs: number, clusterId: number | null) {
  const { reports, currency, lastCostDay } = world;
  if (lastCostDay === null) return null;
  const toMs = Math.min(Date.parse(`${lastCostDay}T00:00:00Z`) + DAY_MS, atMs);
  const daily = reports.dailyCost({ from: `${utcDay(toMs - 7 * DAY_MS)}T00:00:00Z`, to: `${utcDay(toMs)}T00:00:00Z` }, clusterId);
  const days = new Map<string, { final: boolean; bill: number; estimate: number; billed: boolean }>();
  for (const r of daily.rows) {
    if (r.band !== 'compute') continue;
    const d = days.get(r.day) ?? { final: true, bill: 0, estimate: 0, billed: false };
    if (r.billUsd !== null) {
      d.bill += r.billUsd;
      d.billed = true;
      d.final &&= !r.billEstimated;
    }
    d.estimate += r.estimateUsd ?? 0;
    days.set(r.day, d);
  }
  const newest = [...days.entries()].filter(([, d]) => d.billed && d.final).sort(([a], [b]) => b.localeCompare(a))[0];
  if (newest === undefined) return null;
  return {
    dayMs: Date.parse(`${newest[0]}T00:00:00Z`),
    bill: newest[1].bill,
    estimate: newest[1].estimate,
    currency,
    metric: daily.metric,
  };
}
