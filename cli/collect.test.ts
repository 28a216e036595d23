import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDb } from '../db/open-db.js';
import { type CostLine, createCostLinesRepository } from '../db/repositories/cost-lines-repository.js';
import { createKubeRepository, KARPENTER_VERSION_SETTING } from '../db/repositories/kube-repository.js';
import { createRunsRepository } from '../db/repositories/runs-repository.js';
import { EXTRA_KINDS } from '../collectors/kubernetes/kinds.js';
import { createReportsRepository } from '../db/repositories/reports-repository.js';
import { writeKubeconfig } from '../sandbox/kubeconfig.js';
import type { SandboxHandler } from '../sandbox/serve/context.js';
import { createCostExplorerHandler } from '../sandbox/serve/cost-explorer.js';
import { ec2Handler } from '../sandbox/serve/ec2.js';
import { createKubeHandler } from '../sandbox/serve/kube.js';
import { pricingHandler } from '../sandbox/serve/pricing.js';
import { newContext, serveHandlers, type ServedHandlers } from '../test/fixtures/serve-handlers.js';
import { TINY_END, tinyScenario } from '../test/fixtures/tiny-scenario.js';
import { type CollectOptions, type CollectSummary, runCollect } from './collect.js';
import { DAY_MS } from '../core/time.js';

/**
 * `collect` as the CLI runs it (runCollect), against the tiny scenario's Kubernetes API and AWS account served on
 * loopback (its bill is worked by hand in test/fixtures/tiny-scenario.ts), with a spy that sees every Cost
 * Explorer request body. The clock stands at 11-15 00:00: days up to 11-12 are final, 11-13 and 11-14 estimated.
 */
interface CeCall {
  run: number;
  operation: string;
  granularity: string;
  groupBy: string;
  start: string;
  end: string;
}

let served: ServedHandlers;
let dir: string;
let kubeconfigPath: string;
let run = 0;
const ceCalls: CeCall[] = [];
/** Called with each Cost Explorer call as it arrives (to inject faults mid-run). */
let onCeCall: (c: CeCall) => void = () => {};

beforeAll(async () => {
  const scenario = tinyScenario();
  const token = randomBytes(16).toString('hex');
  const spy: SandboxHandler = (req) => {
    const target = req.headers['x-amz-target'];
    if (typeof target === 'string' && target.startsWith('AWSInsightsIndexService.GetCostAndUsage')) {
      const body = JSON.parse(req.body.toString('utf8')) as {
        Granularity: string;
        GroupBy: { Key: string }[];
        TimePeriod: { Start: string; End: string };
      };
      const call = {
        run,
        operation: target.split('.')[1],
        granularity: body.Granularity,
        groupBy: body.GroupBy[1].Key,
        start: body.TimePeriod.Start,
        end: body.TimePeriod.End,
      };
      ceCalls.push(call);
      onCeCall(call);
    }
    return null;
  };
  served = await serveHandlers(
    [spy, createKubeHandler(scenario, token), createCostExplorerHandler({ pageSize: 12 }), pricingHandler, ec2Handler],
    newContext(scenario, TINY_END),
  );
  dir = mkdtempSync(join(tmpdir(), 'ledger-collect-'));
  kubeconfigPath = join(dir, 'kubeconfig');
  writeKubeconfig(kubeconfigPath, served.url, token, scenario.clusterName);
});
afterAll(async () => {
  await served.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  for (const key of ['AWS_ENDPOINT_URL_COST_EXPLORER', 'AWS_ENDPOINT_URL_PRICING', 'AWS_ENDPOINT_URL_EC2']) vi.stubEnv(key, served.url);
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDCOLLECTTEST');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'collect-test-secret');
  vi.stubEnv('AWS_REGION', 'us-east-1');
  served.ctx.faults.length = 0;
  onCeCall = () => {};
});
afterEach(() => vi.unstubAllEnvs());

