import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type CollectOptions, runCollect } from '../../cli/collect.js';
import { parseClustersFile } from '../../cli/clusters-file.js';
import { exportLedger, type ExportSummary } from '../../cli/export.js';
import { createAthenaClient } from '../../collectors/cur/athena-client.js';
import { createS3Client } from '../../collectors/cur/s3-client.js';
import { createAthenaOrgEngine } from '../../collectors/org/athena-org.js';
import { parseS3Destination } from '../../collectors/org/s3-layout.js';
import { DAY_MS, HOUR_MS } from '../../core/time.js';
import { type Db, openDb } from '../../db/open-db.js';
import { type RunningSandbox, startSandbox } from '../../sandbox/index.js';
import { ORG_BUCKET, ORG_PREFIX, sandboxOrgLocation } from '../../sandbox/serve/org-endpoints.js';
import { buildApp } from '../../server/app.js';
import type { OrgOverviewResponse, OrgTeamsResponse } from '../../server/org/org-service.js';

/*
 * Issue 25's end-to-end check of the organisation on Athena, on two clusters: the sandbox's week4 and staging
 * clusters (one simulated day each, separate Kubernetes endpoints) collected with --clusters into ONE ledger, that
 * ledger exported (both clusters, one run) with the real S3 client to the sandbox's S3, read back by the sandbox's
 * Athena through the /api/org routes `serve --org` adds. The expected figures are worked from each cluster's own
 * ledger (each collected alone, from a one-entry clusters file, at the same instants): their /api/cost/nodepools/daily
 * and /api/teams/cost answers, added up per cluster here, never from the org code. Then a forced re-export of the day
 * must leave every object's bytes, its ETag and both answers as they were. One sandbox for all of it.
 */

const WEEK4 = 'ledger-demo';
const STAGING = 'staging';
let sb: RunningSandbox;
let dir: string;
let both: Db;
let alone: Record<string, Db>;
let org: FastifyInstance;
const ledgerApps: FastifyInstance[] = [];
let first: ExportSummary;
let fromDay: string;
let toDay: string;
let clockMs: number;
let exportOperations: string[] = [];
const destination = parseS3Destination(`s3://${ORG_BUCKET}/${ORG_PREFIX}`);

const cents = (usd: number): number => Math.round(usd * 100);
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const at = (t: number): void => {
  sb.ctx.clock.set(t);
  sb.second?.ctx.clock.set(t);
};

async function get<T>(app: FastifyInstance, url: string): Promise<T> {
  const res = await app.inject({ method: 'GET', url });
  if (res.statusCode !== 200) throw new Error(`${url}: HTTP ${res.statusCode} ${res.body.slice(0, 400)}`);
  return res.json();
}
const ledgerApp = (db: Db): FastifyInstance => {
  const app = buildApp({ db, webRoot: join(dir, 'no-web'), now: () => clockMs, cacheResponses: false });
  ledgerApps.push(app);
  return app;
};

/** Every exported object under the org prefix (or another): path -> bytes. */
function objects(prefix = ORG_PREFIX): Map<string, Buffer> {
  const root = join(sandboxOrgLocation(join(sb.cur.bucketDir, '..')).bucketDir, prefix);
  const out = new Map<string, Buffer>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true }))
      if (e.isDirectory()) walk(join(d, e.name));
      else out.set(relative(root, join(d, e.name)), readFileSync(join(d, e.name)));
  };
  walk(root);
  return out;
}
const etags = async (keys: string[]): Promise<Record<string, string | undefined>> => {
  const { HeadObjectCommand } = await import('@aws-sdk/client-s3');
  const s3 = createS3Client();
  const out: Record<string, string | undefined> = {};
  for (const k of keys) out[k] = (await s3.send(new HeadObjectCommand({ Bucket: ORG_BUCKET, Key: `${ORG_PREFIX}/${k}` }))).ETag;
  return out;
};

