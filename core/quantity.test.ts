import { describe, expect, it } from 'vitest';
import { formatCpu, formatMemory, parseBaseUnits, parseCpuMillicores, QuantityError } from './quantity.js';

describe('parseCpuMillicores', () => {
  it.each([
    ['3920m', 3920],
    ['2', 2000],
    ['0.5', 500],
    ['100m', 100],
    ['1.5', 1500],
    ['250000u', 250],
    ['1n', 1],
    ['2e3', 2_000_000],
    ['.1', 100],
  ])('%s -> %d m', (q, m) => expect(parseCpuMillicores(q)).toBe(m));
});

describe('parseBaseUnits', () => {
  it.each([
    ['15Gi', 15 * 1024 ** 3],
    ['14320468Ki', 14320468 * 1024],
    ['18242267924', 18242267924],
    ['1G', 1e9],
    ['128974848', 128974848],
    ['129e6', 129_000_000],
    ['123Mi', 123 * 1024 ** 2],
    ['29', 29],
    ['1.5Gi', 1.5 * 1024 ** 3],
    ['500m', 1],
  ])('%s -> %d', (q, b) => expect(parseBaseUnits(q)).toBe(b));

  it.each(['', 'abc', '1Gb', '1.2.3', '--1'])('rejects %j', (q) => expect(() => parseBaseUnits(q)).toThrow(QuantityError));
});

describe('format', () => {
  it('round-trips common forms', () => {
    expect(formatCpu(1930)).toBe('1930m');
    expect(formatCpu(2000)).toBe('2');
    expect(formatMemory(6903 * 1024 ** 2)).toBe('6903Mi');
    expect(formatMemory(8 * 1024 ** 3)).toBe('8Gi');
  });
});
