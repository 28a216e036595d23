import type { Currency } from '../../core/partitions.js';
import type { Db } from '../open-db.js';
import { DAY_MS } from '../../core/time.js';

/**
 * All SQL for cost_lines: Cost Explorer (or CSV) lines, money in USD.
 *
 * Besides the lines, each fetched period leaves one coverage row (source `<source>:coverage`, nodepool '',
 * dimension_value '', unblended_usd = the period's total): it records that the period was fetched and whether
 * Cost Explorer called it final, even when the period had no cost at all, so an incremental sync never asks
 * again for a final day. Its own source keeps it out of every query on real lines.
 */

export type CostGranularity = 'DAILY' | 'HOURLY' | 'MONTHLY';
/** The second grouping of the query that produced the line (the first is always the NodePool tag). */
export type CostGroupBy = 'PURCHASE_TYPE' | 'INSTANCE_TYPE' | 'RESOURCE_ID' | 'USAGE_TYPE';

export interface CostLine {
  source: string;
  granularity: CostGranularity;
  /** As Cost Explorer gives it: 2026-11-01 or 2026-11-01T00:00:00Z. */
  periodStart: string;
  periodStartMs: number;
  groupBy: CostGroupBy;
  /** '' = untagged (kept, never dropped). */
  nodePool: string;
  /** The purchase type, instance type or instance id. */
  dimensionValue: string;
  unblendedUsd: number;
  amortizedUsd: number | null;
  /** NetUnblendedCost / NetAmortizedCost (after credits and private discounts); null = not fetched (before migration 0014). */
  netUnblendedUsd?: number | null;
  netAmortizedUsd?: number | null;
  usageQuantity: number | null;
  usageUnit: string | null;
  estimated: boolean;
  fetchedAt: number;
  /** The currency of the amounts, as Cost Explorer gives it (CNY for a China account); absent = USD. */
  currency?: Currency;
}

/** One fetched period of one query. */
export interface CostPeriodFetched {
  periodStart: string;
  periodStartMs: number;
  estimated: boolean;
  totalUnblendedUsd: number;
}

export interface CostPeriodBatch {
  source: string;
  granularity: CostGranularity;
  groupBy: CostGroupBy;
  fetchedAt: number;
  periods: CostPeriodFetched[];
  /** Lines of exactly these periods (same source, granularity, groupBy). */
  lines: CostLine[];
  /** The cluster the lines are of (rule A: the cluster joins the key); default 1, a one-cluster ledger's. */
  clusterId?: number;
}

/** Cost of one NodePool for one UTC day and purchase type (USD, from PURCHASE_TYPE lines). */
export interface NodePoolDayCost {
  dayMs: number;
  day: string;
  nodePool: string;
  purchaseType: string;
  unblendedUsd: number;
  amortizedUsd: number | null;
  usageQuantity: number | null;
  /** True when any line of the day is still an estimate. */
  estimated: boolean;
}

/**
 * One instance's Cost Explorer cost over a range (per-instance lines, GetCostAndUsageWithResources), joined to
 * the NodeClaim (and Node) that ran as that instance. Instances no NodeClaim is known for (a managed node group's,
 * or gone before the first snapshot) keep their own line, never dropped.
 */
export interface NodeClaimCost {
  instanceId: string;
  /** The NodeClaim launched as this instance; null when none is known. */
  nodeClaim: string | null;
  nodeName: string | null;
  /** From the NodeClaim or Node, else the bill's karpenter.sh/nodepool tag; '' = none (untagged). */
  nodePool: string;
  instanceType: string | null;
  capacityType: string | null;
  unblendedUsd: number;
  amortizedUsd: number | null;
  /** Σ UsageQuantity (hours for EC2 instances); null when the lines did not carry it. */
  usageHours: number | null;
  /** True when any day is still an estimate. */
  estimated: boolean;
  /** UTC day starts (epoch ms) of the first and last day with cost in the range. */
  firstDayMs: number;
  lastDayMs: number;
}

export const coverageSource = (source: string): string => `${source}:coverage`;

interface RawLine {
  source: string;
  granularity: CostGranularity;
  period_start: string;
  period_start_ms: number;
  group_by: CostGroupBy;
  nodepool: string;
  dimension_value: string;
  unblended_usd: number;
  amortized_usd: number | null;
  net_unblended_usd: number | null;
  net_amortized_usd: number | null;
  usage_quantity: number | null;
  usage_unit: string | null;
  estimated: number;
  fetched_at: number;
  currency: string;
}
interface RawNodeClaimCost {
  instance_id: string;
  nodeclaim: string | null;
  node_name: string | null;
  nodepool: string;
  instance_type: string | null;
  capacity_type: string | null;
  unblended: number;
  amortized: number | null;
  usage: number | null;
  estimated: number;
  first_ms: number;
  last_ms: number;
}
interface RawDay {
  day_ms: number;
  nodepool: string;
  purchase_type: string;
  unblended: number;
  amortized: number | null;
  usage: number | null;
  estimated: number;
}

