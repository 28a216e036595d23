import type { RecommendationRow } from '@schemas/workloads';
import { describe, expect, it } from 'vitest';
import { parseWorkloadTable, rowKey, sortRows, sortUpdates } from './workload-table';

const row = (name: string, effect: number | null, share: number | null, cpu: number | null): RecommendationRow =>
  ({
    namespace: 'shop',
    workloadKind: 'Deployment',
    workloadName: name,
    container: 'app',
    monthlyEffectUsd: effect,
    requestShareMonthlyUsd: share,
    cpuUsageOverRequest: cpu,
    memoryUsageOverRequest: null,
    idleUsdPerMonth: null,
  }) as RecommendationRow;

// Engine effects are whole nodes: two rows free nothing (0) and are told apart by their request share.
const rows = [row('a', 0, -5, 0.5), row('b', -73, -40, 0.2), row('c', null, null, null), row('d', 0, -20, 1.4), row('e', 35, 16, 1.2)];

describe('the Workloads table', () => {
  it('by savings: biggest saving first, engine ties broken by request share, no figure last', () => {
    expect(sortRows(rows, { sort: 'savings', order: 'asc' }).map((r) => r.workloadName)).toEqual(['b', 'd', 'a', 'e', 'c']);
  });

  it('by CPU usage ÷ request, highest first, nulls still last', () => {
    expect(sortRows(rows, { sort: 'cpu', order: 'desc' }).map((r) => r.workloadName)).toEqual(['d', 'e', 'a', 'b', 'c']);
  });

  it('URL state: defaults, a bad sort ignored, the open row; clicking flips the order of the same column', () => {
    expect(parseWorkloadTable(new URLSearchParams(''))).toEqual({ sort: 'savings', order: 'asc', open: undefined });
    expect(parseWorkloadTable(new URLSearchParams('sort=nope&w=shop/Deployment/a/app'))).toMatchObject({
      sort: 'savings',
      open: 'shop/Deployment/a/app',
    });
    expect(sortUpdates({ sort: 'savings', order: 'asc', open: undefined }, 'savings')).toEqual({ sort: 'savings', order: 'desc' });
    expect(sortUpdates({ sort: 'savings', order: 'asc', open: undefined }, 'idle')).toEqual({ sort: 'idle', order: 'desc' });
    expect(rowKey(rows[0])).toBe('shop/Deployment/a/app');
    // Under "All clusters" of several, the same workload in two clusters is two rows, two keys.
    expect([rowKey({ ...rows[0], cluster: 'alpha' }), rowKey({ ...rows[0], cluster: 'beta' })]).toEqual([
      'alpha:shop/Deployment/a/app',
      'beta:shop/Deployment/a/app',
    ]);
  });
});
