import { describe, expect, it } from 'vitest';
import {
  formatGoDuration,
  goDurationMs,
  quantileSorted,
  rollupWorkloadHours,
  type RollupInput,
  usageCpuMillicores,
  usageMemoryBytes,
  workloadFromPodName,
  workloadOf,
} from './usage.js';

const H = 3_600_000;

describe('usage quantities as metrics-server reports them', () => {
  // Values from the Kubernetes docs' resource metrics pipeline samples and a metrics-server v0.7 answer (see
  // test/fixtures/metrics-server.ts): CPU in nanocores, memory in Ki.
  it.each([
    ['9559630n', 9.55963],
    ['487558164n', 487.558164],
    ['429151n', 0.429151],
    ['7m', 7],
    ['250u', 0.25],
    ['2', 2000],
    ['0', 0],
  ])('cpu %s = %f millicores (not rounded up, unlike a request)', (q, m) => expect(usageCpuMillicores(q)).toBeCloseTo(m, 9));
  it.each([
    ['22244Ki', 22244 * 1024],
    ['732212Ki', 732212 * 1024],
    ['408Ki', 417_792],
    ['256Mi', 268_435_456],
    ['1G', 1e9],
    ['12345', 12345],
  ])('memory %s = %d bytes', (q, b) => expect(usageMemoryBytes(q)).toBe(b));
  it('a malformed quantity is NaN, not 0', () => {
    expect(usageCpuMillicores('12 cores')).toBeNaN();
    expect(usageMemoryBytes('')).toBeNaN();
  });
});

describe('Go durations (metav1.Duration: PodMetrics.window)', () => {
  it.each([
    ['30s', 30_000],
    ['1m0s', 60_000],
    ['34.475s', 34_475],
    ['10.5s', 10_500],
    ['1h2m3.5s', 3_723_500],
    ['500ms', 500],
    ['0s', 0],
  ])('%s = %d ms', (text, ms) => expect(goDurationMs(text)).toBeCloseTo(ms, 6));
  it.each([['10'], ['s'], ['1x'], ['']])('%s is malformed', (text) => expect(goDurationMs(text)).toBeNaN());
  it.each([
    [10_500, '10.5s'],
    [30_000, '30s'],
    [60_000, '1m0s'],
    [14_873, '14.873s'],
    [3_723_500, '1h2m3.5s'],
  ])('%d ms prints as %s', (ms, text) => {
    expect(formatGoDuration(ms)).toBe(text);
    expect(goDurationMs(formatGoDuration(ms))).toBe(ms);
  });
});

describe('quantileSorted: linear interpolation between closest ranks (Prometheus quantile_over_time, numpy default)', () => {
  // [100, 200, 300, 400, 1000], n = 5, rank = p x 4:
  //   p50: rank 2 -> 300; p95: rank 3.8 -> 400 + 0.8 x 600 = 880; p99: rank 3.96 -> 400 + 0.96 x 600 = 976.
  // Twelve 5-minute samples 10, 20, ..., 120, rank = p x 11:
  //   p50: rank 5.5 -> 60 + 0.5 x 10 = 65; p95: rank 10.45 -> 110 + 0.45 x 10 = 114.5; p99: rank 10.89 -> 118.9.
  it.each([
    [[100, 200, 300, 400, 1000], 0.5, 300],
    [[100, 200, 300, 400, 1000], 0.95, 880],
    [[100, 200, 300, 400, 1000], 0.99, 976],
    [[100, 200, 300, 400, 1000], 1, 1000],
    [[100, 200, 300, 400, 1000], 0, 100],
    [[10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120], 0.5, 65],
    [[10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120], 0.95, 114.5],
    [[10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120], 0.99, 118.9],
    [[42], 0.95, 42],
  ])('%j at %f = %f', (xs, p, want) => expect(quantileSorted(xs, p)).toBeCloseTo(want, 9));
  it('an empty series has no quantile', () => expect(quantileSorted([], 0.5)).toBeNaN());
});

