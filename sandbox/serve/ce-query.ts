import { clusterOwnedTag, TAG_CLUSTER_NAME, TAG_NODECLAIM, TAG_NODECLASS, TAG_NODEPOOL } from '../../core/labels.js';
import { type BillLine, computeBill } from '../scenario/bill.js';
import type { EpochMs, Scenario } from '../scenario/types.js';
import {
  applySavingsPlan,
  type BillModelOptions,
  defaultSavingsPlan,
  EC2_OTHER_SERVICE,
  type LineCosts,
  type OtherLine,
  otherLines,
} from '../scenario/volumes-savings-plan.js';
import type { CeQuery, Expression, Granularity, GroupDef, MatchOption } from './ce-request.js';
import { DAY_MS, HOUR_MS } from '../../core/time.js';

/**
 * Cost Explorer's evaluation over the simulated bill: usage records with the dimensions and tags a real EC2
 * compute line carries, a filter, periods, and groups. Pure apart from a cache of the bill per scenario.
 */

export const EC2_COMPUTE_SERVICE = 'Amazon Elastic Compute Cloud - Compute';
export const PURCHASE_TYPE_ON_DEMAND = 'On Demand Instances';
export const PURCHASE_TYPE_SPOT = 'Spot Instances';

export interface UsageRecord {
  hourStart: EpochMs;
  /** UsageQuantity in its unit: hours for instances, GB-Mo for volumes, GB for data transfer. */
  usageHours: number;
  usageUnit: string;
  /** UnblendedCost. */
  costUsd: number;
  /** The four cost metrics (UnblendedCost = costUsd). */
  costs: LineCosts;
  dims: Record<string, string>;
  /** Only cost allocation tags that are active show in Cost Explorer. */
  tags: Record<string, string>;
}

/** Usage-type prefixes Cost Explorer shows per region (us-east-1 has none). */
export const USAGE_TYPE_PREFIX: Readonly<Record<string, string>> = {
  'us-east-1': '',
  'us-east-2': 'USE2-',
  'us-west-1': 'USW1-',
  'us-west-2': 'USW2-',
  'eu-west-1': 'EU-',
  'eu-central-1': 'EUC1-',
};

/** The tags Karpenter puts at launch on the instance, its volumes and network interfaces (the NodeClaim's on the instance only). */
export function launchTags(
  scenario: Scenario,
  nodeClassByPool: Map<string, string>,
  nodePool: string | null,
  nodeClaim: string | null,
  inactiveTags: ReadonlySet<string>,
): Record<string, string> {
  const tags: Record<string, string> = {
    [TAG_CLUSTER_NAME]: scenario.clusterName,
    [clusterOwnedTag(scenario.clusterName)]: 'owned',
  };
  if (nodePool !== null) {
    tags[TAG_NODEPOOL] = nodePool;
    const nodeClass = nodeClassByPool.get(nodePool);
    if (nodeClass !== undefined) tags[TAG_NODECLASS] = nodeClass;
  }
  if (nodeClaim !== null) tags[TAG_NODECLAIM] = nodeClaim;
  for (const key of inactiveTags) delete tags[key];
  return tags;
}

function recordOf(
  scenario: Scenario,
  nodeClassByPool: Map<string, string>,
  line: BillLine,
  costs: LineCosts,
  covered: boolean,
  inactiveTags: ReadonlySet<string>,
): UsageRecord {
  const spot = line.capacityType === 'spot';
  const prefix = USAGE_TYPE_PREFIX[scenario.region] ?? '';
  const tags = launchTags(scenario, nodeClassByPool, line.nodePool, line.nodeClaim, inactiveTags);
  return {
    hourStart: line.hourStart,
    usageHours: line.usageHours,
    usageUnit: 'Hrs',
    costUsd: costs.unblendedUsd,
    costs,
    dims: {
      SERVICE: EC2_COMPUTE_SERVICE,
      SERVICE_CODE: 'AmazonEC2',
      // Capacity reservations are billed as on-demand usage.
      PURCHASE_TYPE: spot ? PURCHASE_TYPE_SPOT : PURCHASE_TYPE_ON_DEMAND,
      INSTANCE_TYPE: line.instanceType,
      INSTANCE_TYPE_FAMILY: line.instanceType.split('.')[0],
      REGION: scenario.region,
      AZ: line.zone,
      LINKED_ACCOUNT: scenario.accountId,
      USAGE_TYPE: `${prefix}${spot ? 'SpotUsage' : 'BoxUsage'}:${line.instanceType}`,
      USAGE_TYPE_GROUP: spot ? 'EC2: Running Hours (Spot)' : 'EC2: Running Hours',
      OPERATION: 'RunInstances',
      PLATFORM: 'Linux/UNIX',
      OPERATING_SYSTEM: 'Linux',
      TENANCY: 'Shared',
      // Usage the Savings Plan covered (in whole or in part) is recorded as such; its unblended cost stays on-demand.
      RECORD_TYPE: covered ? 'SavingsPlanCoveredUsage' : 'Usage',
      RESOURCE_ID: line.instanceId,
    },
    tags,
  };
}

