import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAthenaClient } from '../../collectors/cur/athena-client.js';
import { importCurFromAthena } from '../../collectors/cur/athena-import.js';
import { createS3Client } from '../../collectors/cur/s3-client.js';
import { importCurFromS3 } from '../../collectors/cur/s3-import.js';
import { openDb, type Db } from '../../db/open-db.js';
import { createCurRepository } from '../../db/repositories/cur-repository.js';
import { type RunningSandbox, startSandbox } from '../../sandbox/index.js';
import { computeBill } from '../../sandbox/scenario/bill.js';
import { applySavingsPlan, otherLines } from '../../sandbox/scenario/volumes-savings-plan.js';
import { sandboxBillModel } from '../../sandbox/serve/ce-query.js';
import { sandboxCurExportIn } from '../fixtures/sandbox-cur-export.js';

/*
 * The sandbox's Cost and Usage Report end to end, the way a user reaches a real one: written by the sandbox as a
 * Data Export, fetched over its S3 endpoint and imported with DuckDB, and aggregated by its Athena endpoint, both
 * through the real SDK clients into SQLite. Week4 comes from the scenario cache the suite shares, its export from the
 * copy sandbox/cur/write-export.test.ts reads too (test/fixtures/sandbox-cur-export.ts: written once per run).
 */

const cents = (usd: number): number => Math.round(usd * 100 + (usd >= 0 ? 1e-9 : -1e-9)) / 100;

describe('sandbox CUR -> S3 -> import and sandbox CUR -> Athena -> import', () => {
  let dir: string;
  let sandbox: RunningSandbox;
  let viaS3: Db;
  let viaAthena: Db;
  const savedEnv = { ...process.env };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-cur-e2e-'));
    await sandboxCurExportIn(dir);
    sandbox = await startSandbox({ dir, curExport: true });
    Object.assign(process.env, sandbox.awsEnv);
    viaS3 = openDb({ path: join(dir, 's3.db') });
    viaAthena = openDb({ path: join(dir, 'athena.db') });
    const s3 = createS3Client();
    await importCurFromS3(viaS3, s3, sandbox.cur.s3Url, { cacheRoot: join(dir, 'cur-cache') });
    const athena = createAthenaClient();
    await importCurFromAthena(viaAthena, athena, {
      ...sandbox.cur.athena,
      s3,
      // Every billing period the export holds (the history's first nodes were launched before the scenario starts).
      sinceMs: Date.parse(`${sandbox.curExport?.billingPeriods[0] ?? ''}-01T00:00:00Z`),
      nowMs: sandbox.scenario.end,
      poll: { firstMs: 20, factor: 1.5, maxMs: 200 },
    });
    athena.destroy();
    s3.destroy();
  });
  afterAll(async () => {
    viaS3.close();
    viaAthena.close();
    await sandbox.close();
    process.env = savedEnv;
    rmSync(dir, { recursive: true, force: true });
  });

  const range = () => ({ fromMs: 0, toMs: sandbox.scenario.end + 86_400_000 });

  it('gives the same NodePool-day, namespace-day and resource-day rows both ways', () => {
    const a = createCurRepository(viaS3);
    const b = createCurRepository(viaAthena);
    expect(a.nodePoolDays(range()).length).toBeGreaterThan(0);
    // DuckDB sums in parallel in no fixed order, so a stored 1e-9-rounded figure can differ in its last digit between
    // two runs of the same statement (450.248720312 vs …311 in one full run): compared at 1e-6, far below a cent.
    const same = (rows: readonly object[]) =>
      JSON.parse(
        JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'number' && !Number.isInteger(v) ? Math.round(v * 1e6) / 1e6 : v)),
      ) as unknown;
    expect(same(b.nodePoolDays(range()))).toEqual(same(a.nodePoolDays(range())));
    expect(same(b.namespaceDays(range()))).toEqual(same(a.namespaceDays(range())));
    expect(same(b.resourceDays(range()))).toEqual(same(a.resourceDays(range())));
    const periods = (db: Db) =>
      createCurRepository(db)
        .periods()
        .map((p) => [p.billingPeriod, p.curRows, p.unblendedUsd, p.amortizedUsd, p.splitLines]);
    expect(same(periods(viaAthena))).toEqual(same(periods(viaS3)));
    expect(a.periods().map((p) => p.source)).toEqual(a.periods().map(() => sandbox.cur.s3Url));
    expect(b.periods().map((p) => p.source)).toEqual(b.periods().map(() => 'athena:cid_data_export.cur2'));
  });

  it("makes each NodePool's amortized cost the sandbox's bill minus its Savings Plan discount, to the cent, volumes in every NodePool", () => {
    // The bill Cost Explorer serves, from the sandbox's model: instance hours and EC2-Other lines (unblended), and the
    // discount its Savings Plan applied to each covered hour (covered on-demand cost − the commitment it used).
    const sc = sandbox.scenario;
    const compute = computeBill(sc, sc.end);
    const model = sandboxBillModel(sc);
    const bill = new Map<string, { unblended: number; discount: number }>();
    const add = (pool: string | null, unblended: number, discount: number): void => {
      const t = bill.get(pool ?? '') ?? { unblended: 0, discount: 0 };
      t.unblended += unblended;
      t.discount += discount;
      bill.set(pool ?? '', t);
    };
    for (const c of applySavingsPlan(compute, model.savingsPlan ?? null, model.netDiscountFraction).lines)
      add(c.line.nodePool, c.line.unblendedUsd, c.coveredOnDemandUsd - c.savingsPlanEffectiveUsd);
    for (const l of otherLines(sc, compute, model)) add(l.nodePool, l.costs.unblendedUsd, 0);
    const fromCur = new Map<string, { amortized: number; volumes: number }>();
    for (const d of createCurRepository(viaS3).nodePoolDays(range())) {
      if (d.category === 'other') continue;
      const t = fromCur.get(d.nodePool) ?? { amortized: 0, volumes: 0 };
      t.amortized += d.amortizedUsd;
      if (d.category === 'volumes') t.volumes += d.amortizedUsd;
      fromCur.set(d.nodePool, t);
    }
    const pools = [...bill.keys()].filter((p) => p !== '').sort();
    expect(pools.length).toBeGreaterThanOrEqual(3);
    // The plan did cover some NodePool's hours (else the check would not test the discount).
    expect(Math.max(...pools.map((p) => bill.get(p)?.discount ?? 0))).toBeGreaterThan(1);
    for (const pool of pools) {
      const b = bill.get(pool) ?? { unblended: 0, discount: 0 };
      expect(cents(fromCur.get(pool)?.amortized ?? 0), pool).toBe(cents(b.unblended - b.discount));
      expect(fromCur.get(pool)?.volumes ?? 0, pool).toBeGreaterThan(0);
    }
  });
});
