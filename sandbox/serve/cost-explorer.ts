import { createHash } from 'node:crypto';
import { clusterOwnedTag, TAG_CLUSTER_NAME, TAG_NODECLAIM, TAG_NODECLASS, TAG_NODEPOOL } from '../../core/labels.js';
import { formatCeAmount } from '../scenario/bill.js';
import type { EpochMs } from '../scenario/types.js';
import { regionFacts } from '../../core/partitions.js';
import { checkCostExplorer } from './aws-account.js';
import { AwsJsonError, serveAwsJson } from './aws-json.js';
import {
  evaluate,
  formatPeriodBound,
  type GroupTotal,
  mentionsDimension,
  type PeriodResult,
  requiresComputeService,
  startOfUtcDay,
  type UsageRecord,
  usageRecords,
} from './ce-query.js';
import { type CeQuery, invalid, type MetricRequest, parseCeQuery } from './ce-request.js';
import type { SandboxContext, SandboxHandler } from './context.js';
import { DAY_MS } from '../../core/time.js';

/**
 * AWS Cost Explorer (awsJson1_1, target prefix AWSInsightsIndexService) over the simulated bill:
 * GetCostAndUsage, GetCostAndUsageWithResources, ListCostAllocationTags.
 */

export interface CostExplorerOptions {
  /**
   * Page size in result slots: each (period, group) is one slot, an empty or ungrouped period one slot. Small
   * (the real service pages too), so a 14-day DAILY query by NodePool x instance type spans several pages.
   */
  pageSize?: number;
  /** Cost allocation tags not activated: they do not show in results and ListCostAllocationTags says Inactive. */
  inactiveTags?: string[];
  /** HOURLY granularity is an opt-in account setting. */
  hourlyEnabled?: boolean;
  /** Called with a request's input each time the adapter evaluates a query over the bill (tests count them). */
  onEvaluate?: (input: Record<string, unknown>) => void;
}

/** Hourly and resource-level data cover the last 14 days. */
const RECENT_DAYS = 14;

type MetricValue = { Amount: string; Unit: string };

/** The cost a metric reads: amortized and net variants from the bill model; BlendedCost is unblended in a single account. */
function costOf(metric: string, t: Omit<GroupTotal, 'keys'>): number {
  switch (metric.toLowerCase().replace(/[^a-z]/g, '')) {
    case 'amortizedcost':
      return t.costs.amortizedUsd;
    case 'netamortizedcost':
      return t.costs.netAmortizedUsd;
    case 'netunblendedcost':
      return t.costs.netUnblendedUsd;
    default:
      return t.costs.unblendedUsd;
  }
}

/** Costs are in the account's currency: CNY for a China account, USD otherwise (a GovCloud bill is the standard account's). */
function metricValues(metrics: MetricRequest[], t: Omit<GroupTotal, 'keys'>, currency: string): Record<string, MetricValue> {
  const out: Record<string, MetricValue> = {};
  for (const m of metrics) {
    out[m.name] =
      m.measure === 'cost'
        ? { Amount: formatCeAmount(costOf(m.name, t)), Unit: currency }
        : { Amount: formatCeAmount(t.usageHours), Unit: t.usageUnit === '' ? 'N/A' : t.usageUnit };
  }
  return out;
}

interface PageToken {
  offset: number;
  fingerprint: string;
}

/** Fingerprint of the request minus its page token: a token only continues the query that issued it. */
const fingerprintOf = (input: Record<string, unknown>): string => {
  const { NextPageToken: _ignored, ...rest } = input;
  return createHash('sha256').update(JSON.stringify(rest)).digest('hex').slice(0, 16);
};

const encodeToken = (t: PageToken): string => Buffer.from(JSON.stringify({ o: t.offset, f: t.fingerprint })).toString('base64url');

function decodeToken(token: string): PageToken {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (
      typeof value === 'object' &&
      value !== null &&
      'o' in value &&
      'f' in value &&
      typeof value.o === 'number' &&
      typeof value.f === 'string'
    ) {
      return { offset: value.o, fingerprint: value.f };
    }
  } catch {
    // reported below
  }
  throw new AwsJsonError('InvalidNextTokenException', 'The pagination token is invalid.');
}

/** One slot per (period, group), or per period when it has no groups; pages cut this list. */
function slotsOf(results: PeriodResult[], grouped: boolean): { period: number; group: number | null }[] {
  const slots: { period: number; group: number | null }[] = [];
  results.forEach((r, period) => {
    if (!grouped || r.groups.length === 0) slots.push({ period, group: null });
    else r.groups.forEach((_, group) => slots.push({ period, group }));
  });
  return slots;
}

