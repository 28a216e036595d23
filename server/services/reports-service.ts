import { Requirement, type NodeSelectorRequirement } from '../../core/karpenter/requirements.js';
import { isRegionName, regionFacts } from '../../core/partitions.js';
import { staticTableFor } from '../../core/static-prices.js';
import type { CollectionRunRow, ReportsRepository, UsageStatusRow } from '../../db/repositories/reports-repository.js';
import type { PrometheusBackfillStatus } from '../../db/repositories/usage-repository.js';
import type { MetricsStatus } from '../../core/usage.js';
import { dailyCostTotals, hasCommitments, mergeDailyCost } from '../analytics/daily-cost.js';
import { chooseBucketMs, toEfficiencySeries } from '../analytics/efficiency.js';
import { nodePoolLimitUsage } from '../analytics/nodepool-limits.js';
import { dayCeil, dayFloor, defaultEndMs, DEFAULT_RANGE_DAYS, isoInstant, resolveRange, utcDay } from '../analytics/range.js';
import type { CollectionRun, FillStatus, PricingStatus, StatusResponse, StoreStatus, UsageStatus } from '../schemas/status.js';
import { DEFAULT_RAW_RETENTION, DEFAULT_RETENTION } from '../../core/retention.js';
import type { StoreFacts } from '../../db/repositories/retention-store-repository.js';
import type { DailyCostQuery, DailyCostResponse } from '../schemas/cost.js';
import type { EfficiencyResponse } from '../schemas/efficiency.js';
import type { NodePoolRequirement, NodePoolsResponse } from '../schemas/nodepools.js';
import type { RangeQuery } from '../schemas/common.js';
import { DAY_MS } from '../../core/time.js';
import { clusterFreshness } from '../analytics/cluster-freshness.js';
import { usageAcrossClusters } from '../analytics/usage-across-clusters.js';
import type { ClusterFreshness } from '../schemas/clusters.js';

/** Snapshots per cluster the cadence is worked from. */
const CADENCE_SNAPSHOTS = 7;

/** Each cluster of the ledger with its freshness (GET /api/clusters, /api/status). */
export function clustersFreshness(repo: ReportsRepository): ClusterFreshness[];
/** The same, each with its usage status (GET /api/status). */
export function clustersFreshness<U>(repo: ReportsRepository, usageOf: (clusterId: number) => U): (ClusterFreshness & { usage: U })[];
export function clustersFreshness<U>(repo: ReportsRepository, usageOf?: (clusterId: number) => U): ClusterFreshness[] {
  const rows = repo.clusterSnapshots(CADENCE_SNAPSHOTS);
  const fresh = clusterFreshness(rows);
  return rows.map((c, i) => {
    const f = fresh[i];
    return {
      ...(usageOf === undefined ? {} : { usage: usageOf(c.id) }),
      name: c.name,
      account: c.account,
      region: c.region,
      lastSnapshotAt: f?.lastSnapshotMs == null ? null : isoInstant(f.lastSnapshotMs),
      cadenceSeconds: f?.cadenceMs == null ? null : f.cadenceMs / 1000,
      stale: f?.stale ?? false,
      lastRun: c.lastRun === null ? null : toRun(c.lastRun),
    };
  });
}

/** /api/status's top-level usage: a one-cluster ledger's as before; with several, every cluster's summed up. */
function usageOfLedger(repo: ReportsRepository, clusters: StatusResponse['clusters']): UsageStatus {
  const each = clusters.flatMap((c) => (c.usage === undefined ? [] : [{ name: c.name, usage: c.usage }]));
  return clusters.length < 2 ? usageStatus(repo.usageStatus()) : usageAcrossClusters(each);
}

/**
 * The clusters of /api/status: with several, each with its own usage status (the banner names a cluster whose usage
 * source fails); a one-cluster ledger's as before (its usage is the top-level `usage`).
 */
function clustersWithUsage(repo: ReportsRepository): StatusResponse['clusters'] {
  const clusters = clustersFreshness(repo, (id) => usageStatus(repo.clusterUsageStatus(id)));
  return clusters.length < 2 ? clusters.map(({ usage: _, ...c }) => c) : clusters;
}

