import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedFromSandbox, type SeedSummary } from '../../cli/seed-sandbox.js';
import type { Db } from '../../db/open-db.js';
import { computeBill, nodePoolCostByHand } from '../../sandbox/scenario/bill.js';
import { DAY_MS } from '../../core/time.js';
import { applySavingsPlan, defaultSavingsPlan } from '../../sandbox/scenario/volumes-savings-plan.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { buildApp } from '../../server/app.js';
import type { DailyCostResponse } from '../../server/schemas/cost.js';
import type { EfficiencyResponse } from '../../server/schemas/efficiency.js';
import type { NodePoolsResponse } from '../../server/schemas/nodepools.js';
import { seededDb, type SeededDb } from '../fixtures/seeded-api.js';

/**
 * The whole path, as `npm start` runs it: the sandbox on loopback, the real Kubernetes and AWS SDK clients
 * reading it through a kubeconfig and AWS_ENDPOINT_URL_*, SQLite on disk, then the API over that file.
 * The first 6 of the scenario's 14 days: the whole path is the same, and less than half the collecting. They are
 * the days bill.test.ts explains: seeded once for both (test/fixtures/seeded-api.ts keeps the database and what its
 * seeding reported, and re-seeds whenever a source of the seeding changes), whichever file asks first.
 */
const DAYS = 6;
let sb: RunningSandbox;
let endMs: number;
let seeded: SeededDb;
let db: Db;
let summary: SeedSummary;
const saved = { ...process.env };

beforeAll(async () => {
  seeded = await seededDb({ prefix: 'ledger-e2e-', days: DAYS });
  ({ db, endMs } = seeded);
  summary = seeded.seeding.summary;
  // A sandbox of its own to resume against (the scenario cache makes this a read of the simulated history).
  sb = await startSandbox({});
  Object.assign(process.env, sb.awsEnv);
  expect(endMs).toBe(sb.scenario.start + DAYS * DAY_MS);
}, 420_000);

afterAll(async () => {
  await seeded?.close();
  await sb?.close();
  process.env = saved;
});