const toParams = (l: CostLine, clusterId: number) => ({
  clusterId,
  source: l.source,
  granularity: l.granularity,
  periodStart: l.periodStart,
  periodStartMs: l.periodStartMs,
  groupBy: l.groupBy,
  nodePool: l.nodePool,
  dimensionValue: l.dimensionValue,
  unblendedUsd: l.unblendedUsd,
  amortizedUsd: l.amortizedUsd,
  netUnblendedUsd: l.netUnblendedUsd ?? null,
  netAmortizedUsd: l.netAmortizedUsd ?? null,
  usageQuantity: l.usageQuantity,
  usageUnit: l.usageUnit,
  estimated: l.estimated ? 1 : 0,
  fetchedAt: l.fetchedAt,
  currency: l.currency ?? 'USD',
});

const fromRaw = (r: RawLine): CostLine => ({
  source: r.source,
  granularity: r.granularity,
  periodStart: r.period_start,
  periodStartMs: r.period_start_ms,
  groupBy: r.group_by,
  nodePool: r.nodepool,
  dimensionValue: r.dimension_value,
  unblendedUsd: r.unblended_usd,
  amortizedUsd: r.amortized_usd,
  netUnblendedUsd: r.net_unblended_usd,
  netAmortizedUsd: r.net_amortized_usd,
  usageQuantity: r.usage_quantity,
  usageUnit: r.usage_unit,
  estimated: r.estimated === 1,
  fetchedAt: r.fetched_at,
  currency: r.currency === 'CNY' ? 'CNY' : 'USD',
});

