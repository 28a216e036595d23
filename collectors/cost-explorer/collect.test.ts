import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CostExplorerClient } from '@aws-sdk/client-cost-explorer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Db, openDb } from '../../db/open-db.js';
import { createApiRequestsRepository } from '../../db/repositories/api-requests-repository.js';
import { createCostLinesRepository } from '../../db/repositories/cost-lines-repository.js';
import { createCostExplorerHandler } from '../../sandbox/serve/cost-explorer.js';
import { newContext, serveHandlers, type ServedHandlers, useDummyAwsCredentials } from '../../test/fixtures/serve-handlers.js';
import { T, TINY_END, tinyScenario } from '../../test/fixtures/tiny-scenario.js';
import { createCostExplorerClient } from './client.js';
import { collectCostExplorer } from './collect.js';

useDummyAwsCredentials();

const WINDOW = { startMs: T('2026-11-01T00:00:00Z'), endMs: TINY_END };

describe('collectCostExplorer against the sandbox (real SDK, real SQLite file)', () => {
  let dir: string;
  let db: Db;
  let served: ServedHandlers;
  let ce: CostExplorerClient;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-ce-'));
    db = openDb({ path: join(dir, 'ledger.db') });
    // Page size 5: the 14-day queries need several pages (16 and 16 slots).
    served = await serveHandlers([createCostExplorerHandler({ pageSize: 5 })], newContext(tinyScenario(), TINY_END));
    ce = createCostExplorerClient({ endpoint: served.url });
  });
  afterEach(async () => {
    ce.destroy();
    await served.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // The compute queries alone (otherCosts: false): their paging and counts are worked by hand below; the EC2 - Other
  // query has its own test.
  const deps = (now: number) => ({ db, ce, clusterName: 'tiny-cluster', now, otherCosts: false });
  const ceCalls = (): number => served.ctx.requestLog.filter((r) => r.operation === 'ce:GetCostAndUsage').length;

  it("collects every page, keeps untagged cost as nodepool '', and matches the hand-worked bill", async () => {
    const result = await collectCostExplorer(deps(TINY_END), WINDOW);
    expect(result.queries.map((q) => [q.groupBy, q.requested, q.requests])).toEqual([
      ['PURCHASE_TYPE', { start: '2026-11-01', end: '2026-11-15' }, 4],
      ['INSTANCE_TYPE', { start: '2026-11-01', end: '2026-11-15' }, 4],
    ]);
    expect(ceCalls()).toBe(8);
    expect(createApiRequestsRepository(db).countApiRequests({ service: 'ce', operation: 'GetCostAndUsage' })).toBe(8);

    const days = createCostLinesRepository(db).costPerNodePoolPerDay({ fromMs: WINDOW.startMs, toMs: WINDOW.endMs });
    const total = (pool: string): number => days.filter((d) => d.nodePool === pool).reduce((s, d) => s + d.unblendedUsd, 0);
    expect(total('general')).toBeCloseTo(10 * 0.096, 9);
    expect(total('spot-batch')).toBeCloseTo(4.5 * 0.07 + 4.5 * 0.08 + 3 * 0.065, 9);
    expect(total('')).toBeCloseTo(336 * 0.192, 8);
    expect(days.find((d) => d.nodePool === 'spot-batch')).toMatchObject({
      day: '2026-11-03',
      purchaseType: 'Spot Instances',
      usageQuantity: 12,
    });
    expect(days.filter((d) => d.estimated).map((d) => d.day)).toEqual(['2026-11-13', '2026-11-14']);

    const byType = createCostLinesRepository(db).listCostLines({
      source: 'cost-explorer',
      granularity: 'DAILY',
      groupBy: 'INSTANCE_TYPE',
      fromMs: T('2026-11-03T00:00:00Z'),
      toMs: T('2026-11-04T00:00:00Z'),
    });
    expect(byType.map((l) => [l.nodePool, l.dimensionValue, l.unblendedUsd])).toEqual([
      ['', 'm5.xlarge', 4.608],
      ['spot-batch', 'c5.xlarge', 0.87],
    ]);
  });

  it('collects EC2 - Other (root volumes, data transfer) by NodePool and usage type, with all four cost metrics in one request', async () => {
    const result = await collectCostExplorer({ ...deps(TINY_END), otherCosts: true }, WINDOW);
    expect(result.queries.map((q) => [q.groupBy, q.requests])).toEqual([
      ['PURCHASE_TYPE', 4],
      ['INSTANCE_TYPE', 4],
      // 14 days of the untagged node's volume and transfer (28 slots) + general's and spot-batch's day (4) = 32 slots, 5 a page.
      ['USAGE_TYPE', 7],
    ]);
    expect(createApiRequestsRepository(db).countApiRequests({ service: 'ce', operation: 'GetCostAndUsage' })).toBe(15);
    const lines = createCostLinesRepository(db);
    const other = lines.listCostLines({
      source: 'cost-explorer',
      granularity: 'DAILY',
      groupBy: 'USAGE_TYPE',
      fromMs: T('2026-11-02T00:00:00Z'),
      toMs: T('2026-11-03T00:00:00Z'),
    });
    const general = other.filter((l) => l.nodePool === 'general');
    expect(general.map((l) => l.dimensionValue)).toEqual(['DataTransfer-Regional-Bytes', 'EBS:VolumeUsage.gp3']);
    // 20 GiB for 10 h of a 720-hour month = 0.2778 GB-Mo at USD 0.08.
    const volume = general[1];
    expect(volume.usageQuantity).toBeCloseTo((20 * 10) / 720, 9);
    expect(volume.usageUnit).toBe('GB-Mo');
    expect(volume.unblendedUsd).toBeCloseTo(((20 * 10) / 720) * 0.08, 9);
    expect([volume.amortizedUsd, volume.netUnblendedUsd, volume.netAmortizedUsd]).toEqual([
      volume.unblendedUsd,
      volume.unblendedUsd,
      volume.unblendedUsd,
    ]);
    // 0.02-0.10 GB an hour between zones at USD 0.01/GB, for 10 h.
    expect(general[0].unblendedUsd).toBeGreaterThanOrEqual(10 * 0.02 * 0.01);
    expect(general[0].unblendedUsd).toBeLessThanOrEqual(10 * 0.1 * 0.01);
    // Every NodePool that ran has its volume: general, spot-batch and the untagged managed node.
    const pools = new Set(
      lines
        .listCostLines({ source: 'cost-explorer', granularity: 'DAILY', groupBy: 'USAGE_TYPE', fromMs: WINDOW.startMs, toMs: WINDOW.endMs })
        .filter((l) => l.dimensionValue === 'EBS:VolumeUsage.gp3')
        .map((l) => l.nodePool),
    );
    expect([...pools].sort()).toEqual(['', 'general', 'spot-batch']);
    // The compute line carries all four metrics: amortized under the Savings Plan (fully covered: 0.96 x 0.72), net = gross (no credits).
    const compute = lines
      .listCostLines({
        source: 'cost-explorer',
        granularity: 'DAILY',
        groupBy: 'PURCHASE_TYPE',
        fromMs: T('2026-11-02T00:00:00Z'),
        toMs: T('2026-11-03T00:00:00Z'),
      })
      .find((l) => l.nodePool === 'general');
    expect(compute?.unblendedUsd).toBeCloseTo(0.96, 9);
    expect(compute?.amortizedUsd).toBeCloseTo(0.6912, 9);
    expect(compute?.netUnblendedUsd).toBeCloseTo(0.96, 9);
    expect(compute?.netAmortizedUsd).toBeCloseTo(0.6912, 9);
  });

  it('asks again only for days not final: zero GetCostAndUsage calls when the whole range is final', async () => {
    // At 11-15 00:00 the days up to 11-12 are final; a window ending 11-13 is then complete.
    const finalWindow = { startMs: WINDOW.startMs, endMs: T('2026-11-13T00:00:00Z') };
    await collectCostExplorer(deps(TINY_END), finalWindow);
    const before = ceCalls();
    const again = await collectCostExplorer(deps(TINY_END), finalWindow);
    expect(again.requests).toBe(0);
    expect(again.queries.map((q) => q.requested)).toEqual([null, null]);
    expect(ceCalls()).toBe(before);
    expect(
      createCostLinesRepository(db).latestFinalPeriod({ source: 'cost-explorer', granularity: 'DAILY', groupBy: 'PURCHASE_TYPE' }),
    ).toBe('2026-11-12');
  });

  it('refreshes estimated days and replaces their lines, starting at the first non-final day', async () => {
    const early = T('2026-11-14T10:00:00Z');
    served.ctx.clock.set(early);
    await collectCostExplorer(deps(early), WINDOW);
    const lines = createCostLinesRepository(db);
    const day13 = (): number | undefined =>
      lines.costPerNodePoolPerDay({ fromMs: T('2026-11-14T00:00:00Z'), toMs: TINY_END })[0]?.unblendedUsd;
    // 11-14 partial: 10 h of the managed node.
    expect(day13()).toBeCloseTo(10 * 0.192, 9);

    served.ctx.clock.set(TINY_END);
    const before = ceCalls();
    const second = await collectCostExplorer(deps(TINY_END), WINDOW);
    // At 11-14 10:00 the final days ran to 11-11; the refresh starts at 11-12 (3 days x 1 group = 3 slots: one page each).
    expect(second.queries.map((q) => q.requested?.start)).toEqual(['2026-11-12', '2026-11-12']);
    expect(ceCalls() - before).toBe(2);
    expect(day13()).toBeCloseTo(24 * 0.192, 9);
    const rows = lines.listCostLines({
      source: 'cost-explorer',
      granularity: 'DAILY',
      groupBy: 'PURCHASE_TYPE',
      fromMs: T('2026-11-12T00:00:00Z'),
      toMs: TINY_END,
    });
    expect(rows.map((r) => [r.periodStart, r.estimated])).toEqual([
      ['2026-11-12', false],
      ['2026-11-13', true],
      ['2026-11-14', true],
    ]);
  });

  it('survives one throttled call (the SDK retries) and counts a call that finally fails', async () => {
    served.ctx.faults.push({ match: 'GetCostAndUsage', status: 400, remaining: 1 });
    await expect(collectCostExplorer(deps(TINY_END), WINDOW)).resolves.toMatchObject({ requests: 8 });

    const dir2 = mkdtempSync(join(tmpdir(), 'ledger-ce-'));
    const db2 = openDb({ path: join(dir2, 'ledger.db') });
    const once = createCostExplorerClient({ endpoint: served.url, maxAttempts: 1 });
    served.ctx.faults.push({ match: 'GetCostAndUsage', status: 500, remaining: 1 });
    await expect(collectCostExplorer({ db: db2, ce: once, clusterName: 'tiny-cluster', now: TINY_END }, WINDOW)).rejects.toMatchObject({
      $metadata: { httpStatusCode: 500 },
    });
    expect(createApiRequestsRepository(db2).countApiRequests({ service: 'ce' })).toBe(1);
    expect(createCostLinesRepository(db2).costPerNodePoolPerDay({ fromMs: WINDOW.startMs, toMs: WINDOW.endMs })).toEqual([]);
    once.destroy();
    db2.close();
    rmSync(dir2, { recursive: true, force: true });
  });
});
