import { describe, expect, it } from 'vitest';
import { nextSpotAskAt, planSpotAsks } from './plan.js';

const H = 3_600_000;
const NOW = Date.parse('2026-11-10T12:00:00Z');
// m5.large runs as spot; the c6i types are only admitted (an on-demand NodePool, or a spot one nothing runs in yet).
const wanted = { instanceTypes: ['c6i.large', 'c6i.xlarge', 'm5.large'], zones: ['us-east-1a', 'us-east-1b'], runningSpot: ['m5.large'] };
const covered = (types: string[], zones: string[], at: number): [string, number][] =>
  types.flatMap((t) => zones.map((z): [string, number] => [`${t}|${z}`, at]));

describe('planSpotAsks: only what is newer than what is stored', () => {
  it('nothing stored: one ask for every type and zone, from a day back', () => {
    expect(planSpotAsks(wanted, new Map(), NOW)).toEqual([
      { instanceTypes: wanted.instanceTypes, zones: wanted.zones, sinceMs: NOW - 24 * H },
    ]);
  });

  it('everything stored up to 30 minutes ago: no ask', () => {
    expect(planSpotAsks(wanted, new Map(covered(wanted.instanceTypes, wanted.zones, NOW - 0.5 * H)), NOW)).toEqual([]);
  });

  it('stored up to an hour ago: the running spot type is refreshed from there (hourly), the admitted ones wait for their 12 hours', () => {
    expect(planSpotAsks(wanted, new Map(covered(wanted.instanceTypes, wanted.zones, NOW - H)), NOW)).toEqual([
      { instanceTypes: ['m5.large'], zones: wanted.zones, sinceMs: NOW - H },
    ]);
  });

  it('admitted types stored 12 hours ago: every stored type in one refresh, from the oldest coverage among them', () => {
    const coverage = new Map([
      ...covered(['c6i.large', 'c6i.xlarge'], wanted.zones, NOW - 12 * H),
      ...covered(['m5.large'], wanted.zones, NOW - 0.2 * H),
    ]);
    expect(planSpotAsks(wanted, coverage, NOW)).toEqual([
      { instanceTypes: wanted.instanceTypes, zones: wanted.zones, sinceMs: NOW - 12 * H },
    ]);
  });

  it('a type and a zone joined 10 minutes ago: asked at once (from a day back, or from where its other zone is stored); the rest waits', () => {
    const coverage = new Map([
      ...covered(['c6i.large', 'm5.large'], ['us-east-1a', 'us-east-1b'], NOW - 10 * 60_000),
      ...covered(['c6i.xlarge'], ['us-east-1a'], NOW - 30 * H),
    ]);
    expect(planSpotAsks(wanted, coverage, NOW)).toEqual([{ instanceTypes: ['c6i.xlarge'], zones: wanted.zones, sinceMs: NOW - 30 * H }]);
  });

  it('asks hold about 900 markets: 450 types in 2 zones (here 2 per ask when told so)', () => {
    expect(planSpotAsks(wanted, new Map(), NOW, { batchSize: 2 })).toEqual([
      { instanceTypes: ['c6i.large', 'c6i.xlarge'], zones: wanted.zones, sinceMs: NOW - 24 * H },
      { instanceTypes: ['m5.large'], zones: wanted.zones, sinceMs: NOW - 24 * H },
    ]);
    const many = { instanceTypes: Array.from({ length: 1000 }, (_, i) => `t${String(i).padStart(4, '0')}`), zones: wanted.zones };
    expect(planSpotAsks(many, new Map(), NOW).map((a) => a.instanceTypes.length)).toEqual([450, 450, 100]);
  });

  it('an ask made without a zone filter (zone *) covers every zone; at most 90 days back', () => {
    const coverage = new Map(covered(wanted.instanceTypes, ['*'], NOW - 200 * 24 * H));
    expect(planSpotAsks(wanted, coverage, NOW)).toEqual([
      { instanceTypes: wanted.instanceTypes, zones: wanted.zones, sinceMs: NOW - 90 * 24 * H },
    ]);
  });
});

describe('nextSpotAskAt: when planSpotAsks next has something to ask', () => {
  it('now for a market never asked; else the running type’s coverage + 1 h or an admitted one’s + 12 h, whichever is first', () => {
    expect(nextSpotAskAt(wanted, new Map())).toBe(-Infinity);
    const coverage = new Map([
      ...covered(['c6i.large', 'c6i.xlarge'], wanted.zones, NOW - 2 * H),
      ...covered(['m5.large'], wanted.zones, NOW - 0.2 * H),
    ]);
    expect(nextSpotAskAt(wanted, coverage)).toBe(NOW + 0.8 * H);
    expect(planSpotAsks(wanted, coverage, NOW + 0.8 * H - 1)).toEqual([]);
    expect(planSpotAsks(wanted, coverage, NOW + 0.8 * H)).toHaveLength(1);
    expect(nextSpotAskAt({ ...wanted, runningSpot: [] }, coverage)).toBe(NOW + 10 * H);
  });
});
