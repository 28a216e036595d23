import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EC2Client } from '@aws-sdk/client-ec2';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Db, openDb } from '../../db/open-db.js';
import { createApiRequestsRepository } from '../../db/repositories/api-requests-repository.js';
import { PriceBook } from '../../db/repositories/price-book.js';
import { createPricesRepository } from '../../db/repositories/prices-repository.js';
import { ec2Handler } from '../../sandbox/serve/ec2.js';
import { newContext, serveHandlers, type ServedHandlers, useDummyAwsCredentials } from '../../test/fixtures/serve-handlers.js';
import { T, TINY_END, tinyScenario } from '../../test/fixtures/tiny-scenario.js';
import { createEc2Client } from './client.js';
import { collectSpotPrices } from './collect.js';

useDummyAwsCredentials();

describe('collectSpotPrices against the sandbox (real SDK, real SQLite file)', () => {
  let dir: string;
  let db: Db;
  let served: ServedHandlers;
  let ec2: EC2Client;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-spot-'));
    db = openDb({ path: join(dir, 'ledger.db') });
    served = await serveHandlers([ec2Handler], newContext(tinyScenario(), TINY_END));
    ec2 = createEc2Client({ region: 'us-east-1', endpoint: served.url });
  });
  afterEach(async () => {
    ec2.destroy();
    await served.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("stores every zone's history over several pages, so the price at any time of the window is known", async () => {
    const result = await collectSpotPrices(
      { db, ec2, region: 'us-east-1', now: TINY_END, pageSize: 2 },
      { instanceTypes: ['c5.xlarge'], since: T('2026-11-02T00:00:00Z'), until: TINY_END },
    );
    // In effect at 11-02: one point per zone (3); changes after: 11-03 04:30 and 09:00 in 1b, 11-05 in 1a.
    expect(result).toEqual({ requests: 3, items: 6, prices: 6 });
    expect(createApiRequestsRepository(db).countApiRequests({ service: 'ec2', operation: 'DescribeSpotPriceHistory' })).toBe(3);
    const prices = createPricesRepository(db);
    expect(prices.spotPriceAt('us-east-1', 'c5.xlarge', 'us-east-1b', T('2026-11-03T05:00:00Z'))?.pricePerHour).toBe(0.08);
    expect(prices.spotPriceAt('us-east-1', 'c5.xlarge', 'us-east-1a', T('2026-11-10T00:00:00Z'))?.pricePerHour).toBe(0.075);
    const book = PriceBook.fromDb(db, 'us-east-1');
    expect(book.spot('c5.xlarge', 'us-east-1c', T('2026-11-14T00:00:00Z'))).toEqual({
      pricePerHour: 0.069,
      currency: 'USD',
      source: 'spot-history',
    });
  });

  it('asks for nothing after now and nothing at all for an empty type list', async () => {
    const now = T('2026-11-03T06:00:00Z');
    served.ctx.clock.set(now);
    await collectSpotPrices(
      { db, ec2, region: 'us-east-1', now },
      { instanceTypes: ['c5.xlarge'], since: T('2026-11-03T00:00:00Z'), until: TINY_END },
    );
    expect(createPricesRepository(db).latestSpotChange('us-east-1')).toBe(T('2026-11-03T04:30:00Z'));
    expect(await collectSpotPrices({ db, ec2, region: 'us-east-1', now }, { instanceTypes: [], since: 0, until: now })).toEqual({
      requests: 0,
      items: 0,
      prices: 0,
    });
  });

  it('retries a throttled page (RequestLimitExceeded) and still collects everything', async () => {
    served.ctx.faults.push({ match: 'DescribeSpotPriceHistory', status: 503, remaining: 1 });
    const result = await collectSpotPrices(
      { db, ec2, region: 'us-east-1', now: TINY_END },
      { since: T('2026-11-02T00:00:00Z'), until: TINY_END },
    );
    expect(result.prices).toBe(6);
    expect(served.ctx.requestLog).toHaveLength(2);
  });
});
