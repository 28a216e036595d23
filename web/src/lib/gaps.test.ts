import { describe, expect, it } from 'vitest';
import { gapThresholdMs } from './gaps';

const MIN = 60_000;

describe('gapThresholdMs', () => {
  describe.each([
    // Snapshots every 5 min in 2-min buckets (steps 4 and 6 min, median 6 with an even count): 12 min.
    { what: '5-min snapshots, 2-min buckets', times: [0, 4, 10, 14, 20].map((m) => m * MIN), bucketMs: 2 * MIN, expected: 12 * MIN },
    // 15-min buckets holding every snapshot: steps 15 min, median 15 -> 30 min.
    { what: '15-min buckets', times: [0, 15, 30, 60].map((m) => m * MIN), bucketMs: 15 * MIN, expected: 30 * MIN },
    // Hourly buckets, one point each, but a long hole: median step 60 -> 120 min; the 5 h hole is above it.
    { what: 'hourly with a hole', times: [0, 60, 120, 420, 480].map((m) => m * MIN), bucketMs: 60 * MIN, expected: 120 * MIN },
    { what: 'one point', times: [0], bucketMs: 5 * MIN, expected: 5 * MIN },
  ])('$what', ({ times, bucketMs, expected }) =>
    it(`-> ${expected / MIN} min`, () => expect(gapThresholdMs(times, bucketMs)).toBe(expected)),
  );
});
