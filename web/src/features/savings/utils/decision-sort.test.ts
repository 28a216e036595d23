import { describe, expect, it } from 'vitest';
import { sortDecisions, type NodeDecision } from './decision-sort';

const d = (node: string, usdPerHour: number | null, decision: NodeDecision['decision'], nodePool: string | null): NodeDecision => ({
  node,
  nodePool,
  instanceType: 'm5.large',
  capacityType: 'on-demand',
  zone: 'us-east-1a',
  pods: 1,
  usdPerHour,
  usdPerMonth: usdPerHour === null ? null : usdPerHour * 730,
  decision,
  reason: 'r',
  wording: 'karpenter',
});

const rows = [
  d('b', 0.1, 'keep', 'general'),
  d('a', 0.4, 'delete', 'system'),
  d('c', null, 'keep', null),
  d('d', 0.1, 'replace', 'general'),
];

describe('sortDecisions', () => {
  it.each([
    ['usdPerHour', 'desc', ['a', 'b', 'd', 'c']],
    ['usdPerHour', 'asc', ['b', 'd', 'a', 'c']],
    ['decision', 'asc', ['a', 'b', 'c', 'd']],
    ['nodePool', 'asc', ['c', 'b', 'd', 'a']],
    ['node', 'desc', ['d', 'c', 'b', 'a']],
  ] as const)('by %s %s', (sort, order, names) => {
    expect(sortDecisions(rows, sort, order).map((r) => r.node)).toEqual(names);
  });
});
