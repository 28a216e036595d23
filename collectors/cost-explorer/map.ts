import type { ResultByTime } from '@aws-sdk/client-cost-explorer';
import { TAG_NODEPOOL } from '../../core/labels.js';
import { CURRENCIES, type Currency } from '../../core/partitions.js';
import type { CostGranularity, CostGroupBy, CostLine, CostPeriodFetched } from '../../db/repositories/cost-lines-repository.js';

/** Pure: Cost Explorer GetCostAndUsage output -> cost_lines rows. */

/** A period put back together from every page (a period's groups can be split across pages). */
export interface MergedPeriod {
  start: string;
  estimated: boolean;
  groups: { keys: string[]; metrics: Record<string, { Amount?: string; Unit?: string }> }[];
}

/** Merges the ResultsByTime of all pages by period start, in first-seen order; `Estimated` is true if any page said so. */
export function mergePages(pages: readonly (readonly ResultByTime[])[]): MergedPeriod[] {
  const byStart = new Map<string, MergedPeriod>();
  for (const results of pages) {
    for (const r of results) {
      const start = r.TimePeriod?.Start;
      if (start === undefined) continue;
      let period = byStart.get(start);
      if (!period) {
        period = { start, estimated: false, groups: [] };
        byStart.set(start, period);
      }
      period.estimated ||= r.Estimated === true;
      for (const g of r.Groups ?? []) period.groups.push({ keys: g.Keys ?? [], metrics: g.Metrics ?? {} });
    }
  }
  return [...byStart.values()];
}

/** `karpenter.sh/nodepool$general` -> 'general'; the untagged `karpenter.sh/nodepool$` -> ''. Null if not that tag. */
export function tagValueOfKey(key: string, tagKey: string = TAG_NODEPOOL): string | null {
  const prefix = `${tagKey}$`;
  return key.startsWith(prefix) ? key.slice(prefix.length) : null;
}

/** `2026-11-01` or `2026-11-01T00:00:00Z` as epoch ms (UTC). */
export function periodStartMs(start: string): number {
  const ms = Date.parse(start.length === 10 ? `${start}T00:00:00Z` : start);
  if (Number.isNaN(ms)) throw new Error(`Cost Explorer returned an unreadable period start: ${start}`);
  return ms;
}

/** Amount strings to numbers; a missing metric is null (not zero: the query did not ask for it). */
function amount(metrics: Record<string, { Amount?: string; Unit?: string }>, name: string): number | null {
  const text = metrics[name]?.Amount;
  if (text === undefined) return null;
  const value = Number(text);
  if (!Number.isFinite(value)) throw new Error(`Cost Explorer returned a non-numeric ${name}: ${text}`);
  return value;
}

export interface MapContext {
  source: string;
  granularity: CostGranularity;
  groupBy: CostGroupBy;
  fetchedAt: number;
  /** The currency the account is billed in (CNY for China); a cost in another unit is an error, never converted. */
  currency?: Currency;
}

/** The currency of a group's cost metrics (UnblendedCost's Unit), checked against the expected one. */
function costCurrency(metrics: Record<string, { Amount?: string; Unit?: string }>, expected: Currency): Currency {
  const unit = metrics.UnblendedCost?.Unit ?? metrics.AmortizedCost?.Unit;
  if (unit === undefined) return expected;
  const currency = CURRENCIES.find((c) => c === unit);
  if (currency === undefined) throw new Error(`Cost Explorer returned a cost in "${unit}", which NodePool Ledger does not handle`);
  if (currency !== expected)
    throw new Error(
      `Cost Explorer answered in ${currency}, but the cluster's prices are in ${expected}: amounts in two currencies are not mixed`,
    );
  return currency;
}

/**
 * Lines from periods grouped by [TAG karpenter.sh/nodepool, DIMENSION <groupBy>], and one entry per period for
 * coverage. Groups whose first key is not the NodePool tag are an error: the query shape is ours.
 */
export function mapCostPeriods(periods: readonly MergedPeriod[], ctx: MapContext): { lines: CostLine[]; periods: CostPeriodFetched[] } {
  const lines: CostLine[] = [];
  const fetched: CostPeriodFetched[] = [];
  for (const p of periods) {
    const startMs = periodStartMs(p.start);
    let total = 0;
    for (const g of p.groups) {
      const [tagKey, dimensionValue] = g.keys;
      const nodePool = tagKey === undefined ? null : tagValueOfKey(tagKey);
      if (nodePool === null || dimensionValue === undefined) {
        throw new Error(`unexpected Cost Explorer group keys ${JSON.stringify(g.keys)} (expected [${TAG_NODEPOOL}$value, ${ctx.groupBy}])`);
      }
      const unblendedUsd = amount(g.metrics, 'UnblendedCost') ?? 0;
      total += unblendedUsd;
      lines.push({
        source: ctx.source,
        granularity: ctx.granularity,
        periodStart: p.start,
        periodStartMs: startMs,
        groupBy: ctx.groupBy,
        nodePool,
        dimensionValue,
        unblendedUsd,
        amortizedUsd: amount(g.metrics, 'AmortizedCost'),
        netUnblendedUsd: amount(g.metrics, 'NetUnblendedCost'),
        netAmortizedUsd: amount(g.metrics, 'NetAmortizedCost'),
        usageQuantity: amount(g.metrics, 'UsageQuantity'),
        usageUnit: g.metrics.UsageQuantity?.Unit ?? null,
        estimated: p.estimated,
        fetchedAt: ctx.fetchedAt,
        currency: costCurrency(g.metrics, ctx.currency ?? 'USD'),
      });
    }
    fetched.push({ periodStart: p.start, periodStartMs: startMs, estimated: p.estimated, totalUnblendedUsd: total });
  }
  return { lines, periods: fetched };
}
