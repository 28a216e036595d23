import {
  type _InstanceType,
  DescribeSpotPriceHistoryCommand,
  type DescribeSpotPriceHistoryCommandOutput,
  type EC2Client,
  type SpotPrice,
} from '@aws-sdk/client-ec2';
import { type Currency, regionFacts } from '../../core/partitions.js';
import type { Db } from '../../db/open-db.js';
import { createApiRequestsRepository } from '../../db/repositories/api-requests-repository.js';
import { createPricesRepository, type PriceRow } from '../../db/repositories/prices-repository.js';
import { LINUX_PRODUCT_DESCRIPTIONS, mapSpotPrices } from './map.js';

/**
 * Spot price history of Linux markets for a window, asked for under both names EC2 files them under
 * (`Linux/UNIX` and `Linux/UNIX (Amazon VPC)`, as Karpenter asks): EC2 returns the price in effect at `since`
 * plus every change up to `until`, so the stored history answers "price at t" for any t in the window. Pages of
 * MaxResults 2000, as Karpenter asks (pkg/providers/pricing/pricing.go: "EC2 doesn't seem to limit page size
 * here"; the API reference documents 1000, which the sandbox serves), followed by NextToken. Types by
 * InstanceType.N, zones by the `availability-zone` filter. Rows of other products, should EC2 send any, are
 * dropped. Nothing is written unless every page arrived.
 */

export interface SpotDeps {
  db: Db;
  ec2: EC2Client;
  region: string;
  /** The partition's currency; default the region's (CNY in China, else USD). */
  currency?: Currency;
  now: number;
  runId?: number | null;
  /** Items per page asked for (MaxResults; Karpenter's 2000 by default). */
  pageSize?: number;
}

export interface SpotWindow {
  /** Types to price; undefined asks for every type (as Karpenter does), [] asks for none. */
  instanceTypes?: readonly string[];
  /** Zones to price (filter availability-zone); undefined or [] asks every zone of the region. */
  zones?: readonly string[];
  since: number;
  until: number;
}

export interface SpotCollectResult {
  requests: number;
  items: number;
  /** Distinct (type, zone, time) rows stored. */
  prices: number;
}

/** Karpenter's page size for DescribeSpotPriceHistory. */
export const SPOT_PAGE_SIZE = 2000;

/** One window's history from EC2, every page, mapped to price rows (not stored). */
export async function fetchSpotHistory(
  deps: SpotDeps,
  window: SpotWindow,
): Promise<{ requests: number; items: number; rows: PriceRow[]; untilMs: number }> {
  const untilMs = Math.min(window.until, deps.now);
  if (window.instanceTypes !== undefined && window.instanceTypes.length === 0) return { requests: 0, items: 0, rows: [], untilMs };
  const requests = createApiRequestsRepository(deps.db);
  const history: SpotPrice[] = [];
  let count = 0;
  let token: string | undefined;
  do {
    let out: DescribeSpotPriceHistoryCommandOutput;
    try {
      out = await deps.ec2.send(
        new DescribeSpotPriceHistoryCommand({
          // The SDK's closed list of type names lags new types; EC2 takes any name.
          InstanceTypes: window.instanceTypes === undefined ? undefined : ([...window.instanceTypes] as _InstanceType[]),
          ProductDescriptions: [...LINUX_PRODUCT_DESCRIPTIONS],
          ...(window.zones !== undefined && window.zones.length > 0
            ? { Filters: [{ Name: 'availability-zone', Values: [...window.zones] }] }
            : {}),
          StartTime: new Date(window.since),
          EndTime: new Date(untilMs),
          MaxResults: deps.pageSize ?? SPOT_PAGE_SIZE,
          NextToken: token,
        }),
      );
    } finally {
      count += 1;
      requests.recordApiRequest({ runId: deps.runId ?? null, at: deps.now, service: 'ec2', operation: 'DescribeSpotPriceHistory' });
    }
    history.push(...(out.SpotPriceHistory ?? []));
    // EC2 ends the list with an empty or absent token.
    token = out.NextToken === '' ? undefined : out.NextToken;
  } while (token);
  return {
    requests: count,
    items: history.length,
    rows: mapSpotPrices(history, deps.region, deps.currency ?? regionFacts(deps.region).currency),
    untilMs,
  };
}

export async function collectSpotPrices(deps: SpotDeps, window: SpotWindow): Promise<SpotCollectResult> {
  const { requests, items, rows } = await fetchSpotHistory(deps, window);
  createPricesRepository(deps.db).insertPrices(rows);
  return { requests, items, prices: rows.length };
}