/** A volume's or network interface's line, under EC2 - Other, tagged like the instance minus its NodeClaim. */
function otherRecordOf(
  scenario: Scenario,
  nodeClassByPool: Map<string, string>,
  line: OtherLine,
  inactiveTags: ReadonlySet<string>,
): UsageRecord {
  const prefix = USAGE_TYPE_PREFIX[scenario.region] ?? '';
  return {
    hourStart: line.hourStart,
    usageHours: line.usageQuantity,
    usageUnit: line.usageUnit,
    costUsd: line.costs.unblendedUsd,
    costs: line.costs,
    dims: {
      SERVICE: EC2_OTHER_SERVICE,
      SERVICE_CODE: 'AmazonEC2',
      REGION: scenario.region,
      AZ: line.zone,
      LINKED_ACCOUNT: scenario.accountId,
      USAGE_TYPE: `${prefix}${line.usageType}`,
      USAGE_TYPE_GROUP: line.usageTypeGroup,
      OPERATION: line.usageUnit === 'GB-Mo' ? 'CreateVolume-Gp3' : 'RunInstances',
      RECORD_TYPE: 'Usage',
    },
    tags: launchTags(scenario, nodeClassByPool, line.nodePool, null, inactiveTags),
  };
}

/** The sandbox account's bill model: a 20 GiB gp3 root volume per node and its default Savings Plan. */
export const sandboxBillModel = (scenario: Scenario): BillModelOptions => ({ savingsPlan: defaultSavingsPlan(scenario) });

/** The bill as usage records, cached per scenario for the latest `asOf` (every request recomputes otherwise). */
const cache = new WeakMap<Scenario, { asOf: EpochMs; inactiveKey: string; records: UsageRecord[] }>();

export function usageRecords(scenario: Scenario, asOf: EpochMs, inactiveTags: ReadonlySet<string> = new Set()): UsageRecord[] {
  const inactiveKey = [...inactiveTags].sort().join('\n');
  const hit = cache.get(scenario);
  if (hit && hit.asOf === asOf && hit.inactiveKey === inactiveKey) return hit.records;
  const nodeClassByPool = new Map(scenario.nodePools.map((p) => [p.name, p.nodeClassName]));
  const compute = computeBill(scenario, asOf);
  const model = sandboxBillModel(scenario);
  const covered = applySavingsPlan(compute, model.savingsPlan ?? null, model.netDiscountFraction);
  const records = [
    ...covered.lines.map((c) => recordOf(scenario, nodeClassByPool, c.line, c.costs, c.coveredOnDemandUsd > 0, inactiveTags)),
    ...otherLines(scenario, compute, model).map((l) => otherRecordOf(scenario, nodeClassByPool, l, inactiveTags)),
  ].sort((a, b) => a.hourStart - b.hourStart);
  cache.set(scenario, { asOf, inactiveKey, records });
  return records;
}

// Called for every record of every request: no closure made per call (a bench of 108 requests spent most of its
// time making them).
function matchValue(actual: string, values: readonly string[], options: readonly MatchOption[]): boolean {
  const insensitive = options.includes('CASE_INSENSITIVE');
  const startsWith = options.includes('STARTS_WITH');
  const endsWith = options.includes('ENDS_WITH');
  const contains = options.includes('CONTAINS');
  const a = insensitive ? actual.toLowerCase() : actual;
  for (const raw of values) {
    const v = insensitive ? raw.toLowerCase() : raw;
    if (startsWith ? a.startsWith(v) : endsWith ? a.endsWith(v) : contains ? a.includes(v) : a === v) return true;
  }
  return false;
}

export function matchesFilter(expr: Expression, rec: UsageRecord): boolean {
  switch (expr.kind) {
    case 'and':
      return expr.items.every((e) => matchesFilter(e, rec));
    case 'or':
      return expr.items.some((e) => matchesFilter(e, rec));
    case 'not':
      return !matchesFilter(expr.item, rec);
    case 'dimension':
      return matchValue(rec.dims[expr.key] ?? '', expr.values, expr.options);
    case 'tag': {
      // Cost Explorer treats an untagged resource as having the empty value.
      const value = rec.tags[expr.key] ?? '';
      if (expr.options.includes('ABSENT')) {
        if (value === '') return true;
        return expr.values !== null && matchValue(value, expr.values, expr.options);
      }
      if (expr.values === null) return value !== '';
      return matchValue(value, expr.values, expr.options);
    }
    case 'costCategory':
      // The sandbox account defines no cost categories: every resource is uncategorized.
      return expr.options.includes('ABSENT');
  }
}

/** True when the filter requires SERVICE = EC2 compute on every record it can admit (top level or in an And). */
export function requiresComputeService(expr: Expression | null): boolean {
  if (!expr) return false;
  if (expr.kind === 'dimension') return expr.key === 'SERVICE' && expr.values.length === 1 && expr.values[0] === EC2_COMPUTE_SERVICE;
  if (expr.kind === 'and') return expr.items.some(requiresComputeService);
  return false;
}

