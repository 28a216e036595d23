import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../open-db.js';
import { createCurRepository, type CurNamespaceDay, type CurNodePoolDay, type CurResourceDay } from './cur-repository.js';

/*
 * Which source a day is read from: per billing period the source imported last (ties: the greater name), or the one
 * named. Two sources of November, one of October, in a real SQLite file with the migrations applied; every expected
 * row is read off the imports below.
 */

const OCT_31 = Date.parse('2026-10-31T00:00:00Z');
const NOV_1 = Date.parse('2026-11-01T00:00:00Z');
const NOV_2 = Date.parse('2026-11-02T00:00:00Z');

const nsDay = (dayMs: number, namespace: string, splitCostUsd: number): CurNamespaceDay => ({
  day: new Date(dayMs).toISOString().slice(0, 10),
  dayMs,
  cluster: 'ledger',
  nodePool: 'general',
  namespace,
  splitCostUsd,
  unusedCostUsd: 0,
  netSplitCostUsd: splitCostUsd,
  netUnusedCostUsd: 0,
  publicOnDemandSplitCostUsd: splitCostUsd,
  publicOnDemandUnusedCostUsd: 0,
  vcpuHours: 1,
  memoryGbHours: 1,
  podCount: 1,
  lineCount: 1,
});
const poolDay = (dayMs: number, unblendedUsd: number): CurNodePoolDay => ({
  day: new Date(dayMs).toISOString().slice(0, 10),
  dayMs,
  cluster: 'ledger',
  nodePool: 'general',
  category: 'instances',
  attributedBy: 'tag',
  unblendedUsd,
  amortizedUsd: unblendedUsd,
  netUnblendedUsd: unblendedUsd,
  netAmortizedUsd: unblendedUsd,
  usageAmount: 1,
  publicOnDemandUsd: unblendedUsd,
  lineCount: 1,
});
const period = (source: string, billingPeriod: string, importedAt: number, days: { ns: CurNamespaceDay[]; pools: CurNodePoolDay[] }) => ({
  summary: {
    source,
    billingPeriod,
    periodStartMs: Date.parse(`${billingPeriod}-01T00:00:00Z`),
    importedAt,
    curRows: 1,
    unblendedUsd: 0,
    amortizedUsd: 0,
    unattributedLines: 0,
    unattributedUsd: 0,
    nodeClaimFilledLines: 0,
    splitLines: 0,
    manifestExecutionId: null,
  },
  files: [],
  nodePoolDays: days.pools,
  namespaceDays: days.ns,
  resourceDays: [],
});

let db: Db;
beforeAll(() => {
  db = openDb({ path: ':memory:' });
  const cur = createCurRepository(db);
  // October from the folder only. November from the folder (imported Nov 2), then again from Athena (Nov 3): Athena's
  // November is the one read. A third November source, 'a-older', imported before both, is never read by default.
  cur.replacePeriod(period('/exports/ledger', '2026-10', NOV_1, { ns: [nsDay(OCT_31, 'web', 1.5)], pools: [poolDay(OCT_31, 10)] }));
  cur.replacePeriod(
    period('/exports/ledger', '2026-11', NOV_2, { ns: [nsDay(NOV_1, 'web', 2.5), nsDay(NOV_1, 'jobs', 0.5)], pools: [poolDay(NOV_1, 20)] }),
  );
  cur.replacePeriod(period('athena:cur2', '2026-11', NOV_2 + 86_400_000, { ns: [nsDay(NOV_1, 'web', 2.25)], pools: [poolDay(NOV_1, 21)] }));
  cur.replacePeriod(period('a-older', '2026-11', NOV_1, { ns: [nsDay(NOV_1, 'web', 9)], pools: [poolDay(NOV_1, 90)] }));
});
afterAll(() => db?.close());

