import { type Filter, GetProductsCommand, type GetProductsCommandOutput, type PricingClient } from '@aws-sdk/client-pricing';
import type { Db } from '../../db/open-db.js';
import { createApiRequestsRepository } from '../../db/repositories/api-requests-repository.js';
import { createPricesRepository } from '../../db/repositories/prices-repository.js';
import { mapOnDemandPrices } from './map.js';

/**
 * On-demand prices from the Pricing API, with Karpenter's filters (Linux, shared tenancy, no pre-installed
 * software, capacity used, on-demand market), for both product families Karpenter reads (bare metal is its own).
 * Nothing is written unless every page arrived: on failure the last good prices stay.
 */

export interface PricingDeps {
  db: Db;
  pricing: PricingClient;
  /** The cluster's region (the price list's regionCode). */
  region: string;
  now: number;
  runId?: number | null;
}

export interface PricingCollectResult {
  requests: number;
  products: number;
  prices: number;
  /** Rows written: prices that changed since the last collection. */
  written: number;
}

const PRODUCT_FAMILIES = ['Compute Instance', 'Compute Instance (bare metal)'];

export const onDemandFilters = (region: string, productFamily: string): Filter[] =>
  [
    ['regionCode', region],
    ['serviceCode', 'AmazonEC2'],
    ['preInstalledSw', 'NA'],
    ['operatingSystem', 'Linux'],
    ['capacitystatus', 'Used'],
    ['marketoption', 'OnDemand'],
    ['tenancy', 'Shared'],
    ['productFamily', productFamily],
  ].map(([Field, Value]) => ({ Type: 'TERM_MATCH', Field, Value }));

export async function collectOnDemandPrices(deps: PricingDeps): Promise<PricingCollectResult> {
  const requests = createApiRequestsRepository(deps.db);
  const priceList: unknown[] = [];
  let count = 0;
  for (const family of PRODUCT_FAMILIES) {
    let token: string | undefined;
    do {
      let out: GetProductsCommandOutput;
      try {
        out = await deps.pricing.send(
          new GetProductsCommand({
            ServiceCode: 'AmazonEC2',
            Filters: onDemandFilters(deps.region, family),
            FormatVersion: 'aws_v1',
            MaxResults: 100,
            NextToken: token,
          }),
        );
      } finally {
        count += 1;
        requests.recordApiRequest({
          runId: deps.runId ?? null,
          at: deps.now,
          service: 'pricing',
          operation: 'GetProducts',
          detail: family,
        });
      }
      // PriceList is typed as a JSON-string list; the SDK may box the strings.
      const page: unknown = out.PriceList;
      if (Array.isArray(page)) priceList.push(...(page as unknown[]));
      token = out.NextToken;
    } while (token);
  }
  const rows = mapOnDemandPrices(priceList, { region: deps.region, effectiveAt: deps.now });
  const written = createPricesRepository(deps.db).insertChangedPrices(rows);
  return { requests: count, products: priceList.length, prices: rows.length, written };
}
