import { describe, expect, it } from 'vitest';
import type { TeamMethod } from './team-cost.js';
import { FED_BY_REQUESTS_ONLY, methodFeed, TEAM_METHODS } from './team-methods.js';

describe('methodFeed', () => {
  it.each([
    // [method, Σ pod-hours and Σ pod-hours with usage per row, usage, share]
    ['request-share', [[10, 10]], 'not-applicable', null],
    ['aws-split', [[10, 0]], 'none', 0],
    ['opencost', [], 'none', null], // no snapshot since migration 0010 in the range
    ['aws-split', [[0, 0]], 'none', null],
    [
      'opencost',
      [
        [6, 3],
        [4, 0],
      ],
      'partial',
      0.3,
    ],
    [
      'aws-split',
      [
        [6, 6],
        [4, 4],
      ],
      'all',
      1,
    ],
  ] as [TeamMethod, [number, number][], string, number | null][])('%s over %j: %s', (method, rows, usage, share) => {
    const feed = methodFeed(
      method,
      rows.map(([podHours, usagePodHours]) => ({ podHours, usagePodHours })),
    );
    expect(feed.usage).toBe(usage);
    expect(feed.usagePodHoursShare).toBe(share);
  });

  it('says "fed by requests only (no usage collected)" with the method named, and how much usage fed a partial range', () => {
    expect(methodFeed('aws-split', [{ podHours: 5, usagePodHours: 0 }]).note).toContain(
      `AWS split cost allocation ${FED_BY_REQUESTS_ONLY}`,
    );
    expect(methodFeed('opencost', [{ podHours: 4, usagePodHours: 1 }]).note).toMatch(/max\(request, usage\) for 25 % of pod-hours/);
  });

  it('names every method with its source; the two published ones with where', () => {
    expect(Object.values(TEAM_METHODS).map((m) => [m.id, m.url === null])).toEqual([
      ['request-share', true],
      ['aws-split', false],
      ['opencost', false],
    ]);
    expect(TEAM_METHODS['aws-split'].url).toMatch(/^https:\/\/docs\.aws\.amazon\.com\/cur\//);
    expect(TEAM_METHODS.opencost.source).toMatch(/OpenCost Specification/);
  });
});
