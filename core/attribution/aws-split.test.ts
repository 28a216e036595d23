import { describe, expect, it } from 'vitest';
import { AWS_ACCELERATED_EXAMPLE, AWS_EKS_EXAMPLE, type AwsExample, type AwsExamplePod } from '../../test/fixtures/aws-split-examples.js';
import type { PodUsage } from '../model.js';
import type { AttributedPod } from './attributed-pod.js';
import { awsSplit } from './aws-split.js';

const GiB = 1024 ** 3;
/** USD rounded to the cent, half away from zero, as AWS's tables print it. */
const cents = (usd: number): number => Math.round(usd * 100 + 1e-9) / 100;

const requests = (vcpu: number, gib: number, gpu = 0) => ({ cpuMillicores: vcpu * 1000, memoryBytes: gib * GiB, pods: 1, gpu });
const usage = (vcpu: number, gib: number, gpu?: number): PodUsage => ({ cpuMillicores: vcpu * 1000, memoryBytes: gib * GiB, gpu });
const capacity = (vcpu: number, gib: number, gpu = 0) => ({ cpuMillicores: vcpu * 1000, memoryBytes: gib * GiB, gpu });

const examplePods = (x: AwsExample, withUsage = true): AttributedPod[] =>
  x.pods.map((p) => ({
    requests: requests(p.reservedVcpu, p.reservedMemoryGb, p.reservedGpu),
    usage: withUsage ? usage(p.usedVcpu, p.usedMemoryGb, p.usedGpu) : undefined,
  }));
const run = (x: AwsExample, withUsage = true) =>
  awsSplit({ costUsd: x.amortizedCostUsdPerHour, capacity: capacity(x.vcpu, x.memoryGb, x.gpu), pods: examplePods(x, withUsage) });

describe.each([
  ['EKS (m5.xlarge, 4 vCPU / 16 GB, $1/h)', AWS_EKS_EXAMPLE],
  ['accelerated (p3.16xlarge, 8 GPU / 64 vCPU / 488 GB, $10/h)', AWS_ACCELERATED_EXAMPLE],
])("AWS's worked example of split cost allocation data, %s", (_name, x) => {
  const result = run(x);

  it.each(x.pods.map((p, i) => [p.name, p, i] as [string, AwsExamplePod, number]))(
    '%s: split cost, unused cost and total to the cent as AWS prints them',
    (_pod, p, i) => {
      const r = result.pods[i];
      expect([cents(r.splitCostUsd), cents(r.unusedCostUsd), cents(r.splitCostUsd + r.unusedCostUsd)]).toEqual([
        p.expected.splitCostUsd,
        p.expected.unusedCostUsd,
        p.expected.totalSplitCostUsd,
      ]);
      expect(r.usageFed).toBe(true);
    },
  );

  it('the unit costs to the cent as printed', () => {
    expect(cents(result.unitCostUsd.vcpu)).toBe(x.expectedUnit.perVcpuHourUsd);
    expect(cents(result.unitCostUsd.gpu)).toBe(x.expectedUnit.perGpuHourUsd);
    if (x.expectedUnit.perGbHourUsd !== null) expect(cents(result.unitCostUsd.memoryGiB)).toBe(x.expectedUnit.perGbHourUsd);
  });

  it("the pods' split and unused costs add up to the instance's cost, none left unassigned", () => {
    const total = result.pods.reduce((t, r) => t + r.splitCostUsd + r.unusedCostUsd, 0);
    expect(total).toBeCloseTo(x.amortizedCostUsdPerHour, 12);
    expect(result.unassignedUsd).toBe(0);
    if (x.expectedInstanceUnusedUsd !== null) expect(cents(result.unusedCostUsd)).toBe(x.expectedInstanceUnusedUsd);
  });
});

