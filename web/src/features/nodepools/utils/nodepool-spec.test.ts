import { describe, expect, it } from 'vitest';
import type { NodePool, ResourceLimit } from '@schemas/nodepools';
import { formatBudget, limitBars, limitBarText, limitLevel } from './nodepool-spec';

const GiB = 1024 ** 3;
const usage: NodePool['usage'] = {
  at: '2026-11-03T23:55:00.000Z',
  nodes: 3,
  cpuMillicores: 16_000,
  memoryBytes: 64 * GiB,
  nodesWithoutCapacity: 0,
};
const limit = (resource: string, unit: ResourceLimit['unit'], quantity: string, lim: number | null, used: number): ResourceLimit => ({
  resource,
  quantity,
  unit,
  limit: lim,
  used,
  usedFraction: lim === null || lim === 0 ? null : used / lim,
});

describe.each([
  { used: 0, limit: 10, level: 'ok' },
  { used: 7.99, limit: 10, level: 'ok' },
  { used: 8, limit: 10, level: 'near' }, // 80 % exactly: amber
  { used: 10, limit: 10, level: 'at' }, // 100 %: red, Karpenter launches no more
  { used: 12, limit: 10, level: 'at' },
  { used: 0, limit: 0, level: 'at' }, // a zero limit allows nothing
  { used: 5, limit: null, level: 'unreadable' },
])('limitLevel($used, $limit)', ({ used, limit: lim, level }) => {
  it(`is ${level}`, () => expect(limitLevel(used, lim)).toBe(level));
});

describe('limitBars', () => {
  it('cpu 1000 and memory 1000Gi: 16 vCPU = 1.6 %, 64 GiB = 6.4 %', () => {
    const bars = limitBars({
      usage,
      limits: {
        cpu: '1000',
        cpuMillicores: 1_000_000,
        memory: '1000Gi',
        memoryBytes: 1000 * GiB,
        resources: [limit('cpu', 'millicores', '1000', 1_000_000, 16_000), limit('memory', 'bytes', '1000Gi', 1000 * GiB, 64 * GiB)],
      },
    });
    expect(bars.map((b) => [b.label, b.usedText, b.limitText, b.percent?.toFixed(1), b.level])).toEqual([
      ['CPU', '16 vCPU', '1000 vCPU', '1.6', 'ok'],
      ['Memory', '64 GiB', '1000 GiB', '6.4', 'ok'],
    ]);
    expect(limitBarText(bars[0])).toBe('16 vCPU of 1000 vCPU (1.6 %)');
  });

  it('no limits: CPU and memory bars say "no limit" with what the nodes hold', () => {
    const bars = limitBars({ usage, limits: { cpu: null, cpuMillicores: null, memory: null, memoryBytes: null, resources: [] } });
    expect(bars).toEqual([
      { label: 'CPU', usedText: '16 vCPU', limitText: 'no limit', percent: null, widthPercent: 0, level: 'none' },
      { label: 'Memory', usedText: '64 GiB', limitText: 'no limit', percent: null, widthPercent: 0, level: 'none' },
    ]);
    expect(limitBarText(bars[1])).toBe('64 GiB, no limit');
  });

  it('cpu 16 reached (16 of 16 = 100 %), memory 72Gi near (64 of 72 = 88.9 %), 8 of 4 GPUs (width capped at 100)', () => {
    const bars = limitBars({
      usage,
      limits: {
        cpu: '16',
        cpuMillicores: 16_000,
        memory: '72Gi',
        memoryBytes: 72 * GiB,
        resources: [
          limit('cpu', 'millicores', '16', 16_000, 16_000),
          limit('memory', 'bytes', '72Gi', 72 * GiB, 64 * GiB),
          limit('nvidia.com/gpu', 'count', '4', 4, 8),
        ],
      },
    });
    expect(bars.map((b) => [b.label, b.percent?.toFixed(1), b.widthPercent.toFixed(1), b.level])).toEqual([
      ['CPU', '100.0', '100.0', 'at'],
      ['Memory', '88.9', '88.9', 'near'],
      ['nvidia.com/gpu', '200.0', '100.0', 'at'],
    ]);
    expect(limitBarText(bars[0])).toBe('16 vCPU of 16 vCPU (100.0 %), limit reached');
    expect(limitBarText(bars[1])).toBe('64 GiB of 72 GiB (88.9 %), near the limit');
    expect(bars[2].usedText).toBe('8');
  });

  it('a nodes limit (Karpenter v1.4+) is a bar of its own: 9 of 10 nodes is near it', () => {
    const bars = limitBars({
      usage,
      limits: { cpu: null, cpuMillicores: null, memory: null, memoryBytes: null, resources: [limit('nodes', 'count', '10', 10, 9)] },
    });
    expect(bars.map((b) => [b.label, b.limitText, b.level])).toEqual([
      ['CPU', 'no limit', 'none'],
      ['Memory', 'no limit', 'none'],
      ['Nodes', '10', 'near'],
    ]);
    expect(limitBarText(bars[2])).toBe('9 of 10 (90.0 %), near the limit');
  });

  it('an empty NodePool reads 0 vCPU and 0 GiB against its limits (256 vCPU, 1024Gi)', () => {
    const bars = limitBars({
      usage: { ...usage, nodes: 0, cpuMillicores: 0, memoryBytes: 0 },
      limits: {
        cpu: '256',
        cpuMillicores: 256_000,
        memory: '1024Gi',
        memoryBytes: 1024 * GiB,
        resources: [limit('cpu', 'millicores', '256', 256_000, 0), limit('memory', 'bytes', '1024Gi', 1024 * GiB, 0)],
      },
    });
    expect(bars.map(limitBarText)).toEqual(['0 vCPU of 256 vCPU (0.0 %)', '0 GiB of 1024 GiB (0.0 %)']);
  });

  it('a limit that does not parse is shown as written', () => {
    const [cpu] = limitBars({
      usage,
      limits: {
        cpu: 'lots',
        cpuMillicores: null,
        memory: null,
        memoryBytes: null,
        resources: [limit('cpu', 'millicores', 'lots', null, 16_000)],
      },
    });
    expect(cpu).toMatchObject({ limitText: 'lots (unreadable)', percent: null, widthPercent: 0, level: 'unreadable' });
  });
});

describe('formatBudget', () => {
  it.each([
    [{ nodes: '10%', reasons: [], schedule: null, duration: null }, 'budget: 10% nodes'],
    [
      { nodes: '0', reasons: ['Underutilized', 'Drifted'], schedule: '0 9 * * mon-fri', duration: '8h' },
      'budget: 0 nodes for Underutilized, Drifted, 0 9 * * mon-fri (UTC) for 8h',
    ],
  ])('%o', (b, text) => expect(formatBudget(b)).toBe(text));
});
