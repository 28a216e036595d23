import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { exportLedger, type ExportSummary } from '../../cli/export.js';
import { createAthenaClient } from '../../collectors/cur/athena-client.js';
import { createS3Client } from '../../collectors/cur/s3-client.js';
import { createAthenaOrgEngine } from '../../collectors/org/athena-org.js';
import { parseS3Destination } from '../../collectors/org/s3-layout.js';
import { DAY_MS } from '../../core/time.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { ORG_BUCKET, ORG_PREFIX, sandboxOrgLocation } from '../../sandbox/serve/org-endpoints.js';
import { buildApp } from '../../server/app.js';
import type { OrgOverviewResponse, OrgTeamsResponse } from '../../server/org/org-service.js';
import { seededDb, type SeededDb } from '../fixtures/seeded-api.js';

/*
 * The organisation on Athena, end to end: the week4 ledger of 3 days with usage (the seeded-database cache's, shared
 * with the retention tests and the browser pages) exported with the real S3 client to the sandbox's S3, queried with
 * the real Athena client through the sandbox's Athena (DuckDB over the exported Parquet), and answered by the
 * /api/org routes `serve --org` adds. A cluster's figures must equal its ledger's own API over the same days to the
 * cent; exporting again must change nothing; the export and the org reads use only what deploy/athena's policies allow.
 */

const CLUSTER = 'week4-prod';
let seeded: SeededDb;
let sb: RunningSandbox;
let app: FastifyInstance;
let first: ExportSummary;
let fromDay: string;
let toDay: string;
let days: string[];
/** The sandbox operations the first export made. */
let exportOperations: string[] = [];
const destination = parseS3Destination(`s3://${ORG_BUCKET}/${ORG_PREFIX}`);

async function get<T>(url: string): Promise<T> {
  const res = await app.inject({ method: 'GET', url });
  if (res.statusCode !== 200) throw new Error(`${url}: HTTP ${res.statusCode} ${res.body.slice(0, 400)}`);
  return res.json();
}
const cents = (usd: number): number => Math.round(usd * 100);
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
/** The exported object of a table's day, as the sandbox's S3 keeps it. */
const objectPath = (table: string, day: string): string =>
  join(
    sandboxOrgLocation(join(sb.cur.bucketDir, '..')).bucketDir,
    ORG_PREFIX,
    `table=${table}`,
    `cluster=${CLUSTER}`,
    `day=${day}`,
    'part-0.parquet',
  );
const operationsSince = (mark: number): string[] => [...new Set(sb.ctx.requestLog.slice(mark).map((r) => r.operation))].sort();
const s3 = () => createS3Client();

beforeAll(async () => {
  seeded = await seededDb({ prefix: 'ledger-org-athena-', days: 3, usage: true });
  sb = await startSandbox({});
  for (const [k, v] of Object.entries(sb.awsEnv)) vi.stubEnv(k, v);
  vi.stubEnv('AWS_MAX_ATTEMPTS', '');
  const mark = sb.ctx.requestLog.length;
  first = await exportLedger(seeded.db, { destination, cluster: CLUSTER }, { s3: s3() });
  exportOperations = operationsSince(mark);
  fromDay = dayOf(seeded.startMs);
  toDay = dayOf(seeded.endMs + DAY_MS - 1);
  days = first.daysWritten;
  const org = createAthenaOrgEngine(createAthenaClient(), {
    workGroup: 'primary',
    database: 'ledger_org',
    outputLocation: `s3://${ORG_BUCKET}/athena-results/`,
    poll: { firstMs: 20, factor: 1.5, maxMs: 250 },
  });
  // The ledger's own API and the org routes on one server, the clock after the seeded days (they are final).
  app = buildApp({ db: seeded.db, org, now: () => seeded.endMs + 2 * DAY_MS, cacheResponses: false });
}, 240_000);

afterAll(async () => {
  vi.unstubAllEnvs();
  await app?.close();
  await sb?.close();
  await seeded?.close();
});

describe('export --to s3:// of the week4 ledger', () => {
  it('writes each table of each seeded day as one Parquet object in the Hive layout', () => {
    expect(days).toEqual([0, 1, 2].map((i) => dayOf(seeded.startMs + i * DAY_MS)));
    expect(first.objectsWritten).toBe(5 * 3);
    for (const table of ['nodepool_hour', 'namespace_hour', 'node_day', 'disruptions', 'rightsizing'])
      for (const day of days) expect(readFileSync(objectPath(table, day)).subarray(0, 4).toString()).toBe('PAR1');
  });

  it('uploads with s3:PutObject only, as deploy/athena/export-role-policy.json allows', () => {
    const policy = JSON.parse(readFileSync(join(import.meta.dirname, '../../deploy/athena/export-role-policy.json'), 'utf8')) as {
      Statement: { Action: string[]; Resource: string[] }[];
    };
    expect(exportOperations).toEqual(['s3:PutObject']);
    expect(policy.Statement.flatMap((s) => s.Action)).toEqual(['s3:PutObject']);
    // Its keys are what test/security/deploy-org.test.ts matches against the policy's resources (this cluster's partitions).
    expect(policy.Statement[0].Resource).toContain('arn:aws:s3:::__BUCKET__/__PREFIX__/table=nodepool_hour/cluster=__CLUSTER__/*');
  });

  it('a second run reads only the newest day again and uploads nothing (unchanged)', async () => {
    const again = await exportLedger(seeded.db, { destination, cluster: CLUSTER }, { s3: s3() });
    expect({ read: again.daysRead, written: again.daysWritten, unchanged: again.daysUnchanged }).toEqual({
      read: 1,
      written: [],
      unchanged: 1,
    });
  });

  it('re-exporting a day replaces its objects with the same bytes', async () => {
    const day = days[1];
    const before = Object.fromEntries(['nodepool_hour', 'namespace_hour', 'rightsizing'].map((t) => [t, readFileSync(objectPath(t, day))]));
    const mtime = statSync(objectPath('nodepool_hour', day)).mtimeMs;
    const again = await exportLedger(
      seeded.db,
      { destination, cluster: CLUSTER, forceDays: { fromMs: Date.parse(day), toMs: Date.parse(day) } },
      { s3: s3() },
    );
    expect(again.daysWritten).toEqual([day]);
    expect(statSync(objectPath('nodepool_hour', day)).mtimeMs).toBeGreaterThanOrEqual(mtime);
    for (const [t, bytes] of Object.entries(before)) expect(readFileSync(objectPath(t, day)).equals(bytes), t).toBe(true);
  });
});

