import { describe, expect, it } from 'vitest';
import type { TeamCostResponse, TeamCostRow, TeamCostSeriesResponse } from '@schemas/teams';
import {
  IDLE_KEY,
  idleRowLabel,
  OTHER_KEY,
  parseTeams,
  sortTeamRows,
  teamCostParams,
  teamNames,
  teamSortUpdates,
  toTeamChart,
} from './team-series';

describe('parseTeams', () => {
  it('defaults: by team, idle as a band, request share, largest cost first', () =>
    expect(parseTeams(new URLSearchParams(''))).toEqual({
      groupBy: 'team',
      idle: 'line',
      method: 'request-share',
      sort: 'costUsd',
      order: 'desc',
    }));
  it('reads every key', () =>
    expect(parseTeams(new URLSearchParams('by=namespace&idle=spread&method=aws-split&sort=team&order=asc'))).toEqual({
      groupBy: 'namespace',
      idle: 'spread',
      method: 'aws-split',
      sort: 'team',
      order: 'asc',
    }));
  it.each([
    ['method=opencost', 'opencost'],
    ['method=aws-split', 'aws-split'],
    ['method=kubecost', 'request-share'],
  ])('reads %s as %s', (query, method) => expect(parseTeams(new URLSearchParams(query)).method).toBe(method));
  it('names the idle row by what it is under each method', () =>
    expect((['request-share', 'aws-split', 'opencost'] as const).map(idleRowLabel)).toEqual([
      'Idle (requested by no pod)',
      'Idle (unused capacity)',
      'Idle (charged to no pod)',
    ]));
  it('flips the same column, starts a name column A-Z', () => {
    const s = parseTeams(new URLSearchParams(''));
    expect(teamSortUpdates(s, 'costUsd')).toEqual({ sort: 'costUsd', order: 'asc' });
    expect(teamSortUpdates(s, 'team')).toEqual({ sort: 'team', order: 'asc' });
  });
});

const METHOD = {
  method: 'request-share',
  methodInfo: { id: 'request-share', name: 'Request share', source: 'NodePool Ledger', url: null, definition: '' },
  feed: { usage: 'not-applicable', usagePodHoursShare: null, note: '' },
} as const;

const response = (teams: [string | null, number][]): TeamCostResponse => ({
  from: '',
  to: '',
  ...METHOD,
  weights: null,
  idle: 'line',
  label: 'team',
  groupBy: 'team',
  rows: [],
  notes: [],
  teams: teams.map(([team, costUsd]) => ({ kind: team === null ? 'idle' : 'team', team, costUsd })),
  totals: { nodeCostUsd: 0, teamsUsd: 0, idleUsd: 0, residualUsd: 0 },
});

const series = (days: [string, [string | null, number][]][]): TeamCostSeriesResponse => ({
  from: '',
  to: '',
  bucket: 'day',
  ...METHOD,
  weights: null,
  idle: 'line',
  label: 'team',
  groupBy: 'team',
  notes: [],
  buckets: days.map(([day, teams]) => ({
    from: `${day}T00:00:00.000Z`,
    to: '',
    teams: response(teams).teams,
    totals: response(teams).totals,
  })),
});

describe('toTeamChart', () => {
  // Totals: payments 10+12 = 22, web 5+4 = 9, data 1+0 = 1, batch 0+3 = 3, idle 2+2 = 4. Day 3 had no cost.
  const chart = toTeamChart(
    series([
      [
        '2026-11-01',
        [
          ['payments', 10],
          ['web', 5],
          ['data', 1],
          [null, 2],
        ],
      ],
      [
        '2026-11-02',
        [
          ['payments', 12],
          ['web', 4],
          ['batch', 3],
          [null, 2],
        ],
      ],
      ['2026-11-03', []],
    ]),
    3,
  );
  it('keeps the top 3 - 1 teams, folds the rest into other, idle on top', () =>
    expect(chart.keys).toEqual(['payments', 'web', OTHER_KEY, IDLE_KEY]));
  it('sums the folded teams per day: day 1 data 1, day 2 batch 3; a day without cost is empty', () =>
    expect(chart.rows).toEqual([
      { day: '2026-11-01', usd: { payments: 10, web: 5, [OTHER_KEY]: 1, [IDLE_KEY]: 2 } },
      { day: '2026-11-02', usd: { payments: 12, web: 4, [OTHER_KEY]: 3, [IDLE_KEY]: 2 } },
      { day: '2026-11-03', usd: {} },
    ]));
  it('shows every team when they fit', () =>
    expect(
      toTeamChart(
        series([
          [
            '2026-11-01',
            [
              ['a', 1],
              ['b', 2],
            ],
          ],
        ]),
        8,
      ).keys,
    ).toEqual(['b', 'a']));
  it('nothing before the series has loaded', () => expect(toTeamChart(undefined)).toEqual({ rows: [], keys: [] }));
});