export function mentionsDimension(expr: Expression | null, key: string): boolean {
  if (!expr) return false;
  switch (expr.kind) {
    case 'and':
    case 'or':
      return expr.items.some((e) => mentionsDimension(e, key));
    case 'not':
      return mentionsDimension(expr.item, key);
    case 'dimension':
      return expr.key === key;
    default:
      return false;
  }
}

export const startOfUtcDay = (t: EpochMs): EpochMs => Math.floor(t / DAY_MS) * DAY_MS;

/**
 * Cost Explorer keeps revising recent days: the current (partial) day and the two complete days before it are
 * Estimated; anything that ended earlier is final.
 */
export function isEstimatedPeriod(periodEnd: EpochMs, now: EpochMs): boolean {
  return periodEnd > startOfUtcDay(now) - 2 * DAY_MS;
}

export interface Period {
  start: EpochMs;
  end: EpochMs;
}

const nextMonth = (t: EpochMs): EpochMs => {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
};

/** The periods of [start, end) at a granularity, only those that have begun by `now` (nothing later is shown). */
export function periodsOf(start: EpochMs, end: EpochMs, granularity: Granularity, now: EpochMs): Period[] {
  const periods: Period[] = [];
  for (let t = start; t < end && t < now;) {
    const next = granularity === 'HOURLY' ? t + HOUR_MS : granularity === 'DAILY' ? t + DAY_MS : nextMonth(t);
    periods.push({ start: t, end: Math.min(next, end) });
    t = next;
  }
  return periods;
}

const iso = (t: EpochMs): string => new Date(t).toISOString();
/** DAILY and MONTHLY periods print as dates, HOURLY ones as `2026-11-01T00:00:00Z`. */
export const formatPeriodBound = (t: EpochMs, granularity: Granularity): string =>
  granularity === 'HOURLY' ? `${iso(t).slice(0, 19)}Z` : iso(t).slice(0, 10);

export interface GroupTotal {
  keys: string[];
  costUsd: number;
  usageHours: number;
  costs: LineCosts;
  /** The usage unit when every record shares it, else 'N/A' (Cost Explorer's answer for mixed units). */
  usageUnit: string;
}

export interface PeriodResult {
  period: Period;
  estimated: boolean;
  total: Omit<GroupTotal, 'keys'>;
  /** Sorted by keys; empty when the query has no GroupBy. */
  groups: GroupTotal[];
}

function groupKey(def: GroupDef, rec: UsageRecord): string {
  if (def.type === 'DIMENSION') return rec.dims[def.key] ?? '';
  if (def.type === 'TAG') return `${def.key}$${rec.tags[def.key] ?? ''}`;
  return `${def.key}$`;
}

const emptyTotal = (): Omit<GroupTotal, 'keys'> => ({
  costUsd: 0,
  usageHours: 0,
  costs: { unblendedUsd: 0, amortizedUsd: 0, netUnblendedUsd: 0, netAmortizedUsd: 0 },
  usageUnit: '',
});

function addTo(total: Omit<GroupTotal, 'keys'>, rec: UsageRecord): void {
  total.costUsd += rec.costUsd;
  total.usageHours += rec.usageHours;
  total.costs.unblendedUsd += rec.costs.unblendedUsd;
  total.costs.amortizedUsd += rec.costs.amortizedUsd;
  total.costs.netUnblendedUsd += rec.costs.netUnblendedUsd;
  total.costs.netAmortizedUsd += rec.costs.netAmortizedUsd;
  total.usageUnit = total.usageUnit === '' || total.usageUnit === rec.usageUnit ? rec.usageUnit : 'N/A';
}

/** Evaluates a query over the records: per period, the total and the groups (before paging). */
export function evaluate(query: CeQuery, records: readonly UsageRecord[], now: EpochMs): PeriodResult[] {
  const periods = periodsOf(query.start, query.end, query.granularity, now);
  const results: PeriodResult[] = periods.map((period) => ({
    period,
    estimated: isEstimatedPeriod(period.end, now),
    total: emptyTotal(),
    groups: [],
  }));
  if (periods.length === 0) return results;
  const buckets = results.map(() => new Map<string, GroupTotal>());
  const last = periods[periods.length - 1].end;
  let p = 0;
  for (const rec of records) {
    if (rec.hourStart < query.start || rec.hourStart >= last) continue;
    if (query.filter && !matchesFilter(query.filter, rec)) continue;
    // Records are sorted by hour, so the period pointer only moves forward.
    while (p > 0 && rec.hourStart < periods[p].start) p -= 1;
    while (rec.hourStart >= periods[p].end) p += 1;
    const result = results[p];
    addTo(result.total, rec);
    if (query.groupBy.length === 0) continue;
    const keys = query.groupBy.map((g) => groupKey(g, rec));
    const id = keys.join('\u0000');
    let group = buckets[p].get(id);
    if (!group) {
      group = { keys, ...emptyTotal() };
      buckets[p].set(id, group);
    }
    addTo(group, rec);
  }
  results.forEach((r, i) => {
    r.groups = [...buckets[i].values()].sort((a, b) => (a.keys.join('\u0000') < b.keys.join('\u0000') ? -1 : 1));
  });
  return results;
}