describe('CUR days by source', () => {
  it('reads each billing period from its source imported last, never two sources of one period', () => {
    const cur = createCurRepository(db);
    const range = { fromMs: OCT_31, toMs: NOV_2 };
    // Oct 31 from the folder (its only source); Nov 1 from Athena alone: web 2.25, not the folder's 2.5 + jobs 0.5.
    expect(cur.namespaceDays(range).map((r) => [r.day, r.namespace, r.splitCostUsd])).toEqual([
      ['2026-10-31', 'web', 1.5],
      ['2026-11-01', 'web', 2.25],
    ]);
    expect(cur.nodePoolDays(range).map((r) => [r.day, r.unblendedUsd])).toEqual([
      ['2026-10-31', 10],
      ['2026-11-01', 21],
    ]);
    expect(cur.dayList(range)).toEqual(['2026-10-31', '2026-11-01']);
  });

  it('reads one named source only', () => {
    const cur = createCurRepository(db);
    const range = { fromMs: OCT_31, toMs: NOV_2, source: '/exports/ledger' };
    expect(cur.namespaceDays(range).map((r) => [r.day, r.namespace, r.splitCostUsd])).toEqual([
      ['2026-10-31', 'web', 1.5],
      ['2026-11-01', 'jobs', 0.5],
      ['2026-11-01', 'web', 2.5],
    ]);
    expect(cur.nodePoolDays({ ...range, source: 'a-older' }).map((r) => [r.day, r.unblendedUsd])).toEqual([['2026-11-01', 90]]);
  });
});

/**
 * The resource lines' day index (migration 0031): a period replaced while no other period holds a line is written
 * without it and the index built at the commit (collectors' import of a first CUR); with other lines stored it is kept
 * throughout. Either way the schema afterwards is the migration's, the index is used for a day's lines, and a replace
 * rolled back leaves it.
 */
describe('the resource lines’ day index around a period replaced', () => {
  const resourceDay = (dayMs: number, resourceId: string): CurResourceDay => ({
    ...poolDay(dayMs, 1.25),
    resourceId,
    lineItemType: 'Usage',
    usageType: 'USE2-BoxUsage:m6i.large',
    productCode: 'AmazonEC2',
    operation: 'RunInstances',
    nodeClaim: '',
    commitmentArn: '',
  });
  const indexSql = (d: Db): unknown => d.prepare("SELECT sql FROM sqlite_master WHERE name = 'cur_resource_lines_day'").pluck().get();
  const dayPlan = (d: Db): string =>
    (d.prepare('EXPLAIN QUERY PLAN SELECT line_count FROM cur_resource_lines WHERE day_ms = ?').all(NOV_1) as { detail: string }[])
      .map((r) => r.detail)
      .join('; ');
  const november = (source: string) => period(source, '2026-11', NOV_2, { ns: [], pools: [] });
  const lines = [resourceDay(NOV_1, 'i-0a'), resourceDay(NOV_2, 'i-0a'), resourceDay(NOV_1, 'i-0b')];

  it('a first period: written without the index, which is the migration’s again after the commit', () => {
    const fresh = openDb({ path: ':memory:' });
    try {
      const migrated = indexSql(fresh);
      expect(migrated).toBe('CREATE INDEX cur_resource_lines_day ON cur_resource_lines (day_ms)');
      const replace = createCurRepository(fresh).beginPeriodReplace({ source: 'first', billingPeriod: '2026-11' });
      replace.addResourceDays(lines);
      expect(indexSql(fresh)).toBeUndefined();
      replace.commit(november('first'));
      expect(indexSql(fresh)).toBe(migrated);
      expect(dayPlan(fresh)).toContain('cur_resource_lines_day');
      expect(
        createCurRepository(fresh)
          .resourceDays({ fromMs: NOV_1, toMs: NOV_2 })
          .map((r) => r.resourceId),
      ).toEqual(['i-0a', 'i-0b']);
    } finally {
      fresh.close();
    }
  });

  it('rolled back: the index is there again, with no line', () => {
    const fresh = openDb({ path: ':memory:' });
    try {
      const migrated = indexSql(fresh);
      const replace = createCurRepository(fresh).beginPeriodReplace({ source: 'first', billingPeriod: '2026-11' });
      replace.addResourceDays(lines);
      replace.rollback();
      expect(indexSql(fresh)).toBe(migrated);
      expect(fresh.prepare('SELECT COUNT(*) FROM cur_resource_lines').pluck().get()).toBe(0);
    } finally {
      fresh.close();
    }
  });

  it('other periods’ lines stored: the index is kept while a period is replaced', () => {
    const fresh = openDb({ path: ':memory:' });
    try {
      const cur = createCurRepository(fresh);
      cur.replacePeriod({ ...november('first'), resourceDays: lines });
      const replace = cur.beginPeriodReplace({ source: 'second', billingPeriod: '2026-11' });
      expect(indexSql(fresh)).toBeDefined();
      replace.addResourceDays(lines);
      replace.commit(november('second'));
      expect(dayPlan(fresh)).toContain('cur_resource_lines_day');
      expect(fresh.prepare('SELECT COUNT(*) FROM cur_resource_lines').pluck().get()).toBe(6);
    } finally {
      fresh.close();
    }
  });
});
