import { describe, expect, it } from 'vitest';
import { addSums, nodePacking, packingStats, sumByNodePool, zeroSums, type PackingSums } from './packing.js';

const GiB = 1024 ** 3;

/** Sums of one node held for `hours`: 4 vCPU / 16 GiB / 110 pods at `usd`/h, with the given requests. */
function nodeFor(
  hours: number,
  o: { cpu: number; memGiB: number; reqCpu: number; reqMemGiB: number; pods?: number; usd: number; gpu?: number; reqGpu?: number },
): PackingSums {
  const cpuEff = o.reqCpu / o.cpu;
  const memEff = o.reqMemGiB / o.memGiB;
  const podEff = (o.pods ?? 0) / 110;
  const gpuEff = o.gpu ? (o.reqGpu ?? 0) / o.gpu : 0;
  // The collector's relative-price sums (core/rollup.ts): the node's price split by 0.031611 a core, 0.004237 a GiB, 0.95 a GPU.
  const units = (o.cpu / 1000) * 0.031611 + o.memGiB * 0.004237 + (o.gpu ?? 0) * 0.95;
  const wc = ((o.cpu / 1000) * 0.031611) / units;
  const wm = (o.memGiB * 0.004237) / units;
  const wg = ((o.gpu ?? 0) * 0.95) / units;
  return {
    nodeHours: hours,
    costUsd: o.usd * hours,
    allocCpuMillicoreHours: o.cpu * hours,
    reqCpuMillicoreHours: o.reqCpu * hours,
    allocMemoryByteHours: o.memGiB * GiB * hours,
    reqMemoryByteHours: o.reqMemGiB * GiB * hours,
    allocPodHours: 110 * hours,
    reqPodHours: (o.pods ?? 0) * hours,
    allocGpuHours: (o.gpu ?? 0) * hours,
    reqGpuHours: (o.reqGpu ?? 0) * hours,
    costWeightedCpuUsd: o.usd * cpuEff * hours,
    costWeightedMemoryUsd: o.usd * memEff * hours,
    costWeightedPodsUsd: o.usd * podEff * hours,
    costWeightedGpuUsd: o.gpu ? o.usd * gpuEff * hours : 0,
    gpuNodesUsd: o.gpu ? o.usd * hours : 0,
    onDemandUsd: o.usd * hours,
    onDemandUnknownUsd: 0,
    rpRequestedUsd: o.usd * (wc * cpuEff + wm * memEff + wg * gpuEff) * hours,
    rpCpuUsd: o.usd * wc * hours,
    rpGpuUsd: o.usd * wg * hours,
  };
}

