import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRetentionSettings, runRetentionPass } from '../../cli/retention-stage.js';
import type { StatusResponse } from '../../server/schemas/status.js';
import { openDb, type Db } from '../../db/open-db.js';
import { buildApp } from '../../server/app.js';
import { DAY_MS, HOUR_MS } from '../../core/time.js';
import type { RecommendationsResponse } from '../../server/schemas/workloads.js';
import { seededDb, type SeededDb } from '../fixtures/seeded-api.js';

/*
 * Folding keeps every figure over a range: three days of the week4 sandbox with usage (the browser tests' seeding,
 * shared through the seeded-database cache), then a copy of it folded with a raw retention of 1 day (two days of
 * 5-minute snapshots become hourly ones), and every range route of the API asked of both, over the folded days, over
 * a range across the 5-minute/hourly boundary and over all of it: the answers are equal to float noise (1e-9).
 * Figures whose points are finer than an hour are hourly past the raw retention (the timeline's 15-minute points of a
 * 3-day range): those routes are compared on ranges whose points are whole hours, as a viewer's month is.
 */

const DAYS = 3;
let seeded: SeededDb;
let folded: Db;
let daily: Db;
let before: FastifyInstance;
let after: FastifyInstance;
let afterDaily: FastifyInstance;
/** The first UTC day left hourly in the daily copy: every hour before it is folded into its day. */
let dayBoundaryMs: number;
let startMs: number;
let endMs: number;
/** The first hour left as taken (5-minute): everything before it is folded. */
let boundaryMs: number;

const iso = (ms: number): string => new Date(ms).toISOString();

async function answer(app: FastifyInstance, url: string): Promise<unknown> {
  const res = await app.inject({ method: 'GET', url });
  if (res.statusCode !== 200) throw new Error(`${url}: HTTP ${res.statusCode} ${res.body.slice(0, 300)}`);
  return res.json();
}

/** The differences between two answers beyond float noise, as `path: a != b` lines (at most 10). */
function differences(a: unknown, b: unknown, ignore: ReadonlySet<string> = new Set(), path = '$', out: string[] = []): string[] {
  if (out.length >= 10) return out;
  if (typeof a === 'number' && typeof b === 'number') {
    if (Math.abs(a - b) > 1e-9 * Math.max(1, Math.abs(a), Math.abs(b))) out.push(`${path}: ${a} != ${b}`);
  } else if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) out.push(`${path}: ${a.length} items != ${b.length}`);
    else a.forEach((x, i) => differences(x, b[i], ignore, `${path}[${i}]`, out));
  } else if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      if (ignore.has(k)) continue;
      differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], ignore, `${path}.${k}`, out);
    }
  } else if (a !== b) out.push(`${path}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`);
  return out;
}

beforeAll(async () => {
  seeded = await seededDb({ prefix: 'ledger-retention-fold-', days: DAYS, usage: true });
  ({ startMs, endMs } = seeded);
  const foldedPath = join(seeded.dir, 'folded.db');
  await seeded.db.backup(foldedPath);
  folded = openDb({ path: foldedPath });
  // As `collect --raw-retention 1d` would: the setting stored, then a pass.
  const pass = await runRetentionPass(folded, resolveRetentionSettings(folded, { rawRetention: '1d' }), {
    now: endMs,
    budgetMs: Number.POSITIVE_INFINITY,
  });
  expect(pass.error).toBeNull();
  boundaryMs = pass.rawBoundaryMs;
  // A second copy as `collect --raw-retention 1d --hourly-retention 1d`: the hours of whole days before the last day go
  // on to one snapshot per day.
  const dailyPath = join(seeded.dir, 'daily.db');
  await seeded.db.backup(dailyPath);
  daily = openDb({ path: dailyPath });
  const dailyPass = await runRetentionPass(daily, resolveRetentionSettings(daily, { rawRetention: '1d', hourlyRetention: '1d' }), {
    now: endMs,
    budgetMs: Number.POSITIVE_INFINITY,
  });
  expect(dailyPass.error).toBeNull();
  dayBoundaryMs = Math.floor((endMs - DAY_MS) / DAY_MS) * DAY_MS;
  before = buildApp({ db: seeded.db, now: () => endMs, cacheResponses: false });
  after = buildApp({ db: folded, now: () => endMs, cacheResponses: false });
  afterDaily = buildApp({ db: daily, now: () => endMs, cacheResponses: false });
}, 240_000);

