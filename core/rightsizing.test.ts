import { describe, expect, it } from 'vitest';
import { DEFAULT_RIGHTSIZING, MIB, recommend, type ContainerHistory, type RightsizingHour } from './rightsizing.js';
import { HOUR_MS } from './time.js';

const T0 = Date.UTC(2026, 10, 2);

/** `n` hours from T0, each from `hour(i)`; requests 1,000m / 512 MiB unless the hour says otherwise. */
function hours(n: number, hour: (i: number) => Partial<RightsizingHour>): RightsizingHour[] {
  return Array.from({ length: n }, (_, i) => ({
    hourStart: T0 + i * HOUR_MS,
    samples: 60,
    cpuP95Millicores: 0,
    cpuMaxMillicores: 0,
    memoryMaxBytes: 0,
    requestCpuMillicores: 1000,
    requestMemoryBytes: 512 * MIB,
    oomKills: 0,
    ...hour(i),
  }));
}

const history = (h: RightsizingHour[], more: Partial<ContainerHistory> = {}): ContainerHistory => ({
  namespace: 'shop',
  workloadKind: 'Deployment',
  workloadName: 'web',
  container: 'app',
  hours: h,
  oomKillLimitsBytes: [],
  cpuLimitMillicores: null,
  ...more,
});

describe('right-sized requests (KRR simple strategy: CPU p95, memory max + 15 %; Kubecost floors 10m / 20 MiB)', () => {
  it.each([
    {
      name: 'a container using 300m of a 1,000m request, 200 MiB of 512 MiB, for a whole day',
      // p95 of 24 equal hourly p95s is 300; memory 200 MiB × 1.15 = 230 MiB.
      input: history(hours(24, () => ({ cpuP95Millicores: 300, cpuMaxMillicores: 300, memoryMaxBytes: 200 * MIB }))),
      cpu: 300,
      memory: 230 * MIB,
      deltaCpu: -700,
      deltaMemory: -282 * MIB,
      flags: [],
    },
    {
      name: 'p95 and max differ: hourly p95s 10m … 200m over 20 h, one 900m spike; request 150m',
      // rank 0.95 × (20 − 1) = 18.05 between 190 and 200: 190 + 0.05 × 10 = 190.5 -> 191m (up to whole millicores);
      // the 900m max is not what CPU is set at. 20 h < 1 day: short-history; 190.5 > 150: above the request (no limit:
      // not throttled, issue 21 item 8).
      input: history(
        hours(20, (i) => ({
          cpuP95Millicores: 10 * (i + 1),
          cpuMaxMillicores: i === 7 ? 900 : 10 * (i + 1),
          memoryMaxBytes: 100 * MIB,
          requestCpuMillicores: 150,
        })),
      ),
      cpu: 191,
      memory: 115 * MIB,
      deltaCpu: 41,
      deltaMemory: 115 * MIB - 512 * MIB,
      flags: ['short-history', 'above-request'],
    },
    {
      name: 'OOM-killed at its 256 MiB limit though metrics-server saw at most 180 MiB',
      // The kill's limit is the peak: max(180, 256) × 1.15 = 294.4 MiB -> 295 MiB, never the 207 MiB the working set says.
      input: history(
        hours(24, (i) => ({
          cpuP95Millicores: 50,
          cpuMaxMillicores: 80,
          memoryMaxBytes: 180 * MIB,
          requestMemoryBytes: 256 * MIB,
          oomKills: i === 12 ? 1 : 0,
        })),
        { oomKillLimitsBytes: [256 * MIB] },
      ),
      cpu: 50,
      memory: 295 * MIB,
      deltaCpu: -950,
      deltaMemory: 39 * MIB,
      flags: ['oom-killed'],
    },
    {
      name: 'OOM-killed without a known limit: memory is not lowered below the 512 MiB request (100 MiB × 1.15 would be 115 MiB)',
      input: history(
        hours(24, () => ({ cpuP95Millicores: 40, cpuMaxMillicores: 40, memoryMaxBytes: 100 * MIB })),
        { oomKillLimitsBytes: [null] },
      ),
      cpu: 40,
      memory: 512 * MIB,
      deltaCpu: -960,
      deltaMemory: 0,
      flags: ['oom-killed'],
    },
    {
      name: 'the floors: 2m and 5 MiB used -> 10m and 20 MiB',
      input: history(hours(24, () => ({ cpuP95Millicores: 2, cpuMaxMillicores: 3, memoryMaxBytes: 5 * MIB }))),
      cpu: 10,
      memory: 20 * MIB,
      deltaCpu: -990,
      deltaMemory: -492 * MIB,
      flags: [],
    },
    {
      name: 'held at its 500m CPU limit: throttled though p95 (400m) is under the 1,000m request',
      input: history(
        hours(24, () => ({ cpuP95Millicores: 400, cpuMaxMillicores: 500, memoryMaxBytes: 100 * MIB })),
        { cpuLimitMillicores: 500 },
      ),
      cpu: 400,
      memory: 115 * MIB,
      deltaCpu: -600,
      deltaMemory: 115 * MIB - 512 * MIB,
      flags: ['throttled'],
    },
    {
      name: 'no request ever seen: the deltas are against 0',
      input: history(
        hours(24, () => ({
          cpuP95Millicores: 120,
          cpuMaxMillicores: 130,
          memoryMaxBytes: 40 * MIB,
          requestCpuMillicores: null,
          requestMemoryBytes: null,
        })),
      ),
      cpu: 120,
      memory: 46 * MIB,
      deltaCpu: 120,
      deltaMemory: 46 * MIB,
      flags: ['no-request'],
    },
  ])('$name', ({ input, cpu, memory, deltaCpu, deltaMemory, flags }) => {
    const r = recommend(input);
    expect(r).toMatchObject({
      recommendedCpuMillicores: cpu,
      recommendedMemoryBytes: memory,
      deltaCpuMillicores: deltaCpu,
      deltaMemoryBytes: deltaMemory,
      flags,
    });
  });

  it('reports what it read: the p95 (190.5m) beside the max (900m), the history (20 h) and the samples (20 × 60)', () => {
    const r = recommend(
      history(hours(20, (i) => ({ cpuP95Millicores: 10 * (i + 1), cpuMaxMillicores: i === 7 ? 900 : 10, memoryMaxBytes: MIB }))),
    );
    expect(r?.cpuQuantileMillicores).toBeCloseTo(190.5, 9);
    expect(r).toMatchObject({ cpuMaxMillicores: 900, historyMs: 20 * HOUR_MS, samples: 1200, memoryMaxBytes: MIB });
  });

  it('the current request is the newest hour that knew one (requests changed from 2,000m to 1,000m mid-window)', () => {
    const h = hours(24, (i) => ({
      cpuP95Millicores: 100,
      cpuMaxMillicores: 100,
      memoryMaxBytes: MIB,
      requestCpuMillicores: i < 12 ? 2000 : 1000,
    }));
    expect(recommend(history(h.reverse()))?.currentCpuMillicores).toBe(1000);
  });

  it('settings change the rules: p50 and no memory buffer -> hourly p95s 10 … 30 give 20m; 100 MiB stays 100 MiB', () => {
    const r = recommend(history(hours(3, (i) => ({ cpuP95Millicores: 10 * (i + 1), cpuMaxMillicores: 40, memoryMaxBytes: 100 * MIB }))), {
      ...DEFAULT_RIGHTSIZING,
      cpuQuantile: 0.5,
      memoryBuffer: 0,
      minHistoryMs: HOUR_MS,
    });
    expect(r).toMatchObject({ recommendedCpuMillicores: 20, recommendedMemoryBytes: 100 * MIB, flags: [] });
  });

  it('no recommendation from hours without samples (an OOM kill before metrics-server saw the container)', () => {
    expect(recommend(history(hours(2, () => ({ samples: 0, oomKills: 1 }))))).toBeNull();
  });
});