const toRun = (r: CollectionRunRow): CollectionRun => ({
  kind: r.kind,
  source: r.source,
  status: r.status,
  startedAt: isoInstant(r.startedAtMs),
  finishedAt: r.finishedAtMs === null ? null : isoInstant(r.finishedAtMs),
  rowsWritten: r.rowsWritten,
  message: r.message,
});

const requirementView = (r: NodeSelectorRequirement): NodePoolRequirement => ({
  key: r.key,
  operator: r.operator,
  values: r.values,
  minValues: r.minValues ?? null,
  text: Requirement.of(r).describe(),
});

/** The cluster's partition facts and the currency of the stored amounts (the newest snapshot's, else the region's). */
export function pricingStatus(repo: ReportsRepository): PricingStatus {
  const region = repo.clusterRegion();
  const facts = region !== null && isRegionName(region) ? regionFacts(region) : null;
  const stored = repo.newestSnapshotCurrency();
  return {
    currency: stored === 'CNY' || (stored === null && facts?.currency === 'CNY') ? 'CNY' : 'USD',
    region: facts?.region ?? null,
    partition: facts?.partition ?? null,
    pricingEndpoint: facts?.pricing.region ?? null,
    pricingSkipped: facts && facts.pricing.region === null ? facts.pricing.why : null,
    staticTable: facts ? (staticTableFor(facts.region)?.region ?? null) : null,
  };
}

/** The stored usage status as the API says it (settings JSON read defensively: a malformed value reads as none). */
function usageStatus(u: UsageStatusRow): UsageStatus {
  const parse = <T>(text: string | null): T | null => {
    if (text === null) return null;
    try {
      return JSON.parse(text) as T;
    } catch {
      return null;
    }
  };
  const m = parse<MetricsStatus>(u.metricsServer);
  const p = parse<PrometheusBackfillStatus>(u.prometheus);
  return {
    metricsServer: m === null ? null : { state: m.state, message: m.message, checkedAt: isoInstant(m.checkedAt) },
    snapshots: u.snapshots,
    snapshotsWithUsage: u.withUsage,
    lastUsageAt: u.lastUsageAt === null ? null : isoInstant(u.lastUsageAt),
    prometheus:
      p === null
        ? null
        : {
            url: p.url,
            ok: p.ok,
            message: p.message,
            at: isoInstant(p.at),
            from: isoInstant(p.fromMs),
            to: isoInstant(p.toMs),
            requests: p.requests,
            series: p.series,
            rollupsWritten: p.rollupsWritten,
          },
  };
}

/** The file and its retention as the API says them (unset settings read as their defaults). */
function storeStatus(f: StoreFacts): StoreStatus {
  const iso = (ms: number | null): string | null => (ms === null ? null : isoInstant(ms));
  const r = f.lastRun;
  return {
    fileBytes: f.fileBytes,
    freeBytes: f.freeBytes,
    autoVacuum: f.autoVacuum,
    rawRetention: f.rawRetention ?? DEFAULT_RAW_RETENTION,
    retention: f.retention ?? DEFAULT_RETENTION,
    rawFrom: iso(f.oldestRawMs),
    hourlyFrom: iso(f.oldestHourlyMs),
    hourlyTo: iso(f.hourlyEndMs),
    lastRun:
      r === null
        ? null
        : {
            at: isoInstant(r.at),
            folded: r.folded,
            pending: r.pending,
            deleted: r.deleted,
            pagesFreed: r.pagesFreed,
            longestTransactionMs: r.longestTransactionMs,
            rawBoundary: isoInstant(r.rawBoundaryMs),
            horizon: isoInstant(r.horizonMs),
            error: r.error,
          },
  };
}