describe('serve --org: the all-clusters Overview and Teams from Athena', () => {
  const range = () => `from=${fromDay}&to=${toDay}`;
  const ledgerRange = () => `from=${fromDay}T00:00:00Z&to=${toDay}T00:00:00Z`;

  it("the Overview's estimate per day and NodePool, and its total, equal the ledger's /api/cost/nodepools/daily to the cent", async () => {
    const org = await get<OrgOverviewResponse>(`/api/org/overview?${range()}`);
    const ledger = await get<{ rows: { day: string; nodePool: string; estimateUsd: number | null }[]; totals: { estimateUsd: number } }>(
      `/api/cost/nodepools/daily?${ledgerRange()}`,
    );
    const perDayPool = (rows: { day: string; nodePool: string; estimateUsd: number | null }[]) => {
      const m = new Map<string, number>();
      for (const r of rows)
        m.set(`${r.day.slice(0, 10)} ${r.nodePool}`, (m.get(`${r.day.slice(0, 10)} ${r.nodePool}`) ?? 0) + (r.estimateUsd ?? 0));
      return Object.fromEntries([...m].filter(([, v]) => v !== 0).map(([k, v]) => [k, cents(v)]));
    };
    expect(perDayPool(org.rows)).toEqual(perDayPool(ledger.rows));
    expect(org.clusters.map((c) => c.cluster)).toEqual([CLUSTER]);
    expect(cents(org.totals.estimateUsd)).toBe(cents(ledger.totals.estimateUsd));
    expect(cents(org.clusters[0].estimateUsd)).toBe(cents(ledger.totals.estimateUsd));
  });

  it.each(['request-share', 'aws-split', 'opencost'] as const)(
    "Teams by %s: each team's cost and the totals equal the ledger's /api/teams/cost to the cent",
    async (method) => {
      const org = await get<OrgTeamsResponse>(`/api/org/teams?${range()}&method=${method}`);
      const ledger = await get<{ teams: OrgTeamsResponse['teams']; totals: OrgTeamsResponse['totals'] }>(
        `/api/teams/cost?${ledgerRange()}&method=${method}`,
      );
      expect(org.teams).toEqual(ledger.teams);
      expect(org.totals).toEqual({
        nodeCostUsd: ledger.totals.nodeCostUsd,
        teamsUsd: ledger.totals.teamsUsd,
        idleUsd: ledger.totals.idleUsd,
      });
      expect(org.teams.length).toBeGreaterThan(3);
    },
  );

  it("says what each query scanned (the range's partitions only) and cost at USD 5/TB, and answers a range of final days from its cache", async () => {
    const day = days[2];
    const mark = sb.ctx.requestLog.length;
    const one = await get<OrgOverviewResponse>(`/api/org/overview?from=${day}&to=${dayOf(Date.parse(day) + DAY_MS)}`);
    // Athena bills the files it reads: here the one day's nodepool_hour object; below 10 MB, the 10 MB minimum:
    // 10^7 bytes x USD 5 / 10^12 bytes = USD 0.00005.
    expect(one.query.scannedBytes).toBe(statSync(objectPath('nodepool_hour', day)).size);
    expect(one.query).toMatchObject({ billedBytes: 10_000_000, costUsd: 0.00005, cached: false });
    const again = await get<OrgOverviewResponse>(`/api/org/overview?from=${day}&to=${dayOf(Date.parse(day) + DAY_MS)}`);
    expect(again.query).toMatchObject({ queryExecutionId: one.query.queryExecutionId, cached: true, costUsd: 0 });
    // One query for the two answers, through the three calls deploy/athena/org-read-role-policy.json allows.
    const log = sb.ctx.requestLog.slice(mark).map((r) => r.operation);
    expect(log.filter((o) => o === 'athena:StartQueryExecution')).toHaveLength(1);
    const policy = JSON.parse(readFileSync(join(import.meta.dirname, '../../deploy/athena/org-read-role-policy.json'), 'utf8')) as {
      Statement: { Sid: string; Action: string[] }[];
    };
    const athena = policy.Statement.find((s) => s.Sid === 'RunQueriesInTheWorkgroup')?.Action ?? [];
    expect(operationsSince(mark)).toEqual([...athena].sort());
  });

  it('refuses a range that is not whole UTC days', async () => {
    const res = await app.inject({ method: 'GET', url: `/api/org/overview?from=${fromDay}T06:00:00Z&to=${toDay}` });
    expect(res.statusCode).toBe(400);
  });
});
