import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PricingClient } from '@aws-sdk/client-pricing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadStaticOnDemandPrices } from '../../core/static-prices.js';
import { type Db, openDb } from '../../db/open-db.js';
import { createApiRequestsRepository } from '../../db/repositories/api-requests-repository.js';
import { PriceBook } from '../../db/repositories/price-book.js';
import { createPricesRepository } from '../../db/repositories/prices-repository.js';
import { pricingHandler } from '../../sandbox/serve/pricing.js';
import { newContext, serveHandlers, type ServedHandlers, useDummyAwsCredentials } from '../../test/fixtures/serve-handlers.js';
import { TINY_END, tinyScenario } from '../../test/fixtures/tiny-scenario.js';
import { createPricingClient, pricingEndpointRegion } from './client.js';
import { collectOnDemandPrices } from './collect.js';

useDummyAwsCredentials();

describe('collectOnDemandPrices against the sandbox (real SDK, real SQLite file)', () => {
  let dir: string;
  let db: Db;
  let served: ServedHandlers;
  let pricing: PricingClient;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-pricing-'));
    db = openDb({ path: join(dir, 'ledger.db') });
    served = await serveHandlers([pricingHandler], newContext(tinyScenario(), TINY_END));
    pricing = createPricingClient({ endpoint: served.url });
  });
  afterEach(async () => {
    pricing.destroy();
    await served.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('pages through every us-east-1 type, one Linux/Shared/Used price each, and counts the requests', async () => {
    const result = await collectOnDemandPrices({ db, pricing, region: 'us-east-1', now: TINY_END });
    const table = loadStaticOnDemandPrices('us-east-1');
    // Every type of the static table, bare metal included (its own product family, its own query).
    expect(result.prices).toBe(table.size);
    expect(result.products).toBe(table.size);
    expect(result.requests).toBeGreaterThan(2);
    expect(result.requests).toBe(served.ctx.requestLog.filter((r) => r.operation === 'pricing:GetProducts').length);
    expect(createApiRequestsRepository(db).countApiRequests({ service: 'pricing' })).toBe(result.requests);

    const prices = createPricesRepository(db);
    expect(prices.onDemandPrice('us-east-1', 'm5.large')).toEqual({
      kind: 'on-demand',
      region: 'us-east-1',
      instanceType: 'm5.large',
      zone: '',
      effectiveAt: TINY_END,
      pricePerHour: 0.096,
      currency: 'USD',
      source: 'pricing-api',
    });
    expect(prices.onDemandPrice('us-east-1', 'm5.metal')?.pricePerHour).toBe(4.608);
    // Not the Windows, dedicated or capacity-reservation neighbours, nor the Reserved terms.
    for (const [type, usd] of table) expect(prices.onDemandPrice('us-east-1', type)?.pricePerHour).toBeCloseTo(usd, 10);
  });

  it('writes nothing new when prices did not change, and keeps the last good prices when a call fails', async () => {
    await collectOnDemandPrices({ db, pricing, region: 'us-east-1', now: TINY_END - 1000 });
    const again = await collectOnDemandPrices({ db, pricing, region: 'us-east-1', now: TINY_END });
    expect(again.written).toBe(0);
    const once = createPricingClient({ endpoint: served.url, maxAttempts: 1 });
    served.ctx.faults.push({ match: 'GetProducts', status: 400, remaining: 1 });
    await expect(collectOnDemandPrices({ db, pricing: once, region: 'us-east-1', now: TINY_END + 1 })).rejects.toMatchObject({
      name: 'ThrottlingException',
    });
    once.destroy();
    expect(PriceBook.fromDb(db, 'us-east-1').onDemand('c5.xlarge')).toEqual({ pricePerHour: 0.17, currency: 'USD', source: 'pricing-api' });
  });

  it('rides out throttling and a 503 mid-list (the SDK retries) and still stores every price', async () => {
    const logged = (): number => served.ctx.requestLog.filter((r) => r.operation === 'pricing:GetProducts').length;
    // The first page answers normally; the next two attempts are throttled, then one 503.
    const p2 = createPricingClient({ endpoint: served.url });
    let pages = 0;
    p2.middlewareStack.add(
      (next) => async (args) => {
        pages += 1;
        if (pages === 2)
          served.ctx.faults.push({ match: 'GetProducts', status: 400, remaining: 2 }, { match: 'GetProducts', status: 503, remaining: 1 });
        return next(args);
      },
      { step: 'initialize', name: 'injectFaultsAfterFirstPage' },
    );
    const result = await collectOnDemandPrices({ db, pricing: p2, region: 'us-east-1', now: TINY_END });
    p2.destroy();
    const table = loadStaticOnDemandPrices('us-east-1');
    expect(result).toMatchObject({ prices: table.size, written: table.size });
    expect(result.requests).toBeGreaterThan(2);
    // Every page once, plus the three refused attempts.
    expect(logged()).toBe(result.requests + 3);
    expect(PriceBook.fromDb(db, 'us-east-1').onDemand('m5.large')).toEqual({ pricePerHour: 0.096, currency: 'USD', source: 'pricing-api' });
  });

  it.each([
    ['us-east-1', 'us-east-1'],
    ['us-west-2', 'us-east-1'],
    ['eu-west-1', 'eu-central-1'],
    ['ap-northeast-1', 'ap-south-1'],
  ])('asks the Pricing endpoint of %s in %s', (cluster, endpoint) => expect(pricingEndpointRegion(cluster)).toBe(endpoint));
});
