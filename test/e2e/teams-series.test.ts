import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TeamCostResponse, TeamCostSeriesResponse } from '../../server/schemas/teams.js';
import { startSeededApi, type SeededApi } from '../fixtures/seeded-api.js';
import { DAY_MS, HOUR_MS } from '../../core/time.js';

/*
 * GET /api/teams/cost/series against GET /api/teams/cost asked once per bucket: the series reads every bucket in one
 * bucketed rollup query, the plain route reads one range at a time, so the two only agree if the bucketing is right.
 * The first two simulated days of the week4 sandbox through the real collectors, real HTTP on 127.0.0.1. The database
 * is the three days with usage that the browser tests, retention-fold and others read (the seeded-database cache:
 * seeded once for all of them, test/fixtures/seeded-db-cache.ts).
 */

const SEEDED_DAYS = 2;
let api: SeededApi;
let base: string;
let startMs: number;

async function fetchText(path: string): Promise<{ status: number; text: string; type: string }> {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') ?? '' };
}
async function get<T>(path: string): Promise<T> {
  const res = await fetchText(path);
  if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status} ${res.text}`);
  return JSON.parse(res.text) as T;
}
const iso = (ms: number): string => new Date(ms).toISOString();

beforeAll(async () => {
  api = await startSeededApi({ prefix: 'ledger-teams-series-', days: 3, usage: true, cached: true });
  ({ base, startMs } = api);
}, 300_000);

afterAll(async () => {
  await api?.close();
});

const cents = (usd: number): number => Math.round(usd * 100);

describe('GET /api/teams/cost/series', () => {
  // Ranges start on the hour (the route's rule); one starts mid-day so buckets cut through days, one ends mid-hour.
  it.each([
    ['days from the start', 0, SEEDED_DAYS * 24, 'bucket=day'],
    ['days from 05:00, ending at 17:20 the next day', 5, 24 + 17 + 1 / 3, 'bucket=day'],
    ['one week bucket (shorter than a week)', 0, SEEDED_DAYS * 24, 'bucket=week'],
    ['by namespace, idle spread, one NodePool', 0, SEEDED_DAYS * 24, 'bucket=day&groupBy=namespace&idle=spread&nodepool=general'],
    ['AWS split, default bucket', 3, SEEDED_DAYS * 24, 'method=aws-split'],
    ['other weights, one team', 0, SEEDED_DAYS * 24, 'bucket=day&weights=0.7,0.3&team=web'],
  ])('equals /api/teams/cost bucket by bucket: %s', async (_name, fromHour, toHour, extra) => {
    const [from, to] = [iso(startMs + fromHour * HOUR_MS), iso(startMs + Math.round(toHour * HOUR_MS))];
    const series = await get<TeamCostSeriesResponse>(`/api/teams/cost/series?from=${from}&to=${to}&${extra}`);
    expect([series.from, series.to]).toEqual([from, to]);
    const stepMs = series.bucket === 'week' ? 7 * DAY_MS : DAY_MS;
    expect(series.buckets.map((b) => b.from)).toEqual(
      Array.from({ length: Math.ceil((Date.parse(to) - Date.parse(from)) / stepMs) }, (_x, k) => iso(Date.parse(from) + k * stepMs)),
    );
    expect(series.buckets.at(-1)?.to).toBe(to);

    const plainExtra = extra.replace(/(^|&)bucket=\w+/, '');
    let withCost = 0;
    for (const b of series.buckets) {
      const one = await get<TeamCostResponse>(
        `/api/teams/cost?from=${b.from}&to=${b.to}${plainExtra === '' ? '' : `&${plainExtra.replace(/^&/, '')}`}`,
      );
      expect(b.teams, `${b.from}..${b.to}`).toEqual(one.teams);
      expect(b.totals.nodeCostUsd, `${b.from}..${b.to}`).toBe(one.totals.nodeCostUsd);
      expect(b.totals.idleUsd).toBe(one.totals.idleUsd);
      // Without a team filter the bucket's lines add up to its node cost, to the cent.
      if (!extra.includes('team=')) expect(b.teams.reduce((t, x) => t + cents(x.costUsd), 0)).toBe(cents(b.totals.nodeCostUsd));
      if (b.totals.nodeCostUsd > 0) withCost++;
    }
    expect(withCost).toBeGreaterThan(0);
    expect(series.buckets.some((b) => b.teams.some((t) => t.kind === 'team' && t.costUsd > 0))).toBe(true);
    if (!extra.includes('idle=spread') && !extra.includes('aws-split') && !extra.includes('team=')) {
      expect(series.buckets.some((b) => b.teams.some((t) => t.kind === 'idle' && t.costUsd > 0))).toBe(true);
    }
  });

  it('answers CSV with one line per bucket and team (idle included)', async () => {
    const q = `from=${iso(startMs)}&to=${iso(startMs + SEEDED_DAYS * DAY_MS)}&bucket=day`;
    const json = await get<TeamCostSeriesResponse>(`/api/teams/cost/series?${q}`);
    const csv = await fetchText(`/api/teams/cost/series?${q}&format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.type).toMatch(/^text\/csv/);
    const lines = csv.text.trim().split(/\r?\n/);
    expect(lines[0]).toBe('from,to,kind,team,costUsd');
    expect(lines).toHaveLength(1 + json.buckets.reduce((t, b) => t + b.teams.length, 0));
    expect(lines.filter((l) => l.includes(',idle,'))).toHaveLength(
      json.buckets.filter((b) => b.teams.some((t) => t.kind === 'idle')).length,
    );
  });

  it('refuses a from off the whole hour (buckets start there), naming from', async () => {
    const res = await fetchText(`/api/teams/cost/series?from=${iso(startMs + 30 * 60_000)}&to=${iso(startMs + DAY_MS)}`);
    expect(res.status).toBe(400);
    expect(res.text).toContain('from');
    expect(res.text).toContain('whole UTC hour');
  });

  it.each([
    ['bucket=month', 'bucket'],
    ['buckets=day', 'buckets'],
    ['weights=0.6,0.6', 'weights'],
  ])('refuses %s naming %s', async (query, param) => {
    const res = await fetchText(`/api/teams/cost/series?${query}`);
    expect(res.status).toBe(400);
    expect(res.text).toContain(param);
  });
});
