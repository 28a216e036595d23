import { describe, expect, it } from 'vitest';
import type { KnownNodeClaim } from '../../db/repositories/cur-repository.js';
import type { CurAggregateRow } from './aggregate-statement.js';
import { dayStartMs, periodRows } from './period-rows.js';

const row = (over: Partial<CurAggregateRow>): CurAggregateRow => ({
  rowKind: 'resource',
  usageDay: '2026-11-02',
  resourceId: '',
  lineItemType: 'Usage',
  usageType: 'USE2-BoxUsage:m5.large',
  productCode: 'AmazonEC2',
  operation: 'RunInstances',
  category: 'instances',
  cluster: 'prod',
  nodePool: '',
  nodeClaim: '',
  namespace: '',
  commitmentArn: '',
  unblendedUsd: 0,
  amortizedUsd: 0,
  netUnblendedUsd: 0,
  netAmortizedUsd: 0,
  usageAmount: 0,
  publicOnDemandUsd: 0,
  splitCostUsd: 0,
  unusedCostUsd: 0,
  netSplitCostUsd: 0,
  netUnusedCostUsd: 0,
  publicOnDemandSplitCostUsd: 0,
  publicOnDemandUnusedCostUsd: 0,
  vcpuHours: 0,
  memoryGbHours: 0,
  podCount: 0,
  lineCount: 1,
  ...over,
});
const known = new Map<string, KnownNodeClaim>([['i-known', { instanceId: 'i-known', nodeClaim: 'general-abc12', nodePool: 'general' }]]);
const money = (u: number) => ({ unblendedUsd: u, amortizedUsd: u, netUnblendedUsd: u, netAmortizedUsd: u });

describe('periodRows: the NodePool of a line, worked by hand', () => {
  describe.each<[string, Partial<CurAggregateRow>, string, string, string]>([
    // [case, row, NodePool, NodeClaim, attributed by]
    ['tagged line keeps its tag', { resourceId: 'i-known', nodePool: 'spot', nodeClaim: 'spot-x' }, 'spot', 'spot-x', 'tag'],
    [
      'tagged without the NodeClaim tag: NodeClaim from ours',
      { resourceId: 'i-known', nodePool: 'general' },
      'general',
      'general-abc12',
      'tag',
    ],
    ['untagged instance we know: both from our NodeClaim', { resourceId: 'i-known' }, 'general', 'general-abc12', 'nodeclaim'],
    ['untagged instance we do not know: none', { resourceId: 'i-other' }, '', '', 'none'],
    ['untagged volume: none (volumes never join a NodeClaim)', { resourceId: 'vol-1', category: 'volumes' }, '', '', 'none'],
  ])('%s', (_name, over, nodePool, nodeClaim, by) => {
    it(`-> ${nodePool || "''"} / ${nodeClaim || "''"} / ${by}`, () => {
      const [r] = periodRows([row({ ...over, ...money(1) })], known).resourceDays;
      expect([r?.nodePool, r?.nodeClaim, r?.attributedBy]).toEqual([nodePool, nodeClaim, by]);
    });
  });

  it('sums per NodePool per day, counts lines left without a NodePool (account lines aside) and those filled', () => {
    const out = periodRows(
      [
        row({ resourceId: 'i-a', nodePool: 'general', ...money(2), lineCount: 24 }),
        row({ resourceId: 'i-known', ...money(0.5), lineCount: 5 }),
        row({ resourceId: 'i-other', ...money(0.25), lineCount: 3 }),
        row({ rowKind: 'unresourced', lineItemType: 'Credit', category: 'other', ...money(-1), lineCount: 1 }),
        row({ rowKind: 'split', namespace: 'ns', resourceId: 'i-known', splitCostUsd: 0.3, podCount: 2, lineCount: 4 }),
        row({ rowKind: 'split', namespace: 'ns', nodePool: 'general', splitCostUsd: 0.7, podCount: 1, lineCount: 2 }),
      ],
      known,
    );
    expect(out.nodePoolDays.map((d) => [d.nodePool, d.category, d.attributedBy, d.unblendedUsd, d.lineCount])).toEqual([
      ['', 'instances', 'none', 0.25, 3],
      ['', 'other', 'none', -1, 1],
      ['general', 'instances', 'nodeclaim', 0.5, 5],
      ['general', 'instances', 'tag', 2, 24],
    ]);
    // 2 + 0.5 + 0.25 - 1 = 1.75; split lines carry no unblended cost of their own
    expect([out.unblendedUsd, out.unattributedLines, out.unattributedUsd, out.nodeClaimFilledLines, out.splitLines]).toEqual([
      1.75, 3, 0.25, 5, 6,
    ]);
    // Both split rows land on general/ns: one through our NodeClaim of the parent, one through the parent's tag.
    expect(out.namespaceDays.map((n) => [n.nodePool, n.namespace, n.splitCostUsd, n.podCount, n.lineCount])).toEqual([
      ['general', 'ns', 1, 3, 6],
    ]);
  });

  it('days are UTC and refused when not YYYY-MM-DD', () => {
    expect(dayStartMs('2026-11-02')).toBe(Date.UTC(2026, 10, 2));
    expect(() => dayStartMs('2026-11-02 00:00:00')).toThrow('not YYYY-MM-DD');
  });
});
