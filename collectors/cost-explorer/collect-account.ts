import {
  type CostExplorerClient,
  type Expression,
  GetCostAndUsageCommand,
  type GroupDefinition,
  type ResultByTime,
} from '@aws-sdk/client-cost-explorer';
import { TAG_CLUSTER_NAME, TAG_NODEPOOL } from '../../core/labels.js';
import type { Currency } from '../../core/partitions.js';
import { DAY_MS, HOUR_MS } from '../../core/time.js';
import { createApiRequestsRepository } from '../../db/repositories/api-requests-repository.js';
import { type CostLine, type CostPeriodFetched, createCostLinesRepository } from '../../db/repositories/cost-lines-repository.js';
import type { Db } from '../../db/open-db.js';
import {
  COST_EXPLORER_SOURCE,
  COST_METRICS,
  type CostCollectResult,
  type CostQueryResult,
  collectCostExplorer,
  contiguousRuns,
  type CostQueryName,
  costWindowBounds,
  EC2_COMPUTE_SERVICE,
  REFUSALS,
  EC2_OTHER_SERVICE,
} from './collect.js';
import { eachBounded } from '../each-bounded.js';
import { mergePages, type MergedPeriod, periodStartMs, tagValueOfKey } from './map.js';

/**
 * Cost Explorer for several clusters of one account (`collect --clusters`): one paged sequence per query for all
 * the account's clusters, never one per cluster. GetCostAndUsage takes at most two GroupBy, so the cluster tag
 * and the NodePool tag fill them, and the purchase type is a filter:
 *
 * 1. DAILY, Filter cluster tag IN (the clusters) and EC2 compute, GroupBy [cluster tag, PURCHASE_TYPE]: each
 *    cluster's purchase types and its total per day (the coverage rows).
 * 2. For each purchase type seen: the same filter AND PURCHASE_TYPE = it, GroupBy [cluster tag, NodePool tag]: the
 *    lines, stored as today's PURCHASE_TYPE lines (NodePool x purchase type), each under its cluster's id.
 * 3. EC2 - Other, GroupBy [cluster tag, NodePool tag]: the NodePool's volumes and data transfer, one USAGE_TYPE line
 *    per NodePool (dimension value "EC2 - Other": the usage types are not split per cluster here).
 *
 * Then each cluster's finer lines, which need three keys (cluster, NodePool and a dimension) where a request
 * groups by two. Every way of asking returns at least one slot per line (no two of the three keys determine the
 * third), so the fewest requests are the fewest paged sequences: the third key goes to the filter, one sequence per
 * value, choosing the key with fewer values.
 * 4. DAILY x INSTANCE_TYPE: one sequence per cluster (filter cluster tag = it, GroupBy [NodePool tag,
 *    INSTANCE_TYPE], the one-cluster query). Filtering per instance type instead would take one sequence per type
 *    (tens), per NodePool name one per name across the account and an ABSENT filter for untagged instances.
 * 5. HOURLY (the last 14 days, an opt-in): one sequence per purchase type (filter PURCHASE_TYPE = it, GroupBy
 *    [cluster tag, NodePool tag], as in 2) when the account has fewer purchase types than clusters over those days
 *    (two, on-demand and spot, against three clusters or more), else one per cluster (the one-cluster query). On a
 *    tie the pages differ only by rounding and by the empty hours each sequence carries (an hour without a group is
 *    a slot too), which cannot be known before asking: per cluster then, the one-cluster ledger's requests exactly
 *    (the two-cluster sandbox: 4 + 2 pages per cluster against 5 + 2 per purchase type). The purchase types are
 *    those of the DAILY lines just stored (2) over the hours' days: asking Cost Explorer for them hourly would be
 *    another sequence of 24 slots a day.
 * 6. Per instance (GetCostAndUsageWithResources, the last 14 days, an opt-in): one sequence per cluster (the
 *    one-cluster query). An instance is one cluster's and one NodePool's, so [cluster tag, RESOURCE_ID] beside
 *    [NodePool tag, RESOURCE_ID] over the whole account (two sequences) would join, but at twice the slots: more
 *    pages than one sequence per cluster as soon as the instances fill more pages than there are clusters.
 *
 * The per-cluster sequences of 4-6 run SEQUENCES_AT_ONCE at once after the first cluster's (which alone tells whether
 * the account refuses an opt-in); their results are added in the clusters' order.
 *
 * A one-cluster account keeps collectCostExplorer's queries.
 */

const METRICS = [...COST_METRICS, 'UsageQuantity'];

