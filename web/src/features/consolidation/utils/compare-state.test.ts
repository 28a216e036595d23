import { describe, expect, it } from 'vitest';
import type { CompareRow, WindowStats } from '@schemas/consolidation';
import {
  compareBars,
  focusRow,
  nodeChangesRange,
  parseCompare,
  pickEventUpdates,
  pickTimeUpdates,
  selectedInstantMs,
} from './compare-state';

describe('parseCompare', () => {
  it('defaults: no event, no instant, 1 h windows', () =>
    expect(parseCompare(new URLSearchParams(''))).toEqual({ event: undefined, at: undefined, window: '1h', reason: undefined }));
  it('an event wins over an instant', () =>
    expect(parseCompare(new URLSearchParams('event=1793523600000-general-5xzjd&at=2026-11-09T10:00:00Z&window=30m'))).toEqual({
      event: '1793523600000-general-5xzjd',
      at: undefined,
      window: '30m',
      reason: undefined,
    }));
  it('reads an instant and a reason; drops a bad window', () =>
    expect(parseCompare(new URLSearchParams('at=2026-11-09T10:00:00.000Z&window=2h&reason=Empty'))).toEqual({
      event: undefined,
      at: '2026-11-09T10:00:00.000Z',
      window: '1h',
      reason: 'Empty',
    }));
  it('drops an instant without a zone and a malformed event', () =>
    expect(parseCompare(new URLSearchParams('at=2026-11-09T10:00&event=General_x'))).toMatchObject({ event: undefined, at: undefined }));
});

describe('selectedInstantMs', () => {
  it('is the chosen instant', () =>
    expect(selectedInstantMs(parseCompare(new URLSearchParams('at=2026-11-09T10:00:00.000Z')))).toBe(
      Date.parse('2026-11-09T10:00:00.000Z'),
    ));
  it("is the event's time, from its id", () =>
    expect(selectedInstantMs(parseCompare(new URLSearchParams('event=1793523600000-general-5xzjd')))).toBe(1793523600000));
  it('is nothing without a choice', () => expect(selectedInstantMs(parseCompare(new URLSearchParams('')))).toBeUndefined());
});

describe('picking', () => {
  it('an event clears the instant', () => expect(pickEventUpdates('1-a')).toEqual({ event: '1-a', at: undefined }));
  it('a click rounds to the minute: 10:07:29.5 -> 10:07', () =>
    expect(pickTimeUpdates(Date.parse('2026-11-09T10:07:29.500Z'))).toEqual({ at: '2026-11-09T10:07:00.000Z', event: undefined }));
  it('lists the nodes gone and come from the instant to the end of the after window', () =>
    expect(nodeChangesRange({ at: '2026-11-09T10:00:00.000Z', after: { to: '2026-11-09T11:00:00.000Z' } })).toEqual({
      from: '2026-11-09T10:00:00.000Z',
      to: '2026-11-09T11:00:00.000Z',
    }));
});

const stats = (p: Partial<WindowStats>): WindowStats => ({
  hours: 1,
  nodesAvg: 0,
  usdPerHourAvg: 0,
  costUsd: 0,
  cpu: null,
  memory: null,
  pods: null,
  gpu: null,
  costWeightedCpu: null,
  costWeightedMemory: null,
  costWeightedPods: null,
  costWeightedGpu: null,
  idleUsdPerHourAvg: 0,
  idleRates: { usdPerVcpuHour: null, usdPerGiBHour: null, usdPerGpuHour: null },
  ...p,
});
const row = (
  scope: 'cluster' | 'nodepool',
  nodePool: string | null,
  before: Partial<WindowStats>,
  after: Partial<WindowStats>,
): CompareRow => ({
  scope,
  nodePool,
  consolidated: false,
  before: stats(before),
  after: stats(after),
  change: { nodesAvg: 0, usdPerHourAvg: 0, cpu: null, memory: null, costWeightedCpu: null, costWeightedMemory: null },
});

describe('compareBars', () => {
  it('pairs before and after, efficiency in percent', () =>
    expect(
      compareBars(
        row(
          'cluster',
          null,
          { nodesAvg: 5, usdPerHourAvg: 1.2, cpu: 0.5, memory: null },
          { nodesAvg: 4, usdPerHourAvg: 0.9, cpu: 0.625, memory: 0.25 },
        ),
      ),
    ).toEqual([
      { metric: 'nodes', label: 'Nodes (average)', before: 5, after: 4, unit: 'count' },
      { metric: 'usdPerHour', label: 'Cost per hour', before: 1.2, after: 0.9, unit: 'usd' },
      { metric: 'cpu', label: 'CPU packed', before: 50, after: 62.5, unit: 'percent' },
      { metric: 'memory', label: 'Memory packed', before: null, after: 25, unit: 'percent' },
    ]));
});

describe('focusRow', () => {
  const rows = [row('cluster', null, {}, {}), row('nodepool', 'general', {}, {})];
  describe.each([
    { nodePool: undefined, expected: rows[0] },
    { nodePool: 'general', expected: rows[1] },
    { nodePool: 'missing', expected: rows[0] },
  ])('$nodePool', ({ nodePool, expected }) => it('picks', () => expect(focusRow(rows, nodePool)).toBe(expected)));
});
