import type { AlertLink, AlertObservation, AlertSettings, RuleVerdict } from './alert-model.js';
import type { BudgetStatus } from './budget-model.js';

/**
 * The alert rules, pure: each takes the figures it needs at one evaluation (gathered by the server's alert service)
 * and says, per subject, whether its condition holds, with one sentence carrying the figures that tripped it. Hold
 * times are not theirs: core/alert-state.ts holds a breach until it has lasted long enough. A rule returns null when it
 * has nothing to judge (no data), which keeps its open alerts as they are.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const pct = (share: number): string => `${Math.round(share * 100)} %`;
const money = (amount: number, currency: string): string => `${currency} ${amount.toFixed(2)}`;
const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const round = (x: number, digits = 4): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** A link to a dashboard page over the UTC days [fromMs, toMs] (both inclusive, as the dashboard's `from`/`to`). */
export function pageLink(path: string, label: string, fromMs: number, toMs: number, nodePool?: string): AlertLink {
  const q = new URLSearchParams();
  q.set('from', day(fromMs));
  q.set('to', day(toMs));
  if (nodePool !== undefined) q.set('nodepool', nodePool);
  return { href: `${path}?${q.toString()}`, label };
}

// ---------------------------------------------------------------- budget-threshold

/** One alert per budget, figure (spent, forecast) and threshold: crossing 80 % and then 100 % says both. */
export function budgetThresholdRule(statuses: readonly BudgetStatus[] | null): RuleVerdict {
  if (statuses === null) return null;
  const out: AlertObservation[] = [];
  for (const s of statuses) {
    const b = s.budget;
    for (const threshold of b.thresholds) {
      for (const figure of ['spent', 'forecast'] as const) {
        const share = figure === 'spent' ? s.spentShare : s.forecastShare;
        const amount = figure === 'spent' ? s.spent : s.forecast;
        const scope = b.scope.kind === 'cluster' ? 'the cluster' : `${b.scope.kind} ${b.scope.name}`;
        const limit =
          b.dollarLimit && s.nodesBeforeLimit !== null ? `; ${s.nodesBeforeLimit} more nodes of its current mix fit before the limit` : '';
        const sentence =
          figure === 'spent'
            ? `Budget ${b.name} (${scope}, ${b.period}) has spent ${money(amount, b.currency)} of ${money(b.amount, b.currency)}, ${pct(share)}, at or above its ${pct(threshold)} threshold${limit}.`
            : `Budget ${b.name} (${scope}, ${b.period}) is forecast to end the period at ${money(amount, b.currency)} of ${money(b.amount, b.currency)}, ${pct(share)} (${money(s.forecastLow, b.currency)}..${money(s.forecastHigh, b.currency)}, ${s.forecastMethod}), at or above its ${pct(threshold)} threshold${limit}.`;
        out.push({
          rule: 'budget-threshold',
          subject: `budget/${b.name}/${figure}/${threshold}`,
          breaching: share >= threshold,
          figures: {
            budget: b.name,
            [`${figure}Amount`]: round(amount, 2),
            budgetAmount: b.amount,
            share: round(share),
            threshold,
            currency: b.currency,
          },
          sentence,
          link: {
            href: `/budgets?budget=${encodeURIComponent(b.name)}&from=${day(s.periodStartMs)}&to=${day(s.periodEndMs - 1)}`,
            label: `Budget ${b.name}, this ${b.period === 'monthly' ? 'month' : 'week'}`,
          },
        });
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------- spot-fallback

/** A NodePool's cost per hour at one snapshot, by capacity type, each node at its on-demand price (its capacity). */
export interface PoolCapacityCost {
  atMs: number;
  nodePool: string;
  onDemandPerHour: number;
  spotPerHour: number;
  /** Reserved (capacity reservations) and anything else. */
  otherPerHour: number;
}

const onDemandShare = (c: PoolCapacityCost): number | null => {
  const total = c.onDemandPerHour + c.spotPerHour + c.otherPerHour;
  return total > 0 ? c.onDemandPerHour / total : null;
};

/**
 * A NodePool that allows spot whose on-demand share of cost now is at least `threshold` above its lowest over the
 * baseline window before now, with more on-demand spend than then: spot capacity ran short and Karpenter launched
 * on-demand instead.
 */
export function spotFallbackRule(
  input: { atMs: number; spotPools: readonly string[]; history: readonly PoolCapacityCost[]; currency: string } | null,
  settings: AlertSettings,
): RuleVerdict {
  if (input === null) return null;
  const threshold = settings.rules['spot-fallback'].threshold;
  const out: AlertObservation[] = [];
  for (const nodePool of input.spotPools) {
    const rows = input.history.filter((r) => r.nodePool === nodePool && r.atMs <= input.atMs).sort((a, b) => a.atMs - b.atMs);
    const now = rows.at(-1);
    if (now === undefined || now.atMs !== input.atMs) continue; // not in this snapshot: nothing to say about it now
    const shareNow = onDemandShare(now);
    if (shareNow === null) continue;
    let lowest = shareNow;
    let onDemandAtLowest = now.onDemandPerHour;
    for (const r of rows) {
      if (r.atMs >= input.atMs || r.atMs < input.atMs - settings.spotBaselineMs) continue;
      const share = onDemandShare(r);
      if (share !== null && share < lowest) {
        lowest = share;
        onDemandAtLowest = r.onDemandPerHour;
      }
    }
    const total = now.onDemandPerHour + now.spotPerHour + now.otherPerHour;
    // On-demand launched, not spot merely shrinking: a night's scale-down that removes spot nodes raises the share
    // with the on-demand spend flat or lower, and is no fallback.
    const grew = now.onDemandPerHour > onDemandAtLowest + 1e-9;
    out.push({
      rule: 'spot-fallback',
      subject: nodePool,
      breaching: grew && shareNow - lowest >= threshold - 1e-9,
      figures: {
        onDemandShare: round(shareNow),
        lowestOnDemandShare: round(lowest),
        onDemandPerHour: round(now.onDemandPerHour),
        costPerHour: round(total),
        currency: input.currency,
      },
      sentence: `NodePool ${nodePool} allows spot, yet ${pct(shareNow)} of its cost per hour at on-demand prices (${money(now.onDemandPerHour, input.currency)} of ${money(total, input.currency)}) is on-demand, up from ${pct(lowest)} at its lowest in the previous ${Math.round(settings.spotBaselineMs / HOUR_MS)} h: spot capacity fell back to on-demand.`,
      link: pageLink(
        '/nodepools',
        `NodePool ${nodePool}, cost by capacity type`,
        input.atMs - settings.spotBaselineMs,
        input.atMs,
        nodePool,
      ),
    });
  }
  return out;
}

// ---------------------------------------------------------------- idle-share

export interface PoolIdle {
  nodePool: string;
  costPerHour: number;
  idlePerHour: number;
}

export function idleShareRule(
  input: { atMs: number; pools: readonly PoolIdle[]; currency: string } | null,
  settings: AlertSettings,
): RuleVerdict {
  if (input === null) return null;
  const threshold = settings.rules['idle-share'].threshold;
  return input.pools
    .filter((p) => p.costPerHour > 0)
    .map((p) => {
      const share = p.idlePerHour / p.costPerHour;
      return {
        rule: 'idle-share' as const,
        subject: p.nodePool,
        breaching: share > threshold,
        figures: {
          idleShare: round(share),
          idlePerHour: round(p.idlePerHour),
          costPerHour: round(p.costPerHour),
          threshold,
          currency: input.currency,
        },
        sentence: `NodePool ${p.nodePool} spends ${money(p.idlePerHour, input.currency)} of its ${money(p.costPerHour, input.currency)} per hour, ${pct(share)}, on capacity no pod requests (above ${pct(threshold)}).`,
        link: pageLink('/nodepools', `NodePool ${p.nodePool}, packing and idle`, input.atMs - DAY_MS, input.atMs, p.nodePool),
      };
    });
}

// ---------------------------------------------------------------- packing-drop

export interface PackingSample {
  atMs: number;
  nodePool: string;
  /** Requested CPU over allocatable at that snapshot. */
  cpuPacking: number;
}

export interface ConsolidationChange {
  atMs: number;
  nodePool: string;
  /** What changed, for the sentence: "a consolidation (Underutilized)", "consolidationPolicy WhenEmpty -> ...". */
  what: string;
  /**
   * disruption: a consolidation Karpenter carried out, whose effect is at once (the 30 min from it are read);
   * settings: an edit of the NodePool's spec.disruption, whose effect comes as load changes over the hours after it
   * (the last 30 min are read, while the change is in the window). Absent: disruption.
   */
  kind?: 'disruption' | 'settings';
}

const mean = (xs: readonly number[]): number | null => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);

/**
 * How long before and after a consolidation change its packing is read: long enough for the evicted pods to land, short
 * enough that pods finishing hours later (a batch pool emptying after a Delete) are not laid at the change's door.
 */
export const PACKING_SPAN_MS = 30 * 60_000;

/**
 * The newest consolidation change of each NodePool within the packing window before now: the mean CPU packing of its
 * snapshots in the 30 min before the change against those after it: for a consolidation, the 30 min from it (up to
 * now); for an edit of the NodePool's disruption settings, the last 30 min (from the change on), since a policy that
 * stops consolidating lowers packing only as load falls after it. Falls by `threshold` or more: breaching. A NodePool
 * without a change in the window is judged not breaching (its alert, if any, resolves once the change leaves the
 * window).
 */
export function packingDropRule(
  input: { atMs: number; nodePools: readonly string[]; samples: readonly PackingSample[]; changes: readonly ConsolidationChange[] } | null,
  settings: AlertSettings,
): RuleVerdict {
  if (input === null) return null;
  const w = settings.packingWindowMs;
  const threshold = settings.rules['packing-drop'].threshold;
  const out: AlertObservation[] = [];
  for (const nodePool of input.nodePools) {
    const change = input.changes
      .filter((c) => c.nodePool === nodePool && c.atMs <= input.atMs && c.atMs >= input.atMs - w)
      .sort((a, b) => b.atMs - a.atMs)[0];
    const link = pageLink('/consolidation', `Consolidation of ${nodePool}, before and after`, input.atMs - 2 * w, input.atMs, nodePool);
    if (change === undefined) {
      out.push({
        rule: 'packing-drop',
        subject: nodePool,
        breaching: false,
        figures: {},
        sentence: `NodePool ${nodePool}: no consolidation change in the window.`,
        link,
      });
      continue;
    }
    const pool = input.samples.filter((s) => s.nodePool === nodePool);
    const span = PACKING_SPAN_MS;
    const before = mean(pool.filter((s) => s.atMs >= change.atMs - span && s.atMs < change.atMs).map((s) => s.cpuPacking));
    const settings = change.kind === 'settings';
    // a consolidation: [change, change + span]; a settings edit: (now - span, now], not before the change
    const [afterFrom, afterTo] = settings
      ? [Math.max(change.atMs, input.atMs - span + 1), input.atMs]
      : [change.atMs, Math.min(input.atMs, change.atMs + span)];
    const after = mean(pool.filter((s) => s.atMs >= afterFrom && s.atMs <= afterTo).map((s) => s.cpuPacking));
    if (before === null || after === null) continue;
    const minutes = Math.round(span / 60_000);
    out.push({
      rule: 'packing-drop',
      subject: nodePool,
      breaching: before - after >= threshold - 1e-9,
      figures: { cpuPackingBefore: round(before), cpuPackingAfter: round(after), changeAtMs: change.atMs, change: change.what },
      sentence: `NodePool ${nodePool}'s CPU packing fell from ${pct(before)} in the ${minutes} min before ${change.what} at ${new Date(change.atMs).toISOString().slice(0, 16)}Z to ${pct(after)} in the ${settings ? `last ${minutes} min` : `${minutes} min from it`}.`,
      link,
    });
  }
  return out;
}

// ---------------------------------------------------------------- nodepool-near-limit, pods-unschedulable-limits

export interface PoolLimitUse {
  nodePool: string;
  resource: string;
  used: number;
  limit: number;
  /** Unit of used and limit for the sentence: "cores", "GiB", "nodes". */
  unit: string;
}

export function nearLimitRule(input: { atMs: number; limits: readonly PoolLimitUse[] } | null, settings: AlertSettings): RuleVerdict {
  if (input === null) return null;
  const threshold = settings.rules['nodepool-near-limit'].threshold;
  const byPool = new Map<string, PoolLimitUse[]>();
  for (const l of input.limits) if (l.limit > 0) byPool.set(l.nodePool, [...(byPool.get(l.nodePool) ?? []), l]);
  return [...byPool].map(([nodePool, limits]) => {
    const top = limits.reduce((a, b) => (b.used / b.limit > a.used / a.limit ? b : a));
    const share = top.used / top.limit;
    const fmt = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(1));
    return {
      rule: 'nodepool-near-limit' as const,
      subject: nodePool,
      breaching: share >= threshold,
      figures: { resource: top.resource, used: round(top.used), limit: top.limit, share: round(share), threshold },
      sentence: `NodePool ${nodePool} uses ${fmt(top.used)} of its ${fmt(top.limit)} ${top.unit} ${top.resource} limit, ${pct(share)} (Karpenter launches nothing more at 100 %).`,
      link: pageLink('/nodepools', `NodePool ${nodePool}, limits`, input.atMs - DAY_MS, input.atMs, nodePool),
    };
  });
}

export interface UnschedulableEvent {
  atMs: number;
  nodePool: string;
  /** namespace/name */
  pod: string;
}

/**
 * Karpenter's pod event (reason FailedScheduling) for limits says "Failed to schedule pod, all available instance
 * types exceed limits for nodepool ..." (kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/
 * scheduler.go:718, events.go:64-69). The NodePool it names, or null when the message is not that one.
 */
export function limitNodePoolOf(reason: string, message: string): string | null {
  if (reason !== 'FailedScheduling' || !message.includes('exceed limits for nodepool')) return null;
  const m = /NodePool=["']?([A-Za-z0-9.-]+)/.exec(message) ?? /exceed limits for nodepool:? ["']?([A-Za-z0-9.-]+)/.exec(message);
  return m?.[1] ?? '';
}

export function unschedulableLimitsRule(
  input: { atMs: number; nodePools: readonly string[]; events: readonly UnschedulableEvent[] } | null,
  settings: AlertSettings,
): RuleVerdict {
  if (input === null) return null;
  const threshold = settings.rules['pods-unschedulable-limits'].threshold;
  const windowMs = settings.unschedulableWindowMs;
  const recent = input.events.filter((e) => e.atMs > input.atMs - windowMs && e.atMs <= input.atMs);
  const pools = new Set([...input.nodePools, ...recent.map((e) => e.nodePool)]);
  return [...pools].map((nodePool) => {
    const events = recent.filter((e) => e.nodePool === nodePool);
    const pods = new Set(events.map((e) => e.pod));
    const name = nodePool === '' ? 'a NodePool' : `NodePool ${nodePool}`;
    return {
      rule: 'pods-unschedulable-limits' as const,
      subject: nodePool,
      breaching: events.length >= threshold,
      figures: { events: events.length, pods: pods.size, windowHours: round(windowMs / HOUR_MS, 2) },
      sentence: `Karpenter could not schedule ${pods.size} pod${pods.size === 1 ? '' : 's'} (${events.length} FailedScheduling event${events.length === 1 ? '' : 's'} in the last ${round(windowMs / HOUR_MS, 2)} h) because every instance type would exceed ${name}'s limits${pods.size > 0 ? `, e.g. ${[...pods].sort()[0]}` : ''}.`,
      link: pageLink('/nodepools', `${name}, limits`, input.atMs - DAY_MS, input.atMs, nodePool === '' ? undefined : nodePool),
    };
  });
}

// ---------------------------------------------------------------- bill-estimate-gap, nodepool-tag-inactive

export interface FinalDayGap {
  dayMs: number;
  bill: number;
  estimate: number;
  currency: string;
  metric: string;
}

export function billGapRule(input: { newestFinalDay: FinalDayGap | null } | null, settings: AlertSettings): RuleVerdict {
  if (input === null || input.newestFinalDay === null) return null;
  const d = input.newestFinalDay;
  const threshold = settings.rules['bill-estimate-gap'].threshold;
  const gap = d.estimate - d.bill;
  const share = d.bill > 0 ? Math.abs(gap) / d.bill : d.estimate > 0 ? 1 : 0;
  return [
    {
      rule: 'bill-estimate-gap',
      subject: 'cluster',
      breaching: share > threshold && Math.abs(gap) > settings.billGapMinAmount,
      figures: {
        day: day(d.dayMs),
        bill: round(d.bill, 2),
        estimate: round(d.estimate, 2),
        gapShare: round(share),
        threshold,
        currency: d.currency,
        metric: d.metric,
      },
      sentence: `On ${day(d.dayMs)}, the newest final day, the estimate (${money(d.estimate, d.currency)}) is ${pct(share)} ${gap >= 0 ? 'above' : 'below'} the bill (${money(d.bill, d.currency)} ${d.metric}), more than ${pct(threshold)}.`,
      link: pageLink('/bill', `The bill of ${day(d.dayMs)}`, d.dayMs, d.dayMs),
    },
  ];
}

/** `status`: ListCostAllocationTags' Status of the tag, or 'absent' when the account does not list it at all. */
export function tagInactiveRule(input: { atMs: number; tagKey: string; status: 'Active' | 'Inactive' | 'absent' } | null): RuleVerdict {
  if (input === null) return null;
  const { tagKey, status } = input;
  return [
    {
      rule: 'nodepool-tag-inactive',
      subject: tagKey,
      breaching: status !== 'Active',
      figures: { tag: tagKey, status },
      sentence:
        status === 'absent'
          ? `The tag ${tagKey} is not listed as a cost allocation tag (no tagged usage billed yet): the bill cannot be split by NodePool.`
          : `The tag ${tagKey} is ${status} as a cost allocation tag: the bill cannot be split by NodePool until it is activated (up to 24 h, not retroactive).`,
      link: pageLink('/bill', 'Explain this bill', input.atMs - 7 * DAY_MS, input.atMs),
    },
  ];
}

// ---------------------------------------------------------------- collector-stale

export function collectorStaleRule(input: { atMs: number; lastSnapshotAtMs: number | null } | null, settings: AlertSettings): RuleVerdict {
  if (input === null || input.lastSnapshotAtMs === null) return null;
  const intervals = settings.rules['collector-stale'].threshold;
  const ageMs = input.atMs - input.lastSnapshotAtMs;
  const ageIntervals = ageMs / settings.snapshotIntervalMs;
  return [
    {
      rule: 'collector-stale',
      subject: 'collector',
      breaching: ageIntervals >= intervals,
      figures: {
        lastSnapshotAtMs: input.lastSnapshotAtMs,
        ageMinutes: round(ageMs / 60_000, 1),
        intervals,
        intervalMinutes: settings.snapshotIntervalMs / 60_000,
      },
      sentence: `No snapshot since ${new Date(input.lastSnapshotAtMs).toISOString().slice(0, 16)}Z, ${Math.round(ageMs / 60_000)} min ago: ${Math.floor(ageIntervals)} snapshot intervals of ${settings.snapshotIntervalMs / 60_000} min missed (the alert is at ${intervals}).`,
      link: pageLink('/', 'Overview, collector status', input.lastSnapshotAtMs, input.atMs),
    },
  ];
}
