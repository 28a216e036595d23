import {
  type CostExplorerClient,
  type Expression,
  GetCostAndUsageCommand,
  GetCostAndUsageWithResourcesCommand,
  type ResultByTime,
} from '@aws-sdk/client-cost-explorer';
import { TAG_CLUSTER_NAME, TAG_NODEPOOL } from '../../core/labels.js';
import type { Currency } from '../../core/partitions.js';
import { createApiRequestsRepository } from '../../db/repositories/api-requests-repository.js';
import { type CostGranularity, type CostGroupBy, createCostLinesRepository } from '../../db/repositories/cost-lines-repository.js';
import type { Db } from '../../db/open-db.js';
import type { ClusterTag } from './allocation-tags.js';
import { mapCostPeriods, mergePages } from './map.js';
import { DAY_MS, HOUR_MS } from '../../core/time.js';

/**
 * Cost Explorer lines for the cluster's EC2 compute, each query grouped by the NodePool tag and one dimension:
 * DAILY x purchase type and DAILY x instance type over the window, and the cluster's "EC2 - Other" (volumes, data
 * transfer) DAILY x usage type (GetCostAndUsage cannot group by USAGE_TYPE_GROUP; core/ec2-other.ts names the group); optionally HOURLY x purchase type and
 * per-instance DAILY lines (GetCostAndUsageWithResources, RESOURCE_ID) over the last 14 days, where the account
 * has them. Every request costs USD 0.01, so periods Cost Explorer already called final are never asked for
 * again: only the runs of periods not stored as final are requested (estimated ones are refreshed).
 */

export const COST_EXPLORER_SOURCE = 'cost-explorer';
export const EC2_COMPUTE_SERVICE = 'Amazon Elastic Compute Cloud - Compute';
/** Cost Explorer's SERVICE value for EBS volumes, snapshots, data transfer, NAT gateways and Elastic IPs. */
export const EC2_OTHER_SERVICE = 'EC2 - Other';
/** All four cost metrics finance teams read, in one request (a request costs the same whatever it asks for). */
export const COST_METRICS = ['UnblendedCost', 'AmortizedCost', 'NetUnblendedCost', 'NetAmortizedCost'] as const;
const METRICS = [...COST_METRICS, 'UsageQuantity'];
/** Hourly and resource-level data cover 14 days: today and the 13 before it. */
const RECENT_DAYS = 14;

export type CostApi = 'GetCostAndUsage' | 'GetCostAndUsageWithResources';

export interface CostExplorerDeps {
  db: Db;
  ce: CostExplorerClient;
  /** The currency the account is billed in (CNY for China, else USD; default USD). */
  currency?: Currency;
  clusterName: string;
  /** The ledger's id of that cluster (cost_lines.cluster_id); default 1, a one-cluster ledger's. */
  clusterId?: number;
  /** The collection time (epoch ms): periods after it are not asked for. */
  now: number;
  runId?: number | null;
  /** The tag that marks the cluster's instances (see chooseClusterTag); default eks:eks-cluster-name = clusterName. */
  clusterTag?: ClusterTag;
  /** Also HOURLY x purchase type for the last 14 days (an account opt-in: refused with a ValidationException otherwise). */
  hourly?: boolean;
  /** Also per-instance DAILY lines for the last 14 days (GetCostAndUsageWithResources, an account opt-in). */
  resources?: boolean;
  /**
   * Also "EC2 - Other" (volumes, snapshots, data transfer, NAT) DAILY x USAGE_TYPE by the NodePool tag, which
   * Karpenter puts on volumes and network interfaces too: the rest of a NodePool's bill. Default true.
   */
  otherCosts?: boolean;
  /** Called after each request (progress bars). */
  onRequest?: (r: { query: string; page: number }) => void;
}

/** [startMs, endMs) in epoch ms; widened to whole UTC days. */
export interface CostWindow {
  startMs: number;
  endMs: number;
}

export interface CostQueryResult {
  api: CostApi;
  granularity: CostGranularity;
  groupBy: CostGroupBy;
  /** From the first requested period to the end of the last, or null when every period was already final. */
  requested: { start: string; end: string } | null;
  /** The runs of not-final periods actually requested (one paged request sequence each). */
  ranges: { start: string; end: string }[];
  requests: number;
  lines: number;
  /** Periods of the window already stored as final, so not asked for. */
  finalSkipped: number;
  /** The cluster a per-cluster query of an account of several clusters was asked for. */
  cluster?: string;
  /** Set when the account refused this optional query (not enabled, not allowed): why. Nothing was stored. */
  unavailable?: string;
}

export interface CostCollectResult {
  requests: number;
  linesWritten: number;
  queries: CostQueryResult[];
}