function answer(
  query: CeQuery,
  input: Record<string, unknown>,
  results: PeriodResult[],
  pageSize: number,
  currency: string,
): Record<string, unknown> {
  const grouped = query.groupBy.length > 0;
  const fingerprint = fingerprintOf(input);
  let offset = 0;
  if (query.nextPageToken !== null) {
    const token = decodeToken(query.nextPageToken);
    if (token.fingerprint !== fingerprint)
      throw new AwsJsonError('RequestChangedException', 'Your request parameters changed between pages. Submit your request again.');
    offset = token.offset;
  }
  const slots = slotsOf(results, grouped);
  const page = slots.slice(offset, offset + pageSize);
  const byTime: Record<string, unknown>[] = [];
  let current: { index: number; groups: Record<string, unknown>[] } | null = null;
  const flush = (): void => {
    if (!current) return;
    const r = results[current.index];
    byTime.push({
      TimePeriod: { Start: formatPeriodBound(r.period.start, query.granularity), End: formatPeriodBound(r.period.end, query.granularity) },
      // Grouped results carry their amounts in the groups; Total is then an empty map.
      Total: grouped ? {} : metricValues(query.metrics, r.total, currency),
      Groups: current.groups,
      Estimated: r.estimated,
    });
  };
  for (const slot of page) {
    if (!current || current.index !== slot.period) {
      flush();
      current = { index: slot.period, groups: [] };
    }
    if (slot.group !== null) {
      const g = results[slot.period].groups[slot.group];
      current.groups.push({ Keys: g.keys, Metrics: metricValues(query.metrics, g, currency) });
    }
  }
  flush();
  const out: Record<string, unknown> = { ResultsByTime: byTime, DimensionValueAttributes: [] };
  if (grouped) out.GroupDefinitions = query.groupBy.map((g) => ({ Type: g.type, Key: g.key }));
  if (offset + pageSize < slots.length) out.NextPageToken = encodeToken({ offset: offset + pageSize, fingerprint });
  return out;
}

function checkRecentWindow(query: CeQuery, now: EpochMs, what: string): void {
  if (query.start < startOfUtcDay(now) - RECENT_DAYS * DAY_MS) {
    throw invalid(`${what} is only available for the last ${RECENT_DAYS} days`);
  }
}

function checkCommon(query: CeQuery, now: EpochMs, options: CostExplorerOptions): void {
  if (query.start > now) throw invalid('Start date must be equal to or no later than the current date');
  if (query.granularity === 'HOURLY') {
    if (options.hourlyEnabled === false) throw invalid('Hourly granularity is not enabled for this account');
    checkRecentWindow(query, now, 'HOURLY granularity');
  }
}

/**
 * The account's bill: the scenario's cluster and every other cluster billed to the account, one list sorted by hour
 * (evaluate walks it in order). The merged list is kept per sandbox context while its parts are the same arrays, so
 * the pages of one query are cut from one evaluation (two sandboxes in one process keep their own).
 */
const mergedOf = new WeakMap<SandboxContext, { parts: UsageRecord[][]; records: UsageRecord[] }>();
function accountRecords(ctx: SandboxContext, now: EpochMs, inactive: ReadonlySet<string>): UsageRecord[] {
  const own = usageRecords(ctx.scenario, now, inactive);
  const others = ctx.billedClusters ?? [];
  if (others.length === 0) return own;
  const parts = [own, ...others.map((s) => usageRecords(s, now, inactive))];
  const merged = mergedOf.get(ctx);
  if (merged !== undefined && merged.parts.length === parts.length && merged.parts.every((p, i) => p === parts[i])) return merged.records;
  // A stable sort: within an hour, the scenario's records first, then each other cluster's in order.
  const records = parts.flat().sort((a, b) => a.hourStart - b.hourStart);
  mergedOf.set(ctx, { parts, records });
  return records;
}

/**
 * How many queries' evaluations the adapter keeps. Cost Explorer answers each request on its own, so clients page
 * several queries at once (collect --clusters runs a few accounts' and clusters' sequences concurrently): a page
 * of one query must be cut from that query's evaluation whatever other queries came between its pages. Keeping
 * only the last evaluation answered them right but evaluated the whole bill again at every interleaved page.
 */
const KEPT_EVALUATIONS = 16;

/** One query's evaluation: the records and clock it was made from, and its periods. */
interface Evaluation {
  records: UsageRecord[];
  now: EpochMs;
  results: PeriodResult[];
}