/** The overview's reports: repository rows through the pure analytics into API responses. */
export function createReportsService(
  repo: ReportsRepository,
  now: () => number = Date.now,
  /** The demo's fill behind the dashboard (cli/demo-fill.ts); absent from `serve`. */
  fill: () => FillStatus | null = () => null,
) {
  const extent = () => {
    const r = repo.dataRange();
    return { range: r, extent: { lastSnapshotMs: r.lastSnapshotMs, lastCostDayMs: r.lastCostDayMs } };
  };
  const range = (query: RangeQuery, clusterId: number | null) => {
    const { fromMs, toMs } = resolveRange(query, extent().extent, now());
    return { fromMs, toMs, nodePool: query.nodepool, clusterId };
  };

  return {
    status(): StatusResponse {
      const { range: r, extent: e } = extent();
      const endMs = defaultEndMs(e, now());
      const lastRun = repo.lastRun();
      const clusters = clustersWithUsage(repo);
      return {
        dataSource: lastRun?.source ?? 'unknown',
        range: {
          firstSnapshotAt: r.firstSnapshotMs === null ? null : isoInstant(r.firstSnapshotMs),
          lastSnapshotAt: r.lastSnapshotMs === null ? null : isoInstant(r.lastSnapshotMs),
          firstCostDay: r.firstCostDayMs === null ? null : utcDay(r.firstCostDayMs),
          lastCostDay: r.lastCostDayMs === null ? null : utcDay(r.lastCostDayMs),
        },
        defaultRange: { from: isoInstant(endMs - DEFAULT_RANGE_DAYS * DAY_MS), to: isoInstant(endMs) },
        lastRun: lastRun === null ? null : toRun(lastRun),
        lastRunByKind: repo.lastRunPerKind().map(toRun),
        counts: { snapshots: r.snapshotCount, nodePools: r.nodePoolCount, costLines: r.costLineCount },
        pricing: pricingStatus(repo),
        usage: usageOfLedger(repo, clusters),
        store: storeStatus(repo.storeFacts()),
        fill: fill(),
        clusters,
      };
    },

    clusters: () => ({ clusters: clustersFreshness(repo) }),

    /** Each NodePool's spec as last collected, its limits against the capacity of its nodes at the newest snapshot. */
    nodePools(clusterId: number | null = null): NodePoolsResponse {
      const capacity = repo.nodePoolCapacity(clusterId);
      const at = capacity.snapshotMs === null ? null : isoInstant(capacity.snapshotMs);
      return {
        items: repo.nodePools(clusterId).map((n) => {
          const { usage, ...limits } = nodePoolLimitUsage(
            n.limits,
            capacity.groups.filter((g) => g.nodePool === n.name),
          );
          return {
            name: n.name,
            weight: n.weight,
            consolidationPolicy: n.consolidationPolicy,
            consolidateAfter: n.consolidateAfter,
            expireAfter: n.expireAfter,
            capacityTypes: n.capacityTypes,
            requirements: n.requirements.map(requirementView),
            budgets: n.budgets,
            limits,
            usage: { at, ...usage },
            nodeClass: n.nodeClass,
            updatedAt: isoInstant(n.updatedAtMs),
          };
        }),
      };
    },

    /** Whole UTC days: from rounded down, to rounded up to midnight. */
    dailyCost(query: DailyCostQuery, clusterId: number | null = null): DailyCostResponse {
      const r = range(query, clusterId);
      const days = { fromMs: dayFloor(r.fromMs), toMs: dayCeil(r.toMs), nodePool: r.nodePool, clusterId };
      const bill = repo.billByDay(days);
      const commitments = hasCommitments(bill);
      const metric = query.metric ?? (commitments ? 'amortized' : 'unblended');
      const rows = mergeDailyCost(bill, repo.estimateByDay(days), metric);
      return {
        from: utcDay(days.fromMs),
        to: utcDay(days.toMs),
        currency: pricingStatus(repo).currency,
        metric,
        commitments,
        rows,
        totals: dailyCostTotals(rows),
      };
    },

    efficiency(query: RangeQuery, clusterId: number | null = null): EfficiencyResponse {
      const r = range(query, clusterId);
      const bucketMs = chooseBucketMs(r.toMs - r.fromMs);
      const series = toEfficiencySeries(repo.efficiencyBuckets({ ...r, bucketMs }), repo.usageBuckets({ ...r, bucketMs }));
      return { from: isoInstant(r.fromMs), to: isoInstant(r.toMs), bucketMs, series };
    },
  };
}

export type ReportsService = ReturnType<typeof createReportsService>;
