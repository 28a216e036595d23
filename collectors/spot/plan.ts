import { DAY_MS, HOUR_MS } from '../../core/time.js';
import type { SpotMarkets } from './markets.js';

/**
 * Pure: which DescribeSpotPriceHistory asks bring the wanted markets' history up to now, given how far each market's
 * history is stored (`coverage`: `type|zone` -> asked until; zone '*' for an ask without a zone filter).
 *
 * - A market never asked for is asked at once, from `firstWindowMs` back (a day: the snapshots of the last day can be
 *   priced), or from where its other zones are stored if that is older.
 * - The types of running spot nodes are refreshed hourly (`refreshMs`: what our estimate of their cost reads); the
 *   other admitted types every 12 hours (`idleRefreshMs`), as Karpenter refreshes its spot prices
 *   (pkg/controllers/providers/pricing/controller.go: RequeueAfter 12h). A refresh asks from where the stored history
 *   ends, so every change is kept whatever the cadence; when the 12-hour refresh is due it takes the running types
 *   along. Each refresh asks from the oldest coverage among its types (a few changes asked twice, instead of one more
 *   request per type that joined later), at most `maxHistoryMs` back (EC2 keeps 90 days).
 * - Each ask names its types and the wanted zones (filter `availability-zone`); EC2 pages the answer (NextToken).
 *   A refresh answers about one item per market (the price in effect at StartTime) plus the window's changes, so an
 *   ask holds as many types as make SPOT_ITEMS_PER_ASK markets: about a page each.
 */

export interface SpotAsk {
  instanceTypes: string[];
  /** [] asks every zone of the region. */
  zones: string[];
  sinceMs: number;
}

export interface SpotPlanOptions {
  refreshMs?: number;
  idleRefreshMs?: number;
  firstWindowMs?: number;
  maxHistoryMs?: number;
  batchSize?: number;
}

export const SPOT_REFRESH_MS = HOUR_MS;
export const SPOT_IDLE_REFRESH_MS = 12 * HOUR_MS;
export const SPOT_FIRST_WINDOW_MS = DAY_MS;
/** Markets (type × zone) per ask: a refresh's answer then fits about one page (the API reference's 1000 items; Karpenter asks 2000). */
export const SPOT_ITEMS_PER_ASK = 900;
/** Types named in one ask, at most (EC2 documents no limit for InstanceType.N). */
const MAX_TYPES_PER_ASK = 500;
const MAX_HISTORY_MS = 90 * DAY_MS;

export function planSpotAsks(
  wanted: SpotMarkets,
  coverage: ReadonlyMap<string, number>,
  nowMs: number,
  o: SpotPlanOptions = {},
): SpotAsk[] {
  const refreshMs = o.refreshMs ?? SPOT_REFRESH_MS;
  const idleRefreshMs = o.idleRefreshMs ?? SPOT_IDLE_REFRESH_MS;
  const firstSince = nowMs - (o.firstWindowMs ?? SPOT_FIRST_WINDOW_MS);
  const floor = nowMs - (o.maxHistoryMs ?? MAX_HISTORY_MS);
  const batchSize =
    o.batchSize ?? Math.max(1, Math.min(MAX_TYPES_PER_ASK, Math.floor(SPOT_ITEMS_PER_ASK / Math.max(1, wanted.zones.length))));
  const zones = wanted.zones.length === 0 ? ['*'] : wanted.zones;
  const running = new Set(wanted.runningSpot ?? []);
  const covered = (type: string, zone: string): number | undefined => {
    const z = coverage.get(`${type}|${zone}`);
    const any = coverage.get(`${type}|*`);
    return z === undefined ? any : any === undefined ? z : Math.max(z, any);
  };

  type Due = { type: string; since: number };
  const fresh: Due[] = [];
  const known: Due[] = [];
  for (const type of wanted.instanceTypes) {
    const at = zones.map((z) => covered(type, z));
    const since = Math.max(floor, Math.min(...at.map((t) => t ?? firstSince)));
    (at.some((t) => t === undefined) ? fresh : known).push({ type, since });
  }
  const asks: SpotAsk[] = [];
  const batch = (group: Due[]): void => {
    for (let i = 0; i < group.length; i += batchSize) {
      const part = group.slice(i, i + batchSize);
      asks.push({ instanceTypes: part.map((g) => g.type), zones: wanted.zones, sinceMs: Math.min(...part.map((g) => g.since)) });
    }
  };
  batch(fresh);
  const hot = known.filter((k) => running.has(k.type));
  const idleDue = known.some((k) => !running.has(k.type) && k.since <= nowMs - idleRefreshMs);
  if (idleDue) batch(known);
  else if (hot.some((k) => k.since <= nowMs - refreshMs)) batch(hot);
  return asks;
}

/**
 * When planSpotAsks will next have something to ask for these markets, coverage unchanged: now when a market was
 * never asked for, else the earliest of (a running type's coverage + refreshMs, an admitted type's + idleRefreshMs).
 */
export function nextSpotAskAt(wanted: SpotMarkets, coverage: ReadonlyMap<string, number>, o: SpotPlanOptions = {}): number {
  const refreshMs = o.refreshMs ?? SPOT_REFRESH_MS;
  const idleRefreshMs = o.idleRefreshMs ?? SPOT_IDLE_REFRESH_MS;
  const zones = wanted.zones.length === 0 ? ['*'] : wanted.zones;
  const running = new Set(wanted.runningSpot ?? []);
  let next = Infinity;
  for (const type of wanted.instanceTypes) {
    const any = coverage.get(`${type}|*`);
    let oldest = Infinity;
    for (const z of zones) {
      const at = coverage.get(`${type}|${z}`);
      const c = at === undefined ? any : any === undefined ? at : Math.max(at, any);
      if (c === undefined) return -Infinity;
      oldest = Math.min(oldest, c);
    }
    next = Math.min(next, oldest + (running.has(type) ? refreshMs : idleRefreshMs));
  }
  return next;
}