function getCostAndUsage(options: CostExplorerOptions, withResources: boolean) {
  // By query (its filter, grouping, granularity and period; not its metrics or token), the most recently used last.
  const kept = new Map<string, Evaluation>();
  return (input: Record<string, unknown>, ctx: SandboxContext): Record<string, unknown> => {
    const now = ctx.clock.now();
    const query = parseCeQuery(input, { withResources });
    checkCommon(query, now, options);
    if (withResources) {
      if (!requiresComputeService(query.filter)) {
        throw invalid('GetCostAndUsageWithResources requires the filter SERVICE = Amazon Elastic Compute Cloud - Compute');
      }
      const byResource =
        query.groupBy.some((g) => g.type === 'DIMENSION' && g.key === 'RESOURCE_ID') || mentionsDimension(query.filter, 'RESOURCE_ID');
      if (!byResource) throw invalid('GetCostAndUsageWithResources requires a group by or a filter on RESOURCE_ID');
      checkRecentWindow(query, now, 'Resource-level data');
    }
    const records = accountRecords(ctx, now, new Set(options.inactiveTags ?? []));
    const key = JSON.stringify({ ...query, metrics: null, nextPageToken: null });
    let e = kept.get(key);
    kept.delete(key);
    // A bill rebuilt (the clock moved) is a new evaluation: the kept one answered an earlier "now".
    if (e === undefined || e.records !== records || e.now !== now) {
      e = { records, now, results: evaluate(query, records, now) };
      options.onEvaluate?.(input);
    }
    kept.set(key, e);
    if (kept.size > KEPT_EVALUATIONS) kept.delete(kept.keys().next().value as string);
    return answer(query, input, e.results, options.pageSize ?? 50, regionFacts(ctx.scenario.region).currency);
  };
}

interface AllocationTag {
  TagKey: string;
  Type: 'UserDefined' | 'AWSGenerated';
  Status: 'Active' | 'Inactive';
  LastUpdatedDate: string;
  LastUsedDate: string;
}

function listCostAllocationTags(options: CostExplorerOptions) {
  return (input: Record<string, unknown>, ctx: SandboxContext): Record<string, unknown> => {
    const { scenario } = ctx;
    const inactive = new Set(options.inactiveTags ?? []);
    // Activated a month before the scenario; last used in the current month (the API reports months).
    const activated = `${new Date(scenario.start - 30 * DAY_MS).toISOString().slice(0, 19)}Z`;
    const now = new Date(ctx.clock.now());
    const lastUsed = `${new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString().slice(0, 19)}Z`;
    // Karpenter and EKS apply these as ordinary resource tags, so billing lists them as user-defined; only aws:* keys are AWS-generated.
    const clusterNames = [scenario, ...(ctx.billedClusters ?? [])].map((s) => s.clusterName);
    const userKeys = [TAG_NODEPOOL, TAG_NODECLAIM, TAG_NODECLASS, TAG_CLUSTER_NAME, ...clusterNames.map(clusterOwnedTag)];
    const all: AllocationTag[] = [
      ...userKeys.map((TagKey): AllocationTag => ({
        TagKey,
        Type: 'UserDefined',
        Status: inactive.has(TagKey) ? 'Inactive' : 'Active',
        LastUpdatedDate: activated,
        LastUsedDate: lastUsed,
      })),
      { TagKey: 'aws:createdBy', Type: 'AWSGenerated', Status: 'Inactive', LastUpdatedDate: activated, LastUsedDate: lastUsed },
    ];
    const { Status, TagKeys, Type, MaxResults, NextToken } = input;
    if (Status !== undefined && Status !== 'Active' && Status !== 'Inactive') throw invalid(`Status ${String(Status)} is not valid`);
    if (Type !== undefined && Type !== 'UserDefined' && Type !== 'AWSGenerated') throw invalid(`Type ${String(Type)} is not valid`);
    if (TagKeys !== undefined && !(Array.isArray(TagKeys) && TagKeys.every((k) => typeof k === 'string')))
      throw invalid('TagKeys must be a list of strings');
    const max = MaxResults === undefined ? 100 : MaxResults;
    if (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > 1000) throw invalid('MaxResults must be between 1 and 1000');
    const wanted = all.filter(
      (t) =>
        (Status === undefined || t.Status === Status) &&
        (Type === undefined || t.Type === Type) &&
        (TagKeys === undefined || (TagKeys as string[]).includes(t.TagKey)),
    );
    let offset = 0;
    if (NextToken !== undefined) {
      offset = typeof NextToken === 'string' ? Number.parseInt(Buffer.from(NextToken, 'base64url').toString('utf8'), 10) : Number.NaN;
      if (!Number.isInteger(offset) || offset < 0) throw new AwsJsonError('InvalidNextTokenException', 'The pagination token is invalid.');
    }
    const out: Record<string, unknown> = { CostAllocationTags: wanted.slice(offset, offset + max) };
    if (offset + max < wanted.length) out.NextToken = Buffer.from(String(offset + max)).toString('base64url');
    return out;
  };
}

export function createCostExplorerHandler(options: CostExplorerOptions = {}): SandboxHandler {
  const operations = {
    GetCostAndUsage: getCostAndUsage(options, false),
    GetCostAndUsageWithResources: getCostAndUsage(options, true),
    ListCostAllocationTags: listCostAllocationTags(options),
  };
  return (req, ctx) => serveAwsJson(req, ctx, 'AWSInsightsIndexService', 'ce', operations, checkCostExplorer);
}

/** The default adapter (page size 50) for the sandbox server. */
export const costExplorerHandler: SandboxHandler = createCostExplorerHandler();