export function createCostLinesRepository(db: Db) {
  // A refreshed estimate replaces the earlier one in place (same UNIQUE key).
  const upsert = db.prepare(`
    INSERT INTO cost_lines (source, granularity, period_start, period_start_ms, group_by, nodepool, dimension_value,
      unblended_usd, amortized_usd, net_unblended_usd, net_amortized_usd, usage_quantity, usage_unit, estimated, fetched_at, currency,
      cluster_id)
    VALUES (@source, @granularity, @periodStart, @periodStartMs, @groupBy, @nodePool, @dimensionValue,
      @unblendedUsd, @amortizedUsd, @netUnblendedUsd, @netAmortizedUsd, @usageQuantity, @usageUnit, @estimated, @fetchedAt, @currency,
      @clusterId)
    ON CONFLICT (source, granularity, group_by, period_start, nodepool, dimension_value, cluster_id) DO UPDATE SET
      period_start_ms = excluded.period_start_ms, unblended_usd = excluded.unblended_usd, amortized_usd = excluded.amortized_usd,
      net_unblended_usd = excluded.net_unblended_usd, net_amortized_usd = excluded.net_amortized_usd,
      usage_quantity = excluded.usage_quantity, usage_unit = excluded.usage_unit, estimated = excluded.estimated,
      fetched_at = excluded.fetched_at, currency = excluded.currency`);
  const deletePeriod = db.prepare(`
    DELETE FROM cost_lines WHERE source IN (@source, @coverage) AND granularity = @granularity AND group_by = @groupBy
      AND period_start = @periodStart AND cluster_id = @clusterId`);
  const dimensionValues = db
    .prepare(
      `SELECT DISTINCT dimension_value FROM cost_lines
       WHERE source = @source AND granularity = @granularity AND group_by = @groupBy
         AND period_start_ms >= @fromMs AND period_start_ms < @toMs
         AND cluster_id IN (SELECT value FROM json_each(@clusterIds))
       ORDER BY dimension_value`,
    )
    .pluck();
  const finalPeriods = db
    .prepare(
      `
    SELECT period_start FROM cost_lines
    WHERE source = @coverage AND granularity = @granularity AND group_by = @groupBy AND estimated = 0
      AND period_start_ms >= @fromMs AND period_start_ms < @toMs AND cluster_id = @clusterId`,
    )
    .pluck();
  const finalPeriodsMs = db
    .prepare(
      `
    SELECT period_start_ms FROM cost_lines
    WHERE source = @coverage AND granularity = @granularity AND group_by = @groupBy AND estimated = 0
      AND period_start_ms >= @fromMs AND period_start_ms < @toMs AND cluster_id = @clusterId`,
    )
    .pluck();
  const latestFinal = db
    .prepare(
      `
    SELECT period_start FROM cost_lines
    WHERE source = @coverage AND granularity = @granularity AND group_by = @groupBy AND estimated = 0 AND cluster_id = @clusterId
    ORDER BY period_start_ms DESC LIMIT 1`,
    )
    .pluck();
  const linesIn = db.prepare(`
    SELECT * FROM cost_lines
    WHERE source = @source AND granularity = @granularity AND group_by = @groupBy
      AND period_start_ms >= @fromMs AND period_start_ms < @toMs
    ORDER BY period_start_ms, nodepool, dimension_value`);
  const perNodePoolDay = db.prepare(`
    SELECT (period_start_ms / ${DAY_MS}) * ${DAY_MS} AS day_ms, nodepool, dimension_value AS purchase_type,
      TOTAL(unblended_usd) AS unblended, SUM(amortized_usd) AS amortized, SUM(usage_quantity) AS usage, MAX(estimated) AS estimated
    FROM cost_lines
    WHERE source = @source AND granularity = @granularity AND group_by = 'PURCHASE_TYPE'
      AND period_start_ms >= @fromMs AND period_start_ms < @toMs AND (@clusterId IS NULL OR cluster_id = @clusterId)
    GROUP BY day_ms, nodepool, dimension_value
    ORDER BY day_ms, nodepool, dimension_value`);

  // The latest NodeClaim / Node seen with the instance id (an id is never reused, but rows could repeat it).
  const perNodeClaim = db.prepare(`
    WITH per_instance AS (
      SELECT dimension_value AS instance_id, MAX(nodepool) AS tag_nodepool, TOTAL(unblended_usd) AS unblended,
        SUM(amortized_usd) AS amortized, SUM(usage_quantity) AS usage, MAX(estimated) AS estimated,
        (MIN(period_start_ms) / ${DAY_MS}) * ${DAY_MS} AS first_ms, (MAX(period_start_ms) / ${DAY_MS}) * ${DAY_MS} AS last_ms
      FROM cost_lines
      WHERE source = @source AND granularity = 'DAILY' AND group_by = 'RESOURCE_ID'
        AND period_start_ms >= CAST(@fromMs AS INTEGER) AND period_start_ms < CAST(@toMs AS INTEGER)
      GROUP BY dimension_value
    )
    SELECT p.instance_id, COALESCE(nc.name, n.nodeclaim) AS nodeclaim, COALESCE(nc.node_name, n.name) AS node_name,
      COALESCE(nc.nodepool, n.nodepool, p.tag_nodepool) AS nodepool, COALESCE(nc.instance_type, n.instance_type) AS instance_type,
      COALESCE(nc.capacity_type, n.capacity_type) AS capacity_type, p.unblended, p.amortized, p.usage, p.estimated, p.first_ms, p.last_ms
    FROM per_instance p
    LEFT JOIN nodeclaims nc ON nc.name = (SELECT name FROM nodeclaims WHERE instance_id = p.instance_id ORDER BY last_seen DESC LIMIT 1)
    LEFT JOIN nodes n ON n.name = (SELECT name FROM nodes WHERE instance_id = p.instance_id ORDER BY last_seen DESC LIMIT 1)
    ORDER BY p.unblended DESC, p.instance_id`);

  const upsertAll = db.transaction((lines: readonly CostLine[]): number => {
    for (const l of lines) upsert.run(toParams(l, 1));
    return lines.length;
  });

  const replacePeriodsTx = db.transaction((batch: CostPeriodBatch): number => {
    const coverage = coverageSource(batch.source);
    const clusterId = batch.clusterId ?? 1;
    for (const p of batch.periods) {
      deletePeriod.run({
        clusterId,
        source: batch.source,
        coverage,
        granularity: batch.granularity,
        groupBy: batch.groupBy,
        periodStart: p.periodStart,
      });
    }
    for (const l of batch.lines) upsert.run(toParams(l, clusterId));
    for (const p of batch.periods) {
      upsert.run(
        toParams(
          {
            source: coverage,
            granularity: batch.granularity,
            periodStart: p.periodStart,
            periodStartMs: p.periodStartMs,
            groupBy: batch.groupBy,
            nodePool: '',
            dimensionValue: '',
            unblendedUsd: p.totalUnblendedUsd,
            amortizedUsd: null,
            usageQuantity: null,
            usageUnit: null,
            estimated: p.estimated,
            fetchedAt: batch.fetchedAt,
            currency: batch.lines[0]?.currency,
          },
          clusterId,
        ),
      );
    }
    return batch.lines.length;
  });

  return {
    /** Inserts or updates lines by their UNIQUE key, in one transaction. Returns the count written. */
    upsertCostLines: (lines: readonly CostLine[]): number => upsertAll(lines),

    /**
     * Replaces whole periods in one transaction: earlier lines of those periods go (a group that vanished from a
     * refreshed estimate must not linger), the new lines and the coverage rows are written.
     */
    replaceCostPeriods: (batch: CostPeriodBatch): number => replacePeriodsTx(batch),

    /** Period starts in [fromMs, toMs) fetched as final by the query grouped by `groupBy`. */
    finalPeriodStarts(q: {
      source: string;
      granularity: CostGranularity;
      groupBy: CostGroupBy;
      fromMs: number;
      toMs: number;
      clusterId?: number;
    }): Set<string> {
      return new Set(finalPeriods.all({ ...q, clusterId: q.clusterId ?? 1, coverage: coverageSource(q.source) }) as string[]);
    },

    /** Like finalPeriodStarts, as epoch ms (independent of how Cost Explorer spelled the period start). */
    finalPeriodStartsMs(q: {
      source: string;
      granularity: CostGranularity;
      groupBy: CostGroupBy;
      fromMs: number;
      toMs: number;
      /** The cluster whose coverage is read; default 1. */
      clusterId?: number;
    }): Set<number> {
      return new Set(finalPeriodsMs.all({ ...q, clusterId: q.clusterId ?? 1, coverage: coverageSource(q.source) }) as number[]);
    },

    /** The distinct dimension values of the lines of one query shape over [fromMs, toMs), for any of the clusters. */
    dimensionValuesIn(q: {
      source: string;
      granularity: CostGranularity;
      groupBy: CostGroupBy;
      fromMs: number;
      toMs: number;
      clusterIds: readonly number[];
    }): string[] {
      return dimensionValues.all({ ...q, clusterIds: JSON.stringify(q.clusterIds) }) as string[];
    },

    /** The latest period stored as final (for incremental sync), or null. */
    latestFinalPeriod(q: { source: string; granularity: CostGranularity; groupBy: CostGroupBy; clusterId?: number }): string | null {
      const v = latestFinal.get({ ...q, clusterId: q.clusterId ?? 1, coverage: coverageSource(q.source) }) as string | undefined;
      return v ?? null;
    },

    listCostLines(q: { source: string; granularity: CostGranularity; groupBy: CostGroupBy; fromMs: number; toMs: number }): CostLine[] {
      return (linesIn.all(q) as RawLine[]).map(fromRaw);
    },

    /** Cost per NodeClaim (per instance) over the days whose start lies in [fromMs, toMs), most expensive first. */
    costPerNodeClaim(q: { fromMs: number; toMs: number; source?: string }): NodeClaimCost[] {
      return (perNodeClaim.all({ fromMs: q.fromMs, toMs: q.toMs, source: q.source ?? 'cost-explorer' }) as RawNodeClaimCost[]).map((r) => ({
        instanceId: r.instance_id,
        nodeClaim: r.nodeclaim,
        nodeName: r.node_name,
        nodePool: r.nodepool,
        instanceType: r.instance_type,
        capacityType: r.capacity_type,
        unblendedUsd: r.unblended,
        amortizedUsd: r.amortized,
        usageHours: r.usage,
        estimated: r.estimated === 1,
        firstDayMs: r.first_ms,
        lastDayMs: r.last_ms,
      }));
    },

    /** Cost per NodePool per UTC day per purchase type, summed from PURCHASE_TYPE lines (HOURLY lines sum to days). */
    costPerNodePoolPerDay(q: {
      fromMs: number;
      toMs: number;
      source?: string;
      granularity?: CostGranularity;
      /** One cluster's lines; absent: every cluster's, added up. */
      clusterId?: number;
    }): NodePoolDayCost[] {
      const rows = perNodePoolDay.all({
        clusterId: q.clusterId ?? null,
        fromMs: q.fromMs,
        toMs: q.toMs,
        source: q.source ?? 'cost-explorer',
        granularity: q.granularity ?? 'DAILY',
      }) as RawDay[];
      return rows.map((r) => ({
        dayMs: r.day_ms,
        day: new Date(r.day_ms).toISOString().slice(0, 10),
        nodePool: r.nodepool,
        purchaseType: r.purchase_type,
        unblendedUsd: r.unblended,
        amortizedUsd: r.amortized,
        usageQuantity: r.usage,
        estimated: r.estimated === 1,
      }));
    },
  };
}

export type CostLinesRepository = ReturnType<typeof createCostLinesRepository>;
