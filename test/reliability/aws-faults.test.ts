import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CostExplorerClient } from '@aws-sdk/client-cost-explorer';
import type { EC2Client } from '@aws-sdk/client-ec2';
import type { PricingClient } from '@aws-sdk/client-pricing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_ATTEMPTS } from '../../collectors/aws-client-config.js';
import { checkCostAllocationTags } from '../../collectors/cost-explorer/allocation-tags.js';
import { createCostExplorerClient } from '../../collectors/cost-explorer/client.js';
import { collectCostExplorer } from '../../collectors/cost-explorer/collect.js';
import { createPricingClient } from '../../collectors/pricing/client.js';
import { collectOnDemandPrices } from '../../collectors/pricing/collect.js';
import { createEc2Client } from '../../collectors/spot/client.js';
import { collectSpotPrices } from '../../collectors/spot/collect.js';
import { openDb, type Db } from '../../db/open-db.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { onSandboxRequest } from './fixtures/request-hook.js';

/*
 * AWS throttling and 5xx storms through the real SDK clients as the collectors build them (standard retry mode,
 * DEFAULT_MAX_ATTEMPTS attempts): every other call failing twice before it succeeds still ends with exactly the rows of
 * a calm run; a storm longer than the attempts fails that collection with the service's error, keeps what earlier
 * whole queries stored and half of nothing, and the next run fills the gap.
 */
let sb: RunningSandbox;
let ce: CostExplorerClient;
let pricing: PricingClient;
let ec2: EC2Client;
let unhook: () => void = () => {};
const savedEnv = { ...process.env };
const dir = mkdtempSync(join(tmpdir(), 'ledger-aws-faults-'));
const SPOT_TYPES = ['c6i.xlarge', 'm6i.large', 'r6i.xlarge'];

beforeAll(async () => {
  sb = await startSandbox({});
  Object.assign(process.env, sb.awsEnv);
  delete process.env.AWS_MAX_ATTEMPTS;
  delete process.env.AWS_RETRY_MODE;
  ce = createCostExplorerClient();
  pricing = createPricingClient({ region: 'us-east-1' });
  ec2 = createEc2Client({ region: sb.scenario.region });
});
afterAll(async () => {
  for (const c of [ce, pricing, ec2]) c?.destroy();
  await sb?.close();
  process.env = savedEnv;
});
beforeEach(() => {
  unhook();
  unhook = () => {};
  sb.ctx.faults.length = 0;
});

/**
 * The AWS side of a collection: allocation tags, the DAILY bill (2 + 3 pages), on-demand prices (15 pages) and
 * spot prices. HOURLY and per-instance lines (another 41 pages) are left out to keep the backoff waits short.
 */
async function collectAws(db: Db) {
  const { start, end, clusterName, region } = sb.scenario;
  const tags = await checkCostAllocationTags(ce, clusterName);
  const bill = await collectCostExplorer({ db, ce, clusterName, now: end }, { startMs: start, endMs: end });
  const onDemand = await collectOnDemandPrices({ db, pricing, region, now: end, runId: null });
  const spot = await collectSpotPrices({ db, ec2, region, now: end }, { instanceTypes: SPOT_TYPES, since: start, until: end });
  return { tags, billLines: bill.linesWritten, onDemandRows: onDemand.written, spotPrices: spot.prices };
}

const stored = (db: Db) => ({
  costLines: db
    .prepare(
      `SELECT source, granularity, group_by, period_start, nodepool, dimension_value, unblended_usd, amortized_usd, usage_quantity, estimated
    FROM cost_lines ORDER BY granularity, group_by, period_start, nodepool, dimension_value`,
    )
    .all(),
  prices: db
    .prepare(
      'SELECT kind, region, instance_type, zone, effective_at, usd_per_hour, source FROM prices ORDER BY kind, instance_type, zone, effective_at',
    )
    .all(),
});
const awsOps = (): string[] => sb.ctx.requestLog.map((r) => r.operation).filter((op) => !op.startsWith('kube:') && !op.startsWith('_'));
const countBy = (ops: string[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const op of ops) out[op] = (out[op] ?? 0) + 1;
  return out;
};