describe('packingStats', () => {
  // A node at 50 % cpu / 25 % memory: 4 vCPU / 16 GiB at $0.96/h, requests 2 vCPU / 4 GiB and 11 pods, for 2 hours.
  const half = nodeFor(2, { cpu: 4000, memGiB: 16, reqCpu: 2000, reqMemGiB: 4, pods: 11, usd: 0.96 });

  it('a node at 50 % cpu / 25 % memory', () => {
    const s = packingStats(half, 2);
    expect(s.cpu).toBe(0.5);
    expect(s.memory).toBe(0.25);
    expect(s.pods).toBeCloseTo(0.1, 12); // 11 / 110
    expect(s.gpu).toBeNull(); // no GPU allocatable: no efficiency, not 0 %
    expect(s.costWeightedCpu).toBeCloseTo(0.5, 12);
    expect(s.costWeightedMemory).toBeCloseTo(0.25, 12);
    expect(s.nodesAvg).toBe(1);
    expect(s.costUsd).toBeCloseTo(1.92, 12);
    expect(s.usdPerHourAvg).toBeCloseTo(0.96, 12);
    expect(s.idleVcpuAvg).toBeCloseTo(2, 12); // 4 − 2
    expect(s.idleMemoryGiBAvg).toBeCloseTo(12, 12); // 16 − 4
    // Relative price: 4 × 0.031611 = 0.126444 (CPU) and 16 × 0.004237 = 0.067792 (memory) of 0.194236: w_cpu 0.650981,
    // w_memory 0.349019; idle = 0.96 × (1 − (0.650981 × 0.5 + 0.349019 × 0.25)) = 0.96 × 0.587255 = 0.563764
    // (50/50 made it 0.60). Rates: 0.96 × 0.650981 / 4 = 0.156236 a vCPU-hour, 0.96 × 0.349019 / 16 = 0.020941 a GiB-hour.
    expect(s.idleUsdPerHourAvg).toBeCloseTo(0.563764, 6);
    expect(s.rates.usdPerVcpuHour).toBeCloseTo(0.156236, 6);
    expect(s.rates.usdPerGiBHour).toBeCloseTo(0.020941, 6);
    expect(s.rates.usdPerGpuHour).toBeNull();
  });

  it('time-weights: the node above for 2 h and the same node full for 1 h', () => {
    const full = nodeFor(1, { cpu: 4000, memGiB: 16, reqCpu: 4000, reqMemGiB: 16, usd: 0.96 });
    const s = packingStats(addSums(half, full), 3);
    // cpu (2000 × 2 + 4000 × 1) / (4000 × 3) = 8000 / 12000; memory (4 × 2 + 16) / (16 × 3) = 24 / 48
    expect(s.cpu).toBeCloseTo(2 / 3, 12);
    expect(s.memory).toBeCloseTo(0.5, 12);
    expect(s.idleUsdPerHourAvg).toBeCloseTo((0.563764 * 2 + 0) / 3, 6);
  });

  it('weights efficiency by cost: a cheap full node and an expensive half-empty one', () => {
    // cheap: 2 vCPU at $0.10/h, 100 % cpu; dear: 2 vCPU at $0.30/h, 25 % cpu. Both 8 GiB, 2 GiB requested (25 %).
    const cheap = nodeFor(1, { cpu: 2000, memGiB: 8, reqCpu: 2000, reqMemGiB: 2, usd: 0.1 });
    const dear = nodeFor(1, { cpu: 2000, memGiB: 8, reqCpu: 500, reqMemGiB: 2, usd: 0.3 });
    const s = packingStats(addSums(cheap, dear), 1);
    // plain: 2500 / 4000 = 0.625; cost-weighted: (0.1 × 1 + 0.3 × 0.25) / 0.4 = 0.175 / 0.4 = 0.4375
    expect(s.cpu).toBeCloseTo(0.625, 12);
    expect(s.costWeightedCpu).toBeCloseTo(0.4375, 12);
    expect(s.nodesAvg).toBe(2);
  });

  it('GPU efficiency over GPU nodes only', () => {
    const gpuNode = nodeFor(1, { cpu: 8000, memGiB: 32, reqCpu: 2000, reqMemGiB: 8, usd: 1.2, gpu: 4, reqGpu: 1 });
    const plain = nodeFor(1, { cpu: 4000, memGiB: 16, reqCpu: 2000, reqMemGiB: 4, usd: 0.96 });
    const s = packingStats(addSums(gpuNode, plain), 1);
    expect(s.gpu).toBeCloseTo(0.25, 12);
    expect(s.costWeightedGpu).toBeCloseTo(0.25, 12); // (1.2 × 0.25) / 1.2, the plain node's price not in the denominator
  });

  it('averages over the hours covered, so a NodePool absent half the time averages half a node', () => {
    expect(packingStats(half, 4).nodesAvg).toBe(0.5);
    expect(packingStats(zeroSums(), 0)).toMatchObject({ nodesAvg: 0, cpu: null, costWeightedCpu: null, usdPerHourAvg: 0 });
  });

  it('folds capacity types into their NodePool', () => {
    const m = sumByNodePool([
      { ...half, nodePool: 'general' },
      { ...half, nodePool: 'general' },
      { ...half, nodePool: 'batch' },
    ]);
    expect(m.get('general')?.nodeHours).toBe(4);
    expect(m.get('batch')?.nodeHours).toBe(2);
  });
});

describe('nodePacking', () => {
  it.each([
    // 50 % cpu / 25 % memory at $0.96/h: idle 2 vCPU, 12 GiB, 0.96 × (1 − (0.650981 × 0.5 + 0.349019 × 0.25)) = $0.563764/h
    { req: [2000, 4], usd: 0.96, cpu: 0.5, memory: 0.25, idleVcpu: 2, idleGiB: 12, idleUsd: 0.563764 },
    // empty: all idle
    { req: [0, 0], usd: 0.96, cpu: 0, memory: 0, idleVcpu: 4, idleGiB: 16, idleUsd: 0.96 },
    // no price known: idle money 0
    { req: [1000, 8], usd: null, cpu: 0.25, memory: 0.5, idleVcpu: 3, idleGiB: 8, idleUsd: 0 },
  ])('requests $req at $usd/h', ({ req, usd, cpu, memory, idleVcpu, idleGiB, idleUsd }) => {
    const p = nodePacking({
      allocCpuMillicores: 4000,
      reqCpuMillicores: req[0],
      allocMemoryBytes: 16 * GiB,
      reqMemoryBytes: req[1] * GiB,
      allocPods: 110,
      reqPods: 3,
      allocGpu: 0,
      reqGpu: 0,
      usdPerHour: usd,
    });
    expect(p.cpu).toBeCloseTo(cpu, 12);
    expect(p.memory).toBeCloseTo(memory, 12);
    expect(p.gpu).toBeNull();
    expect(p.idleVcpu).toBeCloseTo(idleVcpu, 12);
    expect(p.idleMemoryGiB).toBeCloseTo(idleGiB, 12);
    expect(p.idleUsdPerHour).toBeCloseTo(idleUsd, 6);
    if (usd === null) expect(p.rates).toBeNull();
    else
      expect(p.rates).toEqual({
        usdPerVcpuHour: expect.closeTo(0.156236, 6),
        usdPerGiBHour: expect.closeTo(0.020941, 6),
        usdPerGpuHour: null,
      });
  });
});
