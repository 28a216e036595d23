import type { CapacityType } from '../../core/labels.js';
import { lastIndexAtOrBefore } from '../../core/time-search.js';
import type { EpochMs, Scenario, SimNode, SpotPricePoint } from './types.js';
import { HOUR_MS } from '../../core/time.js';

/**
 * The simulated AWS bill: what each instance of the scenario costs, hour by hour, as of a time.
 * Pure. Cost Explorer, the per-resource lines and the tests all read from this one source.
 */

/** One instance for one UTC hour (or the part of it the instance was running before `asOf`). */
export interface BillLine {
  hourStart: EpochMs;
  /** null: not launched by Karpenter (no karpenter.sh/nodepool tag), still tagged with the cluster. */
  nodePool: string | null;
  nodeClaim: string | null;
  instanceType: string;
  capacityType: CapacityType;
  zone: string;
  instanceId: string;
  /** Running time within the hour, in hours (0 < usageHours <= 1). */
  usageHours: number;
  /** Full precision; Cost Explorer rounds only when it formats a response. */
  unblendedUsd: number;
}

/**
 * Spot prices are published as decimal strings with 6 places (DescribeSpotPriceHistory); the bill charges the
 * published price, so the bill and the price history agree to the cent whatever precision the simulation used.
 */
export const publishedSpotUsd = (usdPerHour: number): number => Math.round(usdPerHour * 1e6) / 1e6;

/** A span of time with one price in effect. */
interface PriceSegment {
  from: EpochMs;
  to: EpochMs;
  usdPerHour: number;
}

const marketKey = (instanceType: string, zone: string): string => `${instanceType}|${zone}`;

/** Spot price points per market (type x zone), each list sorted by time. */
export function indexSpotMarkets(points: readonly SpotPricePoint[]): Map<string, SpotPricePoint[]> {
  const markets = new Map<string, SpotPricePoint[]>();
  for (const p of points) {
    const key = marketKey(p.instanceType, p.zone);
    const list = markets.get(key);
    if (list) list.push(p);
    else markets.set(key, [p]);
  }
  for (const list of markets.values()) list.sort((a, b) => a.at - b.at);
  return markets;
}

export function onDemandUsd(scenario: Scenario, instanceType: string): number {
  const usd = scenario.onDemandUsdPerHour[instanceType];
  if (usd === undefined) throw new Error(`scenario ${scenario.name} has no on-demand price for ${instanceType}`);
  return usd;
}

/**
 * The prices in effect over [from, to) for a node. Capacity reservations ('reserved') are billed at the
 * on-demand rate. A spot node that starts before its market's first point pays that first price (the simulation
 * starts every market at the scenario start, so this only guards hand-made scenarios); a market with no points
 * at all falls back to on-demand.
 */
function priceSegments(
  scenario: Scenario,
  markets: Map<string, SpotPricePoint[]>,
  node: SimNode,
  from: EpochMs,
  to: EpochMs,
): PriceSegment[] {
  const points = node.capacityType === 'spot' ? markets.get(marketKey(node.instanceType, node.zone)) : undefined;
  if (!points || points.length === 0) return [{ from, to, usdPerHour: onDemandUsd(scenario, node.instanceType) }];
  const segments: PriceSegment[] = [];
  let i = Math.max(
    0,
    lastIndexAtOrBefore(points, from, (p) => p.at),
  );
  let cursor = from;
  while (cursor < to) {
    const next = i + 1 < points.length ? Math.min(points[i + 1].at, to) : to;
    if (next > cursor) segments.push({ from: cursor, to: next, usdPerHour: publishedSpotUsd(points[i].usdPerHour) });
    cursor = Math.max(cursor, next);
    i += 1;
  }
  return segments;
}

/** [start, end) of a node's billed life as of `asOf`; empty when it had not started. */
export function billedSpan(node: SimNode, asOf: EpochMs): { start: EpochMs; end: EpochMs } | null {
  const end = Math.min(node.deletedAt ?? Number.POSITIVE_INFINITY, asOf);
  return end > node.createdAt ? { start: node.createdAt, end } : null;
}

