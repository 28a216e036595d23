import { describe, expect, it } from 'vitest';
import { curSourceInfo, newestPerPeriod } from './cur-source.js';

const T = Date.parse('2026-12-02T06:00:00Z');

describe('which CUR import a view reads', () => {
  const periods = [
    { source: '/exports/ledger', billingPeriod: '2026-11', importedAtMs: T },
    { source: 's3://bucket/cur/ledger', billingPeriod: '2026-11', importedAtMs: T + 3_600_000 }, // the same month, later
    { source: '/exports/ledger', billingPeriod: '2026-10', importedAtMs: T },
    { source: 'athena:cur.ledger', billingPeriod: '2026-10', importedAtMs: T }, // a tie: the greater name, as the repository
  ];
  it('takes the newest import of each period, oldest period first', () =>
    expect(newestPerPeriod(periods).map((p) => [p.billingPeriod, p.source])).toEqual([
      ['2026-10', 'athena:cur.ledger'],
      ['2026-11', 's3://bucket/cur/ledger'],
    ]));
  it('says so in words, with the imports left out', () =>
    expect(curSourceInfo(newestPerPeriod(periods), 2)).toEqual({
      sources: ['athena:cur.ledger', 's3://bucket/cur/ledger'],
      billingPeriods: ['2026-10', '2026-11'],
      importedAt: '2026-12-02T07:00:00.000Z',
      text: 'CUR 2.0 athena:cur.ledger, s3://bucket/cur/ledger, billing periods 2026-10, 2026-11, imported 2026-12-02T07:00Z (2 older imports of the same periods not added).',
    }));
  it('and when nothing is imported', () => expect(curSourceInfo([], 0).text).toMatch(/^No Cost and Usage Report imported/));
});