describe('throttling at the CPU limit (migration 0015 stores limits with the rollups)', () => {
  // Request 1,000m throughout; the limit and the hourly p95s vary. Near = p95 ≥ 0.9 × limit.
  it.each([
    {
      name: 'p95 460m, peak 480m, limit 500m: 460 ≥ 0.9 × 500 = 450, at its limit though under the request',
      p95: 460,
      max: 480,
      limit: 500,
      by: ['limit'],
    },
    { name: 'p95 440m, peak 480m, limit 500m: 440 < 450 and the peak under 500: not throttled', p95: 440, max: 480, limit: 500, by: [] },
    { name: 'p95 300m, peak 500m, limit 500m: the peak reached the limit', p95: 300, max: 500, limit: 500, by: ['limit'] },
    {
      name: 'p95 1,200m, limit 1,300m: near the limit (≥ 1,170m) and above the 1,000m request',
      p95: 1200,
      max: 1250,
      limit: 1300,
      by: ['limit', 'request'],
    },
    { name: 'p95 1,200m, no limit: above the request only', p95: 1200, max: 1250, limit: null, by: ['request'] },
  ])('$name', ({ p95, max, limit, by }) => {
    const r = recommend(
      history(
        hours(24, () => ({ cpuP95Millicores: p95, cpuMaxMillicores: max, memoryMaxBytes: 100 * MIB })),
        { cpuLimitMillicores: limit },
      ),
    );
    expect(r?.throttledBy).toEqual(by);
    // Only a limit throttles (issue 21 item 8); p95 above the request is its own flag.
    expect(r?.flags.includes('throttled')).toBe(by.includes('limit'));
    expect(r?.flags.includes('above-request')).toBe(by.includes('request'));
    expect(r?.cpuLimitMillicores).toBe(limit);
  });
});
