import { describe, expect, it } from 'vitest';
import { MIB } from './rightsizing.js';
import { monthlyRequestCostUsd, namespaceEfficiency, requestRates, workloadEfficiency, type NodeRequestCost } from './usage-efficiency.js';

const GIB = 2 ** 30;

// Two priced nodes in `general` ($0.20 + $0.20 per hour; 2,000m + 2,000m and 8 GiB + 8 GiB requested) and one
// unpriced node in `batch` (left out: nothing to divide).
const NODES: NodeRequestCost[] = [
  { nodePool: 'general', usdPerHour: 0.2, requestCpuMillicores: 2000, requestMemoryBytes: 8 * GIB },
  { nodePool: 'general', usdPerHour: 0.2, requestCpuMillicores: 2000, requestMemoryBytes: 8 * GIB },
  { nodePool: 'batch', usdPerHour: null, requestCpuMillicores: 500, requestMemoryBytes: GIB },
];

describe('the cost of a requested unit, by request share of the node cost (50/50 CPU/memory)', () => {
  const rates = requestRates(NODES);

  it('general: $0.40/h, half over 4,000m = $0.00005 per millicore-hour; half over 16 GiB = $0.0125 per GiB-hour', () => {
    const g = rates.get('general');
    expect(g?.usdPerHour).toBeCloseTo(0.4, 12);
    expect(g?.usdPerCpuMillicoreHour).toBeCloseTo(0.00005, 12);
    expect((g?.usdPerMemoryByteHour ?? 0) * GIB).toBeCloseTo(0.0125, 12);
    expect(rates.has('batch')).toBe(false);
  });

  it.each([
    // 3 replicas × −700m × $0.00005 × 730 = −$76.65
    { name: '3 replicas each 700m less', cpu: -700, memory: 0, replicas: 3, usd: -76.65 },
    // 2 × −1 GiB × $0.0125 × 730 = −$18.25
    { name: '2 replicas each 1 GiB less', cpu: 0, memory: -GIB, replicas: 2, usd: -18.25 },
    // 1 × (+100m × 0.00005 + 0.5 GiB × 0.0125) × 730 = (0.005 + 0.00625) × 730 = $8.2125
    { name: 'one replica 100m and 512 MiB more', cpu: 100, memory: 512 * MIB, replicas: 1, usd: 8.2125 },
    { name: 'no replicas running now', cpu: -700, memory: -GIB, replicas: 0, usd: 0 },
  ])('USD per month × 730 h: $name', ({ cpu, memory, replicas, usd }) => {
    expect(monthlyRequestCostUsd(cpu, memory, replicas, rates.get('general'))).toBeCloseTo(usd, 9);
  });

  it('70/30 weights: $0.28 over 4,000m = $0.00007 per millicore-hour', () => {
    expect(requestRates(NODES, { cpu: 0.7, memory: 0.3 }).get('general')?.usdPerCpuMillicoreHour).toBeCloseTo(0.00007, 12);
  });

  it('a NodePool without rates has no dollar figure', () => {
    expect(monthlyRequestCostUsd(-700, 0, 3, rates.get('batch'))).toBeNull();
  });
});