describe('sandbox -> collectors -> SQLite -> API', () => {
  it('takes a snapshot every 5 simulated minutes for 6 days through watches, not per-step lists', () => {
    expect(summary.snapshots).toBe(DAYS * 24 * 12);
    // Six lists and six watches: the per-step reads came from the watch cache.
    expect(summary.kubeRequests).toBeLessThan(30);
    expect(summary.costExplorerRequests).toBeGreaterThan(0);
    expect(summary.priceRows).toBeGreaterThan(0);
    // The AWS calls went to the sandbox through the SDK, and were counted there.
    const ops = new Set(seeded.seeding.operations);
    expect([...ops]).toEqual(expect.arrayContaining(['ce:GetCostAndUsage', 'pricing:GetProducts', 'ec2:DescribeSpotPriceHistory']));
  });

  it('serves the NodePools, those with nodes at non-zero cost, and a bill that matches the cluster', async () => {
    const app = buildApp({ db, now: () => endMs });
    try {
      const pools = (await app.inject({ url: '/api/nodepools' })).json<NodePoolsResponse>();
      // The syllabus' three, issue 21's tainted and on-demand-only ones, and the static load-test (0 replicas: no node).
      expect(pools.items.map((p) => p.name).sort()).toEqual(['dedicated', 'general', 'load-test', 'spot-batch', 'steady', 'system']);

      const res = await app.inject({ url: '/api/cost/nodepools/daily?from=2026-11-01&to=2026-11-15&metric=unblended' });
      expect(res.statusCode).toBe(200);
      const cost = res.json<DailyCostResponse>();
      const billBy = new Map<string, number>();
      const amortizedBy = new Map<string, number>();
      const storageBy = new Map<string, number>();
      const estimateBy = new Map<string, number>();
      for (const r of cost.rows) {
        if (r.band === 'storage-network') {
          storageBy.set(r.nodePool, (storageBy.get(r.nodePool) ?? 0) + (r.billUsd ?? 0));
          continue;
        }
        billBy.set(r.nodePool, (billBy.get(r.nodePool) ?? 0) + (r.billUsd ?? 0));
        amortizedBy.set(r.nodePool, (amortizedBy.get(r.nodePool) ?? 0) + (r.billAmortizedUsd ?? 0));
        estimateBy.set(r.nodePool, (estimateBy.get(r.nodePool) ?? 0) + (r.estimateUsd ?? 0));
      }
      // Every NodePool's root volumes and data transfer are on its bill, beside its instances.
      for (const pool of ['system', 'general', 'spot-batch', 'dedicated', 'steady', ''])
        expect(storageBy.get(pool) ?? 0).toBeGreaterThan(0);
      // Amortized per NodePool = the simulated node-hours x prices − what the Savings Plan saved on them, to the cent.
      const savedBy = new Map<string, number>();
      // The plan applies over the whole simulated bill (nodes launched before the window too); the window's hours count.
      for (const c of applySavingsPlan(computeBill(sb.scenario, endMs), defaultSavingsPlan(sb.scenario)).lines) {
        if (c.line.hourStart < sb.scenario.start) continue;
        const pool = c.line.nodePool ?? '';
        savedBy.set(pool, (savedBy.get(pool) ?? 0) + c.coveredOnDemandUsd - c.savingsPlanEffectiveUsd);
      }
      expect([...savedBy.values()].reduce((t, v) => t + v, 0)).toBeGreaterThan(0);
      for (const pool of ['system', 'general', 'spot-batch', 'dedicated', 'steady']) expect(billBy.get(pool) ?? 0).toBeGreaterThan(0);
      // The untagged line (the managed node group running Karpenter) is kept, not dropped.
      expect(billBy.get('') ?? 0).toBeGreaterThan(0);

      // The bill served through Cost Explorer equals the simulated node-hours x prices, per NodePool, to the cent.
      const byHand = nodePoolCostByHand(sb.scenario, endMs, sb.scenario.start);
      expect(byHand.get('')).toBeCloseTo(2 * 0.096 * DAYS * 24, 6); // two m5.large all six days
      for (const [pool, usd] of byHand) expect(billBy.get(pool) ?? 0).toBeCloseTo(usd, 2);
      for (const [pool, usd] of byHand) expect(amortizedBy.get(pool) ?? 0).toBeCloseTo(usd - (savedBy.get(pool) ?? 0), 2);
      // Our snapshot estimate agrees with the bill: exactly for on-demand, within 1% where spot prices move mid-step.
      for (const pool of ['system', 'general', 'spot-batch', 'dedicated', 'steady', '']) {
        const bill = billBy.get(pool) ?? 0;
        expect(Math.abs((estimateBy.get(pool) ?? 0) - bill) / bill).toBeLessThan(0.01);
      }
    } finally {
      await app.close();
    }
  });

  it('serves efficiency per NodePool over time, downsampled, with values between 0 and 1', async () => {
    const app = buildApp({ db, now: () => endMs });
    try {
      const res = await app.inject({ url: '/api/efficiency/nodepools?from=2026-11-01&to=2026-11-15' });
      expect(res.statusCode).toBe(200);
      const eff = res.json<EfficiencyResponse>();
      const pools = new Set(eff.series.map((s) => s.nodePool));
      expect(pools).toEqual(new Set(['system', 'general', 'spot-batch', 'dedicated', 'steady', '']));
      for (const s of eff.series) {
        expect(s.points.length).toBeLessThanOrEqual(1000);
        for (const p of s.points) {
          if (p.cpu !== null) expect(p.cpu).toBeGreaterThan(0);
          if (p.cpu !== null) expect(p.cpu).toBeLessThanOrEqual(1);
        }
      }
      const general = eff.series.find((s) => s.nodePool === 'general');
      expect(general?.points.length).toBeGreaterThan(100);
    } finally {
      await app.close();
    }
  });

  it('resumes after the last snapshot instead of starting over', async () => {
    const sc = sb.scenario;
    const again = await seedFromSandbox({
      db,
      sandboxUrl: sb.url,
      kubeconfigPath: sb.kubeconfigPath,
      clusterName: sc.clusterName,
      region: sc.region,
      startMs: sc.start,
      endMs,
      stepMs: sc.stepMs,
      quiet: true,
      usage: false, // usage is not what this test looks at, and reading it doubles the seeding time
    });
    expect(again.snapshots).toBe(0);
    // Every day is final by now: the second Cost Explorer sync asks for nothing but the days still estimated.
    expect(again.costExplorerRequests).toBeLessThanOrEqual(summary.costExplorerRequests);
  });
});
