import { describe, expect, it } from 'vitest';
import { compareTeamsWithCur, curTeamFigures, type CurSplitDay, type TeamFigure } from './team-cur.js';
import type { TeamMethod } from './team-cost.js';

/*
 * One day of split lines worked by hand:
 *   payments (team pay)  split 3.00, unused 0.50
 *   checkout (team pay)  split 1.25, unused 0.25
 *   etl      (team data) split 2.00, unused 0.00
 *   kube-system (no team) split 0.40, unused 0.10
 * idle=line:   pay 3.00 + 1.25 = 4.25; data 2.00; unlabelled 0.40; idle 0.50 + 0.25 + 0.10 = 0.85  (Σ 7.50)
 * idle=spread: pay 4.25 + 0.75 = 5.00; data 2.00; unlabelled 0.50                                 (Σ 7.50)
 */
const DAY = '2026-11-02';
const rows: CurSplitDay[] = [
  { day: DAY, namespace: 'payments', nodePool: 'general', splitUsd: 3, unusedUsd: 0.5 },
  { day: DAY, namespace: 'checkout', nodePool: 'spot-batch', splitUsd: 1.25, unusedUsd: 0.25 },
  { day: DAY, namespace: 'etl', nodePool: 'spot-batch', splitUsd: 2, unusedUsd: 0 },
  { day: DAY, namespace: 'kube-system', nodePool: 'system', splitUsd: 0.4, unusedUsd: 0.1 },
];
const TEAMS: Record<string, string> = { payments: 'pay', checkout: 'pay', etl: 'data' };
const teamOf = (ns: string): string | null => TEAMS[ns] ?? null;
const sorted = (f: TeamFigure[]) => [...f].sort((a, b) => `${a.kind}|${a.team ?? ''}`.localeCompare(`${b.kind}|${b.team ?? ''}`));

describe('curTeamFigures: the CUR split lines per team, unused cost as idle or handed to the teams', () => {
  it.each([
    [
      'line',
      [
        { kind: 'idle', team: null, usd: 0.85 },
        { kind: 'team', team: null, usd: 0.4 },
        { kind: 'team', team: 'data', usd: 2 },
        { kind: 'team', team: 'pay', usd: 4.25 },
      ],
    ],
    [
      'spread',
      [
        { kind: 'team', team: null, usd: 0.5 },
        { kind: 'team', team: 'data', usd: 2 },
        { kind: 'team', team: 'pay', usd: 5 },
      ],
    ],
  ] as const)('idle=%s', (idle, want) => {
    expect(sorted(curTeamFigures(rows, teamOf, idle))).toEqual(want);
  });

  it('by namespace (the identity mapping) keeps each namespace', () => {
    const f = curTeamFigures(rows, (ns) => ns, 'line');
    expect(f.find((x) => x.team === 'checkout')?.usd).toBe(1.25);
    expect(f.reduce((t, x) => t + x.usd, 0)).toBeCloseTo(7.5, 9);
  });
});

describe('compareTeamsWithCur: CUR − each method, per team and day, and over the days the CUR covers', () => {
  // Our three methods on the same two days, by hand (idle=line):
  //   day 1: request share pay 4.00, data 2.50, idle 1.00; aws-split pay 4.30, data 1.90, idle 0.80; opencost pay 3.50, data 3.00, idle 0.50
  //   day 2 (no CUR yet): request share pay 1.00
  const D2 = '2026-11-03';
  const ours: Record<TeamMethod, Map<string, TeamFigure[]>> = {
    'request-share': new Map([
      [
        DAY,
        [
          { kind: 'team', team: 'pay', usd: 4 },
          { kind: 'team', team: 'data', usd: 2.5 },
          { kind: 'idle', team: null, usd: 1 },
        ],
      ],
      [D2, [{ kind: 'team', team: 'pay', usd: 1 }]],
    ]),
    'aws-split': new Map([
      [
        DAY,
        [
          { kind: 'team', team: 'pay', usd: 4.3 },
          { kind: 'team', team: 'data', usd: 1.9 },
          { kind: 'idle', team: null, usd: 0.8 },
        ],
      ],
    ]),
    opencost: new Map([
      [
        DAY,
        [
          { kind: 'team', team: 'pay', usd: 3.5 },
          { kind: 'team', team: 'data', usd: 3 },
          { kind: 'idle', team: null, usd: 0.5 },
        ],
      ],
    ]),
  };
  const cur = new Map([[DAY, curTeamFigures(rows, teamOf, 'line')]]);
  const result = compareTeamsWithCur([DAY, D2], cur, ours);

  it.each([
    // team, CUR, request share diff, aws-split diff, opencost diff
    ['pay', 4.25, 0.25, -0.05, 0.75],
    ['data', 2, -0.5, 0.1, -1],
    [null, 0.4, 0.4, 0.4, 0.4], // pods without a team: none of our methods charged them here
  ])('day 1, team %s: CUR %d, differences %d / %d / %d', (team, curUsd, rs, aws, oc) => {
    const r = result.rows.find((x) => x.day === DAY && x.kind === 'team' && x.team === team);
    expect(r?.curUsd).toBe(curUsd);
    expect(r?.differenceUsd).toEqual({ 'request-share': rs, 'aws-split': aws, opencost: oc });
  });

  it('idle is compared, not hidden: AWS unused 0.85 against our idle 1.00 / 0.80 / 0.50', () => {
    const idle = result.rows.find((x) => x.day === DAY && x.kind === 'idle');
    expect(idle?.curUsd).toBe(0.85);
    expect(idle?.differenceUsd).toEqual({ 'request-share': -0.15, 'aws-split': 0.05, opencost: 0.35 });
    expect(result.rows.filter((x) => x.day === DAY).at(-1)?.kind).toBe('idle'); // idle last
  });

  it('a day without CUR lines has no CUR figure and no difference, and stays out of the totals', () => {
    const d2 = result.rows.filter((x) => x.day === D2);
    expect(d2).toEqual([
      {
        day: D2,
        kind: 'team',
        team: 'pay',
        curUsd: null,
        ours: { 'request-share': 1, 'aws-split': 0, opencost: 0 },
        differenceUsd: { 'request-share': null, 'aws-split': null, opencost: null },
      },
    ]);
    expect(result.curDays).toEqual([DAY]);
    const pay = result.totals.find((t) => t.team === 'pay');
    expect(pay).toEqual({
      kind: 'team',
      team: 'pay',
      curUsd: 4.25,
      ours: { 'request-share': 4, 'aws-split': 4.3, opencost: 3.5 },
      differenceUsd: { 'request-share': 0.25, 'aws-split': -0.05, opencost: 0.75 },
    });
    expect(result.totals.map((t) => t.team ?? t.kind)).toEqual(['pay', 'data', 'team', 'idle']); // the unlabelled team (null) after the named ones, idle last
  });
});