const options = (dbName: string): CollectOptions => ({
  cluster: 'tiny-cluster',
  sinceMs: 14 * DAY_MS,
  watch: false,
  intervalMs: 300_000,
  kubeconfig: kubeconfigPath,
  dbPath: join(dir, dbName),
  quiet: true,
  // The tiny cluster runs no Karpenter controller pod: the release is given, as a user outside the cluster would.
  karpenterVersion: '1.14.1',
});
const collectOnce = async (dbName: string): Promise<{ summary: CollectSummary; out: string[]; err: string[] }> => {
  run += 1;
  const out: string[] = [];
  const err: string[] = [];
  const summary = await runCollect(options(dbName), {
    now: () => served.ctx.clock.now(),
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { summary, out, err };
};
const callsOf = (r: number): CeCall[] => ceCalls.filter((c) => c.run === r);
/** Every stored line, without the fetch time, for comparing two databases. */
const allLines = (dbName: string): Omit<CostLine, 'fetchedAt'>[] => {
  const db = openDb({ path: join(dir, dbName) });
  const repo = createCostLinesRepository(db);
  const lines = (['PURCHASE_TYPE', 'INSTANCE_TYPE', 'USAGE_TYPE', 'RESOURCE_ID'] as const).flatMap((groupBy) =>
    (['DAILY', 'HOURLY'] as const).flatMap((granularity) =>
      repo.listCostLines({ source: 'cost-explorer', granularity, groupBy, fromMs: 0, toMs: TINY_END }).map(({ fetchedAt: _f, ...l }) => l),
    ),
  );
  db.close();
  return lines;
};

describe('collect (one pass) against a local cluster and AWS account', () => {
  it('run twice over the same range: the second asks Cost Explorer only for estimated periods, and says so', async () => {
    const first = await collectOnce('twice.db');
    expect(first.summary.ok).toBe(true);
    // ListCostAllocationTags 1; 16 daily slots a query, 12 a page: 2 + 2; EC2 - Other, a volume and a transfer line per
    // NodePool and day (14 x 2 untagged + 2 + 2 = 32 slots): 3; 312 hours of the managed node + 11 hours of general + 12
    // of spot-batch = 335 hourly slots: 28 pages; 13 + 1 + 1 per-instance slots: 2 pages.
    expect(first.summary.costExplorerRequests).toBe(1 + 2 + 2 + 3 + 28 + 2);
    expect(first.summary.snapshots).toBe(1);
    const linesAfterFirst = allLines('twice.db');
    const db = openDb({ path: join(dir, 'twice.db') });
    expect(JSON.parse(createRunsRepository(db).getSetting(KARPENTER_VERSION_SETTING) ?? 'null')).toEqual({
      version: '1.14.1',
      source: 'flag',
      seenAt: served.ctx.clock.now(),
    });
    db.close();

    const second = await collectOnce('twice.db');
    // Only the managed node is billed on 11-13 and 11-14: one page for each daily query (EC2 - Other included), 48
    // hourly slots in 4 pages, one per-instance page, and the tag check.
    expect(second.summary.costExplorerRequests).toBe(1 + 1 + 1 + 1 + 4 + 1);
    expect(second.out).toContain('Cost Explorer: 9 requests x USD 0.01 = USD 0.09; 311 final periods skipped');
    // 311 = 12 final days for each of the three daily queries + 11 days x 24 final hours + 11 final per-instance days.
    expect(12 + 12 + 12 + 11 * 24 + 11).toBe(311);
    // The server saw exactly those: none for a final day or hour.
    expect(callsOf(run)).toHaveLength(9 - 1);
    for (const c of callsOf(run)) expect(c.start >= '2026-11-13', JSON.stringify(c)).toBe(true);
    // Six lists of one page each, one for each kind the what-ifs read beyond them (collectors/kubernetes/kinds.ts:
    // a page, or a 404 where the cluster does not serve the kind), and the PodMetrics list the tiny cluster answers
    // 404 (no metrics-server: one request says so, NodeMetrics is not asked); no spot node, so no spot price request.
    expect(second.out.find((l) => l.startsWith('requests:'))).toBe(
      `requests: kubernetes ${6 + EXTRA_KINDS.length + 1}, ce 9, pricing ${second.summary.awsRequests['pricing:GetProducts']}`,
    );
    // Refetching the estimated periods at the same clock leaves every line as it was: none lost, none doubled.
    expect(allLines('twice.db')).toEqual(linesAfterFirst);
  });

  it('a fault mid-run writes nothing half-done; the next run fills the gap and ends where a clean run ends', async () => {
    vi.stubEnv('AWS_MAX_ATTEMPTS', '2');
    // Page 2 of the INSTANCE_TYPE query fails twice (both attempts); the pods list fails past its five retries.
    onCeCall = (c) => {
      if (c.groupBy === 'INSTANCE_TYPE' && callsOf(run).filter((x) => x.groupBy === 'INSTANCE_TYPE').length === 2) {
        served.ctx.faults.push({ match: 'GetCostAndUsage', status: 500, remaining: 2 });
      }
    };
    served.ctx.faults.push({ match: '/api/v1/pods', status: 500, remaining: 6 });
    const failed = await collectOnce('resume.db');
    expect(failed.summary.ok).toBe(false);
    expect(failed.summary.failures).toEqual([
      `kubernetes: listing pods failed with HTTP 500: injected fault 500 (kubeconfig ${kubeconfigPath}, context sandbox-tiny-cluster, server ${served.url})`,
      expect.stringMatching(/^cost explorer: InternalFailure: /),
    ]);
    expect(failed.out.at(-1)).toMatch(/^failed: cost explorer: InternalFailure/);
    const db = openDb({ path: join(dir, 'resume.db') });
    expect(createKubeRepository(db).snapshotCount()).toBe(0);
    const lines = createCostLinesRepository(db);
    const q = { source: 'cost-explorer', granularity: 'DAILY' as const, fromMs: 0, toMs: TINY_END };
    expect(lines.listCostLines({ ...q, groupBy: 'PURCHASE_TYPE' }).length).toBe(16);
    // Page 1 of INSTANCE_TYPE arrived but is not stored: the query is stored whole or not at all.
    expect(lines.listCostLines({ ...q, groupBy: 'INSTANCE_TYPE' })).toEqual([]);
    expect(
      createReportsRepository(db)
        .lastRunPerKind()
        .map((r) => [r.kind, r.status]),
    ).toEqual([
      ['cost-explorer', 'failed'],
      ['kubernetes', 'failed'],
    ]);
    db.close();

    onCeCall = () => {};
    const resumed = await collectOnce('resume.db');
    expect(resumed.summary.ok).toBe(true);
    const asked = callsOf(run).map((c) => `${c.granularity} ${c.groupBy} ${c.start}..${c.end}`);
    expect([...new Set(asked)]).toEqual([
      'DAILY PURCHASE_TYPE 2026-11-13..2026-11-15',
      'DAILY INSTANCE_TYPE 2026-11-01..2026-11-15',
      // The failed run stopped before the EC2 - Other query: it asks for the whole range now.
      'DAILY USAGE_TYPE 2026-11-01..2026-11-15',
      'HOURLY PURCHASE_TYPE 2026-11-02T00:00:00Z..2026-11-15T00:00:00Z',
      'DAILY RESOURCE_ID 2026-11-02..2026-11-15',
    ]);
    const db2 = openDb({ path: join(dir, 'resume.db') });
    expect(createKubeRepository(db2).snapshotCount()).toBe(1);
    db2.close();
    // Same lines as two clean runs gave.
    expect(allLines('resume.db')).toEqual(allLines('twice.db'));
  });
});
