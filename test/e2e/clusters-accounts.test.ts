import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CollectOptions, CollectSummary } from '../../cli/collect.js';
import { clusterContext, mergeClusterSummaries } from '../../cli/collect/clusters.js';
import { CollectContext } from '../../cli/collect/context.js';
import { costExplorerStages } from '../../cli/collect/cost-explorer-account.js';
import { runDueStagesBounded } from '../../cli/collect/stage.js';
import { HOUR_MS } from '../../core/time.js';
import { openDb } from '../../db/open-db.js';
import { type ClusterDeclaration, createClustersRepository } from '../../db/repositories/clusters-repository.js';
import { type RunningSandbox, startSandbox } from '../../sandbox/index.js';
import { createCostExplorerClient } from '../../collectors/cost-explorer/client.js';
import { collectAccountCostExplorer } from '../../collectors/cost-explorer/collect-account.js';
import { clusterDeclaration } from '../fixtures/cluster-declaration.js';

/*
 * collect --clusters with two accounts (issue 25): each account's Cost Explorer stage is independent, so a few run at
 * once (runDueStagesBounded). week4 and staging, the sandbox's two clusters, are read with two profiles (two access
 * keys: two accounts to the collector; the sandbox bills both clusters to the one account it simulates, and each
 * one-cluster query filters by its cluster's tag). Only the bill stages run here (no snapshot): they are what the
 * accounts share nothing of.
 */

let sandbox: RunningSandbox;
let dir: string;
let end: number;
const WEEK4 = 'ledger-demo';
const STAGING = 'staging';
const KEYS = { week4: 'AKIAWEEK4ACCOUNT0001', staging: 'AKIASTAGINGACCOUNT01', source: 'AKIAROLESOURCE000001' };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-two-accounts-'));
  sandbox = await startSandbox({ days: 1, dir: join(dir, 'sandbox'), secondCluster: { scenario: 'staging', days: 1 } });
  // The endpoints only: the keys come from each entry's profile (a profile set skips the environment's keys anyway).
  for (const [k, v] of Object.entries(sandbox.awsEnv)) if (!k.startsWith('AWS_ACCESS') && !k.startsWith('AWS_SECRET')) vi.stubEnv(k, v);
  vi.stubEnv('AWS_ACCESS_KEY_ID', undefined);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', undefined);
  // Each entry's profile names its account's credentials; the default profile's are what a role entry's role is
  // assumed with (the default chain).
  const credentials = join(dir, 'credentials');
  writeFileSync(
    credentials,
    `[ledger-week4]\naws_access_key_id = ${KEYS.week4}\naws_secret_access_key = week4-secret-not-a-real-key\n` +
      `[ledger-staging]\naws_access_key_id = ${KEYS.staging}\naws_secret_access_key = staging-secret-not-a-real-key\n` +
      `[default]\naws_access_key_id = ${KEYS.source}\naws_secret_access_key = source-secret-not-a-real-key\n`,
  );
  writeFileSync(join(dir, 'config'), '');
  vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', credentials);
  vi.stubEnv('AWS_CONFIG_FILE', join(dir, 'config'));
  end = sandbox.scenario.end;
  sandbox.ctx.clock.set(end);
}, 180_000);

