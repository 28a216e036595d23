import { describe, expect, it } from 'vitest';
import { percentile, tail } from './tail.js';

const oneTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

describe('tail', () => {
  // Worked by hand, nearest rank: the p-th percentile of 1..n is ceil(p/100 x n).
  it.each([
    // samples, statistic, value
    [200, 'p99', 198], // ceil(0.99 x 200) = 198: the two slowest left out
    [100, 'p99', 99], // ceil(99) = 99: the slowest left out
    [99, 'p95', 95], // a p99 of 99 would be ceil(98.01) = 99, the max: a p95 instead, ceil(94.05) = 95
    [40, 'p95', 38], // ceil(0.95 x 40) = 38 (what --quick takes)
    [20, 'p95', 19], // ceil(19) = 19: the slowest left out
    [19, 'max', 19], // a p95 would be ceil(18.05) = 19, the max: named so
    [6, 'max', 6], // the 6-sample "p99" of a loaded quick run was its max
  ])('%d samples: %s = %d', (n, stat, value) => {
    expect(tail(oneTo(n))).toEqual({ stat, ms: value });
  });

  it('percentile of nothing is NaN', () => {
    expect(percentile([], 50)).toBeNaN();
  });
});
