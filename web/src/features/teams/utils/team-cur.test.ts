import { describe, expect, it } from 'vitest';
import type { TeamCurResponse } from '@schemas/teams-cur';
import { parseCurBasis, teamCurParams, toCurDiffChart } from './team-cur';
import { IDLE_KEY, OTHER_KEY, UNLABELLED_KEY } from './team-series';

const per = (rs: number, aws: number, oc: number) => ({ 'request-share': rs, 'aws-split': aws, opencost: oc });
const row = (day: string, kind: 'team' | 'idle', team: string | null, cur: number | null, diffRs: number | null) => ({
  day,
  kind,
  team,
  curUsd: cur,
  ours: per(0, 0, 0),
  differenceUsd: { 'request-share': diffRs, 'aws-split': null, opencost: null },
});

// Two CUR days; pay differs by +0.25 then −0.05 (total +0.20), data by −0.50 and +0.10 (−0.40), ops +0.01, the
// unlabelled pods +0.02; idle −0.15 on day 1.
const response = {
  available: true,
  curDays: ['2026-11-02', '2026-11-03'],
  rows: [
    row('2026-11-02', 'team', 'pay', 4.25, 0.25),
    row('2026-11-02', 'team', 'data', 2, -0.5),
    row('2026-11-02', 'team', 'ops', 1, 0.01),
    row('2026-11-02', 'team', null, 0.4, 0.02),
    row('2026-11-02', 'idle', null, 0.85, -0.15),
    row('2026-11-03', 'team', 'pay', 1, -0.05),
    row('2026-11-03', 'team', 'data', 1, 0.1),
    row('2026-11-04', 'team', 'pay', null, null),
  ],
  totals: [
    { kind: 'team', team: 'pay', curUsd: 5.25, ours: per(0, 0, 0), differenceUsd: per(0.2, 0, 0) },
    { kind: 'team', team: 'data', curUsd: 3, ours: per(0, 0, 0), differenceUsd: per(-0.4, 0, 0) },
    { kind: 'team', team: 'ops', curUsd: 1, ours: per(0, 0, 0), differenceUsd: per(0.01, 0, 0) },
    { kind: 'team', team: null, curUsd: 0.4, ours: per(0, 0, 0), differenceUsd: per(0.02, 0, 0) },
    { kind: 'idle', team: null, curUsd: 0.85, ours: per(0, 0, 0), differenceUsd: per(-0.15, 0, 0) },
  ],
} as unknown as TeamCurResponse;

describe('toCurDiffChart', () => {
  it('bands by the largest absolute difference, the rest folded, idle last; only days with CUR lines', () => {
    const chart = toCurDiffChart(response, 'request-share', 2);
    expect(chart.keys).toEqual(['data', 'pay', OTHER_KEY, IDLE_KEY]);
    expect(chart.rows).toEqual([
      { day: '2026-11-02', usd: { pay: 0.25, data: -0.5, [OTHER_KEY]: 0.03, [IDLE_KEY]: -0.15 } },
      { day: '2026-11-03', usd: { pay: -0.05, data: 0.1 } },
    ]);
  });

  it('unlabelled pods keep a band of their own when shown', () => {
    expect(toCurDiffChart(response, 'request-share', 4).keys).toEqual(['data', 'pay', UNLABELLED_KEY, 'ops', IDLE_KEY]);
  });

  it('nothing to draw without CUR split data', () => {
    expect(toCurDiffChart({ ...response, available: false }, 'request-share')).toEqual({ rows: [], keys: [] });
    expect(toCurDiffChart(undefined, 'opencost')).toEqual({ rows: [], keys: [] });
  });
});

describe('teamCurParams', () => {
  it.each([
    [{ from: 'a', method: 'opencost' as const, idle: 'spread' as const }, undefined, { from: 'a', idle: 'spread' }],
    [{ from: 'a' }, 'net-amortized' as const, { from: 'a', metric: 'net-amortized' }],
  ])('%j + %s -> %j', (params, metric, want) => expect(teamCurParams(params, metric)).toEqual(want));
  it('adds the basis only when it is not the default', () => {
    expect(teamCurParams({ from: 'a' }, undefined, 'public-on-demand')).toEqual({ from: 'a', basis: 'public-on-demand' });
    expect(parseCurBasis(new URLSearchParams('basis=public-on-demand'))).toBe('public-on-demand');
    expect(parseCurBasis(new URLSearchParams('basis=list'))).toBe('billed');
  });
  it('undefined while the range is unknown', () => expect(teamCurParams(undefined, 'amortized')).toBeUndefined());
});