afterAll(async () => {
  await before?.close();
  await after?.close();
  await afterDaily?.close();
  folded?.close();
  daily?.close();
  await seeded?.close();
});

describe('a fold of the week4 sandbox past a 1-day raw retention', () => {
  // Issue 21 item 8 through the API on this fixture (the only seeded one whose days hold a workload above its CPU
  // request without a CPU limit): nightly-etl bursts to 1.6x its request and has no limit (week4.json).
  it('8. only a CPU limit throttles: nightly-etl, above its CPU request with no limit, is above-request and not throttled; every throttled row has a limit', async () => {
    const rec = (await answer(before, '/api/workloads/recommendations')) as RecommendationsResponse;
    const etl = rec.rows.filter((r) => r.workloadName.startsWith('nightly-etl-'));
    expect(etl.length).toBeGreaterThan(0);
    for (const r of etl)
      expect([r.cpuLimitMillicores, r.flags.includes('throttled'), r.flags.includes('above-request'), r.throttledBy]).toEqual([
        null,
        false,
        true,
        ['request'],
      ]);
    const throttled = rec.rows.filter((r) => r.flags.includes('throttled'));
    expect(throttled.map((r) => [r.workloadName, r.cpuLimitMillicores])).toEqual([['catalog-api', 1500]]);
  });

  it('folds the two older days into hourly snapshots and leaves the last day as taken', () => {
    const count = (db: Db, where: string) => db.prepare(`SELECT COUNT(*) FROM snapshots WHERE ${where}`).pluck().get() as number;
    expect(boundaryMs).toBe(Math.floor((endMs - DAY_MS) / HOUR_MS) * HOUR_MS);
    expect(count(folded, `fold_ms IS NOT NULL`)).toBe((boundaryMs - startMs) / HOUR_MS);
    expect(count(folded, `fold_ms IS NULL AND taken_at < ${boundaryMs}`)).toBe(0);
    expect(count(folded, `taken_at >= ${boundaryMs}`)).toBe(count(seeded.db, `taken_at >= ${boundaryMs}`));
    // Every 5-minute snapshot is counted once, in the hour it was taken.
    expect(folded.prepare('SELECT SUM(fold_snapshots) FROM snapshots').pluck().get()).toBe(count(seeded.db, `taken_at < ${boundaryMs}`));
    expect(folded.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(folded.pragma('foreign_key_check')).toEqual([]);
  });

  // Every route with a range (read from the OpenAPI document, so a route added later is compared too).
  it('answers every range route as before, over the folded days, across the boundary and over all of it', async () => {
    const doc = (await answer(before, '/docs/json')) as {
      paths: Record<string, { get?: { parameters?: { name: string; in: string }[] } }>;
    };
    const ranged = Object.entries(doc.paths)
      .filter(([path, ops]) => path.startsWith('/api/') && !path.endsWith('.csv') && ops.get !== undefined)
      .filter(([, ops]) => ['from', 'to'].every((p) => ops.get?.parameters?.some((x) => x.in === 'query' && x.name === p)))
      .map(([path]) => path);
    expect(ranged.length).toBeGreaterThanOrEqual(10);
    const ranges: [string, number, number][] = [
      ['the folded days', startMs, boundaryMs],
      ['across the boundary', startMs + 30 * HOUR_MS, endMs],
      ['all of it', startMs, endMs],
      // Long enough for whole-hour points: the timeline's (300 points) and efficiency's (1,000 points) buckets.
      ['60 days up to the end', endMs - 60 * DAY_MS, endMs],
    ];
    // Points finer than an hour are hourly past the raw retention: compared on the 60-day range only. So are the
    // instants /api/nodes/changes compares (the last snapshot before from and before to: hourly once folded).
    const subHourPoints = new Set(['/api/consolidation/timeline', '/api/efficiency/nodepools', '/api/nodes/changes']);
    const extras: Record<string, string[]> = {
      '/api/teams/cost': ['', '&method=aws-split', '&method=opencost&idle=spread', '&groupBy=namespace&weights=0.7,0.3'],
      '/api/teams/cost/series': ['', '&method=aws-split', '&method=opencost'],
      '/api/teams/cur': ['', '&metric=unblended'],
    };
    let compared = 0;
    const problems: string[] = [];
    for (const path of ranged)
      for (const [name, from, to] of ranges) {
        if (subHourPoints.has(path) && name !== '60 days up to the end') continue;
        for (const extra of extras[path] ?? ['']) {
          const url = `${path}?from=${iso(from)}&to=${iso(to)}${extra}`;
          const d = differences(await answer(before, url), await answer(after, url));
          compared += 1;
          if (d.length > 0) problems.push(`${url} (${name}):\n  ${d.join('\n  ')}`);
        }
      }
    expect(problems).toEqual([]);
    expect(compared).toBeGreaterThanOrEqual(40);
  });

  it('answers the routes without a range as before: status counts, NodePools, usage recommendations and charts', async () => {
    const urls = [
      '/api/nodepools',
      '/api/workloads/recommendations',
      `/api/workloads/recommendations?window=2d&at=${iso(endMs)}`,
      `/api/efficiency/nodes?at=${iso(endMs - HOUR_MS)}&window=12h`,
      `/api/nodes?at=${iso(endMs - HOUR_MS)}`,
    ];
    const rec = (await answer(before, '/api/workloads/recommendations')) as {
      rows: { namespace: string; workloadKind: string; workloadName: string; container: string }[];
    };
    const w = rec.rows[0];
    urls.push(`/api/workloads/usage?namespace=${w.namespace}&kind=${w.workloadKind}&name=${w.workloadName}&container=${w.container}`);
    for (const url of urls) expect(differences(await answer(before, url), await answer(after, url)), url).toEqual([]);
    const status = ['/api/status', (s: { counts: unknown; usage: unknown; range: unknown }) => [s.counts, s.usage, s.range]] as const;
    const pick = status[1] as (s: unknown) => unknown;
    expect(differences(pick(await answer(before, status[0])), pick(await answer(after, status[0])))).toEqual([]);
  });

  // Each node's means over 24 whole hours, read from 24 hourly snapshots, equal those of their 288 5-minute ones.
  it('gives each node its means over a window of whole hours past the raw retention', async () => {
    const at = startMs + 40 * HOUR_MS + 55 * 60_000; // the last 5-minute snapshot of hour 40, folded into that hour
    const url = `/api/efficiency/nodes?at=${iso(at)}&window=24h&limit=5000`;
    const a = (await answer(before, url)) as { snapshotAt: string; rows: { snapshots: number }[] };
    const b = (await answer(after, url)) as { snapshotAt: string; rows: unknown[] };
    expect([a.snapshotAt, b.snapshotAt]).toEqual([iso(at), iso(startMs + 40 * HOUR_MS)]);
    expect(a.rows.length).toBeGreaterThan(5);
    // The age is counted from the snapshot asked for: the hour's start after the fold.
    expect(differences(a.rows, b.rows, new Set(['ageHours']))).toEqual([]);
  });

  it('says in /api/status what is folded, how long each is kept and what the last pass did', async () => {
    const status = (await answer(after, '/api/status')) as StatusResponse;
    expect(status.store).toMatchObject({
      autoVacuum: 'incremental',
      rawRetention: '1d',
      retention: '13mo',
      hourlyFrom: iso(startMs),
      hourlyTo: iso(boundaryMs),
      rawFrom: iso(boundaryMs),
      lastRun: { folded: (boundaryMs - startMs) / (5 * 60_000), pending: 0, error: null, rawBoundary: iso(boundaryMs) },
    });
    expect(status.store.fileBytes).toBeGreaterThan(status.store.freeBytes);
    expect(status.store.lastRun?.longestTransactionMs).toBeGreaterThan(0);
    const unfolded = (await answer(before, '/api/status')) as StatusResponse;
    expect(unfolded.store).toMatchObject({ rawRetention: '14d', hourlyFrom: null, hourlyTo: null, rawFrom: iso(startMs), lastRun: null });
  });

  it('compares equal windows before and after an instant on the hour past the raw retention as before', async () => {
    const url = `/api/consolidation/compare?at=${iso(startMs + 20 * HOUR_MS)}&window=2h`;
    expect(differences(await answer(before, url), await answer(after, url))).toEqual([]);
  });

  it('answers the what-if routes on an hourly snapshot (its nodes of the hour)', async () => {
    for (const path of ['/api/whatif/headroom', '/api/whatif/why-not', '/api/whatif/workload']) {
      const res = await after.inject({ method: 'GET', url: `${path}?at=${iso(startMs + 20 * HOUR_MS + 30 * 60_000)}` });
      expect(res.statusCode, path).toBe(200);
    }
  });
});

describe('a second fold, hourly snapshots past a 1-day hourly retention into days (issue 24)', () => {
  it('folds every hour of the whole days before the last into one snapshot per UTC day, each 5-minute snapshot counted once', () => {
    const count = (db: Db, where: string) => db.prepare(`SELECT COUNT(*) FROM snapshots WHERE ${where}`).pluck().get() as number;
    const firstDay = Math.ceil(startMs / DAY_MS) * DAY_MS;
    expect(dayBoundaryMs).toBeGreaterThan(firstDay);
    expect(count(daily, `fold_span_ms = ${DAY_MS}`)).toBe((dayBoundaryMs - Math.floor(startMs / DAY_MS) * DAY_MS) / DAY_MS);
    expect(count(daily, `taken_at < ${dayBoundaryMs} AND (fold_span_ms IS NULL OR fold_span_ms <> ${DAY_MS})`)).toBe(0);
    expect(count(daily, `fold_span_ms = ${HOUR_MS}`)).toBe((boundaryMs - dayBoundaryMs) / HOUR_MS);
    expect(daily.prepare(`SELECT SUM(fold_snapshots) FROM snapshots WHERE fold_ms IS NOT NULL`).pluck().get()).toBe(
      count(seeded.db, `taken_at < ${boundaryMs}`),
    );
    expect(daily.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  // Each node's means over a whole UTC day, read from one daily snapshot (each node row weighing the node's own time in
  // the day), equal those of its 288 5-minute snapshots.
  it('gives each node its means over a whole day past the hourly retention, nodes that came or went that day included', async () => {
    const day = Math.ceil(startMs / DAY_MS) * DAY_MS;
    const at = day + DAY_MS - 5 * 60_000; // the day's last 5-minute snapshot, folded into the day
    const url = `/api/efficiency/nodes?at=${iso(at)}&window=24h&limit=5000`;
    const a = (await answer(before, url)) as { snapshotAt: string; rows: { nodeName: string }[] };
    const b = (await answer(afterDaily, url)) as { snapshotAt: string; rows: unknown[] };
    expect([a.snapshotAt, b.snapshotAt]).toEqual([iso(at), iso(day)]);
    expect(a.rows.length).toBeGreaterThan(5);
    expect(differences(a.rows, b.rows, new Set(['ageHours']))).toEqual([]);
  });

  it('answers the range routes as the unfolded data over the daily days and across the daily/hourly/5-minute boundaries', async () => {
    const doc = (await answer(before, '/docs/json')) as {
      paths: Record<string, { get?: { parameters?: { name: string; in: string }[] } }>;
    };
    // Points finer than a day are daily past the hourly retention: those routes are left to the hourly fold's test.
    const subDayPoints = new Set(['/api/consolidation/timeline', '/api/efficiency/nodepools', '/api/nodes/changes']);
    const ranged = Object.entries(doc.paths)
      .filter(([path, ops]) => path.startsWith('/api/') && !path.endsWith('.csv') && ops.get !== undefined)
      .filter(([, ops]) => ['from', 'to'].every((p) => ops.get?.parameters?.some((x) => x.in === 'query' && x.name === p)))
      .map(([path]) => path)
      .filter((p) => !subDayPoints.has(p));
    const firstDay = Math.ceil(startMs / DAY_MS) * DAY_MS;
    const ranges: [string, number, number][] = [
      ['whole daily days', firstDay, dayBoundaryMs],
      ['across both boundaries', firstDay, endMs],
    ];
    const problems: string[] = [];
    for (const path of ranged)
      for (const [name, from, to] of ranges) {
        const url = `${path}?from=${iso(from)}&to=${iso(to)}`;
        const d = differences(await answer(before, url), await answer(afterDaily, url));
        if (d.length > 0) problems.push(`${url} (${name}):\n  ${d.join('\n  ')}`);
      }
    expect(problems).toEqual([]);
  });
});