interface DailyRows {
  rows: { day: string; nodePool: string; estimateUsd: number | null }[];
  totals: { estimateUsd: number };
}
interface LedgerTeams {
  teams: OrgTeamsResponse['teams'];
  totals: OrgTeamsResponse['totals'];
}
const ledgerRange = (): string => `from=${fromDay}T00:00:00Z&to=${toDay}T00:00:00Z`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-org-two-'));
  sb = await startSandbox({ days: 1, dir: join(dir, 'sandbox'), secondCluster: { scenario: 'staging', days: 1 } });
  for (const [k, v] of Object.entries(sb.awsEnv)) vi.stubEnv(k, v);
  vi.stubEnv('AWS_MAX_ATTEMPTS', '');
  const second = sb.second;
  if (second === null) throw new Error('no second cluster');
  const entry = (name: string, context: string): string => `  - name: ${name}\n    context: ${context}\n    region: us-east-1\n`;
  const file = (text: string) => {
    const path = join(dir, `clusters-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(path, text);
    return parseClustersFile(path, text);
  };
  const files = {
    both: file(`clusters:\n${entry(WEEK4, sb.context)}${entry(STAGING, second.context)}`),
    [WEEK4]: file(`clusters:\n${entry(WEEK4, sb.context)}`),
    [STAGING]: file(`clusters:\n${entry(STAGING, second.context)}`),
  };
  const end = sb.scenario.end;
  const base = (db: string, clusters: CollectOptions['clusters']): CollectOptions => ({
    cluster: WEEK4,
    clusters,
    clustersFrom: 'clusters-file',
    sinceMs: 2 * DAY_MS,
    watch: false,
    intervalMs: 300_000,
    kubeconfig: sb.kubeconfigPath,
    dbPath: join(dir, db),
    quiet: true,
  });
  // Three snapshots of each cluster an hour apart, into the two-cluster ledger and into each cluster's own.
  for (const t of [end - 3 * HOUR_MS, end - 2 * HOUR_MS, end - HOUR_MS]) {
    at(t);
    for (const [db, clusters] of [
      ['both.db', files.both],
      ['week4.db', files[WEEK4]],
      ['staging.db', files[STAGING]],
    ] as const) {
      const s = await runCollect(base(db, clusters), { now: () => sb.ctx.clock.now(), out: () => {}, err: () => {} });
      expect(s.failures, db).toEqual([]);
    }
  }
  both = openDb({ path: join(dir, 'both.db') });
  alone = { [WEEK4]: openDb({ path: join(dir, 'week4.db') }), [STAGING]: openDb({ path: join(dir, 'staging.db') }) };
  fromDay = dayOf(end - 3 * HOUR_MS);
  // The last snapshot stands for the time after it too: a day more than the snapshots' own covers it.
  toDay = dayOf(end - HOUR_MS + 2 * DAY_MS);
  clockMs = Date.parse(toDay) + DAY_MS;
  const mark = sb.ctx.requestLog.length;
  first = await exportLedger(both, { destination }, { s3: createS3Client() });
  exportOperations = [...new Set(sb.ctx.requestLog.slice(mark).map((r) => r.operation))];
  const engine = createAthenaOrgEngine(createAthenaClient(), {
    workGroup: 'primary',
    database: 'ledger_org',
    outputLocation: `s3://${ORG_BUCKET}/athena-results/`,
    poll: { firstMs: 20, factor: 1.5, maxMs: 250 },
  });
  // serve --org: the two-cluster ledger's API and the org routes on one server, after the exported days (final).
  org = buildApp({ db: both, org: engine, webRoot: join(dir, 'no-web'), now: () => clockMs, cacheResponses: false });
}, 300_000);