/** Hourly line items for every instance, as of `asOf` (nothing after it is billed). Sorted by hour, then instance. */
export function computeBill(scenario: Scenario, asOf: EpochMs): BillLine[] {
  const markets = indexSpotMarkets(scenario.spotPrices);
  const lines: BillLine[] = [];
  for (const node of scenario.nodes) {
    const span = billedSpan(node, asOf);
    if (!span) continue;
    const segments = priceSegments(scenario, markets, node, span.start, span.end);
    let s = 0;
    for (let hour = Math.floor(span.start / HOUR_MS) * HOUR_MS; hour < span.end; hour += HOUR_MS) {
      const from = Math.max(hour, span.start);
      const to = Math.min(hour + HOUR_MS, span.end);
      let usd = 0;
      // Segments are contiguous and sorted: integrate the ones overlapping this hour, exactly.
      while (s < segments.length && segments[s].to <= from) s += 1;
      for (let k = s; k < segments.length && segments[k].from < to; k += 1) {
        const overlapMs = Math.min(to, segments[k].to) - Math.max(from, segments[k].from);
        if (overlapMs > 0) usd += (overlapMs / HOUR_MS) * segments[k].usdPerHour;
      }
      lines.push({
        hourStart: hour,
        nodePool: node.nodePool,
        nodeClaim: node.nodeClaimName,
        instanceType: node.instanceType,
        capacityType: node.capacityType,
        zone: node.zone,
        instanceId: node.instanceId,
        usageHours: (to - from) / HOUR_MS,
        unblendedUsd: usd,
      });
    }
  }
  return lines.sort((a, b) => a.hourStart - b.hourStart || (a.instanceId < b.instanceId ? -1 : a.instanceId > b.instanceId ? 1 : 0));
}

/**
 * The same money worked out another way, for tests: per node, hours alive x price, walking the raw spot price
 * list without hour slices or the market index. Keyed by NodePool, '' for nodes without one. `from` clips the
 * start (a bill for a window starting after some nodes were launched).
 */
export function nodePoolCostByHand(scenario: Scenario, asOf: EpochMs, from: EpochMs = Number.NEGATIVE_INFINITY): Map<string, number> {
  const totals = new Map<string, number>();
  for (const node of scenario.nodes) {
    const billed = billedSpan(node, asOf);
    if (!billed || billed.end <= from) continue;
    const span = { start: Math.max(billed.start, from), end: billed.end };
    let usd = 0;
    const points =
      node.capacityType === 'spot'
        ? scenario.spotPrices.filter((p) => p.instanceType === node.instanceType && p.zone === node.zone).sort((a, b) => a.at - b.at)
        : [];
    if (points.length === 0) {
      usd = ((span.end - span.start) / HOUR_MS) * onDemandUsd(scenario, node.instanceType);
    } else {
      for (let i = 0; i < points.length; i += 1) {
        // The first point also covers any time before it (same rule as the bill).
        const from = i === 0 ? Number.NEGATIVE_INFINITY : points[i].at;
        const to = i + 1 < points.length ? points[i + 1].at : Number.POSITIVE_INFINITY;
        const overlapMs = Math.min(span.end, to) - Math.max(span.start, from);
        if (overlapMs > 0) usd += (overlapMs / HOUR_MS) * publishedSpotUsd(points[i].usdPerHour);
      }
    }
    const key = node.nodePool ?? '';
    totals.set(key, (totals.get(key) ?? 0) + usd);
  }
  return totals;
}

/**
 * Cost Explorer amounts are decimal strings rounded to 10 places ("12.3456789012"), trailing zeros dropped
 * ("0.96", "0"), the way the real service prints them.
 */
export function formatCeAmount(value: number): string {
  const fixed = value.toFixed(10);
  const trimmed = fixed.replace(/\.?0+$/, '');
  return trimmed === '-0' || trimmed === '' ? '0' : trimmed;
}
