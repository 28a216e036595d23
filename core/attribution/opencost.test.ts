import { describe, expect, it } from 'vitest';
import type { AttributedPod } from './attributed-pod.js';
import { openCost, OPENCOST_DEFAULT_PRICES } from './opencost.js';

const GiB = 1024 ** 3;
const requests = (cores: number, gib: number, gpu = 0) => ({ cpuMillicores: cores * 1000, memoryBytes: gib * GiB, pods: 1, gpu });
const capacity = (cores: number, gib: number, gpu = 0) => ({ cpuMillicores: cores * 1000, memoryBytes: gib * GiB, gpu });

describe('openCost: the node price split by relative prices (OpenCost Specification, Appendix A)', () => {
  it("the specification's own example: 1 GPU + 1 CPU + 1 GB for $35 with base prices $30/$30/$10 -> $15, $15, $5", () => {
    // Origin: opencost/opencost@1d230acccebef6344ea33fdad8a8e77612792da3 spec/opencost-specv01.md, Appendix A.
    const r = openCost({
      costUsd: 35,
      capacity: capacity(1, 1, 1),
      pods: [],
      basePrices: { cpuPerCoreUsd: 30, ramPerGiBUsd: 10, gpuPerGpuUsd: 30 },
    });
    expect(r.prices).toEqual({
      cpuPerCoreUsd: expect.closeTo(15, 12),
      ramPerGiBUsd: expect.closeTo(5, 12),
      gpuPerGpuUsd: expect.closeTo(15, 12),
    });
    expect(r.idleUsd).toBeCloseTo(35, 12);
  });

  it.each([
    // [case, node cost USD/h, capacity (cores, GiB), expected price per core, per GiB]
    // A 4-core / 16 GiB node priced at exactly OpenCost's base prices (4 × 0.031611 + 16 × 0.004237 = 0.194236) keeps them.
    ['priced at the base prices', 0.194236, [4, 16], 0.031611, 0.004237],
    // Twice that price: both prices double; the ratio (7.4607 per core : 1 per GiB) holds.
    ['twice the base prices', 0.388472, [4, 16], 0.063222, 0.008474],
    // $0.52/h over 4 × 7.460703 + 16 = 45.842813 GiB-equivalents: $0.0113431 per GiB, × 7.460703 = $0.0846276 per core.
    ['an m5.xlarge-shaped node at $0.52/h', 0.52, [4, 16], 0.08462757, 0.01134311],
    // A compute-heavy shape: 2 × 7.460703 + 4 = 18.921407 -> $0.00449227 per GiB, $0.03351547 per core (79 % on cpu).
    ['a c-type shape, 2 cores / 4 GiB at $0.085/h', 0.085, [2, 4], 0.03351547, 0.00449227],
  ] as [string, number, [number, number], number, number][])('%s', (_case, cost, [cores, gib], cpu, ram) => {
    const r = openCost({ costUsd: cost, capacity: capacity(cores, gib), pods: [] });
    expect(r.prices.cpuPerCoreUsd).toBeCloseTo(cpu, 8);
    expect(r.prices.ramPerGiBUsd).toBeCloseTo(ram, 8);
    expect(r.prices.cpuPerCoreUsd * cores + r.prices.ramPerGiBUsd * gib).toBeCloseTo(cost, 12);
    expect(r.prices.cpuPerCoreUsd / r.prices.ramPerGiBUsd).toBeCloseTo(
      OPENCOST_DEFAULT_PRICES.cpuPerCoreUsd / OPENCOST_DEFAULT_PRICES.ramPerGiBUsd,
      9,
    );
  });

  it('a GPU node: GPU price 0.95 / 0.004237 = 224.2 GiB-equivalents each', () => {
    // 1 GPU, 8 cores, 32 GiB at $1.00: 224.215247 + 59.685627 + 32 = 315.900873 -> $0.00316555 per GiB; the GPU
    // 224.215247 × that = $0.709765.
    const r = openCost({ costUsd: 1, capacity: capacity(8, 32, 1), pods: [{ requests: requests(0, 0, 1) }] });
    expect(r.prices.ramPerGiBUsd).toBeCloseTo(0.00316555, 8);
    expect(r.pods[0].gpuCostUsd).toBeCloseTo(0.709765, 6);
  });
});

describe('openCost: workload cost is max(request, usage) × price; idle is the rest', () => {
  // A node priced at the base prices (4 cores, 16 GiB, $0.194236/h): a core costs $0.031611, a GiB $0.004237.
  const node = { costUsd: 0.194236, capacity: capacity(4, 16) };

  it.each([
    // [case, pod, expected cpu USD, ram USD, usageFed]
    ['requests only (no usage collected)', { requests: requests(1, 2) }, 0.031611, 0.008474, false],
    [
      'usage above the cpu request is charged',
      { requests: requests(1, 2), usage: { cpuMillicores: 1500, memoryBytes: 1 * GiB } },
      0.0474165,
      0.008474,
      true,
    ],
    [
      'usage below the request: the request stands',
      { requests: requests(2, 4), usage: { cpuMillicores: 300, memoryBytes: 1 * GiB } },
      0.063222,
      0.016948,
      true,
    ],
  ] as [string, AttributedPod, number, number, boolean][])('%s', (_case, pod, cpu, ram, fed) => {
    const r = openCost({ ...node, pods: [pod] });
    expect(r.pods[0]).toEqual({
      cpuCostUsd: expect.closeTo(cpu, 12),
      ramCostUsd: expect.closeTo(ram, 12),
      gpuCostUsd: 0,
      totalUsd: expect.closeTo(cpu + ram, 12),
      usageFed: fed,
    });
    expect(r.idleUsd).toBeCloseTo(0.194236 - cpu - ram, 12);
  });

  it('usage past the capacity makes idle negative, and the lines still add up to the node cost', () => {
    // 3 cores requested + 2 used by a pod requesting none: 5 cores × 0.031611 = 0.158055 > 4 cores' worth.
    const r = openCost({
      ...node,
      pods: [{ requests: requests(3, 0) }, { requests: requests(0, 0), usage: { cpuMillicores: 2000, memoryBytes: 0 } }],
    });
    expect(r.idleUsd).toBeCloseTo(0.194236 - 0.158055, 12);
    expect(r.pods.reduce((t, p) => t + p.totalUsd, 0) + r.idleUsd).toBeCloseTo(0.194236, 12);
    const tight = openCost({
      costUsd: 0.126444,
      capacity: capacity(4, 0),
      pods: [{ requests: requests(3, 0) }, { requests: requests(2, 0) }],
    });
    expect(tight.idleUsd).toBeCloseTo(-0.031611, 12);
  });

  it('a node without capacity cannot be priced per unit: all idle', () => {
    const r = openCost({ costUsd: 1, capacity: capacity(0, 0), pods: [{ requests: requests(1, 1) }] });
    expect(r.pods[0].totalUsd).toBe(0);
    expect(r.idleUsd).toBe(1);
  });
});