describe('usage efficiency per workload: usage ÷ request and workload idle (requested, unused) in USD', () => {
  const general = requestRates(NODES).get('general');

  it.each([
    {
      name: '300m of a 1,000m request, 1 GiB of 4 GiB, 2 replicas',
      // one hour at 200m/1 GiB × 30 samples and one at 400m/1 GiB × 30: mean 300m. Idle per replica 700m and 3 GiB:
      // 2 × (700 × 0.00005 + 3 × 0.0125) × 730 = 2 × (0.035 + 0.0375) × 730 = $105.85.
      hours: [
        { samples: 30, cpuAvgMillicores: 200, memoryAvgBytes: GIB },
        { samples: 30, cpuAvgMillicores: 400, memoryAvgBytes: GIB },
      ],
      request: { cpuMillicores: 1000, memoryBytes: 4 * GIB },
      replicas: 2,
      cpu: 0.3,
      memory: 0.25,
      idle: 105.85,
    },
    {
      name: 'samples weigh: 10 samples at 100m and 30 at 500m -> mean 400m of 250m (over its request: no CPU idle)',
      // memory 10 × 0 + 30 × 2 GiB over 40 = 1.5 GiB of 2 GiB; idle 0.5 GiB × 0.0125 × 730 = $4.5625.
      hours: [
        { samples: 10, cpuAvgMillicores: 100, memoryAvgBytes: 0 },
        { samples: 30, cpuAvgMillicores: 500, memoryAvgBytes: 2 * GIB },
      ],
      request: { cpuMillicores: 250, memoryBytes: 2 * GIB },
      replicas: 1,
      cpu: 1.6,
      memory: 0.75,
      idle: 4.5625,
    },
  ])('$name', ({ hours, request, replicas, cpu, memory, idle }) => {
    const e = workloadEfficiency(hours, request, replicas, general);
    expect(e.cpuUsageOverRequest).toBeCloseTo(cpu, 12);
    expect(e.memoryUsageOverRequest).toBeCloseTo(memory, 12);
    expect(e.idleUsdPerMonth).toBeCloseTo(idle, 9);
  });

  it('without a request there is no ratio', () => {
    const e = workloadEfficiency(
      [{ samples: 1, cpuAvgMillicores: 5, memoryAvgBytes: 5 }],
      { cpuMillicores: null, memoryBytes: 0 },
      1,
      general,
    );
    expect(e).toMatchObject({ cpuUsageOverRequest: null, memoryUsageOverRequest: null });
  });
});

describe('usage efficiency per namespace', () => {
  it('Σ usage ÷ Σ requests of the pods with usage over the snapshots; idle is the Σ of its workloads', () => {
    const rows = [
      // two snapshots of payments (in two NodePools in the second): (100 + 50 + 150) ÷ (1,000 + 500 + 1,000) = 0.12
      {
        namespace: 'payments',
        usageCpuMillicores: 100,
        usageMemoryBytes: GIB,
        requestCpuMillicoresWithUsage: 1000,
        requestMemoryBytesWithUsage: 4 * GIB,
      },
      {
        namespace: 'payments',
        usageCpuMillicores: 50,
        usageMemoryBytes: GIB,
        requestCpuMillicoresWithUsage: 500,
        requestMemoryBytesWithUsage: 4 * GIB,
      },
      {
        namespace: 'payments',
        usageCpuMillicores: 150,
        usageMemoryBytes: 0,
        requestCpuMillicoresWithUsage: 1000,
        requestMemoryBytesWithUsage: 0,
      },
      {
        namespace: 'catalog',
        usageCpuMillicores: 1200,
        usageMemoryBytes: GIB,
        requestCpuMillicoresWithUsage: 1000,
        requestMemoryBytesWithUsage: 2 * GIB,
      },
    ];
    const idle = [
      { namespace: 'payments', idleUsdPerMonth: 10.5 },
      { namespace: 'payments', idleUsdPerMonth: 2.25 },
      { namespace: 'payments', idleUsdPerMonth: null },
      { namespace: 'catalog', idleUsdPerMonth: 1 },
    ];
    const out = namespaceEfficiency(rows, idle);
    expect(out.map((n) => n.namespace)).toEqual(['catalog', 'payments']);
    expect(out[0].cpuUsageOverRequest).toBeCloseTo(1.2, 12);
    expect(out[0].memoryUsageOverRequest).toBeCloseTo(0.5, 12);
    expect(out[1].cpuUsageOverRequest).toBeCloseTo(0.12, 12);
    // (1 + 1 + 0) GiB ÷ (4 + 4 + 0) GiB
    expect(out[1].memoryUsageOverRequest).toBeCloseTo(0.25, 12);
    expect(out[1].idleUsdPerMonth).toBeCloseTo(12.75, 12);
  });
});