/**
 * The per-cluster sequences (4-6) run a few at once: each page is a round trip to us-east-1, and ten clusters' add
 * twenty or more sequences to the account's. The first cluster's runs alone (it tells whether the account refuses an
 * opt-in, which no other cluster is then asked); a few, not all, for Cost Explorer's per-account request rate.
 */
export const SEQUENCES_AT_ONCE = 3;
const GROUP_CLUSTER_NODEPOOL = (clusterTag: string): GroupDefinition[] => [
  { Type: 'TAG', Key: clusterTag },
  { Type: 'TAG', Key: TAG_NODEPOOL },
];

export interface AccountCluster {
  id: number;
  name: string;
}

export interface AccountCostDeps {
  db: Db;
  ce: CostExplorerClient;
  currency?: Currency;
  /** The account's clusters (two or more; their names are the cluster tag's values). */
  clusters: readonly AccountCluster[];
  now: number;
  runId?: number | null;
  /** The tag key naming the cluster on every line (default eks:eks-cluster-name). */
  clusterTagKey?: string;
  otherCosts?: boolean;
  /** Also HOURLY x purchase type per cluster for the last 14 days (an account opt-in). */
  hourly?: boolean;
  /**
   * How HOURLY is split: one sequence per purchase type or per cluster. Default: per purchase type when there are
   * fewer of them than clusters (step 5). Set only to test either way on a sandbox of two clusters.
   */
  hourlySplit?: 'purchase-type' | 'cluster';
  /** Also per-instance DAILY lines per cluster for the last 14 days (GetCostAndUsageWithResources, an account opt-in). */
  resources?: boolean;
  /** The per-cluster sequences (4-6) run at most this many at once after the first cluster's; default SEQUENCES_AT_ONCE. */
  sequencesAtOnce?: number;
  onRequest?: (r: { query: string; page: number }) => void;
}

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Sends one query over each range, following NextPageToken; every request recorded. All pages are returned. */
async function paged(
  deps: AccountCostDeps,
  granularity: 'DAILY' | 'HOURLY',
  label: string,
  ranges: readonly { start: string; end: string }[],
  filter: Expression,
  groupBy: GroupDefinition[],
  total: CostCollectResult,
): Promise<MergedPeriod[]> {
  const requests = createApiRequestsRepository(deps.db);
  const pages: ResultByTime[][] = [];
  for (const range of ranges) {
    let token: string | undefined;
    let page = 0;
    do {
      page += 1;
      const out = await deps.ce
        .send(
          new GetCostAndUsageCommand({
            TimePeriod: { Start: range.start, End: range.end },
            Granularity: granularity,
            Metrics: METRICS,
            Filter: filter,
            GroupBy: groupBy,
            NextPageToken: token,
          }),
        )
        .catch((err: unknown) => {
          const name = err instanceof Error ? err.name : String(err);
          requests.recordApiRequest({
            runId: deps.runId ?? null,
            at: deps.now,
            service: 'ce',
            operation: 'GetCostAndUsage',
            detail: JSON.stringify({ query: label, granularity, ...range, page, error: name }),
          });
          throw err;
        });
      requests.recordApiRequest({
        runId: deps.runId ?? null,
        at: deps.now,
        service: 'ce',
        operation: 'GetCostAndUsage',
        detail: JSON.stringify({ query: label, granularity, ...range, page }),
      });
      total.requests += 1;
      deps.onRequest?.({ query: label, page });
      pages.push(out.ResultsByTime ?? []);
      token = out.NextPageToken;
    } while (token);
  }
  return mergePages(pages);
}

function amount(metrics: Record<string, { Amount?: string; Unit?: string }>, name: string): number | null {
  const text = metrics[name]?.Amount;
  if (text === undefined) return null;
  const v = Number(text);
  if (!Number.isFinite(v)) throw new Error(`Cost Explorer returned a non-numeric ${name}: ${text}`);
  return v;
}

