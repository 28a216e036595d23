import { describe, expect, it } from 'vitest';
import { openCost } from './attribution/opencost.js';
import { fixedWeights, idleUsd, ratesOfParts, relativePriceWeights, takenUsd, unitRates } from './cost-weights.js';

const GiB = 1024 ** 3;
const offers = (vcpus: number, gib: number, gpu = 0) => ({ cpuMillicores: vcpus * 1000, memoryBytes: gib * GiB, gpu });
const asks = offers;

/*
 * A compute-optimised node, c6i.xlarge: 4 vCPU / 8 GiB at USD 0.17/h (on-demand, us-east-1).
 * Relative price (OpenCost's base prices, configs/default.json): CPU 4 × 0.031611 = 0.126444, memory 8 × 0.004237 =
 * 0.033896, of 0.160340: w_cpu = 0.126444 ÷ 0.160340 = 0.788599, w_memory = 0.211401.
 * Rates: 0.17 × 0.788599 = 0.134062 over 4 vCPU = USD 0.0335155 a vCPU-hour; 0.17 × 0.211401 = 0.0359381 over 8 GiB =
 * USD 0.00449227 a GiB-hour (the same as core/attribution/opencost.test.ts's c-type shape, 2 / 4 at 0.085).
 *
 * Memory-heavy pods asking 1 vCPU and 6 GiB (a quarter of the CPU, three quarters of the memory):
 *   50/50:          covered 0.5 × 0.25 + 0.5 × 0.75 = 0.5; idle 0.17 × 0.5 = USD 0.085/h.
 *   relative price: covered 0.788599 × 0.25 + 0.211401 × 0.75 = 0.197150 + 0.158551 = 0.355701;
 *                   idle 0.17 × 0.644299 = USD 0.109531/h, 29 % more than 50/50 says.
 * CPU-heavy pods asking 3 vCPU and 2 GiB: 50/50 again 0.5 and USD 0.085; relative price 0.591449 + 0.052850 =
 * 0.644299, idle 0.17 × 0.355701 = USD 0.060469/h, 29 % less. 50/50 calls the two nodes equally idle.
 */
const C6I = { usd: 0.17, offered: offers(4, 8) };

describe('the one weighting of a node price: relative price (core/cost-weights.ts)', () => {
  it('c6i.xlarge (4 vCPU / 8 GiB): w_cpu 0.788599, w_memory 0.211401, no GPU part', () => {
    const w = relativePriceWeights(C6I.offered);
    expect(w.cpu).toBeCloseTo(0.788599, 6);
    expect(w.memory).toBeCloseTo(0.211401, 6);
    expect(w.gpu).toBe(0);
  });

  it.each([
    { name: 'memory-heavy pods (1 vCPU, 6 GiB)', requested: asks(1, 6), relative: 0.109531, half: 0.085 },
    { name: 'CPU-heavy pods (3 vCPU, 2 GiB)', requested: asks(3, 2), relative: 0.060469, half: 0.085 },
  ])('c6i.xlarge idle, $name: relative price USD $relative/h, 50/50 USD $half/h', ({ requested, relative, half }) => {
    const w = relativePriceWeights(C6I.offered);
    expect(idleUsd(C6I.usd, w, C6I.offered, requested)).toBeCloseTo(relative, 6);
    expect(idleUsd(C6I.usd, fixedWeights({ cpu: 0.5, memory: 0.5 }), C6I.offered, requested)).toBeCloseTo(half, 12);
    expect(takenUsd(C6I.usd, w, C6I.offered, requested) + idleUsd(C6I.usd, w, C6I.offered, requested)).toBeCloseTo(C6I.usd, 12);
  });

  it('c6i.xlarge rates: USD 0.0335155 a vCPU-hour, 0.00449227 a GiB-hour; the team method (OpenCost) prices it the same', () => {
    const r = unitRates(C6I.usd, relativePriceWeights(C6I.offered), C6I.offered);
    expect(r.usdPerVcpuHour).toBeCloseTo(0.0335155, 7);
    expect(r.usdPerGiBHour).toBeCloseTo(0.00449227, 8);
    expect(r.usdPerGpuHour).toBeNull();
    const team = openCost({ costUsd: C6I.usd, capacity: C6I.offered, pods: [] });
    expect(team.prices.cpuPerCoreUsd).toBeCloseTo(r.usdPerVcpuHour ?? NaN, 12);
    expect(team.prices.ramPerGiBUsd).toBeCloseTo(r.usdPerGiBHour ?? NaN, 12);
  });

  it('a memory-optimised node weighs CPU less: r6i.xlarge (4 / 32 GiB) 0.126444 ÷ (0.126444 + 0.135584) = 0.482559', () => {
    expect(relativePriceWeights(offers(4, 32)).cpu).toBeCloseTo(0.482559, 6);
  });

  it('a GPU node: g5.xlarge (4 vCPU / 16 GiB / 1 GPU) at USD 1.006/h, 0.95 of 1.144236 = 0.830248 on the GPU', () => {
    // 4 × 0.031611 = 0.126444, 16 × 0.004237 = 0.067792, 1 × 0.95: total 1.144236. GPU rate 1.006 × 0.830248 = 0.835230.
    // Half the CPU and memory asked, no GPU: covered 0.5 × (0.110505 + 0.059247) = 0.084876; idle 1.006 × 0.915124 =
    // USD 0.920615/h (50/50 without a GPU part: 0.503).
    const offered = offers(4, 16, 1);
    const w = relativePriceWeights(offered);
    expect(w.gpu).toBeCloseTo(0.830248, 6);
    expect(unitRates(1.006, w, offered).usdPerGpuHour).toBeCloseTo(0.83523, 5);
    expect(idleUsd(1.006, w, offered, asks(2, 8))).toBeCloseTo(0.920615, 6);
  });

  it('a node offering nothing splits 50/50 and has no rates', () => {
    expect(relativePriceWeights(offers(0, 0))).toEqual({ cpu: 0.5, memory: 0.5, gpu: 0 });
    expect(unitRates(0.1, relativePriceWeights(offers(0, 0)), offers(0, 0))).toEqual({
      usdPerVcpuHour: null,
      usdPerGiBHour: null,
      usdPerGpuHour: null,
    });
  });

  it('rates of a set of nodes: each part summed over what they offer (c6i.xlarge + r6i.xlarge at 0.252)', () => {
    // CPU parts 0.134062 + 0.252 × 0.482559 = 0.134062 + 0.121605 = 0.255667 over 8 vCPU = 0.0319584;
    // memory parts 0.0359381 + 0.130395 = 0.166333 over 40 GiB = 0.00415833.
    const r = ratesOfParts({ cpuUsd: 0.255667, memoryUsd: 0.166333, gpuUsd: 0 }, { vcpus: 8, gib: 40, gpus: 0 });
    expect(r.usdPerVcpuHour).toBeCloseTo(0.0319584, 7);
    expect(r.usdPerGiBHour).toBeCloseTo(0.00415833, 8);
    expect(r.usdPerGpuHour).toBeNull();
    const c = relativePriceWeights(offers(4, 8));
    const m = relativePriceWeights(offers(4, 32));
    expect(0.17 * c.cpu + 0.252 * m.cpu).toBeCloseTo(0.255667, 6);
    expect(0.17 * c.memory + 0.252 * m.memory).toBeCloseTo(0.166333, 6);
  });
});
