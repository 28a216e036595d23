import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type CollectOptions, type CollectSummary, runCollect } from '../../cli/collect.js';
import { type ClusterEntry, parseClustersFile } from '../../cli/clusters-file.js';
import { HOUR_MS } from '../../core/time.js';
import { openDb } from '../../db/open-db.js';
import { type RunningSandbox, startSandbox } from '../../sandbox/index.js';
import { sandboxPracticeBills } from '../../sandbox/practice-bills.js';
import { evaluate, usageRecords } from '../../sandbox/serve/ce-query.js';
import { createCostExplorerClient } from '../../collectors/cost-explorer/client.js';
import { collectAccountCostExplorer } from '../../collectors/cost-explorer/collect-account.js';
import { createClustersRepository } from '../../db/repositories/clusters-repository.js';
import { parseCeQuery } from '../../sandbox/serve/ce-request.js';
import { buildApp } from '../../server/app.js';
import { evaluateAlerts } from '../../server/services/alert-evaluation.js';
import { clusterDeclaration } from '../fixtures/cluster-declaration.js';

/*
 * Two clusters in one ledger (issue 25 items 1 and 5): the sandbox's week4 (one simulated day) and its staging
 * cluster (own NodePools, one of them named "general" as week4's, Karpenter 1.3.1) on a second Kubernetes endpoint,
 * collected with --clusters into one file, and each also alone into a one-cluster ledger. Each cluster's NodePool
 * cost read back with ?cluster= equals its one-cluster ledger's to the cent; then staging's API server is stopped and
 * the next collect still takes week4's snapshot.
 */

let sandbox: RunningSandbox;
let dir: string;
let end: number;
const WEEK4 = 'ledger-demo';
const STAGING = 'staging';
/** Requests the sandbox served during the first collect of each ledger, by operation prefix (`ce:`, `pricing:`). */
const served: Record<'both' | 'week4' | 'staging', string[]> = { both: [], week4: [], staging: [] };
/** The sandbox clock at the first collect (Cost Explorer's "now" for the pages it cut). */
let firstAt: number;
/** The clusters file of week4 and staging. */
let clusters: ClusterEntry[];
/** Pages of the HOURLY query asked one sequence per purchase type at the first collect (worked out in its test). */
let hourlyByType: number[] = [];

/** Prometheus backfills three hours before the first snapshot (each cluster from its own Prometheus). */
const PROMETHEUS_SINCE_MS = 3 * HOUR_MS;

const base = (dbName: string): CollectOptions => ({
  cluster: WEEK4,
  sinceMs: 2 * 24 * HOUR_MS,
  prometheusSinceMs: PROMETHEUS_SINCE_MS,
  watch: false,
  intervalMs: 300_000,
  kubeconfig: sandbox.kubeconfigPath,
  dbPath: join(dir, dbName),
  quiet: true,
});

const collect = (o: CollectOptions): Promise<CollectSummary> =>
  runCollect(o, { now: () => sandbox.ctx.clock.now(), out: () => {}, err: () => {} });

const at = (t: number): void => {
  sandbox.ctx.clock.set(t);
  sandbox.second?.ctx.clock.set(t);
};

interface CompareRow {
  nodePool: string;
  capacityType: string;
  costUsd: number;
}

async function compare(dbName: string, cluster?: string): Promise<{ status: number; rows: CompareRow[] }> {
  const db = openDb({ path: join(dir, dbName) });
  const app = buildApp({ db, webRoot: join(dir, 'no-web'), now: () => end, practiceBills: sandboxPracticeBills });
  try {
    const q = new URLSearchParams({ from: new Date(end - 3 * HOUR_MS).toISOString(), to: new Date(end - HOUR_MS).toISOString() });
    if (cluster !== undefined) q.set('cluster', cluster);
    const res = await app.inject({ method: 'GET', url: `/api/nodepools/compare?${q}` });
    const body = res.json() as { rows?: CompareRow[] };
    return { status: res.statusCode, rows: body.rows ?? [] };
  } finally {
    await app.close();
    db.close();
  }
}

/** One app per ledger file, built once for the file's API tests (an app per request cost a minute at load 20). */
const apps = new Map<string, { app: ReturnType<typeof buildApp>; db: ReturnType<typeof openDb> }>();
function appOf(dbName: string): ReturnType<typeof buildApp> {
  let a = apps.get(dbName);
  if (a === undefined) {
    const db = openDb({ path: join(dir, dbName) });
    a = { db, app: buildApp({ db, webRoot: join(dir, 'no-web'), now: () => end, practiceBills: sandboxPracticeBills }) };
    apps.set(dbName, a);
  }
  return a.app;
}

/** GET `path` (with the two hours' range) of one ledger, with ?cluster= when given: status and JSON. */
async function api<T>(dbName: string, path: string, cluster?: string, range = true): Promise<{ status: number; body: T }> {
  const q = new URLSearchParams(
    range ? { from: new Date(end - 3 * HOUR_MS).toISOString(), to: new Date(end - HOUR_MS).toISOString() } : {},
  );
  if (cluster !== undefined) q.set('cluster', cluster);
  const res = await appOf(dbName).inject({ method: 'GET', url: `${path}?${q}` });
  return { status: res.statusCode, body: res.json() as T };
}

/** NodePool x capacity type -> cost in cents. */
const cents = (rows: readonly CompareRow[]): Record<string, number> =>
  Object.fromEntries(rows.map((r) => [`${r.nodePool}/${r.capacityType}`, Math.round(r.costUsd * 100)]));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-two-clusters-'));
  sandbox = await startSandbox({ days: 1, dir: join(dir, 'sandbox'), secondCluster: { scenario: 'staging', days: 1 } });
  for (const [k, v] of Object.entries(sandbox.awsEnv)) vi.stubEnv(k, v);
  // Two days: each first collect asks Cost Explorer for the window's days, and the single-cluster ledgers' answers are
  // the same lines Cost Explorer gives either cluster alone.
  end = sandbox.scenario.end;
  const second = sandbox.second;
  if (second === null) throw new Error('no second cluster');
  const file = join(dir, 'clusters.yaml');
  writeFileSync(
    file,
    `clusters:\n  - name: ${WEEK4}\n    context: ${sandbox.context}\n    region: us-east-1\n    prometheus: ${sandbox.prometheusUrl}\n` +
      `  - name: ${STAGING}\n    context: ${second.context}\n    region: us-east-1\n    prometheus: ${second.prometheusUrl}\n`,
  );
  clusters = parseClustersFile(file, readFileSync(file, 'utf8'));
  // Three snapshots an hour apart of each cluster: the two hours [end-3h, end-1h) are read back.
  const log = sandbox.ctx.requestLog;
  const during = async (key: keyof typeof served, first: boolean, f: () => Promise<unknown>): Promise<void> => {
    const from = log.length;
    await f();
    if (first) served[key] = log.slice(from).map((r) => r.operation);
  };
  firstAt = end - 3 * HOUR_MS;
  for (const t of [end - 3 * HOUR_MS, end - 2 * HOUR_MS, end - HOUR_MS]) {
    at(t);
    const first = t === firstAt;
    await during('both', first, async () => {
      const both = await collect({ ...base('both.db'), clusters, clustersFrom: 'clusters-file' });
      expect(both.failures).toEqual([]);
    });
    await during('week4', first, () => collect({ ...base('week4.db'), context: sandbox.context, prometheusUrl: sandbox.prometheusUrl }));
    await during('staging', first, () =>
      collect({ ...base('staging.db'), cluster: STAGING, context: second.context, prometheusUrl: second.prometheusUrl }),
    );
  }
}, 240_000);

