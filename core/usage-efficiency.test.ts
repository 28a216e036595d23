import { describe, expect, it } from 'vitest';
import { MIB } from './rightsizing.js';
import {
  capacityEfficiency,
  monthlyRequestCostUsd,
  namespaceEfficiency,
  requestRates,
  workloadEfficiency,
  type NodeRequestCost,
} from './usage-efficiency.js';

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

describe('usage ÷ allocatable and the two idles (Kubecost: workload idle, infrastructure idle) on two nodes', () => {
  const GI = 2 ** 30;
  // Node 1: 2,000m / 8 GiB at USD 0.10/h; requests 1,500m / 6 GiB; usage 500m / 2 GiB.
  //   CPU half 0.05: taken max(1500, 500) = 1500; workload idle 1000/2000 × 0.05 = 0.025; infra 500/2000 × 0.05 = 0.0125; used 0.0125.
  //   Memory half 0.05: taken 6; workload idle 4/8 × 0.05 = 0.025; infra 2/8 × 0.05 = 0.0125; used 0.0125.
  // Node 2: 4,000m / 16 GiB at USD 0.20/h; requests 1,000m / 4 GiB; usage 1,500m (above its request) / 1 GiB.
  //   CPU half 0.10: taken max(1000, 1500) = 1500; workload idle 0; infra 2500/4000 × 0.10 = 0.0625; used 0.0375.
  //   Memory half 0.10: taken 4; workload idle 3/16 × 0.10 = 0.01875; infra 12/16 × 0.10 = 0.075; used 0.00625.
  // Σ workload idle 0.06875, Σ infrastructure idle 0.1625, Σ used 0.06875: 0.30 = the two nodes' cost.
  const node1 = {
    usdPerHour: 0.1,
    allocCpuMillicores: 2000,
    allocMemoryBytes: 8 * GI,
    requestCpuMillicores: 1500,
    requestMemoryBytes: 6 * GI,
    usageCpuMillicores: 500,
    usageMemoryBytes: 2 * GI,
  };
  const node2 = {
    usdPerHour: 0.2,
    allocCpuMillicores: 4000,
    allocMemoryBytes: 16 * GI,
    requestCpuMillicores: 1000,
    requestMemoryBytes: 4 * GI,
    usageCpuMillicores: 1500,
    usageMemoryBytes: GI,
  };

  it.each([
    { name: 'node 1 alone', nodes: [node1], used: 0.025, workloadIdle: 0.05, infra: 0.025 },
    { name: 'node 2 alone (CPU used above its request is not idle)', nodes: [node2], used: 0.04375, workloadIdle: 0.01875, infra: 0.1375 },
    { name: 'both', nodes: [node1, node2], used: 0.06875, workloadIdle: 0.06875, infra: 0.1625 },
  ])('$name: used $used, workload idle $workloadIdle, infrastructure idle $infra USD/h, adding up to the node cost', (c) => {
    const e = capacityEfficiency(c.nodes);
    expect(e.usedUsdPerHour).toBeCloseTo(c.used, 12);
    expect(e.workloadIdleUsdPerHour).toBeCloseTo(c.workloadIdle, 12);
    expect(e.infrastructureIdleUsdPerHour).toBeCloseTo(c.infra, 12);
    expect(e.usedUsdPerHour + e.workloadIdleUsdPerHour + e.infrastructureIdleUsdPerHour).toBeCloseTo(e.usdPerHour, 12);
  });

  it('ratios over both: CPU usage ÷ request 2,000 / 2,500 = 0.8, ÷ allocatable 2,000 / 6,000; memory 3 / 10 and 3 / 24', () => {
    const e = capacityEfficiency([node1, node2]);
    expect(e.cpuUsageOverRequest).toBeCloseTo(0.8, 12);
    expect(e.cpuUsageOverAllocatable).toBeCloseTo(1 / 3, 12);
    expect(e.memoryUsageOverRequest).toBeCloseTo(0.3, 12);
    expect(e.memoryUsageOverAllocatable).toBeCloseTo(0.125, 12);
  });

  it('a node without a price counts in the ratios, not in USD; no nodes give nulls', () => {
    const e = capacityEfficiency([node1, { ...node2, usdPerHour: null }]);
    expect(e.usdPerHour).toBeCloseTo(0.1, 12);
    expect(e.infrastructureIdleUsdPerHour).toBeCloseTo(0.025, 12);
    expect(e.cpuUsageOverAllocatable).toBeCloseTo(1 / 3, 12);
    expect(capacityEfficiency([])).toMatchObject({ cpuUsageOverRequest: null, cpuUsageOverAllocatable: null, usdPerHour: 0 });
  });

  it('weights 70/30 move the split, not the total: node 1 workload idle 0.07 × 1000/2000 + 0.03 × 4/8 = 0.05', () => {
    const e = capacityEfficiency([node1], { cpu: 0.7, memory: 0.3 });
    expect(e.workloadIdleUsdPerHour).toBeCloseTo(0.05, 12);
    expect(e.infrastructureIdleUsdPerHour).toBeCloseTo(0.07 * 0.25 + 0.03 * 0.25, 12);
  });
});
