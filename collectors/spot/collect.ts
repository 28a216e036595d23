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
import { createPricesRepository } from '../../db/repositories/prices-repository.js';
import { LINUX_PRODUCT_DESCRIPTIONS, mapSpotPrices } from './map.js';

/**
 * Spot price history of Linux markets for a window, asked for under both names EC2 files them under
 * (`Linux/UNIX` and `Linux/UNIX (Amazon VPC)`, as Karpenter asks): EC2 returns the price in effect at `since`
 * plus every change up to `until`, so the stored history answers "price at t" for any t in the window. Pages of
 * up to 1000 items (the documented maximum; Karpenter asks for 2000, which EC2 serves as far fewer). Rows of
 * other products, should EC2 send any, are dropped. Nothing is written unless every page arrived.
 */

export interface SpotDeps {
  db: Db;
  ec2: EC2Client;
  region: string;
  /** The partition's currency; default the region's (CNY in China, else USD). */
  currency?: Currency;
  now: number;
  runId?: number | null;
  /** Items per page (EC2's maximum, 1000, by default). */
  pageSize?: number;
}

export interface SpotWindow {
  /** Types to price; undefined asks for every type (as Karpenter does), [] asks for none. */
  instanceTypes?: readonly string[];
  since: number;
  until: number;
}

export interface SpotCollectResult {
  requests: number;
  items: number;
  /** Distinct (type, zone, time) rows stored. */
  prices: number;
}

export async function collectSpotPrices(deps: SpotDeps, window: SpotWindow): Promise<SpotCollectResult> {
  if (window.instanceTypes !== undefined && window.instanceTypes.length === 0) return { requests: 0, items: 0, prices: 0 };
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
          StartTime: new Date(window.since),
          EndTime: new Date(Math.min(window.until, deps.now)),
          MaxResults: deps.pageSize ?? 1000,
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
  const rows = mapSpotPrices(history, deps.region, deps.currency ?? regionFacts(deps.region).currency);
  createPricesRepository(deps.db).insertPrices(rows);
  return { requests: count, items: history.length, prices: rows.length };
}