afterAll(async () => {
  vi.unstubAllEnvs();
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The two accounts' Cost Explorer stages of one `collect --clusters` run, at most `atOnce` at a time, into a new
 * ledger: the run's summary with each cluster's merged in, as collectClustersOnce does.
 */
async function collectBills(
  dbName: string,
  atOnce: number,
  stagingBy: Pick<ClusterDeclaration, 'awsProfile' | 'roleArn'> = { awsProfile: 'ledger-staging', roleArn: null },
): Promise<CollectSummary> {
  const db = openDb({ path: join(dir, dbName) });
  const o: CollectOptions = {
    cluster: `${WEEK4},${STAGING}`,
    region: 'us-east-1',
    sinceMs: 2 * 24 * HOUR_MS,
    watch: false,
    intervalMs: 300_000,
    dbPath: join(dir, dbName),
    quiet: true,
  };
  const run = new CollectContext(o, db, { now: () => end, out: () => {}, err: () => {} });
  try {
    const repo = createClustersRepository(db);
    const week4 = { ...clusterDeclaration(WEEK4), awsProfile: 'ledger-week4' };
    const staging = { ...clusterDeclaration(STAGING), ...stagingBy };
    repo.nameCollected(week4, end);
    const clusters = repo.declare([week4, staging], end);
    const members = clusters.map((cluster) => ({ cluster, ctx: clusterContext(run, cluster, undefined) }));
    const stages = costExplorerStages(run, members);
    expect(stages).toHaveLength(2); // two profiles: two accounts, one stage each
    await runDueStagesBounded(run, stages, end, atOnce);
    for (const m of members) m.ctx.destroy();
    mergeClusterSummaries(
      run.summary,
      members.map((m) => ({ name: m.cluster.name, summary: m.ctx.summary })),
    );
    return run.summary;
  } finally {
    run.destroy();
    db.close();
  }
}

/** Every Cost Explorer line of a cluster (all granularities and groupings), in cents and hundredths of an hour. */
function bill(dbName: string, cluster: string): Record<string, number> {
  const db = openDb({ path: join(dir, dbName), readonly: true });
  try {
    const rows = db
      .prepare(
        `SELECT granularity, group_by AS groupBy, period_start AS at, nodepool, dimension_value AS what, unblended_usd AS usd,
           usage_quantity AS qty
         FROM cost_lines
         WHERE source = 'cost-explorer' AND cluster_id = (SELECT id FROM clusters WHERE name = ?)`,
      )
      .all(cluster) as { granularity: string; groupBy: string; at: string; nodepool: string; what: string; usd: number; qty: number }[];
    return Object.fromEntries(
      rows.flatMap((r) => {
        const k = `${r.granularity} ${r.groupBy} ${r.at} ${r.nodepool} ${r.what}`;
        return [
          [k, Math.round(r.usd * 100)],
          [`${k} qty`, Math.round(r.qty * 100)],
        ];
      }),
    );
  } finally {
    db.close();
  }
}

/**
 * The Cost Explorer requests of the ledger's runs in the order recorded, as the run each belongs to (its
 * collection_runs row); and whether the two runs' requests interleave (one's recorded between two of the other's).
 */
function requestOrder(dbName: string): { runs: number[]; interleaved: boolean } {
  const db = openDb({ path: join(dir, dbName), readonly: true });
  try {
    const runs = db.prepare(`SELECT run_id FROM api_requests WHERE service = 'ce' ORDER BY id`).pluck().all() as number[];
    const changes = runs.filter((r, i) => i > 0 && r !== runs[i - 1]).length;
    return { runs, interleaved: changes > 1 };
  } finally {
    db.close();
  }
}

describe('collect --clusters: two accounts', () => {
  it("reads two accounts' bills at once, each cluster's lines the same as read one account after the other, to the cent", async () => {
    const one = await collectBills('one-by-one.db', 1);
    const both = await collectBills('at-once.db', 2);
    expect(one.failures).toEqual([]);
    expect(both.failures).toEqual([]);
    for (const cluster of [WEEK4, STAGING]) {
      const lines = bill('one-by-one.db', cluster);
      // Each cluster's bill has DAILY compute lines by purchase type, instance-type, hourly and per-instance lines.
      for (const kind of ['DAILY PURCHASE_TYPE', 'DAILY INSTANCE_TYPE', 'HOURLY PURCHASE_TYPE', 'DAILY RESOURCE_ID'])
        expect(Object.keys(lines).some((k) => k.startsWith(kind))).toBe(true);
      expect(bill('at-once.db', cluster)).toEqual(lines);
    }
    // One after the other: the first account's requests, then the second's. At once: recorded in between.
    expect(requestOrder('one-by-one.db').interleaved).toBe(false);
    const order = requestOrder('at-once.db');
    expect(new Set(order.runs).size).toBe(2);
    expect(order.interleaved).toBe(true);
  }, 120_000);

  it("one account refused leaves the other's lines written, and the run names the refused one", async () => {
    // staging's keys are refused as AWS refuses unknown ones (a key of another partition is not known at us-east-1).
    sandbox.ctx.credentialPartitions = { [KEYS.staging]: 'aws-cn' };
    try {
      const summary = await collectBills('one-refused.db', 2);
      expect(summary.ok).toBe(false);
      expect(summary.failures).toEqual([
        `${STAGING}: cost explorer: UnrecognizedClientException: The security token included in the request is invalid.`,
      ]);
      expect(bill('one-refused.db', STAGING)).toEqual({});
      const week4 = bill('one-refused.db', WEEK4);
      expect(Object.keys(week4).length).toBeGreaterThan(0);
      expect(week4).toEqual(bill('one-by-one.db', WEEK4));
    } finally {
      sandbox.ctx.credentialPartitions = undefined;
    }
  }, 120_000);

  it("reads an entry's account by its roleArn (AssumeRole with the default chain's keys): the same lines as by profile, to the cent", async () => {
    const role = `arn:aws:iam::${sandbox.scenario.accountId}:role/ledger-read`;
    const assumed = () => sandbox.ctx.requestLog.filter((r) => r.operation === 'sts:AssumeRole').length;
    const before = assumed();
    const summary = await collectBills('by-role.db', 2, { awsProfile: null, roleArn: role });
    expect(summary.failures).toEqual([]);
    expect(assumed()).toBe(before + 1); // one session for all of the account's requests
    const staging = bill('by-role.db', STAGING);
    expect(Object.keys(staging).length).toBeGreaterThan(0);
    expect(staging).toEqual(bill('one-by-one.db', STAGING));
    expect(bill('by-role.db', WEEK4)).toEqual(bill('one-by-one.db', WEEK4));
    expect([...(sandbox.ctx.stsSessions?.values() ?? [])].map((x) => x.roleArn)).toContain(role);
  }, 120_000);

  it("a role refused leaves the other account's lines written, and the run names the refused role", async () => {
    const role = 'arn:aws:iam::999999999999:role/ledger-read';
    const summary = await collectBills('role-refused.db', 2, { awsProfile: null, roleArn: role });
    expect(summary.ok).toBe(false);
    expect(summary.failures).toEqual([
      `${STAGING}: cost explorer: AccessDenied: assuming role ${role}: User: arn:aws:iam::${sandbox.scenario.accountId}:user/sandbox-ledger is not authorized to perform: sts:AssumeRole on resource: ${role}`,
    ]);
    expect(bill('role-refused.db', STAGING)).toEqual({});
    expect(bill('role-refused.db', WEEK4)).toEqual(bill('one-by-one.db', WEEK4));
  }, 120_000);

  it("reads an account's clusters' own sequences a few at once after the first cluster's, the lines as one at a time", async () => {
    // Three clusters of one account: week4 first (alone: it tells whether the account refuses an opt-in), then staging
    // and "ghost" (declared, nothing billed: its sequences come back empty) at once.
    const read = async (dbName: string, atOnce: number) => {
      const db = openDb({ path: join(dir, dbName) });
      const ce = createCostExplorerClient({ region: 'us-east-1', profile: 'ledger-week4' });
      // What the client sent, in order: each request's start and end, named by the cluster its filter names.
      const events: string[] = [];
      ce.middlewareStack.add(
        (next) => async (args) => {
          const which = /"eks:eks-cluster-name","Values":\["([^"]+)"\]/.exec(JSON.stringify(args.input))?.[1] ?? 'account';
          events.push(`start ${which}`);
          try {
            return await next(args);
          } finally {
            events.push(`end ${which}`);
          }
        },
        { step: 'initialize', name: 'recordClusterOfRequest' },
      );
      try {
        const repo = createClustersRepository(db);
        repo.nameCollected(clusterDeclaration(WEEK4), end);
        const clusters = repo.declare([clusterDeclaration(WEEK4), clusterDeclaration(STAGING), clusterDeclaration('ghost')], end);
        const result = await collectAccountCostExplorer(
          {
            db,
            ce,
            clusters: clusters.map((c) => ({ id: c.id, name: c.name })),
            now: end,
            hourly: true,
            resources: true,
            hourlySplit: 'cluster',
            sequencesAtOnce: atOnce,
          },
          { startMs: end - 2 * 24 * HOUR_MS, endMs: end },
        );
        return { result, events };
      } finally {
        ce.destroy();
        db.close();
      }
    };
    const one = await read('account-one-by-one.db', 1);
    const some = await read('account-at-once.db', 3);
    for (const cluster of [WEEK4, STAGING, 'ghost'])
      expect(bill('account-at-once.db', cluster)).toEqual(bill('account-one-by-one.db', cluster));
    expect(Object.keys(bill('account-at-once.db', STAGING)).length).toBeGreaterThan(0);
    expect(some.result.requests).toBe(one.result.requests);
    // The queries reported in the clusters' order whatever order their sequences ended in.
    expect(some.result.queries.map((q) => `${q.cluster ?? ''} ${q.granularity} ${q.groupBy}`)).toEqual(
      one.result.queries.map((q) => `${q.cluster ?? ''} ${q.granularity} ${q.groupBy}`),
    );
    /** Whether a request of `a` was sent while one of `b` was waiting for its answer. */
    const overlapped = (events: string[], a: string, b: string): boolean => {
      let open = 0;
      for (const e of events) {
        if (e === `start ${b}`) open += 1;
        else if (e === `end ${b}`) open -= 1;
        else if (e === `start ${a}` && open > 0) return true;
      }
      return false;
    };
    expect(overlapped(one.events, 'ghost', STAGING) || overlapped(one.events, STAGING, 'ghost')).toBe(false);
    expect(overlapped(some.events, 'ghost', STAGING) || overlapped(some.events, STAGING, 'ghost')).toBe(true);
    // week4's sequences ran alone, before the others': no request of another cluster while one of week4's was open.
    expect(overlapped(some.events, STAGING, WEEK4) || overlapped(some.events, 'ghost', WEEK4)).toBe(false);
  }, 120_000);
});