describe('AWS EKS example: namespaces', () => {
  const result = run(AWS_EKS_EXAMPLE);
  const byNamespace = (amount: (i: number) => number) => {
    const out: Record<string, number> = {};
    AWS_EKS_EXAMPLE.pods.forEach((p, i) => (out[p.namespace] = (out[p.namespace] ?? 0) + amount(i)));
    return out;
  };

  it("AWS's namespace totals are the sums of its pod totals rounded to the cent ($0.23 + $0.19, $0.40 + $0.19)", () => {
    const rounded = byNamespace((i) => cents(result.pods[i].splitCostUsd + result.pods[i].unusedCostUsd));
    expect(Object.fromEntries(Object.entries(rounded).map(([k, v]) => [k, cents(v)]))).toEqual(AWS_EKS_EXAMPLE.expectedNamespaceUsd);
  });

  it('unrounded, Namespace1 is $0.4144 and Namespace2 $0.5856: $0.41 + $0.59 = the $1 instance (AWS prints $0.42 + $0.59 = $1.01)', () => {
    const exact = byNamespace((i) => result.pods[i].splitCostUsd + result.pods[i].unusedCostUsd);
    // Namespace1: (1/4.9 × 36/52 + 4/16 × 16/52 + 4/14 × 2/52) + (1/4.9 × 36/52 + 2/16 × 16/52 + 2/14 × 2/52)
    expect(exact.Namespace1).toBeCloseTo(0.22919937 + 0.18524333, 8);
    expect(exact.Namespace2).toBeCloseTo(0.40031397 + 0.18524333, 8);
    expect([cents(exact.Namespace1), cents(exact.Namespace2)]).toEqual([0.41, 0.59]);
  });
});