afterAll(async () => {
  for (const { app, db } of apps.values()) {
    await app.close();
    db.close();
  }
  vi.unstubAllEnvs();
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

/*
 * Usage and disruptions per cluster (issue 25, branch clusters25d): each cluster's usage rows (metrics-server's
 * snapshots and hours, the hours finalised, Prometheus's backfill from its own Prometheus) and its disruptions in the
 * two-cluster ledger are its one-cluster ledger's, row for row; then staging snapshotted half an hour off week4's
 * instants, read back over a partial hour.
 */
describe('usage and disruptions per cluster (--clusters)', () => {
  /** A table's rows of one cluster (null: the ledger's only one), without the ids that differ between files (sample_id: the usage_samples view's row id, 0031). */
  const rowsOf = (dbName: string, table: string, cluster: string | null, drop: readonly string[] = []): string[] => {
    const db = openDb({ path: join(dir, dbName), readonly: true });
    try {
      const rows = db
        .prepare(
          `SELECT * FROM ${table} WHERE cluster_id = (SELECT id FROM clusters WHERE @cluster IS NULL OR name = @cluster ORDER BY id LIMIT 1)`,
        )
        .all({ cluster }) as Record<string, unknown>[];
      return rows
        .map((r) => {
          for (const k of ['cluster_id', 'snapshot_id', 'sample_id', ...drop]) delete r[k];
          return JSON.stringify(r);
        })
        .sort();
    } finally {
      db.close();
    }
  };
  const USAGE_TABLES = [
    'usage_snapshots',
    'usage_samples',
    'usage_namespaces',
    'usage_nodepools',
    'usage_oom_kills',
    'usage_hours',
    'usage_workload_hours',
    'usage_nodepool_hours',
  ];

  it("each cluster's usage rows (snapshots, samples, hours finalised, Prometheus backfill) equal its one-cluster ledger's", () => {
    for (const [cluster, alone] of [
      [WEEK4, 'week4.db'],
      [STAGING, 'staging.db'],
    ] as const) {
      // Not trivially equal: metrics-server's hours and Prometheus's are both there, two hours finalised.
      const hours = rowsOf(alone, 'usage_workload_hours', null).map((r) => JSON.parse(r) as { source: string });
      expect(new Set(hours.map((h) => h.source))).toEqual(new Set(['metrics-server', 'prometheus']));
      expect(rowsOf(alone, 'usage_hours', null).filter((r) => r.includes('"final":1')).length).toBe(2);
      for (const table of USAGE_TABLES)
        expect(rowsOf('both.db', table, cluster), `${cluster} ${table}`).toEqual(rowsOf(alone, table, null));
    }
  });

  it("each cluster's Prometheus backfill status is its own (what the next run asks from)", () => {
    const status = (dbName: string, key: string): unknown => {
      const db = openDb({ path: join(dir, dbName), readonly: true });
      try {
        const v = db.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(key) as string | undefined;
        return v === undefined ? null : JSON.parse(v);
      } finally {
        db.close();
      }
    };
    expect(status('week4.db', 'usage.prometheus')).toMatchObject({ ok: true });
    expect(status('both.db', 'usage.prometheus')).toEqual(status('week4.db', 'usage.prometheus'));
    expect(status('both.db', 'usage.prometheus@2')).toEqual(status('staging.db', 'usage.prometheus'));
  });

  it("each cluster's disruptions equal its one-cluster ledger's (its events never paired with the other's NodeClaims)", () => {
    // seq orders the whole table: the second cluster's continue after the first's.
    const week4 = rowsOf('week4.db', 'disruptions', null, ['seq']);
    const staging = rowsOf('staging.db', 'disruptions', null, ['seq']);
    expect(week4.length).toBeGreaterThan(0);
    expect(staging.length).toBeGreaterThan(0);
    expect(rowsOf('both.db', 'disruptions', WEEK4, ['seq'])).toEqual(week4);
    expect(rowsOf('both.db', 'disruptions', STAGING, ['seq'])).toEqual(staging);
  });

  it("snapshots at offset instants: every cluster's figures weigh each snapshot to its own cluster's next one (docs/clusters.md, left 4)", async () => {
    // A copy of the two-cluster ledger with one more staging snapshot at end - 2 h + 5 min, five minutes after
    // week4's (and staging's) at end - 2 h; week4's next is at end - 1 h. A snapshot stands until its cluster's next
    // one, at most 15 minutes (INTERVAL_CAP_MS, db/repositories/analytics-intervals.ts): week4's at end - 2 h stands
    // for [end - 2 h, end - 2 h + 15 min) either way, so over [end - 2 h, end - 1.5 h) (a partial hour: weighted at
    // read time) and over the whole hour [end - 2 h, end - 1 h) (the hour rollup, weighted when written) a NodePool
    // only week4 runs costs what it costs in week4's own ledger over that hour. Weighted to the next snapshot of
    // any cluster (staging's, 5 minutes on) it would be a third of it.
    const offset = join(dir, 'offset.db');
    const src = openDb({ path: join(dir, 'both.db') });
    try {
      src.prepare('VACUUM INTO ?').run(offset);
    } finally {
      src.close();
    }
    at(end - 2 * HOUR_MS + 5 * 60_000);
    const s = await collect({ ...base('offset.db'), clusters: clusters.filter((c) => c.name === STAGING), clustersFrom: 'clusters-file' });
    expect(s.failures).toEqual([]);
    const read = async (dbName: string, fromMs: number, toMs: number): Promise<Record<string, number>> => {
      const db = openDb({ path: join(dir, dbName) });
      const app = buildApp({ db, webRoot: join(dir, 'no-web'), now: () => end, practiceBills: sandboxPracticeBills });
      try {
        const q = new URLSearchParams({ from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString() });
        const res = await app.inject({ method: 'GET', url: `/api/nodepools/compare?${q}` });
        expect(res.statusCode).toBe(200);
        const rows = (res.json() as { rows: CompareRow[] }).rows;
        return Object.fromEntries(rows.map((r) => [`${r.nodePool}/${r.capacityType}`, r.costUsd]));
      } finally {
        await app.close();
        db.close();
      }
    };
    const hour = await read('week4.db', end - 2 * HOUR_MS, end - HOUR_MS);
    const stagingPools = new Set(Object.keys(await read('staging.db', end - 3 * HOUR_MS, end - HOUR_MS)));
    const week4Only = Object.keys(hour).filter((k) => !stagingPools.has(k) && hour[k] > 0);
    expect(week4Only.length).toBeGreaterThan(0);
    const partial = await read('offset.db', end - 2 * HOUR_MS, end - 1.5 * HOUR_MS);
    const whole = await read('offset.db', end - 2 * HOUR_MS, end - HOUR_MS);
    for (const k of week4Only) {
      expect(partial[k], `${k} over the partial hour`).toBeCloseTo(hour[k], 9);
      expect(whole[k], `${k} over the whole hour`).toBeCloseTo(hour[k], 9);
    }
  }, 60_000);
});

/*
 * The bill by cluster (issue 25, branch readers25b): /api/bill/lines and /api/bill/explain of the two-cluster ledger
 * with ?cluster= answer what the cluster's one-cluster ledger answers, to the cent; without it every line names its
 * cluster, and a line is explained by its own cluster's NodeClaims. Both clusters run a NodePool named general.
 */
describe('the bill, budgets and alerts by cluster (?cluster= on /api/bill/*, /api/budgets, /api/alerts)', () => {
  interface Line {
    id: number;
    periodStart: string;
    nodePool: string;
    dimensionValue: string;
    unblendedUsd: number;
    cluster?: string;
  }
  interface Lines {
    lines: Line[];
    totals: { unblendedUsd: number; byNodePool: { nodePool: string; cluster?: string; unblendedUsd: number }[] };
  }
  interface Explained {
    line: Line;
    nodeClaims: { nodeName: string; nodeClaim: string | null; nodePool: string | null; computedUsd: number }[];
    computedUsd: number;
    remainderUsd: number;
  }
  const get = async <T>(dbName: string, url: string): Promise<{ status: number; body: T }> => {
    const res = await appOf(dbName).inject({ method: 'GET', url });
    return { status: res.statusCode, body: res.json() as T };
  };
  const cents = (usd: number): number => Math.round(usd * 100);
  /** Every day the collects billed (the range is read when the tests run: `end` is set by beforeAll). */
  const range = (): string => `from=${new Date(end - 3 * 24 * HOUR_MS).toISOString()}&to=${new Date(end + 24 * HOUR_MS).toISOString()}`;
  const lineKey = (l: Line): string => `${l.periodStart} ${l.nodePool} ${l.dimensionValue}`;
  const lineCents = (b: Lines): Record<string, number> => Object.fromEntries(b.lines.map((l) => [lineKey(l), cents(l.unblendedUsd)]));
  /** A ledger's newest line of NodePool general (week4's is on-demand, staging's spot). */
  const generalLine = (b: Lines): Line => {
    const line = b.lines.filter((l) => l.nodePool === 'general' && l.unblendedUsd > 0).at(-1);
    if (line === undefined) throw new Error('no general line');
    return line;
  };
  const keyQuery = (l: Line): string =>
    new URLSearchParams({ period: l.periodStart, nodepool: l.nodePool, dimension: l.dimensionValue }).toString();
  const claimCents = (e: Explained): string[] => e.nodeClaims.map((n) => `${n.nodeClaim ?? n.nodeName} ${cents(n.computedUsd)}`).sort();

  it("lines with ?cluster= are the cluster's one-cluster ledger's, to the cent, each naming its cluster; none: both clusters' lines, each named", async () => {
    const [w, s, all, wAlone, sAlone] = await Promise.all([
      get<Lines>('both.db', `/api/bill/lines?${range()}&cluster=${WEEK4}`),
      get<Lines>('both.db', `/api/bill/lines?${range()}&cluster=${STAGING}`),
      get<Lines>('both.db', `/api/bill/lines?${range()}`),
      get<Lines>('week4.db', `/api/bill/lines?${range()}`),
      get<Lines>('staging.db', `/api/bill/lines?${range()}`),
    ]);
    expect([w.status, s.status, all.status]).toEqual([200, 200, 200]);
    // Not trivially equal: both clusters bill a NodePool named general.
    expect(wAlone.body.lines.some((l) => l.nodePool === 'general')).toBe(true);
    expect(sAlone.body.lines.some((l) => l.nodePool === 'general')).toBe(true);
    expect(lineCents(w.body)).toEqual(lineCents(wAlone.body));
    expect(lineCents(s.body)).toEqual(lineCents(sAlone.body));
    expect(cents(w.body.totals.unblendedUsd)).toBe(cents(wAlone.body.totals.unblendedUsd));
    expect(cents(s.body.totals.unblendedUsd)).toBe(cents(sAlone.body.totals.unblendedUsd));
    // A one-cluster ledger's lines name no cluster (it answers as before several clusters).
    expect(wAlone.body.lines.every((l) => l.cluster === undefined)).toBe(true);
    expect(new Set(w.body.lines.map((l) => l.cluster))).toEqual(new Set([WEEK4]));
    expect(new Set(s.body.lines.map((l) => l.cluster))).toEqual(new Set([STAGING]));
    // Every cluster: each line once, under its own cluster; general's totals are two rows, one per cluster.
    const named = (b: Lines): Record<string, number> =>
      Object.fromEntries(b.lines.map((l) => [`${l.cluster ?? '?'} ${lineKey(l)}`, cents(l.unblendedUsd)]));
    expect(named(all.body)).toEqual({ ...named(w.body), ...named(s.body) });
    expect(all.body.lines.length).toBe(wAlone.body.lines.length + sAlone.body.lines.length);
    const general = all.body.totals.byNodePool.filter((t) => t.nodePool === 'general');
    expect(general.map((t) => t.cluster).sort()).toEqual([WEEK4, STAGING].sort());
    const poolCents = (b: Lines, pool: string): number =>
      b.totals.byNodePool.filter((t) => t.nodePool === pool).reduce((a, t) => a + cents(t.unblendedUsd), 0);
    expect(general.find((t) => t.cluster === STAGING)?.unblendedUsd).toBeCloseTo(
      sAlone.body.totals.byNodePool.find((t) => t.nodePool === 'general')?.unblendedUsd ?? NaN,
      9,
    );
    expect(poolCents(all.body, 'general')).toBe(poolCents(wAlone.body, 'general') + poolCents(sAlone.body, 'general'));
  });

  it("a line is explained by its own cluster's NodeClaims (never the other cluster's general): each its one-cluster ledger's, to the cent", async () => {
    const all = (await get<Lines>('both.db', `/api/bill/lines?${range()}`)).body;
    for (const [cluster, alone] of [
      [WEEK4, 'week4.db'],
      [STAGING, 'staging.db'],
    ] as const) {
      const aloneLine = generalLine((await get<Lines>(alone, `/api/bill/lines?${range()}`)).body);
      const bothLine = all.lines.find((l) => l.cluster === cluster && lineKey(l) === lineKey(aloneLine));
      if (bothLine === undefined) throw new Error(`${cluster}: no general line in the two-cluster ledger`);
      const [byId, byKey, want] = await Promise.all([
        get<Explained>('both.db', `/api/bill/explain?lineId=${bothLine.id}`),
        get<Explained>('both.db', `/api/bill/explain?${keyQuery(aloneLine)}&cluster=${cluster}`),
        get<Explained>(alone, `/api/bill/explain?lineId=${aloneLine.id}`),
      ]);
      expect([byId.status, byKey.status, want.status], cluster).toEqual([200, 200, 200]);
      expect(want.body.nodeClaims.length, cluster).toBeGreaterThan(0);
      expect(byId.body.line.cluster).toBe(cluster);
      expect(claimCents(byId.body), cluster).toEqual(claimCents(want.body));
      expect(claimCents(byKey.body), cluster).toEqual(claimCents(want.body));
      expect(new Set(byId.body.nodeClaims.map((n) => n.nodePool)), cluster).toEqual(new Set(['general']));
      expect(cents(byId.body.remainderUsd), cluster).toBe(cents(want.body.remainderUsd));
    }
    // A key both clusters bill (the untagged on-demand line of a day): which cluster is meant is asked, not guessed.
    const shared = all.lines.find((l) => l.cluster === WEEK4 && all.lines.some((m) => m.cluster === STAGING && lineKey(m) === lineKey(l)));
    if (shared === undefined) throw new Error('no line key billed in both clusters');
    const ambiguous = await get<{ message: string }>('both.db', `/api/bill/explain?${keyQuery(shared)}`);
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.message).toContain('name the cluster');
    // A line of the other cluster is not found under ?cluster=.
    const stagingLine = all.lines.find((l) => l.cluster === STAGING);
    const res = await get<{ message: string }>('both.db', `/api/bill/explain?lineId=${stagingLine?.id ?? 0}&cluster=${WEEK4}`);
    expect(res.status).toBe(404);
  });

  it("a budget on general made under ?cluster= stands as the same budget in that cluster's one-cluster ledger, to the cent; one of the whole ledger adds both", async () => {
    interface Status {
      budget: { name: string; cluster?: string | null };
      spent: number;
      spentFinal: number;
      forecast: number;
    }
    const body = (name: string) => ({
      name,
      scope: { kind: 'nodepool', name: 'general' },
      period: 'monthly',
      amount: 1000,
    });
    const post = async (dbName: string, name: string, cluster?: string): Promise<number> =>
      (
        await appOf(dbName).inject({
          method: 'POST',
          url: `/api/budgets${cluster === undefined ? '' : `?cluster=${cluster}`}`,
          payload: body(name),
        })
      ).statusCode;
    expect(await post('both.db', 'general-week4', WEEK4)).toBe(201);
    expect(await post('both.db', 'general-staging', STAGING)).toBe(201);
    expect(await post('both.db', 'general-all')).toBe(201);
    expect(await post('week4.db', 'general-week4')).toBe(201);
    expect(await post('staging.db', 'general-staging')).toBe(201);
    const at = `at=${new Date(end).toISOString()}`;
    const list = async (dbName: string, cluster?: string): Promise<Map<string, Status>> => {
      const res = await get<{ items: Status[] }>(dbName, `/api/budgets?${at}${cluster === undefined ? '' : `&cluster=${cluster}`}`);
      expect(res.status).toBe(200);
      return new Map(res.body.items.map((s) => [s.budget.name, s]));
    };
    const [all, w, s, wAlone, sAlone] = await Promise.all([
      list('both.db'),
      list('both.db', WEEK4),
      list('both.db', STAGING),
      list('week4.db'),
      list('staging.db'),
    ]);
    const figures = (x: Status | undefined) => [cents(x?.spent ?? NaN), cents(x?.spentFinal ?? NaN), cents(x?.forecast ?? NaN)];
    // Not trivially equal: both clusters spent on their general.
    expect(cents(sAlone.get('general-staging')?.spent ?? 0)).toBeGreaterThan(0);
    expect(cents(wAlone.get('general-week4')?.spent ?? 0)).toBeGreaterThan(0);
    expect(figures(all.get('general-week4'))).toEqual(figures(wAlone.get('general-week4')));
    expect(figures(all.get('general-staging'))).toEqual(figures(sAlone.get('general-staging')));
    expect(
      Math.abs(
        cents(all.get('general-all')?.spent ?? NaN) - figures(wAlone.get('general-week4'))[0] - figures(sAlone.get('general-staging'))[0],
      ),
    ).toBeLessThanOrEqual(1);
    // Each names its cluster (null: the whole ledger); a cluster lists its own and the whole ledger's.
    expect([...all.values()].map((x) => [x.budget.name, x.budget.cluster])).toEqual([
      ['general-all', null],
      ['general-staging', STAGING],
      ['general-week4', WEEK4],
    ]);
    expect([...w.keys()]).toEqual(['general-all', 'general-week4']);
    expect([...s.keys()]).toEqual(['general-all', 'general-staging']);
    expect(wAlone.get('general-week4')?.budget.cluster).toBeUndefined();
  });

  it("alerts judge each cluster's rows: general's idle share fires once per cluster, each as in its one-cluster ledger, naming its cluster", async () => {
    // Every NodePool with any idle capacity breaches (threshold 0, no hold): the figures are each cluster's own.
    const evaluate = (dbName: string): void => {
      const db = openDb({ path: join(dir, dbName) });
      try {
        evaluateAlerts(db, {
          atMs: end - HOUR_MS,
          settings: (s) => ({ ...s, rules: { ...s.rules, 'idle-share': { ...s.rules['idle-share'], threshold: 0, holdMs: 0 } } }),
        });
      } finally {
        db.close();
      }
    };
    for (const f of ['both.db', 'week4.db', 'staging.db']) evaluate(f);
    interface Alerts {
      alerts: { rule: string; subject: string; cluster?: string | null; sentence: string }[];
    }
    const idle = async (dbName: string, cluster?: string): Promise<string[]> =>
      (await get<Alerts>(dbName, `/api/alerts?rule=idle-share${cluster === undefined ? '' : `&cluster=${cluster}`}`)).body.alerts
        .map((a) => `${a.cluster === undefined ? '' : `${a.cluster ?? 'ledger'}: `}${a.sentence}`)
        .sort();
    const [w, s, all, wAlone, sAlone] = await Promise.all([
      idle('both.db', WEEK4),
      idle('both.db', STAGING),
      idle('both.db'),
      idle('week4.db'),
      idle('staging.db'),
    ]);
    expect(sAlone.some((x) => x.startsWith('NodePool general '))).toBe(true);
    expect(wAlone.some((x) => x.startsWith('NodePool general '))).toBe(true);
    expect(w).toEqual(wAlone.map((x) => `${WEEK4}: ${x}`));
    expect(s).toEqual(sAlone.map((x) => `${STAGING}: ${x}`));
    expect(all).toEqual([...w, ...s].sort());
  });
});

describe('two clusters in one ledger (--clusters)', () => {
  it("each cluster's NodePool cost with ?cluster= equals its one-cluster ledger's, to the cent; no cluster: their sum", async () => {
    const week4 = await compare('both.db', WEEK4);
    const staging = await compare('both.db', STAGING);
    const all = await compare('both.db');
    const week4Alone = await compare('week4.db');
    const stagingAlone = await compare('staging.db');
    expect([week4.status, staging.status, all.status]).toEqual([200, 200, 200]);
    // Not trivially equal: both clusters run a NodePool named general, and each costs something over the two hours.
    expect(Object.keys(cents(week4Alone.rows))).toContain('general/on-demand');
    expect(Object.keys(cents(stagingAlone.rows)).some((k) => k.startsWith('general/'))).toBe(true);
    expect(Object.values(cents(stagingAlone.rows)).some((c) => c > 0)).toBe(true);
    expect(cents(week4.rows)).toEqual(cents(week4Alone.rows));
    expect(cents(staging.rows)).toEqual(cents(stagingAlone.rows));
    // Every cluster: a NodePool's cost is the two clusters' added (general is both clusters' general).
    const sum = (k: string): number =>
      [...week4Alone.rows, ...stagingAlone.rows].filter((r) => `${r.nodePool}/${r.capacityType}` === k).reduce((s, r) => s + r.costUsd, 0);
    for (const [k, c] of Object.entries(cents(all.rows))) expect(Math.abs(c - sum(k) * 100)).toBeLessThanOrEqual(1);
  });

  it("each cluster's NodePool bill (Cost Explorer, DAILY) equals its one-cluster ledger's, to the cent", () => {
    // Per day, NodePool and purchase type (compute), and per day and NodePool for EC2 - Other (the one-cluster
    // query splits it by usage type, the account's query does not: the NodePool's sum is compared).
    const bill = (dbName: string, cluster: string | null): Record<string, number> => {
      const db = openDb({ path: join(dir, dbName), readonly: true });
      try {
        const rows = db
          .prepare(
            `SELECT period_start AS day, nodepool, CASE WHEN group_by = 'USAGE_TYPE' THEN 'EC2 - Other' ELSE dimension_value END AS what,
               TOTAL(unblended_usd) AS usd
             FROM cost_lines
             WHERE source = 'cost-explorer' AND granularity = 'DAILY' AND group_by IN ('PURCHASE_TYPE', 'USAGE_TYPE')
               AND cluster_id = (SELECT id FROM clusters WHERE @cluster IS NULL OR name = @cluster ORDER BY id LIMIT 1)
             GROUP BY 1, 2, 3`,
          )
          .all({ cluster }) as { day: string; nodepool: string; what: string; usd: number }[];
        return Object.fromEntries(rows.map((r) => [`${r.day} ${r.nodepool} ${r.what}`, Math.round(r.usd * 100)]));
      } finally {
        db.close();
      }
    };
    const week4Alone = bill('week4.db', null);
    const stagingAlone = bill('staging.db', null);
    expect(Object.keys(week4Alone).some((k) => k.includes(' general On Demand Instances'))).toBe(true);
    expect(Object.keys(stagingAlone).some((k) => k.includes(' staging-batch Spot Instances'))).toBe(true);
    expect(bill('both.db', WEEK4)).toEqual(week4Alone);
    expect(bill('both.db', STAGING)).toEqual(stagingAlone);
  });

  it("each cluster's instance-type, hourly and per-instance lines (Cost Explorer) equal its one-cluster ledger's, to the cent", () => {
    const lines = (dbName: string, cluster: string | null, granularity: string, groupBy: string): Record<string, number> => {
      const db = openDb({ path: join(dir, dbName), readonly: true });
      try {
        const rows = db
          .prepare(
            `SELECT period_start AS at, nodepool, dimension_value AS what, unblended_usd AS usd, usage_quantity AS qty
             FROM cost_lines
             WHERE source = 'cost-explorer' AND granularity = @granularity AND group_by = @groupBy
               AND cluster_id = (SELECT id FROM clusters WHERE @cluster IS NULL OR name = @cluster ORDER BY id LIMIT 1)`,
          )
          .all({ cluster, granularity, groupBy }) as { at: string; nodepool: string; what: string; usd: number; qty: number }[];
        return Object.fromEntries(
          rows.flatMap((r) => [
            [`${r.at} ${r.nodepool} ${r.what}`, Math.round(r.usd * 100)],
            [`${r.at} ${r.nodepool} ${r.what} hours`, Math.round(r.qty * 100)],
          ]),
        );
      } finally {
        db.close();
      }
    };
    for (const [granularity, groupBy, sample] of [
      ['DAILY', 'INSTANCE_TYPE', ' general '],
      ['HOURLY', 'PURCHASE_TYPE', 'T'],
      ['DAILY', 'RESOURCE_ID', ' i-'],
    ] as const) {
      const week4Alone = lines('week4.db', null, granularity, groupBy);
      const stagingAlone = lines('staging.db', null, granularity, groupBy);
      expect(Object.keys(week4Alone).some((k) => k.includes(sample))).toBe(true);
      expect(Object.keys(stagingAlone).length).toBeGreaterThan(0);
      expect(lines('both.db', WEEK4, granularity, groupBy), `${granularity} x ${groupBy}, ${WEEK4}`).toEqual(week4Alone);
      expect(lines('both.db', STAGING, granularity, groupBy), `${granularity} x ${groupBy}, ${STAGING}`).toEqual(stagingAlone);
    }
  });

  it('Cost Explorer: one paged sequence per query for the account, not per cluster; the fewest pages the sandbox cuts', () => {
    const ce = (ops: string[]): number => ops.filter((o) => o.startsWith('ce:GetCostAndUsage')).length;
    // The account's queries, evaluated at the sandbox: its own evaluator over both clusters' bill, pages of 50 slots
    // (one per period and group, sandbox/serve/cost-explorer.ts), so the fewest requests for each query is ceil(slots / 50).
    const second = sandbox.second?.scenario;
    if (second === undefined) throw new Error('no second cluster');
    const records = [...usageRecords(sandbox.scenario, firstAt), ...usageRecords(second, firstAt)].sort(
      (a, b) => a.hourStart - b.hourStart,
    );
    const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
    const period = { Start: day(firstAt - 2 * 24 * HOUR_MS), End: day(firstAt + 24 * HOUR_MS) };
    const clustersIn = { Tags: { Key: 'eks:eks-cluster-name', Values: [WEEK4, STAGING] } };
    const pagesOf = (
      filter: unknown,
      groupBy: unknown[],
      o: { period?: { Start: string; End: string }; granularity?: string; withResources?: boolean } = {},
    ): { pages: number; keys: string[][] } => {
      const q = parseCeQuery(
        {
          TimePeriod: o.period ?? period,
          Granularity: o.granularity ?? 'DAILY',
          Metrics: ['UnblendedCost'],
          Filter: filter,
          GroupBy: groupBy,
        },
        { withResources: o.withResources ?? false },
      );
      const results = evaluate(q, records, firstAt);
      const slots = results.reduce((s, r) => s + Math.max(1, r.groups.length), 0);
      return { pages: Math.ceil(slots / 50), keys: results.flatMap((r) => r.groups.map((g) => g.keys)) };
    };
    const compute = { Dimensions: { Key: 'SERVICE', Values: ['Amazon Elastic Compute Cloud - Compute'] } };
    const split = pagesOf({ And: [clustersIn, compute] }, [
      { Type: 'TAG', Key: 'eks:eks-cluster-name' },
      { Type: 'DIMENSION', Key: 'PURCHASE_TYPE' },
    ]);
    const byPool = [
      { Type: 'TAG', Key: 'eks:eks-cluster-name' },
      { Type: 'TAG', Key: 'karpenter.sh/nodepool' },
    ];
    const types = [...new Set(split.keys.map((k) => k[1]))];
    expect(types.sort()).toEqual(['On Demand Instances', 'Spot Instances']);
    const perType = types.map(
      (t) => pagesOf({ And: [clustersIn, compute, { Dimensions: { Key: 'PURCHASE_TYPE', Values: [t] } }] }, byPool).pages,
    );
    const other = pagesOf({ And: [clustersIn, { Dimensions: { Key: 'SERVICE', Values: ['EC2 - Other'] } }] }, byPool).pages;
    const daily = split.pages + perType.reduce((a, b) => a + b, 0) + other;
    // The finer lines (collect-account.ts, 4-6): instance types, hourly and per-instance lines one sequence per
    // cluster (filter its tag, GroupBy [NodePool, INSTANCE_TYPE | PURCHASE_TYPE | RESOURCE_ID]; for HOURLY two
    // purchase types against two clusters is a tie, asked per cluster), over the window's days, or its hours.
    const hour = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19)}Z`;
    const hours = { Start: hour(Date.parse(`${period.Start}T00:00:00Z`)), End: hour(Math.ceil(firstAt / HOUR_MS) * HOUR_MS) };
    const one = (cluster: string) => ({ Tags: { Key: 'eks:eks-cluster-name', Values: [cluster] } });
    const byPoolAnd = (key: string) => [
      { Type: 'TAG', Key: 'karpenter.sh/nodepool' },
      { Type: 'DIMENSION', Key: key },
    ];
    const instanceTypes = [WEEK4, STAGING].map((c) => pagesOf({ And: [one(c), compute] }, byPoolAnd('INSTANCE_TYPE')).pages);
    const hourly = [WEEK4, STAGING].map(
      (c) => pagesOf({ And: [one(c), compute] }, byPoolAnd('PURCHASE_TYPE'), { period: hours, granularity: 'HOURLY' }).pages,
    );
    // Asked per purchase type instead (one sequence each, GroupBy [cluster, NodePool]): the pages it would take.
    hourlyByType = types.map(
      (t) =>
        pagesOf({ And: [clustersIn, compute, { Dimensions: { Key: 'PURCHASE_TYPE', Values: [t] } }] }, byPool, {
          period: hours,
          granularity: 'HOURLY',
        }).pages,
    );
    const resources = [WEEK4, STAGING].map(
      (c) => pagesOf({ And: [one(c), compute] }, byPoolAnd('RESOURCE_ID'), { withResources: true }).pages,
    );
    const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
    expect(ce(served.both)).toBe(daily + sum(instanceTypes) + sum(hourly) + sum(resources));
    // Per cluster, its instance-type and per-instance requests at the first collect are its one-cluster ledger's (the
    // same query).
    const pagesIn = (dbName: string, groupBy: string): number => {
      const db = openDb({ path: join(dir, dbName), readonly: true });
      try {
        const details = db
          .prepare(`SELECT detail FROM api_requests WHERE service = 'ce' AND detail IS NOT NULL AND at = ?`)
          .pluck()
          .all(firstAt) as string[];
        return details
          .map((d) => JSON.parse(d) as { groupBy?: string; granularity?: string })
          .filter((d) => d.groupBy === groupBy && d.granularity === 'DAILY').length;
      } finally {
        db.close();
      }
    };
    expect([pagesIn('week4.db', 'INSTANCE_TYPE'), pagesIn('staging.db', 'INSTANCE_TYPE')]).toEqual(instanceTypes);
    expect([pagesIn('week4.db', 'RESOURCE_ID'), pagesIn('staging.db', 'RESOURCE_ID')]).toEqual(resources);
    const hourlyPages = (dbName: string): number => {
      const db = openDb({ path: join(dir, dbName), readonly: true });
      try {
        return (
          db
            .prepare(`SELECT detail FROM api_requests WHERE service = 'ce' AND detail IS NOT NULL AND at = ?`)
            .pluck()
            .all(firstAt) as string[]
        ).filter((d) => (JSON.parse(d) as { granularity?: string }).granularity === 'HOURLY').length;
      } finally {
        db.close();
      }
    };
    expect([hourlyPages('week4.db'), hourlyPages('staging.db')]).toEqual(hourly);
    // Never more than the two one-cluster ledgers together: the finer lines are their queries, and the account's
    // DAILY purchase-type and EC2 - Other lines take 4 pages here where the two ledgers take 2 + 2 (with two clusters
    // a tie; each further cluster adds 2 sequences to theirs, none to the account's).
    expect(ce(served.both)).toBe(ce(served.week4) + ce(served.staging));
    expect(daily).toBe(4);
    expect(served.both.filter((o) => o === 'ce:ListCostAllocationTags').length).toBe(1);
  });

  it('HOURLY asked per purchase type (the split for fewer purchase types than clusters): the same lines, one sequence a type', async () => {
    const second = sandbox.second;
    if (second === null) throw new Error('no second cluster');
    const db = openDb({ path: join(dir, 'by-type.db') });
    const ce = createCostExplorerClient({ region: 'us-east-1' });
    const log = sandbox.ctx.requestLog;
    try {
      const declared = (name: string) => clusterDeclaration(name);
      const ids = createClustersRepository(db)
        .declare([declared(WEEK4), declared(STAGING)], firstAt)
        .map((c) => ({ id: c.id, name: c.name }));
      // At the first collect's instant (the hours the pages above were worked out for), then the clock put back.
      const back = sandbox.ctx.clock.now();
      at(firstAt);
      const from = log.length;
      const result = await collectAccountCostExplorer(
        { db, ce, clusters: ids, now: firstAt, hourly: true, hourlySplit: 'purchase-type', otherCosts: false },
        { startMs: firstAt - 2 * 24 * HOUR_MS, endMs: firstAt },
      ).finally(() => at(back));
      const hourly = result.queries.filter((q) => q.granularity === 'HOURLY');
      expect(hourly.map((q) => [q.cluster, q.unavailable])).toEqual([[undefined, undefined]]);
      expect(hourly[0].requests).toBe(hourlyByType.reduce((a, b) => a + b, 0));
      expect(log.slice(from).filter((r) => r.operation === 'ce:GetCostAndUsage').length).toBe(result.requests);
    } finally {
      ce.destroy();
      db.close();
    }
    const hourCents = (dbName: string, cluster: string | null): Record<string, number[]> => {
      const d = openDb({ path: join(dir, dbName), readonly: true });
      try {
        const rows = d
          .prepare(
            `SELECT period_start AS at, nodepool, dimension_value AS what, unblended_usd AS usd, usage_quantity AS qty FROM cost_lines
             WHERE source = 'cost-explorer' AND granularity = 'HOURLY' AND group_by = 'PURCHASE_TYPE'
               AND period_start_ms < @firstAt
               AND cluster_id = (SELECT id FROM clusters WHERE @cluster IS NULL OR name = @cluster ORDER BY id LIMIT 1)`,
          )
          .all({ cluster, firstAt }) as { at: string; nodepool: string; what: string; usd: number; qty: number }[];
        return Object.fromEntries(rows.map((r) => [`${r.at} ${r.nodepool} ${r.what}`, [Math.round(r.usd * 100), Math.round(r.qty * 100)]]));
      } finally {
        d.close();
      }
    };
    expect(Object.keys(hourCents('by-type.db', WEEK4)).length).toBeGreaterThan(24);
    expect(hourCents('by-type.db', WEEK4)).toEqual(hourCents('week4.db', null));
    expect(hourCents('by-type.db', STAGING)).toEqual(hourCents('staging.db', null));
  });

  it('prices once per region: the two clusters of us-east-1 cost the Pricing API what week4 alone does', () => {
    const pricing = (ops: string[]): number => ops.filter((o) => o.startsWith('pricing:')).length;
    expect(pricing(served.week4)).toBeGreaterThan(0);
    expect(pricing(served.both)).toBe(pricing(served.week4));
  });

  /*
   * Every reader of the pages by cluster (issue 25 item 2): the figures of ?cluster=X equal X's one-cluster ledger's,
   * and without a cluster they are the two clusters' added, to the cent. The expected figures come from the two
   * one-cluster ledgers, collected alone from the same sandbox: never from the two-cluster ledger under test.
   */
  interface Daily {
    rows: { day: string; nodePool: string; estimateUsd: number | null }[];
    totals: { estimateUsd: number };
  }
  interface Teams {
    teams: { kind: string; team: string | null; costUsd: number }[];
    totals: { nodeCostUsd: number };
  }
  interface Summary {
    rows: { scope: string; nodePool: string | null; costUsd: number; nodeHours: number }[];
  }
  const c = (usd: number | null | undefined): number => Math.round((usd ?? 0) * 100);
  const teamCents = (t: Teams): Record<string, number> =>
    Object.fromEntries(t.teams.map((x) => [`${x.kind}/${x.team ?? ''}`, c(x.costUsd)]));
  const addCents = (a: Record<string, number>, b: Record<string, number>): Record<string, number> => {
    const out = { ...a };
    for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
    return out;
  };
  const near = (got: Record<string, number>, want: Record<string, number>): void => {
    expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
    for (const [k, v] of Object.entries(want)) expect(Math.abs((got[k] ?? 0) - v), k).toBeLessThanOrEqual(1);
  };

  it("Overview's daily cost (our estimate per day and NodePool) by cluster: each its own ledger's; none: their sum", async () => {
    // Our estimate per day and NodePool, summed over its purchase kinds (the one-cluster ledgers also read the bill:
    // their rows per purchase kind differ, and a row with only a bill has no estimate).
    const dailyCents = (d: Daily): Record<string, number> => {
      const out: Record<string, number> = {};
      for (const r of d.rows) {
        const k = `${r.day}/${r.nodePool}`;
        if (r.estimateUsd !== null) out[k] = (out[k] ?? 0) + c(r.estimateUsd);
      }
      return out;
    };
    const [w, s, all, wAlone, sAlone] = await Promise.all([
      api<Daily>('both.db', '/api/cost/nodepools/daily', WEEK4),
      api<Daily>('both.db', '/api/cost/nodepools/daily', STAGING),
      api<Daily>('both.db', '/api/cost/nodepools/daily'),
      api<Daily>('week4.db', '/api/cost/nodepools/daily'),
      api<Daily>('staging.db', '/api/cost/nodepools/daily'),
    ]);
    expect(c(sAlone.body.totals.estimateUsd)).toBeGreaterThan(0);
    expect(dailyCents(w.body)).toEqual(dailyCents(wAlone.body));
    expect(dailyCents(s.body)).toEqual(dailyCents(sAlone.body));
    near(dailyCents(all.body), addCents(dailyCents(wAlone.body), dailyCents(sAlone.body)));
  });

  it('Teams: the node cost split over teams by cluster; none: each team the two clusters added', async () => {
    const [w, s, all, wAlone, sAlone] = await Promise.all([
      api<Teams>('both.db', '/api/teams/cost', WEEK4),
      api<Teams>('both.db', '/api/teams/cost', STAGING),
      api<Teams>('both.db', '/api/teams/cost'),
      api<Teams>('week4.db', '/api/teams/cost'),
      api<Teams>('staging.db', '/api/teams/cost'),
    ]);
    expect(teamCents(w.body)).toEqual(teamCents(wAlone.body));
    expect(teamCents(s.body)).toEqual(teamCents(sAlone.body));
    // Every cluster: the node cost, what the teams are charged and idle add up (each cluster's rows are its own).
    const sum = (t: Teams, kind: string): number => t.teams.filter((x) => x.kind === kind).reduce((a, x) => a + c(x.costUsd), 0);
    for (const kind of ['team', 'idle'])
      expect(Math.abs(sum(all.body, kind) - sum(wAlone.body, kind) - sum(sAlone.body, kind)), kind).toBeLessThanOrEqual(2);
    expect(
      Math.abs(c(all.body.totals.nodeCostUsd) - c(wAlone.body.totals.nodeCostUsd) - c(sAlone.body.totals.nodeCostUsd)),
    ).toBeLessThanOrEqual(1);
  });

  it("Teams by namespace under All clusters: a row per cluster and namespace (two clusters' kube-system are two rows), each cluster's rows its ?cluster= rows and its own ledger's", async () => {
    interface Rows {
      rows: { cluster?: string; kind: string; team: string | null; nodePool: string; costUsd: number }[];
      totals: { nodeCostUsd: number; teamsUsd: number; idleUsd: number };
    }
    const path = '/api/teams/cost';
    const q = (cluster?: string) => `${cluster === undefined ? '' : `cluster=${cluster}&`}groupBy=namespace`;
    const get = async (db: string, cluster?: string) => {
      const res = await appOf(db).inject({
        method: 'GET',
        url: `${path}?from=${new Date(end - 3 * HOUR_MS).toISOString()}&to=${new Date(end - HOUR_MS).toISOString()}&${q(cluster)}`,
      });
      expect(res.statusCode).toBe(200);
      return res.json() as Rows;
    };
    const [all, w, s, wAlone, sAlone] = await Promise.all([
      get('both.db'),
      get('both.db', WEEK4),
      get('both.db', STAGING),
      get('week4.db'),
      get('staging.db'),
    ]);
    const ofCluster = (name: string) => all.rows.filter((r) => r.cluster === name).map(({ cluster: _, ...r }) => r);
    expect(ofCluster(WEEK4)).toEqual(w.rows);
    expect(ofCluster(STAGING)).toEqual(s.rows);
    expect(w.rows).toEqual(wAlone.rows);
    expect(s.rows).toEqual(sAlone.rows);
    // Namespaces both clusters run pods in (kube-system, karpenter, ...: the sandbox's scenarios): a row per cluster,
    // never one merged row.
    const names = (r: Rows) => new Set(r.rows.filter((x) => x.kind === 'team').map((x) => x.team));
    const shared = [...names(wAlone)].filter((n) => names(sAlone).has(n));
    expect(shared).toContain('kube-system');
    for (const ns of shared)
      expect(new Set(all.rows.filter((r) => r.kind === 'team' && r.team === ns).map((r) => r.cluster)), String(ns)).toEqual(
        new Set([WEEK4, STAGING]),
      );
    expect(all.rows.every((r) => r.cluster === WEEK4 || r.cluster === STAGING)).toBe(true);
    // Totals: the clusters' cents added.
    for (const k of ['nodeCostUsd', 'teamsUsd', 'idleUsd'] as const)
      expect(c(all.totals[k]), k).toBe(c(wAlone.totals[k]) + c(sAlone.totals[k]));
    // One cluster's ledger: no cluster on its rows (answers as before).
    expect(wAlone.rows.some((r) => 'cluster' in r)).toBe(false);
  });

  it("Savings under All clusters: each cluster's headroom and why-not on its own newest snapshot, equal to ?cluster= and to its own ledger's; the savings add", async () => {
    interface Headroom {
      snapshotAt: string;
      rows: { cluster?: string; nodePool: string; headroomUsdPerMonth: number; spotUsdPerMonth: number }[];
      totals: { todayUsdPerHour: number; headroomUsdPerMonth: number; spotUsdPerMonth: number };
      clusters?: { cluster: string; snapshotAt: string; totals: Headroom['totals'] }[];
    }
    interface WhyNot {
      snapshotAt: string;
      nodes: { cluster?: string; node: string; decision: string; reason: string }[];
      command: unknown;
      clusters?: { cluster: string; snapshotAt: string; command: unknown }[];
    }
    const all = (await api<Headroom>('both.db', '/api/whatif/headroom', undefined, false)).body;
    const allWhyNot = (await api<WhyNot>('both.db', '/api/whatif/why-not', undefined, false)).body;
    expect(all.clusters?.map((x) => x.cluster)).toEqual([WEEK4, STAGING]);
    expect(allWhyNot.clusters?.map((x) => x.cluster)).toEqual([WEEK4, STAGING]);
    const strip = <T extends { cluster?: string }>(rows: T[], name: string) =>
      rows.filter((r) => r.cluster === name).map(({ cluster: _, ...r }) => r);
    const sums = { todayUsdPerHour: 0, headroomUsdPerMonth: 0, spotUsdPerMonth: 0 };
    for (const [name, alone] of [
      [WEEK4, 'week4.db'],
      [STAGING, 'staging.db'],
    ] as const) {
      const picked = (await api<Headroom>('both.db', '/api/whatif/headroom', name, false)).body;
      const own = (await api<Headroom>(alone, '/api/whatif/headroom', undefined, false)).body;
      const section = all.clusters?.find((x) => x.cluster === name);
      // Its own newest snapshot (end - 1 h for both here), its rows and totals exactly as ?cluster= and its own ledger.
      expect(section?.snapshotAt).toBe(new Date(end - HOUR_MS).toISOString());
      expect(picked.rows.length).toBeGreaterThan(0);
      expect(strip(all.rows, name)).toEqual(picked.rows);
      expect(section?.totals).toEqual(picked.totals);
      expect(picked.rows).toEqual(own.rows);
      expect(picked.totals).toEqual(own.totals);
      expect(picked.clusters).toBeUndefined();
      const pickedWhyNot = (await api<WhyNot>('both.db', '/api/whatif/why-not', name, false)).body;
      expect(strip(allWhyNot.nodes, name)).toEqual(pickedWhyNot.nodes);
      expect(allWhyNot.clusters?.find((x) => x.cluster === name)?.command).toEqual(pickedWhyNot.command);
      for (const k of Object.keys(sums) as (keyof typeof sums)[]) sums[k] += own.totals[k];
    }
    // Monthly savings and cost per hour add up across clusters.
    for (const k of Object.keys(sums) as (keyof typeof sums)[]) expect(all.totals[k], k).toBeCloseTo(sums[k], 5);
  });

  it("NodePools page: the summary's cost and node-hours by cluster, summed without one; the NodePool list per cluster", async () => {
    const scopeCents = (b: Summary): Record<string, number> =>
      Object.fromEntries(b.rows.map((r) => [`${r.scope}/${r.nodePool ?? ''}`, c(r.costUsd)]));
    const [w, s, all, wAlone, sAlone] = await Promise.all([
      api<Summary>('both.db', '/api/efficiency/summary', WEEK4),
      api<Summary>('both.db', '/api/efficiency/summary', STAGING),
      api<Summary>('both.db', '/api/efficiency/summary'),
      api<Summary>('week4.db', '/api/efficiency/summary'),
      api<Summary>('staging.db', '/api/efficiency/summary'),
    ]);
    expect(scopeCents(w.body)).toEqual(scopeCents(wAlone.body));
    expect(scopeCents(s.body)).toEqual(scopeCents(sAlone.body));
    near(scopeCents(all.body), addCents(scopeCents(wAlone.body), scopeCents(sAlone.body)));
    const names = async (db: string, cluster?: string) =>
      (await api<{ items: { name: string }[] }>(db, '/api/nodepools', cluster, false)).body.items.map((i) => i.name);
    expect(await names('both.db', STAGING)).toEqual(await names('staging.db'));
    expect(await names('both.db', WEEK4)).toEqual(await names('week4.db'));
    expect(await names('both.db')).toEqual([...(await names('week4.db')), ...(await names('staging.db'))].sort());
  });

  it('GET /api/clusters and /api/status: each cluster, its account and region, last snapshot and cadence', async () => {
    const clusters = await api<{ clusters: unknown[] }>('both.db', '/api/clusters', undefined, false);
    const fresh = (name: string) => ({
      name,
      account: null,
      region: 'us-east-1',
      lastSnapshotAt: new Date(end - HOUR_MS).toISOString(),
      cadenceSeconds: 3600,
      stale: false,
      lastRun: expect.objectContaining({ kind: 'kubernetes', status: 'ok' }),
    });
    expect(clusters.body.clusters).toEqual([fresh(WEEK4), fresh(STAGING)]);
    const status = await api<{ clusters: { usage: unknown }[] }>('both.db', '/api/status', undefined, false);
    expect(status.body.clusters.map(({ usage: _, ...c }) => c)).toEqual(clusters.body.clusters);
    // Each cluster's usage source (metrics-server, its Prometheus backfill, its snapshots with usage): its own
    // ledger's, not cluster 1's for every cluster.
    const own = await Promise.all(
      ['week4.db', 'staging.db'].map(async (db) => (await api<{ usage: unknown }>(db, '/api/status', undefined, false)).body.usage),
    );
    expect(status.body.clusters.map((x) => x.usage)).toEqual(own);
    // A one-cluster ledger's status as before: its usage is the top-level one, its cluster entry has none.
    const alone = await api<{ clusters: object[] }>('week4.db', '/api/status', undefined, false);
    expect(alone.body.clusters.map((x) => 'usage' in x)).toEqual([false]);
  });

  it("an unknown cluster is a 400 naming the ledger's clusters", async () => {
    const res = await compare('both.db', 'prod');
    expect(res.status).toBe(400);
  });

  it("the first --clusters run on a file from before several clusters: its unnamed cluster is told by its nodes' instances and renamed", async () => {
    // week4's one-cluster ledger as a file migrated from before 0029 without a name in its data: cluster 1 a placeholder.
    const legacy = join(dir, 'legacy.db');
    const src = openDb({ path: join(dir, 'week4.db') });
    try {
      src.prepare('VACUUM INTO ?').run(legacy);
    } finally {
      src.close();
    }
    const db = openDb({ path: legacy });
    try {
      db.prepare("UPDATE clusters SET name = 'default', named_from = 'placeholder' WHERE id = 1").run();
    } finally {
      db.close();
    }
    at(end - HOUR_MS / 2);
    const s = await collect({ ...base('legacy.db'), clusters, clustersFrom: 'clusters-file' });
    expect(s.failures).toEqual([]);
    const after = openDb({ path: legacy, readonly: true });
    try {
      expect(after.prepare('SELECT id, name, named_from FROM clusters ORDER BY id').all()).toEqual([
        { id: 1, name: WEEK4, named_from: 'clusters-file' },
        { id: 2, name: STAGING, named_from: 'clusters-file' },
      ]);
      // week4's three earlier snapshots and this run's stay one cluster's; staging's first is its own.
      expect(after.prepare('SELECT cluster_id, COUNT(*) AS n FROM snapshots GROUP BY cluster_id ORDER BY cluster_id').all()).toEqual([
        { cluster_id: 1, n: 4 },
        { cluster_id: 2, n: 1 },
      ]);
    } finally {
      after.close();
    }
  }, 60_000);

  it("staging's API server stopped: the next collect records staging's failure and still takes week4's snapshot", async () => {
    await sandbox.second?.close();
    at(end);
    const clusters = parseClustersFile(
      'clusters.yaml',
      `clusters:\n  - name: ${WEEK4}\n    context: ${sandbox.context}\n  - name: ${STAGING}\n    context: sandbox-${STAGING}\n`,
    );
    const s = await collect({ ...base('both.db'), clusters, clustersFrom: 'clusters-file' });
    expect(s.ok).toBe(false);
    expect(s.failures.length).toBe(1);
    expect(s.failures[0]).toMatch(/^staging: kubernetes: /);
    expect(s.stages[`${WEEK4}/kube-snapshot`]).toEqual({ runs: 1, failures: 0 });
    expect(s.stages[`${STAGING}/kube-snapshot`]).toEqual({ runs: 1, failures: 1 });
    const db = openDb({ path: join(dir, 'both.db') });
    try {
      const newest = db
        .prepare(
          'SELECT c.name, MAX(s.taken_at) AS at FROM snapshots s JOIN clusters c ON c.id = s.cluster_id GROUP BY c.name ORDER BY c.name',
        )
        .all();
      expect(newest).toEqual([
        { name: WEEK4, at: end },
        { name: STAGING, at: end - HOUR_MS },
      ]);
    } finally {
      db.close();
    }
    // The banner's source: staging's last run failed, its last snapshot an hour behind week4's (within 3 cadences).
    const freshness = (
      await api<{ clusters: { name: string; lastSnapshotAt: string; lastRun: { status: string } }[] }>(
        'both.db',
        '/api/clusters',
        undefined,
        false,
      )
    ).body.clusters;
    expect(freshness.map((x) => [x.name, x.lastSnapshotAt, x.lastRun.status])).toEqual([
      [WEEK4, new Date(end).toISOString(), 'ok'],
      [STAGING, new Date(end - HOUR_MS).toISOString(), 'failed'],
    ]);
  }, 60_000);
});
