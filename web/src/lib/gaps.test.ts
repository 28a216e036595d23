import { describe, expect, it } from 'vitest';
import { gapThresholdMs } from './gaps';
import { MINUTE_MS } from './time';

describe('gapThresholdMs', () => {
  describe.each([
    // Snapshots every 5 min in 2-min buckets (steps 4 and 6 min, median 6 with an even count): 12 min.
    {
      what: '5-min snapshots, 2-min buckets',
      times: [0, 4, 10, 14, 20].map((m) => m * MINUTE_MS),
      bucketMs: 2 * MINUTE_MS,
      expected: 12 * MINUTE_MS,
    },
    // 15-min buckets holding every snapshot: steps 15 min, median 15 -> 30 min.
    { what: '15-min buckets', times: [0, 15, 30, 60].map((m) => m * MINUTE_MS), bucketMs: 15 * MINUTE_MS, expected: 30 * MINUTE_MS },
    // Hourly buckets, one point each, but a long hole: median step 60 -> 120 min; the 5 h hole is above it.
    {
      what: 'hourly with a hole',
      times: [0, 60, 120, 420, 480].map((m) => m * MINUTE_MS),
      bucketMs: 60 * MINUTE_MS,
      expected: 120 * MINUTE_MS,
    },
    { what: 'one point', times: [0], bucketMs: 5 * MINUTE_MS, expected: 5 * MINUTE_MS },
  ])('$what', ({ times, bucketMs, expected }) =>
    it(`-> ${expected / MINUTE_MS} min`, () => expect(gapThresholdMs(times, bucketMs)).toBe(expected)),
  );
});