interface QuerySpec {
  api: CostApi;
  /** The Cost Explorer SERVICE the query reads. */
  service: string;
  granularity: CostGranularity;
  groupBy: CostGroupBy;
  startMs: number;
  endMs: number;
  /** Optional queries give way to an account that has not enabled them. */
  optional: boolean;
}

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
/** Cost Explorer's period bounds: dates for DAILY, `2026-11-01T05:00:00Z` for HOURLY. */
const bound = (ms: number, granularity: CostGranularity): string =>
  granularity === 'HOURLY' ? `${new Date(ms).toISOString().slice(0, 19)}Z` : day(ms);
const label = (q: { granularity: CostGranularity; groupBy: CostGroupBy }): CostQueryName => `${q.granularity} x ${q.groupBy}`;

/** The default cluster tag: what EKS puts on every instance of the cluster. */
export const defaultClusterTag = (clusterName: string): ClusterTag => ({ key: TAG_CLUSTER_NAME, value: clusterName });

/** The cluster's EC2 compute: what Karpenter and managed node groups launch, tagged with the cluster. */
export const clusterComputeFilter = (
  clusterName: string,
  tag: ClusterTag = defaultClusterTag(clusterName),
  service: string = EC2_COMPUTE_SERVICE,
): Expression => ({
  And: [{ Tags: { Key: tag.key, Values: [tag.value] } }, { Dimensions: { Key: 'SERVICE', Values: [service] } }],
});

/** Errors with which an account says an opt-in query is not available to it (rather than a failed run). */
export const REFUSALS: ReadonlySet<string> = new Set(['ValidationException', 'DataUnavailableException', 'AccessDeniedException']);

/** Consecutive runs of the periods in `starts` (sorted) that are `unitMs` apart, as [start, end) pairs. */
export function contiguousRuns(starts: readonly number[], unitMs: number): [number, number][] {
  const runs: [number, number][] = [];
  for (const s of starts) {
    const last = runs[runs.length - 1];
    if (last && last[1] === s) last[1] = s + unitMs;
    else runs.push([s, s + unitMs]);
  }
  return runs;
}

/**
 * The window widened to whole UTC days and cut at today (nothing after today exists yet; today itself is a partial,
 * estimated day); the recent part hourly and resource-level data cover (today and the 13 days before), and the end
 * of the current hour.
 */
export function costWindowBounds(
  window: CostWindow,
  now: number,
): { startMs: number; endMs: number; recentStartMs: number; hourEndMs: number } {
  const startMs = Math.floor(window.startMs / DAY_MS) * DAY_MS;
  const todayMs = Math.floor(now / DAY_MS) * DAY_MS;
  const endMs = Math.min(Math.ceil(window.endMs / DAY_MS) * DAY_MS, todayMs + DAY_MS);
  const recentStartMs = Math.max(startMs, todayMs - (RECENT_DAYS - 1) * DAY_MS);
  const hourEndMs = Math.min(Math.ceil(window.endMs / HOUR_MS) * HOUR_MS, Math.floor(now / HOUR_MS) * HOUR_MS + HOUR_MS);
  return { startMs, endMs, recentStartMs, hourEndMs };
}

/** A query of the one-cluster set, named by its granularity and its dimension beside the NodePool tag. */
export type CostQueryName = `${CostGranularity} x ${CostGroupBy}`;

/**
 * The cluster's queries over the window; `only` keeps those named (an account of several clusters asks its DAILY
 * purchase type and EC2 - Other lines for all its clusters at once, and only the rest per cluster).
 */
export async function collectCostExplorer(
  deps: CostExplorerDeps,
  window: CostWindow,
  only?: readonly CostQueryName[],
): Promise<CostCollectResult> {
  const { startMs, endMs, recentStartMs, hourEndMs } = costWindowBounds(window, deps.now);

  const specs: QuerySpec[] = [
    {
      api: 'GetCostAndUsage',
      service: EC2_COMPUTE_SERVICE,
      granularity: 'DAILY',
      groupBy: 'PURCHASE_TYPE',
      startMs,
      endMs,
      optional: false,
    },
    {
      api: 'GetCostAndUsage',
      service: EC2_COMPUTE_SERVICE,
      granularity: 'DAILY',
      groupBy: 'INSTANCE_TYPE',
      startMs,
      endMs,
      optional: false,
    },
  ];
  if (deps.otherCosts ?? true)
    specs.push({
      api: 'GetCostAndUsage',
      service: EC2_OTHER_SERVICE,
      granularity: 'DAILY',
      groupBy: 'USAGE_TYPE',
      startMs,
      endMs,
      optional: false,
    });
  if (deps.hourly)
    specs.push({
      api: 'GetCostAndUsage',
      service: EC2_COMPUTE_SERVICE,
      granularity: 'HOURLY',
      groupBy: 'PURCHASE_TYPE',
      startMs: recentStartMs,
      endMs: hourEndMs,
      optional: true,
    });
  if (deps.resources)
    specs.push({
      api: 'GetCostAndUsageWithResources',
      service: EC2_COMPUTE_SERVICE,
      granularity: 'DAILY',
      groupBy: 'RESOURCE_ID',
      startMs: recentStartMs,
      endMs,
      optional: true,
    });

  const result: CostCollectResult = { requests: 0, linesWritten: 0, queries: [] };
  for (const spec of specs) {
    if (only !== undefined && !only.includes(label(spec))) continue;
    const query = await runQuery(deps, spec, result);
    result.queries.push(query);
  }
  return result;
}