describe('awsSplit, hand-worked', () => {
  it('fed by requests only: the same example without usage (allocated = reserved)', () => {
    // vCPU 1+1+1+1 = 4 = available: no unused vCPU; memory 4+4+2+2 = 12 of 16: 4 GB unused × 1/52 = 4/52.
    // Pod1: 1/4 × 36/52 + 4/16 × 16/52 = 13/52 = 0.25 split; 4/12 × 4/52 = 0.02564 unused.
    // Pod3: 1/4 × 36/52 + 2/16 × 16/52 = 11/52 = 0.21154 split; 2/12 × 4/52 = 0.01282 unused.
    const r = run(AWS_EKS_EXAMPLE, false);
    expect(r.pods.map((p) => [p.splitCostUsd, p.unusedCostUsd, p.usageFed])).toEqual([
      [expect.closeTo(13 / 52, 12), expect.closeTo(4 / 3 / 52, 12), false],
      [expect.closeTo(13 / 52, 12), expect.closeTo(4 / 3 / 52, 12), false],
      [expect.closeTo(11 / 52, 12), expect.closeTo(2 / 3 / 52, 12), false],
      [expect.closeTo(11 / 52, 12), expect.closeTo(2 / 3 / 52, 12), false],
    ]);
    expect(r.unusedCostUsd).toBeCloseTo(4 / 52, 12);
  });

  it.each([
    // [case, capacity, pods, expected [split, unused] per pod, unassigned]
    ['an instance without pods: all of it unassigned', capacity(4, 16), [], [], 1],
    [
      'nobody requests memory: the memory part (16/52) stays unassigned',
      capacity(4, 16),
      [{ requests: requests(2, 0) }],
      [[(2 / 4) * (36 / 52), (2 / 4) * (36 / 52)]],
      16 / 52,
    ],
    [
      'a pod asking for nothing is charged nothing',
      capacity(4, 16),
      [{ requests: requests(4, 16) }, { requests: requests(0, 0) }],
      [
        [1, 0],
        [0, 0],
      ],
      0,
    ],
    [
      'memory over-subscribed by usage: split ratio over Σ allocated (20 GB), no unused memory',
      capacity(4, 16),
      [{ requests: requests(2, 4), usage: usage(1, 12) }, { requests: requests(2, 8) }],
      // vCPU 2/4 × 36/52 each; memory 12/20 × 16/52 and 8/20 × 16/52.
      [
        [18 / 52 + (12 / 20) * (16 / 52), 0],
        [18 / 52 + (8 / 20) * (16 / 52), 0],
      ],
      0,
    ],
    ['no capacity known: nothing to divide by, all unassigned', capacity(0, 0), [{ requests: requests(1, 1) }], [[0, 0]], 1],
  ] as [string, ReturnType<typeof capacity>, AttributedPod[], [number, number][], number][])(
    '%s',
    (_case, cap, pods, expected, unassigned) => {
      const r = awsSplit({ costUsd: 1, capacity: cap, pods });
      expect(r.pods.map((p) => [p.splitCostUsd, p.unusedCostUsd])).toEqual(
        expected.map(([s, u]) => [expect.closeTo(s, 12), expect.closeTo(u, 12)]),
      );
      expect(r.unassignedUsd).toBeCloseTo(unassigned, 12);
      const charged = r.pods.reduce((t, p) => t + p.splitCostUsd + p.unusedCostUsd, 0);
      expect(charged + r.unassignedUsd).toBeCloseTo(1, 12);
    },
  );

  it('weighs by the instance capacity given, 9:1 per vCPU:GiB (a 2 vCPU / 16 GiB r-type: 18 + 16 = 34 units)', () => {
    const r = awsSplit({ costUsd: 0.34, capacity: capacity(2, 16), pods: [{ requests: requests(1, 8) }] });
    expect(r.unitCostUsd).toEqual({ vcpu: expect.closeTo(0.09, 12), memoryGiB: expect.closeTo(0.01, 12), gpu: 0 });
    // split 1 × 0.09 + 8 × 0.01 = 0.17; unused (1 vCPU, 8 GiB) = 0.17, all to the only pod.
    expect(r.pods[0].splitCostUsd).toBeCloseTo(0.17, 12);
    expect(r.pods[0].unusedCostUsd).toBeCloseTo(0.17, 12);
  });

  it('breaks each pod down per resource as the CUR writes it: one line for vCPU, one for memory', () => {
    // 2 vCPU / 16 GiB at 0.34 USD: 0.09 per vCPU, 0.01 per GiB. Pod A asks 1 vCPU / 4 GiB and uses 1.5 vCPU; pod B
    // asks 0.25 vCPU / 2 GiB and reports no usage. CPU: allocated 1.5 + 0.25 of 2, ratios 0.75 and 0.125, split
    // 0.135 and 0.0225, unused 0.25 vCPU × 0.09 = 0.0225 shared 1.5 : 0.25. Memory: 4 + 2 of 16, ratios 0.25 and
    // 0.125, split 0.04 and 0.02, unused 10 GiB × 0.01 = 0.10 shared 4 : 2.
    const r = awsSplit({
      costUsd: 0.34,
      capacity: capacity(2, 16),
      pods: [{ requests: requests(1, 4), usage: usage(1.5, 3) }, { requests: requests(0.25, 2) }],
    });
    const [a, b] = r.pods.map((p) => p.byResource);
    expect([a.cpu.reservedUnits, a.cpu.actualUnits, a.cpu.allocatedUnits, b.cpu.actualUnits]).toEqual([1, 1.5, 1.5, null]);
    expect([a.cpu.splitUsageRatio, b.cpu.splitUsageRatio, a.memory.splitUsageRatio, b.memory.splitUsageRatio]).toEqual([
      0.75, 0.125, 0.25, 0.125,
    ]);
    const costs = [a.cpu, b.cpu, a.memory, b.memory].map((c) => [c.splitCostUsd, c.unusedCostUsd]);
    expect(costs).toEqual(
      [
        [0.135, (0.0225 * 1.5) / 1.75],
        [0.0225, (0.0225 * 0.25) / 1.75],
        [0.04, (0.1 * 4) / 6],
        [0.02, (0.1 * 2) / 6],
      ].map(([s, u]) => [expect.closeTo(s, 12), expect.closeTo(u, 12)]),
    );
    expect(r.pods[0].splitCostUsd).toBeCloseTo(a.cpu.splitCostUsd + a.memory.splitCostUsd + a.gpu.splitCostUsd, 12);
    expect(r.pods[1].unusedCostUsd).toBeCloseTo(b.cpu.unusedCostUsd + b.memory.unusedCostUsd, 12);
  });
});