describe('workloadOf: the owner a recommendation is for', () => {
  const pod = (ownerKind: string | null, ownerName: string | null, labels: Record<string, string> = {}) => ({
    name: 'web-frontend-7d9f8c6b5-x2k9q',
    ownerKind,
    ownerName,
    labels,
  });
  it.each([
    [pod('ReplicaSet', 'web-frontend-7d9f8c6b5', { 'pod-template-hash': '7d9f8c6b5' }), 'Deployment', 'web-frontend'],
    // A ReplicaSet made by hand (no matching pod-template-hash) stays a ReplicaSet.
    [pod('ReplicaSet', 'legacy-rs', {}), 'ReplicaSet', 'legacy-rs'],
    [pod('StatefulSet', 'ledger-db'), 'StatefulSet', 'ledger-db'],
    [pod('Job', 'nightly-etl'), 'Job', 'nightly-etl'],
    [pod('DaemonSet', 'node-exporter'), 'DaemonSet', 'node-exporter'],
    [pod('Node', 'ip-10-0-1-2.ec2.internal'), 'Pod', 'web-frontend-7d9f8c6b5-x2k9q'],
    [pod(null, null), 'Pod', 'web-frontend-7d9f8c6b5-x2k9q'],
  ])('%j -> %s/%s', (p, kind, name) => expect(workloadOf(p)).toEqual({ kind, name }));

  it.each([
    ['web-frontend-7d9f8c6b5-x2k9q', 'Deployment', 'web-frontend'],
    ['coredns-5d78c9869d-abcde', 'Deployment', 'coredns'],
    ['ledger-db-2', 'StatefulSet', 'ledger-db'],
    ['etcd', 'Pod', 'etcd'],
  ])('a pod known only by name: %s -> %s/%s', (name, kind, wname) => expect(workloadFromPodName(name)).toEqual({ kind, name: wname }));
});

describe('rollupWorkloadHours', () => {
  const base = { namespace: 'storefront', workloadKind: 'Deployment', workloadName: 'web', container: 'web' };
  const s = (at: number, pod: string, cpu: number, memMiB: number, reqCpu: number | null = 500): RollupInput => ({
    ...base,
    at,
    pod,
    cpuMillicores: cpu,
    memoryBytes: memMiB * 2 ** 20,
    requestCpuMillicores: reqCpu,
    requestMemoryBytes: reqCpu === null ? null : 2 ** 30,
  });

  it('a workload whose p95 and max differ: two pods over one hour, one spike', () => {
    // Hour 10:00: pod a at 100, 200, 300 m; pod b at 400 m and one 1,000 m spike -> sorted [100, 200, 300, 400, 1000]:
    // p50 300, p95 880, p99 976, max 1000, mean 2000 / 5 = 400. Memory max 700 MiB, mean (100+200+300+400+700)/5 = 340 MiB.
    // One sample at 11:00 opens a second hour.
    const t = 10 * H;
    const rows = rollupWorkloadHours(
      [
        s(t, 'a', 100, 100),
        s(t + 300_000, 'a', 200, 200),
        s(t + 600_000, 'a', 300, 300),
        s(t, 'b', 400, 400),
        s(t + 3_599_999, 'b', 1000, 700, null),
        s(t + H, 'b', 50, 10),
      ],
      [{ at: t + 1_000, ...base }],
    );
    expect(rows).toHaveLength(2);
    expect(rows[0]).toEqual({
      hourStart: t,
      ...base,
      samples: 5,
      pods: 2,
      cpuP50Millicores: 300,
      cpuP95Millicores: expect.closeTo(880, 9),
      cpuP99Millicores: expect.closeTo(976, 9),
      cpuMaxMillicores: 1000,
      cpuAvgMillicores: 400,
      memoryMaxBytes: 700 * 2 ** 20,
      memoryAvgBytes: 340 * 2 ** 20,
      requestCpuMillicores: 500,
      requestMemoryBytes: 2 ** 30,
      limitCpuMillicores: null,
      oomKills: 1,
    });
    expect(rows[1]).toMatchObject({ hourStart: t + H, samples: 1, pods: 1, cpuP95Millicores: 50, oomKills: 0 });
  });

  it('a container using 300m of a 1,000m request: every quantile at 300, mean 300', () => {
    const rows = rollupWorkloadHours([0, 1, 2, 3].map((i) => s(i * 300_000, 'p', 300, 64, 1000)));
    expect(rows[0]).toMatchObject({ cpuP50Millicores: 300, cpuP95Millicores: 300, cpuMaxMillicores: 300, requestCpuMillicores: 1000 });
  });

  it('the CPU limit is the largest seen in the hour (a rollout from 800m to 1,200m), null where no sample had one', () => {
    const rows = rollupWorkloadHours([
      { ...s(0, 'a', 100, 64), limitCpuMillicores: 800 },
      { ...s(60_000, 'b', 100, 64), limitCpuMillicores: 1200 },
      { ...s(120_000, 'c', 100, 64), limitCpuMillicores: null },
      s(H, 'a', 100, 64),
    ]);
    expect(rows.map((r) => r.limitCpuMillicores)).toEqual([1200, null]);
  });

  it('an OOM kill in an hour without samples still gets a row', () => {
    const rows = rollupWorkloadHours([], [{ at: 5 * H + 10, ...base }]);
    expect(rows).toEqual([expect.objectContaining({ hourStart: 5 * H, samples: 0, oomKills: 1, requestCpuMillicores: null })]);
  });
});