async function runQuery(deps: CostExplorerDeps, spec: QuerySpec, total: CostCollectResult): Promise<CostQueryResult> {
  const lines = createCostLinesRepository(deps.db);
  const requests = createApiRequestsRepository(deps.db);
  const unitMs = spec.granularity === 'HOURLY' ? HOUR_MS : DAY_MS;
  const query: CostQueryResult = {
    api: spec.api,
    granularity: spec.granularity,
    groupBy: spec.groupBy,
    requested: null,
    ranges: [],
    requests: 0,
    lines: 0,
    finalSkipped: 0,
  };
  const key = { source: COST_EXPLORER_SOURCE, granularity: spec.granularity, groupBy: spec.groupBy };
  const clusterId = deps.clusterId ?? 1;
  const final = lines.finalPeriodStartsMs({ ...key, clusterId, fromMs: spec.startMs, toMs: spec.endMs });
  const wanted: number[] = [];
  for (let t = spec.startMs; t < spec.endMs; t += unitMs) {
    if (final.has(t)) query.finalSkipped += 1;
    else wanted.push(t);
  }
  const runs = contiguousRuns(wanted, unitMs);
  if (runs.length === 0) return query;
  query.ranges = runs.map(([s, e]) => ({ start: bound(s, spec.granularity), end: bound(e, spec.granularity) }));
  query.requested = { start: query.ranges[0].start, end: query.ranges[query.ranges.length - 1].end };

  const pages: ResultByTime[][] = [];
  for (const range of query.ranges) {
    let token: string | undefined;
    let page = 0;
    do {
      page += 1;
      const detail = { granularity: spec.granularity, groupBy: spec.groupBy, ...range, page };
      const record = (error?: string): void => {
        requests.recordApiRequest({
          runId: deps.runId ?? null,
          at: deps.now,
          service: 'ce',
          operation: spec.api,
          detail: JSON.stringify(error === undefined ? detail : { ...detail, error }),
        });
        query.requests += 1;
        total.requests += 1;
        deps.onRequest?.({ query: label(spec), page });
      };
      const input = {
        TimePeriod: { Start: range.start, End: range.end },
        Granularity: spec.granularity,
        Metrics: METRICS,
        Filter: clusterComputeFilter(deps.clusterName, deps.clusterTag, spec.service),
        GroupBy: [
          { Type: 'TAG' as const, Key: TAG_NODEPOOL },
          { Type: 'DIMENSION' as const, Key: spec.groupBy },
        ],
        NextPageToken: token,
      };
      let out: { ResultsByTime?: ResultByTime[]; NextPageToken?: string };
      try {
        out =
          spec.api === 'GetCostAndUsage'
            ? await deps.ce.send(new GetCostAndUsageCommand(input))
            : await deps.ce.send(new GetCostAndUsageWithResourcesCommand(input));
      } catch (err) {
        // A failed call is counted too (with its error). Nothing half-fetched is stored: an optional query the
        // account refuses is reported as unavailable; any other failure fails the run.
        const name = err instanceof Error ? err.name : String(err);
        record(name);
        if (spec.optional && REFUSALS.has(name)) {
          query.unavailable = `${name}: ${(err as Error).message}`;
          return query;
        }
        throw err;
      }
      record();
      pages.push(out.ResultsByTime ?? []);
      token = out.NextPageToken;
    } while (token);
  }

  // All pages first: a period's groups can span pages, and a period is replaced whole, in one transaction.
  const mapped = mapCostPeriods(mergePages(pages), { ...key, fetchedAt: deps.now, currency: deps.currency ?? 'USD' });
  query.lines = lines.replaceCostPeriods({ ...key, clusterId, fetchedAt: deps.now, periods: mapped.periods, lines: mapped.lines });
  total.linesWritten += query.lines;
  return query;
}
