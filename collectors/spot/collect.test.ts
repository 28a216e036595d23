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
import { PriceCollector } from '../../cli/price-collector.js';
import type { NodePoolRecord, NodeRecord } from '../../core/model.js';

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
      { instanceTypes: ['c5.xlarge'], since: T('2026-11-02T00:00:00Z'), until: TINY_END },
    );
    expect(result.prices).toBe(6);
    expect(served.ctx.requestLog).toHaveLength(2);
  });
});

describe('PriceCollector: spot history for every admitted type and zone, incrementally (issue 21 item 4)', () => {
  let dir: string;
  let served: ServedHandlers;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-spot-sync-'));
    served = await serveHandlers([ec2Handler], newContext(tinyScenario(), TINY_END));
  });
  afterEach(async () => {
    await served.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // The tiny scenario's `general` NodePool is on-demand only and admits m5.large; nothing runs as spot.
  const pool: NodePoolRecord = {
    name: 'general',
    weight: null,
    consolidationPolicy: 'WhenEmptyOrUnderutilized',
    consolidateAfter: '1m',
    capacityTypes: ['on-demand'],
    requirements: [
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
      { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large'] },
    ],
    limits: {},
    budgets: [],
    nodeClass: 'default',
  };
  const node = (zone: string): NodeRecord => ({
    name: `n-${zone}`,
    nodeClaim: null,
    nodePool: 'general',
    instanceType: 'm5.large',
    capacityType: 'on-demand',
    zone,
    instanceId: null,
    createdAt: 0,
    allocatable: { cpuMillicores: 1930, memoryBytes: 6903 * 2 ** 20, pods: 29, gpu: 0 },
    labels: {},
  });

  /** The EC2 client with what each DescribeSpotPriceHistory asked for recorded (the real SDK's middleware stack). */
  function recordingClient(asked: { types: string[]; zones: string[]; start: string; max: number | undefined }[]): EC2Client {
    const ec2 = createEc2Client({ region: 'us-east-1', endpoint: served.url });
    ec2.middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as {
          NextToken?: string;
          InstanceTypes?: string[];
          Filters?: { Values?: string[] }[];
          StartTime?: Date;
          MaxResults?: number;
        };
        if (input.NextToken === undefined)
          asked.push({
            types: input.InstanceTypes ?? [],
            zones: input.Filters?.[0]?.Values ?? [],
            start: input.StartTime?.toISOString() ?? '',
            max: input.MaxResults,
          });
        return next(args);
      },
      { step: 'initialize', name: 'recordSpotAsks' },
    );
    return ec2;
  }

  it('an on-demand-only NodePool gets its admitted type priced in every zone; later runs ask only from where the history ends', async () => {
    const path = join(dir, 'ledger.db');
    const asked: { types: string[]; zones: string[]; start: string; max: number | undefined }[] = [];
    const ec2 = recordingClient(asked);
    const cluster = { nodePools: [pool], nodes: [node('us-east-1a'), node('us-east-1c')] };
    const t0 = T('2026-11-10T00:00:00Z');
    const hour = 3_600_000;
    const db = openDb({ path });
    const first = new PriceCollector(db, 'us-east-1', null, { ec2 });
    await first.ensureSpotMarkets(cluster, t0);
    await first.ensureSpotMarkets(cluster, t0 + hour); // nothing runs as spot: admitted types are refreshed every 12 h
    await first.ensureSpotMarkets(cluster, t0 + 12 * hour); // the 12-hour refresh, from t0
    db.close();
    // A new `collect` run on the same file: the coverage is stored, so nothing is due for another 12 hours.
    const db2 = openDb({ path });
    const second = new PriceCollector(db2, 'us-east-1', null, { ec2 });
    await second.ensureSpotMarkets(cluster, t0 + 12 * hour + 5 * 60_000);
    // A spot node of c5.xlarge appears (the tiny scenario's spot type): asked at once, then refreshed hourly.
    const spot = { ...node('us-east-1a'), name: 'spot', instanceType: 'c5.xlarge', capacityType: 'spot' as const };
    const withSpot = { nodePools: [pool], nodes: [...cluster.nodes, spot] };
    await second.ensureSpotMarkets(withSpot, t0 + 13 * hour);
    await second.ensureSpotMarkets(withSpot, t0 + 14 * hour);
    ec2.destroy();
    const zones = ['us-east-1a', 'us-east-1c'];
    expect(asked).toEqual([
      { types: ['m5.large'], zones, start: '2026-11-09T00:00:00.000Z', max: 2000 },
      { types: ['m5.large'], zones, start: '2026-11-10T00:00:00.000Z', max: 2000 },
      { types: ['c5.xlarge'], zones, start: '2026-11-09T13:00:00.000Z', max: 2000 },
      { types: ['c5.xlarge'], zones, start: '2026-11-10T13:00:00.000Z', max: 2000 },
    ]);
    expect(createApiRequestsRepository(db2).countApiRequests({ service: 'ec2', operation: 'DescribeSpotPriceHistory' })).toBe(4);
    // The sandbox answers the m5.large market (a simulated walk of its own, 20-70 % of on-demand 0.096).
    const prices = createPricesRepository(db2);
    const inA = prices.spotPriceAt('us-east-1', 'm5.large', 'us-east-1a', t0);
    expect(inA?.source).toBe('spot-history');
    expect(inA?.pricePerHour).toBeGreaterThan(0.096 * 0.2 - 1e-4);
    expect(inA?.pricePerHour).toBeLessThan(0.096 * 0.7 + 1e-4);
    expect(prices.spotPriceAt('us-east-1', 'm5.large', 'us-east-1c', t0)?.source).toBe('spot-history');
    expect(prices.spotPriceAt('us-east-1', 'm5.large', 'us-east-1b', t0)).toBeNull();
    // c5.xlarge in us-east-1a: 0.075 from 11-05 (the tiny scenario's hand-set history).
    expect(prices.spotPriceAt('us-east-1', 'c5.xlarge', 'us-east-1a', t0 + 14 * hour)?.pricePerHour).toBe(0.075);
    db2.close();
  });
});