describe('AWS throttling and 5xx storms', () => {
  it('a storm where every other call fails twice (throttled, then a 5xx) ends with exactly the calm rows', async () => {
    const calmDb = openDb({ path: join(dir, 'calm.db') });
    const stormDb = openDb({ path: join(dir, 'storm.db') });
    try {
      let before = awsOps().length;
      const calm = await collectAws(calmDb);
      const calmOps = countBy(awsOps().slice(before));
      expect(Object.keys(calmOps).sort()).toEqual([
        'ce:GetCostAndUsage',
        'ce:ListCostAllocationTags',
        'ec2:DescribeSpotPriceHistory',
        'pricing:GetProducts',
      ]);
      // The compute queries and EC2 - Other x usage type (a volume and a transfer line per NodePool and day) take
      // ten pages over week4's five Karpenter NodePools and the untagged line (seven when it had three).
      expect(calmOps['ce:GetCostAndUsage']).toBe(10);

      // Per operation, every other call fails twice (throttling, then a 500 or 503) and goes through on attempt 3.
      const calls = new Map<string, { call: number; failed: number }>();
      const failedAt: number[] = [];
      const retriedAt: number[] = [];
      unhook = onSandboxRequest(sb.ctx, (op) => {
        if (op.startsWith('kube:')) return;
        const c = calls.get(op) ?? { call: 0, failed: 0 };
        calls.set(op, c);
        if (c.failed === 0) c.call += 1;
        else retriedAt.push(Date.now());
        if (c.call % 2 === 1 && c.failed < 2) {
          c.failed += 1;
          failedAt.push(Date.now());
          sb.ctx.faults.push({
            match: op.slice(op.indexOf(':') + 1),
            status: c.failed === 1 ? 400 : c.call % 4 === 1 ? 500 : 503,
            remaining: 1,
          });
        } else {
          c.failed = 0;
        }
      });
      before = awsOps().length;
      const storm = await collectAws(stormDb);
      unhook();

      expect(storm).toEqual(calm);
      const rows = stored(calmDb);
      expect([rows.costLines.length > 0, rows.prices.some((p) => (p as { kind: string }).kind === 'spot')]).toEqual([true, true]);
      expect(stored(stormDb)).toEqual(rows);
      // The same calls, every other one sent three times: retried by the SDK, not re-planned by the collector.
      const stormOps = countBy(awsOps().slice(before));
      expect(stormOps).toEqual(Object.fromEntries(Object.entries(calmOps).map(([op, n]) => [op, n + 2 * Math.ceil(n / 2)])));
      // Backed off: on average a retry waited (full jitter of 100 ms x 2^n for 5xx, 500 ms x 2^n for throttling).
      const gaps = failedAt.map((t, i) => retriedAt[i] - t);
      expect(gaps.reduce((a, b) => a + b, 0) / gaps.length).toBeGreaterThan(20);
    } finally {
      calmDb.close();
      stormDb.close();
    }
  }, 90_000);

  it(`an outage longer than ${DEFAULT_MAX_ATTEMPTS} attempts fails the bill with the service's error, half-writes nothing, and the next run fills the gap`, async () => {
    const db = openDb({ path: join(dir, 'outage.db') });
    const calm = openDb({ path: join(dir, 'calm.db'), readonly: true }); // filled by the previous test
    try {
      const { start, end, clusterName } = sb.scenario;
      const deps = { db, ce, clusterName, now: end };
      // The DAILY x PURCHASE_TYPE query takes calls 1-2, DAILY x INSTANCE_TYPE calls 3-5: Cost Explorer goes down
      // at call 4, the second page of the second query, and answers nothing but 503 from then on.
      let calls = 0;
      unhook = onSandboxRequest(sb.ctx, (op) => {
        if (op === 'ce:GetCostAndUsage' && ++calls === 4) sb.ctx.faults.push({ match: 'GetCostAndUsage', status: 503, remaining: 1_000 });
      });
      await expect(collectCostExplorer(deps, { startMs: start, endMs: end })).rejects.toThrow(/Service is unavailable/);
      expect(calls).toBe(3 + DEFAULT_MAX_ATTEMPTS); // three calls, then one call's every attempt
      unhook();
      sb.ctx.faults.length = 0;

      // The first query is stored whole, the second not at all (its first page was in hand, never written).
      const groups = (d: Db, groupBy: string) => stored(d).costLines.filter((l) => (l as { group_by: string }).group_by === groupBy);
      expect(groups(db, 'PURCHASE_TYPE')).toEqual(groups(calm, 'PURCHASE_TYPE'));
      expect(groups(calm, 'INSTANCE_TYPE').length).toBeGreaterThan(0);
      expect(groups(db, 'INSTANCE_TYPE')).toEqual([]);

      const again = await collectCostExplorer(deps, { startMs: start, endMs: end });
      expect(again.linesWritten).toBeGreaterThan(0);
      expect(stored(db).costLines).toEqual(stored(calm).costLines);
    } finally {
      db.close();
      calm.close();
    }
  }, 60_000);
});