describe('sortTeamRows', () => {
  const row = (kind: 'team' | 'idle', team: string | null, nodePool: string, costUsd: number): TeamCostRow => ({
    kind,
    team,
    nodePool,
    costUsd,
    share: costUsd / 100,
    idleSpreadUsd: 0,
  });
  const rows = [
    row('team', 'web', 'general', 30),
    row('idle', null, 'general', 12),
    row('team', 'payments', 'general', 40),
    row('team', 'payments', 'batch', 5),
  ];
  describe.each([
    { sort: 'costUsd' as const, order: 'desc' as const, expected: ['payments/general', 'web/general', '(idle)/general', 'payments/batch'] },
    { sort: 'team' as const, order: 'asc' as const, expected: ['payments/batch', 'payments/general', 'web/general', '(idle)/general'] },
    { sort: 'team' as const, order: 'desc' as const, expected: ['web/general', 'payments/batch', 'payments/general', '(idle)/general'] }, // idle stays last
    { sort: 'nodePool' as const, order: 'asc' as const, expected: ['payments/batch', '(idle)/general', 'payments/general', 'web/general'] },
  ])('$sort $order', ({ sort, order, expected }) => {
    it('orders', () => expect(sortTeamRows(rows, sort, order).map((r) => `${r.team ?? '(idle)'}/${r.nodePool}`)).toEqual(expected));
  });
});

describe('teamCostParams and teamNames', () => {
  it('leaves defaults out of the query', () =>
    expect(teamCostParams({ from: 'a', to: 'b' }, parseTeams(new URLSearchParams('')), undefined)).toEqual({
      from: 'a',
      to: 'b',
      team: undefined,
      groupBy: undefined,
      idle: undefined,
      method: undefined,
    }));
  it('writes the choices', () =>
    expect(
      teamCostParams({ nodepool: 'general' }, parseTeams(new URLSearchParams('by=namespace&idle=spread&method=aws-split')), 'payments'),
    ).toEqual({
      nodepool: 'general',
      team: 'payments',
      groupBy: 'namespace',
      idle: 'spread',
      method: 'aws-split',
    }));
  it('lists the teams A-Z without idle', () =>
    expect(
      teamNames(
        response([
          ['web', 1],
          [null, 3],
          ['data', 2],
        ]),
      ),
    ).toEqual(['data', 'web']));
});

describe('every cluster of several (rows naming their cluster)', () => {
  const t = (cluster: string, team: string | null, costUsd: number) => ({ cluster, kind: 'team' as const, team, costUsd });
  it('a team of two clusters is two bands, each naming its cluster; the filter lists the team once', () => {
    const series = {
      buckets: [
        {
          from: '2026-11-01T00:00:00.000Z',
          to: '2026-11-02T00:00:00.000Z',
          teams: [t('week4', 'kube-system', 3), t('staging', 'kube-system', 1)],
        },
      ],
    } as unknown as TeamCostSeriesResponse;
    const chart = toTeamChart(series);
    expect(chart.keys).toEqual(['kube-system · week4', 'kube-system · staging']);
    expect(chart.rows[0]?.usd).toEqual({ 'kube-system · week4': 3, 'kube-system · staging': 1 });
    const cost = { teams: [t('week4', 'kube-system', 3), t('staging', 'kube-system', 1)] } as unknown as TeamCostResponse;
    expect(teamNames(cost)).toEqual(['kube-system']);
  });
});
