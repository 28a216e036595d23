import { describe, expect, it } from 'vitest';
import { allowedDisruptions, budgetActive, CronSchedule } from './budgets.js';
import { normalizeNodePool } from './nodepools.js';
import { normalizePdb, PdbLimits } from './pdb.js';
import { normalizePod } from './pods.js';
import { nodePool, pod } from './test-support.js';

const at = (iso: string) => Date.parse(iso);

describe('cron schedules (UTC, five fields, as robfig/cron ParseStandard reads them)', () => {
  it.each([
    // schedule, from (exclusive), to (inclusive), fires?
    ['0 9 * * *', '2026-02-02T08:00:00Z', '2026-02-02T09:00:00Z', true],
    ['0 9 * * *', '2026-02-02T09:00:00Z', '2026-02-02T10:00:00Z', false], // the hit exactly at `from` is not after it
    ['@daily', '2026-02-01T23:59:00Z', '2026-02-02T00:00:00Z', true],
    ['@hourly', '2026-02-02T10:01:00Z', '2026-02-02T10:59:00Z', false],
    ['*/15 * * * *', '2026-02-02T10:01:00Z', '2026-02-02T10:15:00Z', true],
    ['0 22-23 * * *', '2026-02-02T12:00:00Z', '2026-02-02T21:59:00Z', false],
    ['0 0 * * sun', '2026-02-02T00:00:00Z', '2026-02-07T23:59:00Z', false], // Mon 2 to Sat 7 February
    ['0 0 * * 7', '2026-02-07T00:00:00Z', '2026-02-08T00:00:00Z', true], // 7 is Sunday too
    ['0 0 1 * mon', '2026-02-02T00:00:00Z', '2026-02-02T00:00:00Z', false], // empty range
    // day-of-month and day-of-week both restricted: either matches (Monday the 2nd, not the 1st)
    ['0 0 1 * mon', '2026-02-01T12:00:00Z', '2026-02-02T00:00:00Z', true],
    ['0 0 1 jan *', '2026-02-01T00:00:00Z', '2026-12-31T23:59:00Z', false],
  ])('"%s" in (%s, %s]: %s', (spec, from, to, fires) => {
    expect(new CronSchedule(spec).firesBetween(at(from), at(to))).toBe(fires);
  });
  it('a malformed schedule is refused with the reason', () => {
    expect(() => new CronSchedule('0 9 * *')).toThrow(
      'cron schedule "0 9 * *" needs five fields (minute hour day-of-month month day-of-week)',
    );
    expect(() => new CronSchedule('61 * * * *')).toThrow('cron minute "61" is outside 0-59');
  });
});

describe('NodePool disruption budgets (nodepool.go GetAllowedDisruptionsByReason)', () => {
  const pool = (budgets: NonNullable<Parameters<typeof nodePool>[1]>['budgets']) => normalizeNodePool(nodePool('p', { budgets }));
  it.each([
    ['the default 10% of 25 nodes rounds up to 3', undefined, 25, 'Underutilized', 3],
    ['the smallest active budget wins', [{ nodes: '50%' }, { nodes: '4' }], 20, 'Underutilized', 4],
    ['a budget for other reasons does not apply', [{ nodes: '0', reasons: ['Drifted'] }, { nodes: '5' }], 20, 'Empty', 5],
    ['0% allows none', [{ nodes: '0%' }], 20, 'Empty', 0],
  ] as const)('%s', (_name, budgets, numNodes, reason, allowed) => {
    expect(allowedDisruptions(pool(budgets as never), numNodes, reason, at('2026-02-02T12:00:00Z'))).toBe(allowed);
  });
  it('a scheduled budget is active for its duration after each hit', () => {
    const [b] = pool([{ nodes: '0', schedule: '0 9 * * *', duration: '8h' }]).budgets;
    expect(budgetActive(b, at('2026-02-02T09:00:00Z'))).toBe(true);
    expect(budgetActive(b, at('2026-02-02T16:59:00Z'))).toBe(true);
    expect(budgetActive(b, at('2026-02-02T17:00:00Z'))).toBe(false);
    expect(budgetActive(b, at('2026-02-02T08:59:00Z'))).toBe(false);
  });
});

describe('PodDisruptionBudgets (pkg/utils/pdb)', () => {
  const running = (name: string) => normalizePod(pod(name, { labels: { app: 'web' }, nodeName: 'n1' }));
  const three = ['a', 'b', 'c'].map(running);
  const pdb = (spec: object, status?: object) =>
    normalizePdb(
      {
        metadata: { name: 'web', namespace: 'default' },
        spec: { selector: { matchLabels: { app: 'web' } }, ...spec },
        ...(status ? { status } : {}),
      },
      three,
    );
  it.each([
    // healthy 3; minAvailable 2 → 1 allowed; 100% → 0; maxUnavailable 1 → 1; 34% of 3 rounds up to 2 unavailable → 2
    ['minAvailable: 2', { minAvailable: 2 }, 1],
    ['minAvailable: "100%"', { minAvailable: '100%' }, 0],
    ['maxUnavailable: 1', { maxUnavailable: 1 }, 1],
    ['maxUnavailable: "34%"', { maxUnavailable: '34%' }, 2],
  ])('%s without status allows %d', (_name, spec, allowed) => {
    expect(pdb(spec).disruptionsAllowed).toBe(allowed);
  });
  it('status.disruptionsAllowed is used when present', () => {
    expect(pdb({ minAvailable: 2 }, { disruptionsAllowed: 0 }).disruptionsAllowed).toBe(0);
  });
  it('maxUnavailable 0 is fully blocking; an unhealthy pod may always be evicted under AlwaysAllow', () => {
    expect(pdb({ maxUnavailable: 0 }).fullyBlocking).toBe(true);
    const sick = normalizePod({
      ...pod('sick', { labels: { app: 'web' }, nodeName: 'n1' }),
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] },
    });
    const limits = new PdbLimits([pdb({ maxUnavailable: 0, unhealthyPodEvictionPolicy: 'AlwaysAllow' }, { disruptionsAllowed: 0 })]);
    expect(limits.blocking([sick], 0)).toBeNull();
    expect(limits.blocking([three[0]], 0)).toEqual(['default/web']);
  });
});