afterAll(async () => {
  vi.unstubAllEnvs();
  await org?.close();
  for (const a of ledgerApps) await a.close();
  both?.close();
  for (const db of Object.values(alone ?? {})) db.close();
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('two clusters in one ledger -> export -> sandbox S3 -> sandbox Athena -> serve --org', () => {
  it('exports both clusters of the ledger in one run, each under its own cluster= partition', () => {
    expect(first.clusters).toEqual([WEEK4, STAGING]);
    // With s3:PutObject only, the one action deploy/athena/export-role-policy.json allows (its keys: deploy-org.test.ts).
    expect(exportOperations).toEqual(['s3:PutObject']);
    const keys = [...objects().keys()];
    for (const c of [WEEK4, STAGING])
      for (const t of ['nodepool_hour', 'namespace_hour', 'node_day', 'disruptions', 'rightsizing'])
        expect(
          keys.some((k) => k.startsWith(`table=${t}/cluster=${c}/day=`)),
          `${t} ${c}`,
        ).toBe(true);
  });

  it("node_day, disruptions and rightsizing: each cluster's partitions hold, byte for byte, what its own ledger exports", async () => {
    // Each cluster's own ledger exported to another prefix of the same bucket, named as in the two-cluster ledger.
    const ALONE = 'alone';
    for (const c of [WEEK4, STAGING])
      expect(
        (await exportLedger(alone[c], { destination: parseS3Destination(`s3://${ORG_BUCKET}/${ALONE}`) }, { s3: createS3Client() }))
          .clusters,
      ).toEqual([c]);
    const mine = objects();
    const own = objects(ALONE);
    const keysOf = (m: Map<string, Buffer>) => [...m.keys()].filter((k) => /^table=(node_day|disruptions|rightsizing)\//.test(k)).sort();
    // Every cluster-day of the three tables: the same objects (3 tables x 2 clusters x the days), the same bytes.
    expect(keysOf(mine)).toEqual(keysOf(own));
    expect(keysOf(mine).length).toBe(3 * 2 * first.daysWritten.length);
    for (const k of keysOf(own)) expect(mine.get(k)?.equals(own.get(k) ?? Buffer.alloc(0)), k).toBe(true);
    // Not trivially equal: the two clusters' nodes differ (week4's node_day is not staging's).
    const day = first.daysWritten[0];
    expect(
      mine
        .get(`table=node_day/cluster=${WEEK4}/day=${day}/part-0.parquet`)
        ?.equals(mine.get(`table=node_day/cluster=${STAGING}/day=${day}/part-0.parquet`) ?? Buffer.alloc(0)),
    ).toBe(false);
  });

  it("the all-clusters Overview equals the two clusters' own ledgers to the cent: per cluster, per cluster x day x NodePool, and in total", async () => {
    const answer = await get<OrgOverviewResponse>(org, `/api/org/overview?from=${fromDay}&to=${toDay}`);
    const own: Record<string, DailyRows> = {};
    for (const c of [WEEK4, STAGING]) own[c] = await get<DailyRows>(ledgerApp(alone[c]), `/api/cost/nodepools/daily?${ledgerRange()}`);
    // Both clusters cost something, and both run a NodePool named general: a sum by name alone would mix them.
    for (const c of [WEEK4, STAGING]) expect(cents(own[c].totals.estimateUsd), c).toBeGreaterThan(0);
    const keyed = (cluster: string, rows: DailyRows['rows']): Record<string, number> => {
      const m = new Map<string, number>();
      for (const r of rows) {
        const k = `${cluster} ${r.day.slice(0, 10)} ${r.nodePool}`;
        m.set(k, (m.get(k) ?? 0) + (r.estimateUsd ?? 0));
      }
      return Object.fromEntries([...m].filter(([, v]) => cents(v) !== 0).map(([k, v]) => [k, cents(v)]));
    };
    const orgRows: Record<string, number> = {};
    for (const c of [WEEK4, STAGING])
      Object.assign(
        orgRows,
        keyed(
          c,
          answer.rows.filter((r) => r.cluster === c),
        ),
      );
    expect(orgRows).toEqual({ ...keyed(WEEK4, own[WEEK4].rows), ...keyed(STAGING, own[STAGING].rows) });
    expect(Object.keys(orgRows).filter((k) => k.endsWith(' general')).length).toBeGreaterThanOrEqual(2);
    expect(Object.fromEntries(answer.clusters.map((c) => [c.cluster, cents(c.estimateUsd)]))).toEqual({
      [WEEK4]: cents(own[WEEK4].totals.estimateUsd),
      [STAGING]: cents(own[STAGING].totals.estimateUsd),
    });
    const expectedTotal = cents(own[WEEK4].totals.estimateUsd) + cents(own[STAGING].totals.estimateUsd);
    expect(Math.abs(cents(answer.totals.estimateUsd) - expectedTotal)).toBeLessThanOrEqual(1);
    // The two-cluster ledger's own all-clusters answer says the same.
    const ledgerAll = await get<DailyRows>(org, `/api/cost/nodepools/daily?${ledgerRange()}`);
    expect(cents(ledgerAll.totals.estimateUsd)).toBe(cents(answer.totals.estimateUsd));
    expect(answer.query.scannedBytes).toBeGreaterThan(0);
    expect(answer.query.costUsd).toBe(0.00005);
  });

  it.each(['request-share', 'aws-split', 'opencost'] as const)(
    "Teams by %s: each cluster's split equals its own ledger's /api/teams/cost, and every cluster's, team by team, their sum to the cent",
    async (method) => {
      const answer = await get<OrgTeamsResponse>(org, `/api/org/teams?from=${fromDay}&to=${toDay}&method=${method}`);
      const own: Record<string, LedgerTeams> = {};
      for (const c of [WEEK4, STAGING])
        own[c] = await get<LedgerTeams>(ledgerApp(alone[c]), `/api/teams/cost?${ledgerRange()}&method=${method}`);
      expect(answer.clusters.map((c) => c.cluster)).toEqual([WEEK4, STAGING]);
      for (const c of answer.clusters) {
        expect(c.teams, c.cluster).toEqual(own[c.cluster].teams);
        expect(c.totals, c.cluster).toEqual({
          nodeCostUsd: own[c.cluster].totals.nodeCostUsd,
          teamsUsd: own[c.cluster].totals.teamsUsd,
          idleUsd: own[c.cluster].totals.idleUsd,
        });
      }
      // Every cluster: a team's cents added over the clusters (worked here from the two ledgers' lines).
      const sum = new Map<string, number>();
      for (const c of [WEEK4, STAGING])
        for (const t of own[c].teams) sum.set(`${t.kind}:${t.team}`, (sum.get(`${t.kind}:${t.team}`) ?? 0) + cents(t.costUsd));
      expect(Object.fromEntries(answer.teams.map((t) => [`${t.kind}:${t.team}`, cents(t.costUsd)]))).toEqual(Object.fromEntries(sum));
      for (const k of ['nodeCostUsd', 'teamsUsd', 'idleUsd'] as const)
        expect(cents(answer.totals[k]), k).toBe(cents(own[WEEK4].totals[k]) + cents(own[STAGING].totals[k]));
      expect(answer.teams.filter((t) => t.kind === 'team').length).toBeGreaterThan(3);
    },
  );

  it("re-exporting the day changes nothing: every object's bytes and ETag, and both answers", async () => {
    const before = objects();
    const tagsBefore = await etags([...before.keys()]);
    const overview = await get<OrgOverviewResponse>(org, `/api/org/overview?from=${fromDay}&to=${toDay}`);
    const teams = await get<OrgTeamsResponse>(org, `/api/org/teams?from=${fromDay}&to=${toDay}`);
    const mtime = Math.max(
      ...[...before.keys()].map((k) => statSync(join(sandboxOrgLocation(join(sb.cur.bucketDir, '..')).bucketDir, ORG_PREFIX, k)).mtimeMs),
    );
    const days = first.daysWritten;
    // An ordinary run again: each cluster's newest day read again (its own watermark), found unchanged, nothing sent.
    const unforced = await exportLedger(both, { destination }, { s3: createS3Client() });
    expect({ read: unforced.daysRead, unchanged: unforced.daysUnchanged, objects: unforced.objectsWritten }).toEqual({
      read: 2,
      unchanged: 2,
      objects: 0,
    });
    const again = await exportLedger(
      both,
      { destination, forceDays: { fromMs: Date.parse(days[0]), toMs: Date.parse(days[days.length - 1]) } },
      { s3: createS3Client() },
    );
    // Written again (forced), whole: the same objects as the first run.
    expect(again.objectsWritten).toBe(first.objectsWritten);
    const after = objects();
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [k, bytes] of before) expect(after.get(k)?.equals(bytes), k).toBe(true);
    expect(await etags([...after.keys()])).toEqual(tagsBefore);
    expect(
      Math.max(
        ...[...after.keys()].map((k) => statSync(join(sandboxOrgLocation(join(sb.cur.bucketDir, '..')).bucketDir, ORG_PREFIX, k)).mtimeMs),
      ),
    ).toBeGreaterThanOrEqual(mtime);
    // A fresh server (no cache): Athena's answers over the rewritten objects are the same.
    const engine = createAthenaOrgEngine(createAthenaClient(), {
      workGroup: 'primary',
      database: 'ledger_org',
      outputLocation: `s3://${ORG_BUCKET}/athena-results/`,
      poll: { firstMs: 20, factor: 1.5, maxMs: 250 },
    });
    const fresh = buildApp({ db: both, org: engine, webRoot: join(dir, 'no-web'), now: () => clockMs, cacheResponses: false });
    ledgerApps.push(fresh);
    const overview2 = await get<OrgOverviewResponse>(fresh, `/api/org/overview?from=${fromDay}&to=${toDay}`);
    const teams2 = await get<OrgTeamsResponse>(fresh, `/api/org/teams?from=${fromDay}&to=${toDay}`);
    expect(overview2.query.cached).toBe(false);
    expect({ ...overview2, query: null }).toEqual({ ...overview, query: null });
    expect({ ...teams2, query: null }).toEqual({ ...teams, query: null });
    expect(overview2.query.scannedBytes).toBe(overview.query.scannedBytes);
    console.log(
      `org two-cluster: ${before.size} objects, ${[...before.values()].reduce((t, b) => t + b.length, 0)} bytes; overview scanned ${overview.query.scannedBytes} B, teams ${teams.query.scannedBytes} B; ledgers ${['both.db', 'week4.db', 'staging.db'].map((f) => `${f} ${statSync(join(dir, f)).size} B`).join(', ')}`,
    );
  });
});
