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

// Two priced nodes in `general` (4 vCPU / 16 GiB each at $0.20 per hour; 2,000m + 2,000m and 8 GiB + 8 GiB
// requested) and one unpriced node in `batch` (left out: nothing to divide).
const NODES: NodeRequestCost[] = [
  {
    nodePool: 'general',
    usdPerHour: 0.2,
    allocCpuMillicores: 4000,
    allocMemoryBytes: 16 * GIB,
    requestCpuMillicores: 2000,
    requestMemoryBytes: 8 * GIB,
  },
  {
    nodePool: 'general',
    usdPerHour: 0.2,
    allocCpuMillicores: 4000,
    allocMemoryBytes: 16 * GIB,
    requestCpuMillicores: 2000,
    requestMemoryBytes: 8 * GIB,
  },
  {
    nodePool: 'batch',
    usdPerHour: null,
    allocCpuMillicores: 2000,
    allocMemoryBytes: 4 * GIB,
    requestCpuMillicores: 500,
    requestMemoryBytes: GIB,
  },
];

// Relative price of a 4 vCPU / 16 GiB node: 4 × 0.031611 = 0.126444 and 16 × 0.004237 = 0.067792 of 0.194236, so
// w_cpu = 0.650981 and w_memory = 0.349019. general: $0.40/h, CPU part 0.260392 over 4,000m requested = $0.0000650981
// per millicore-hour; memory part 0.139608 over 16 GiB = $0.00872547 per GiB-hour.
describe('the cost of a requested unit, by request share of the node cost (relative price, as everywhere)', () => {
  const rates = requestRates(NODES);

  it('general: $0.40/h; $0.0000650981 per millicore-hour and $0.00872547 per GiB-hour', () => {
    const g = rates.get('general');
    expect(g?.usdPerHour).toBeCloseTo(0.4, 12);
    expect(g?.usdPerCpuMillicoreHour).toBeCloseTo(0.0000650981, 10);
    expect((g?.usdPerMemoryByteHour ?? 0) * GIB).toBeCloseTo(0.00872547, 8);
    expect(rates.has('batch')).toBe(false);
  });

  it.each([
    // 3 replicas × −700m × $0.0000650981 × 730 = −$99.7954
    { name: '3 replicas each 700m less', cpu: -700, memory: 0, replicas: 3, usd: -99.7954 },
    // 2 × −1 GiB × $0.00872547 × 730 = −$12.7392
    { name: '2 replicas each 1 GiB less', cpu: 0, memory: -GIB, replicas: 2, usd: -12.7392 },
    // 1 × (+100m × 0.0000650981 + 0.5 GiB × 0.00872547) × 730 = (0.00650981 + 0.00436273) × 730 = $7.9370
    { name: 'one replica 100m and 512 MiB more', cpu: 100, memory: 512 * MIB, replicas: 1, usd: 7.937 },
    { name: 'no replicas running now', cpu: -700, memory: -GIB, replicas: 0, usd: 0 },
  ])('USD per month × 730 h: $name', ({ cpu, memory, replicas, usd }) => {
    expect(monthlyRequestCostUsd(cpu, memory, replicas, rates.get('general'))).toBeCloseTo(usd, 3);
  });

  it('fixed weights when given: 50/50 puts $0.20 over 4,000m = $0.00005 per millicore-hour; 70/30 $0.28 = $0.00007', () => {
    expect(requestRates(NODES, { cpu: 0.5, memory: 0.5 }).get('general')?.usdPerCpuMillicoreHour).toBeCloseTo(0.00005, 12);
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
      // 2 × (700 × 0.0000650981 + 3 × 0.00872547) × 730 = 2 × (0.0455687 + 0.0261764) × 730 = $104.7478.
      hours: [
        { samples: 30, cpuAvgMillicores: 200, memoryAvgBytes: GIB },
        { samples: 30, cpuAvgMillicores: 400, memoryAvgBytes: GIB },
      ],
      request: { cpuMillicores: 1000, memoryBytes: 4 * GIB },
      replicas: 2,
      cpu: 0.3,
      memory: 0.25,
      idle: 104.7478,
    },
    {
      name: 'samples weigh: 10 samples at 100m and 30 at 500m -> mean 400m of 250m (over its request: no CPU idle)',
      // memory 10 × 0 + 30 × 2 GiB over 40 = 1.5 GiB of 2 GiB; idle 0.5 GiB × 0.00872547 × 730 = $3.1848.
      hours: [
        { samples: 10, cpuAvgMillicores: 100, memoryAvgBytes: 0 },
        { samples: 30, cpuAvgMillicores: 500, memoryAvgBytes: 2 * GIB },
      ],
      request: { cpuMillicores: 250, memoryBytes: 2 * GIB },
      replicas: 1,
      cpu: 1.6,
      memory: 0.75,
      idle: 3.1848,
    },
  ])('$name', ({ hours, request, replicas, cpu, memory, idle }) => {
    const e = workloadEfficiency(hours, request, replicas, general);
    expect(e.cpuUsageOverRequest).toBeCloseTo(cpu, 12);
    expect(e.memoryUsageOverRequest).toBeCloseTo(memory, 12);
    expect(e.idleUsdPerMonth).toBeCloseTo(idle, 3);
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
  // Both nodes offer 1 vCPU per 4 GiB: relative price w_cpu = 0.650981, w_memory = 0.349019 (see above).
  // Node 1: 2,000m / 8 GiB at USD 0.10/h; requests 1,500m / 6 GiB; usage 500m / 2 GiB.
  //   CPU part 0.0650981: taken max(1500, 500) = 1500; workload idle 1000/2000 → 0.0325491; infra 500/2000 → 0.0162745; used 0.0162745.
  //   Memory part 0.0349019: taken 6; workload idle 4/8 → 0.0174509; infra 2/8 → 0.0087255; used 0.0087255.
  //   used 0.025, workload idle 0.05, infra 0.025 (the same as 50/50: both resources are taken alike here).
  // Node 2: 4,000m / 16 GiB at USD 0.20/h; requests 1,000m / 4 GiB; usage 1,500m (above its request) / 1 GiB.
  //   CPU part 0.130196: taken max(1000, 1500) = 1500; workload idle 0; infra 2500/4000 → 0.0813727; used 0.0488236.
  //   Memory part 0.0698037: taken 4; workload idle 3/16 → 0.0130882; infra 12/16 → 0.0523528; used 0.0043627.
  //   used 0.0531863, workload idle 0.0130882, infra 0.1337255 (50/50 made them 0.04375, 0.01875, 0.1375).
  // Σ used 0.0781863, Σ workload idle 0.0630882, Σ infrastructure idle 0.1587255: 0.30 = the two nodes' cost.
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
    {
      name: 'node 2 alone (CPU used above its request is not idle)',
      nodes: [node2],
      used: 0.0531863,
      workloadIdle: 0.0130882,
      infra: 0.1337255,
    },
    { name: 'both', nodes: [node1, node2], used: 0.0781863, workloadIdle: 0.0630882, infra: 0.1587255 },
  ])('$name: used $used, workload idle $workloadIdle, infrastructure idle $infra USD/h, adding up to the node cost', (c) => {
    const e = capacityEfficiency(c.nodes);
    expect(e.usedUsdPerHour).toBeCloseTo(c.used, 6);
    expect(e.workloadIdleUsdPerHour).toBeCloseTo(c.workloadIdle, 6);
    expect(e.infrastructureIdleUsdPerHour).toBeCloseTo(c.infra, 6);
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
    expect(e.infrastructureIdleUsdPerHour).toBeCloseTo(0.025, 7);
    expect(e.cpuUsageOverAllocatable).toBeCloseTo(1 / 3, 12);
    expect(capacityEfficiency([])).toMatchObject({ cpuUsageOverRequest: null, cpuUsageOverAllocatable: null, usdPerHour: 0 });
  });

  it('the rates over both: CPU parts 0.0650981 + 0.130196 over 6 vCPU = 0.0325491 per vCPU-hour; memory 0.104706 over 24 GiB = 0.00436273', () => {
    const e = capacityEfficiency([node1, node2]);
    expect(e.rates.usdPerVcpuHour).toBeCloseTo(0.0325491, 7);
    expect(e.rates.usdPerGiBHour).toBeCloseTo(0.00436273, 8);
    expect(e.rates.usdPerGpuHour).toBeNull();
  });

  it('fixed weights when given move the split, not the total: 70/30, node 1 workload idle 0.07 × 1000/2000 + 0.03 × 4/8 = 0.05', () => {
    const e = capacityEfficiency([node1], { cpu: 0.7, memory: 0.3 });
    expect(e.workloadIdleUsdPerHour).toBeCloseTo(0.05, 12);
    expect(e.infrastructureIdleUsdPerHour).toBeCloseTo(0.07 * 0.25 + 0.03 * 0.25, 12);
  });
});