export async function collectAccountCostExplorer(
  deps: AccountCostDeps,
  window: { startMs: number; endMs: number },
): Promise<CostCollectResult> {
  const clusterTag = deps.clusterTagKey ?? TAG_CLUSTER_NAME;
  const idOf = new Map(deps.clusters.map((c) => [c.name, c.id]));
  const clusterOf = (key: string | undefined): number => {
    const name = key === undefined ? null : tagValueOfKey(key, clusterTag);
    const id = name === null ? undefined : idOf.get(name);
    if (id === undefined)
      throw new Error(`unexpected Cost Explorer group key ${JSON.stringify(key)} (expected ${clusterTag}$<one of the account's clusters>)`);
    return id;
  };
  const nodePoolOf = (key: string | undefined): string => {
    const v = key === undefined ? null : tagValueOfKey(key);
    if (v === null) throw new Error(`unexpected Cost Explorer group key ${JSON.stringify(key)} (expected ${TAG_NODEPOOL}$value)`);
    return v;
  };
  const currency = deps.currency ?? 'USD';
  const lines = createCostLinesRepository(deps.db);
  const result: CostCollectResult = { requests: 0, linesWritten: 0, queries: [] };

  const { startMs, endMs, recentStartMs, hourEndMs } = costWindowBounds(window, deps.now);
  const clustersIn: Expression = { Tags: { Key: clusterTag, Values: deps.clusters.map((c) => c.name) } };
  const service = (s: string): Expression => ({ Dimensions: { Key: 'SERVICE', Values: [s] } });

  /** The days not yet final for every cluster of the account (a day final for all of them is never asked again). */
  const wantedRanges = (
    groupBy: 'PURCHASE_TYPE' | 'USAGE_TYPE',
    granularity: 'DAILY' | 'HOURLY' = 'DAILY',
    fromMs = startMs,
    toMs = endMs,
  ): { ranges: { start: string; end: string }[]; skipped: number } => {
    const finals = deps.clusters.map((c) =>
      lines.finalPeriodStartsMs({ source: COST_EXPLORER_SOURCE, granularity, groupBy, fromMs, toMs, clusterId: c.id }),
    );
    const unitMs = granularity === 'HOURLY' ? HOUR_MS : DAY_MS;
    const bound = (ms: number): string => (granularity === 'HOURLY' ? `${new Date(ms).toISOString().slice(0, 19)}Z` : day(ms));
    const wanted: number[] = [];
    let skipped = 0;
    for (let t = fromMs; t < toMs; t += unitMs) {
      if (finals.every((f) => f.has(t))) skipped += 1;
      else wanted.push(t);
    }
    return { ranges: contiguousRuns(wanted, unitMs).map(([s, e]) => ({ start: bound(s), end: bound(e) })), skipped };
  };

  /** Writes each cluster's lines and its coverage rows (its own total per period) for the periods fetched. */
  const store = (
    granularity: 'DAILY' | 'HOURLY',
    groupBy: 'PURCHASE_TYPE' | 'USAGE_TYPE',
    periods: readonly MergedPeriod[],
    byCluster: Map<number, { lines: CostLine[]; totals: Map<string, number> }>,
  ): number => {
    let written = 0;
    for (const c of deps.clusters) {
      const mine = byCluster.get(c.id);
      const fetched: CostPeriodFetched[] = periods.map((p) => ({
        periodStart: p.start,
        periodStartMs: periodStartMs(p.start),
        estimated: p.estimated,
        totalUnblendedUsd: mine?.totals.get(p.start) ?? 0,
      }));
      written += lines.replaceCostPeriods({
        source: COST_EXPLORER_SOURCE,
        granularity,
        groupBy,
        fetchedAt: deps.now,
        periods: fetched,
        lines: mine?.lines ?? [],
        clusterId: c.id,
      });
    }
    return written;
  };
  const line = (
    granularity: 'DAILY' | 'HOURLY',
    p: MergedPeriod,
    groupBy: 'PURCHASE_TYPE' | 'USAGE_TYPE',
    nodePool: string,
    dimensionValue: string,
    metrics: Record<string, { Amount?: string; Unit?: string }>,
  ): CostLine => {
    const unit = metrics.UnblendedCost?.Unit;
    if (unit !== undefined && unit !== currency)
      throw new Error(
        `Cost Explorer answered in ${unit}, but the clusters' prices are in ${currency}: amounts in two currencies are not mixed`,
      );
    return {
      source: COST_EXPLORER_SOURCE,
      granularity,
      periodStart: p.start,
      periodStartMs: periodStartMs(p.start),
      groupBy,
      nodePool,
      dimensionValue,
      unblendedUsd: amount(metrics, 'UnblendedCost') ?? 0,
      amortizedUsd: amount(metrics, 'AmortizedCost'),
      netUnblendedUsd: amount(metrics, 'NetUnblendedCost'),
      netAmortizedUsd: amount(metrics, 'NetAmortizedCost'),
      usageQuantity: amount(metrics, 'UsageQuantity'),
      usageUnit: metrics.UsageQuantity?.Unit ?? null,
      estimated: p.estimated,
      fetchedAt: deps.now,
      currency,
    };
  };
  const bucket = (m: Map<number, { lines: CostLine[]; totals: Map<string, number> }>, id: number) => {
    let b = m.get(id);
    if (!b) {
      b = { lines: [], totals: new Map() };
      m.set(id, b);
    }
    return b;
  };

  // 1 and 2: compute, NodePool x purchase type per cluster.
  {
    const { ranges, skipped } = wantedRanges('PURCHASE_TYPE');
    const before = result.requests;
    let written = 0;
    if (ranges.length > 0) {
      const compute: Expression = { And: [clustersIn, service(EC2_COMPUTE_SERVICE)] };
      const split = await paged(
        deps,
        'DAILY',
        'DAILY x [cluster, PURCHASE_TYPE]',
        ranges,
        compute,
        [
          { Type: 'TAG', Key: clusterTag },
          { Type: 'DIMENSION', Key: 'PURCHASE_TYPE' },
        ],
        result,
      );
      const byCluster = new Map<number, { lines: CostLine[]; totals: Map<string, number> }>();
      const purchaseTypes = new Set<string>();
      for (const p of split)
        for (const g of p.groups) {
          const b = bucket(byCluster, clusterOf(g.keys[0]));
          const type = g.keys[1];
          if (type === undefined) throw new Error(`unexpected Cost Explorer group keys ${JSON.stringify(g.keys)}`);
          purchaseTypes.add(type);
          b.totals.set(p.start, (b.totals.get(p.start) ?? 0) + (amount(g.metrics, 'UnblendedCost') ?? 0));
        }
      for (const type of [...purchaseTypes].sort()) {
        const filter: Expression = {
          And: [clustersIn, service(EC2_COMPUTE_SERVICE), { Dimensions: { Key: 'PURCHASE_TYPE', Values: [type] } }],
        };
        const periods = await paged(
          deps,
          'DAILY',
          `DAILY x [cluster, nodepool] (${type})`,
          ranges,
          filter,
          GROUP_CLUSTER_NODEPOOL(clusterTag),
          result,
        );
        for (const p of periods)
          for (const g of p.groups)
            bucket(byCluster, clusterOf(g.keys[0])).lines.push(line('DAILY', p, 'PURCHASE_TYPE', nodePoolOf(g.keys[1]), type, g.metrics));
      }
      written = store('DAILY', 'PURCHASE_TYPE', split, byCluster);
    }
    result.linesWritten += written;
    result.queries.push({
      api: 'GetCostAndUsage',
      granularity: 'DAILY',
      groupBy: 'PURCHASE_TYPE',
      requested: ranges.length === 0 ? null : { start: ranges[0].start, end: ranges[ranges.length - 1].end },
      ranges,
      requests: result.requests - before,
      lines: written,
      finalSkipped: skipped,
    });
  }

  // 3: EC2 - Other per cluster and NodePool.
  if (deps.otherCosts ?? true) {
    const { ranges, skipped } = wantedRanges('USAGE_TYPE');
    const before = result.requests;
    let written = 0;
    if (ranges.length > 0) {
      const filter: Expression = { And: [clustersIn, service(EC2_OTHER_SERVICE)] };
      const periods = await paged(
        deps,
        'DAILY',
        'DAILY x [cluster, nodepool] (EC2 - Other)',
        ranges,
        filter,
        GROUP_CLUSTER_NODEPOOL(clusterTag),
        result,
      );
      const byCluster = new Map<number, { lines: CostLine[]; totals: Map<string, number> }>();
      for (const p of periods)
        for (const g of p.groups) {
          const b = bucket(byCluster, clusterOf(g.keys[0]));
          const l = line('DAILY', p, 'USAGE_TYPE', nodePoolOf(g.keys[1]), EC2_OTHER_SERVICE, g.metrics);
          b.lines.push(l);
          b.totals.set(p.start, (b.totals.get(p.start) ?? 0) + l.unblendedUsd);
        }
      written = store('DAILY', 'USAGE_TYPE', periods, byCluster);
    }
    result.linesWritten += written;
    result.queries.push({
      api: 'GetCostAndUsage',
      granularity: 'DAILY',
      groupBy: 'USAGE_TYPE',
      requested: ranges.length === 0 ? null : { start: ranges[0].start, end: ranges[ranges.length - 1].end },
      ranges,
      requests: result.requests - before,
      lines: written,
      finalSkipped: skipped,
    });
  }

  // 4-6: the finer lines, per cluster where the third key is the cluster (see the top of the file). The first
  // cluster's sequence alone, then the others' a few at once (each cluster's lines are its own rows).
  const perCluster = async (only: CostQueryName[]): Promise<void> => {
    const one = (c: AccountCluster): Promise<CostCollectResult> =>
      collectCostExplorer(
        {
          db: deps.db,
          ce: deps.ce,
          currency,
          clusterName: c.name,
          clusterId: c.id,
          clusterTag: { key: clusterTag, value: c.name },
          now: deps.now,
          runId: deps.runId,
          hourly: deps.hourly,
          resources: deps.resources,
          onRequest: deps.onRequest,
        },
        window,
        only,
      );
    const done: (CostCollectResult | undefined)[] = [];
    const add = (c: AccountCluster, r: CostCollectResult): void => {
      result.requests += r.requests;
      result.linesWritten += r.linesWritten;
      for (const q of r.queries) result.queries.push({ ...q, cluster: c.name });
    };
    const [first, ...rest] = deps.clusters;
    const firstResult = await one(first);
    add(first, firstResult);
    // An account that refuses an opt-in refuses it for every cluster: the others are not asked.
    if (firstResult.queries.some((q) => q.unavailable !== undefined)) return;
    try {
      await eachBounded(rest, deps.sequencesAtOnce ?? SEQUENCES_AT_ONCE, async (c, i) => {
        done[i] = await one(c);
      });
    } finally {
      // In the clusters' order, whatever order their sequences ended in; those that finished before a failure count.
      rest.forEach((c, i) => {
        const r = done[i];
        if (r !== undefined) add(c, r);
      });
    }
  };
  await perCluster(['DAILY x INSTANCE_TYPE']);

  if (deps.hourly) {
    const types = lines.dimensionValuesIn({
      source: COST_EXPLORER_SOURCE,
      granularity: 'DAILY',
      groupBy: 'PURCHASE_TYPE',
      fromMs: recentStartMs,
      toMs: endMs,
      clusterIds: deps.clusters.map((c) => c.id),
    });
    const split = deps.hourlySplit ?? (types.length < deps.clusters.length ? 'purchase-type' : 'cluster');
    if (split === 'cluster') await perCluster(['HOURLY x PURCHASE_TYPE']);
    else await hourlyByPurchaseType(types);
  }
  if (deps.resources) await perCluster(['DAILY x RESOURCE_ID']);
  return result;

  /** 5: HOURLY, one sequence per purchase type, GroupBy [cluster tag, NodePool tag]; stored per cluster. */
  async function hourlyByPurchaseType(types: readonly string[]): Promise<void> {
    const { ranges, skipped } = wantedRanges('PURCHASE_TYPE', 'HOURLY', recentStartMs, hourEndMs);
    const query: CostQueryResult = {
      api: 'GetCostAndUsage',
      granularity: 'HOURLY',
      groupBy: 'PURCHASE_TYPE',
      requested: ranges.length === 0 ? null : { start: ranges[0].start, end: ranges[ranges.length - 1].end },
      ranges,
      requests: 0,
      lines: 0,
      finalSkipped: skipped,
    };
    result.queries.push(query);
    // No purchase type over those days (no compute): nothing to ask; the hours are asked again next run.
    if (ranges.length === 0 || types.length === 0) return;
    const before = result.requests;
    const byCluster = new Map<number, { lines: CostLine[]; totals: Map<string, number> }>();
    const periods = new Map<string, MergedPeriod>();
    try {
      for (const type of types) {
        const filter: Expression = {
          And: [clustersIn, service(EC2_COMPUTE_SERVICE), { Dimensions: { Key: 'PURCHASE_TYPE', Values: [type] } }],
        };
        const got = await paged(
          deps,
          'HOURLY',
          `HOURLY x [cluster, nodepool] (${type})`,
          ranges,
          filter,
          GROUP_CLUSTER_NODEPOOL(clusterTag),
          result,
        );
        for (const p of got) {
          const seen = periods.get(p.start);
          if (seen) seen.estimated ||= p.estimated;
          else periods.set(p.start, { start: p.start, estimated: p.estimated, groups: [] });
          for (const g of p.groups) {
            const b = bucket(byCluster, clusterOf(g.keys[0]));
            const l = line('HOURLY', p, 'PURCHASE_TYPE', nodePoolOf(g.keys[1]), type, g.metrics);
            b.lines.push(l);
            b.totals.set(p.start, (b.totals.get(p.start) ?? 0) + l.unblendedUsd);
          }
        }
      }
    } catch (err) {
      query.requests = result.requests - before;
      const name = err instanceof Error ? err.name : String(err);
      // As for one cluster: an account that has not opted in is told apart from a failed run; nothing is stored.
      if (REFUSALS.has(name)) {
        query.unavailable = `${name}: ${(err as Error).message}`;
        return;
      }
      throw err;
    }
    query.requests = result.requests - before;
    query.lines = store('HOURLY', 'PURCHASE_TYPE', [...periods.values()], byCluster);
    result.linesWritten += query.lines;
  }
}
