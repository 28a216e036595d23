import { describe, expect, it } from 'vitest';
import type { EfficiencySummaryRow } from '@schemas/efficiency';
import type { NodeMixRow } from '@schemas/node-aggregates';
import type { NodePoolCompareRow } from '@schemas/nodepools';
import type { NodePool } from '@schemas/nodepools';
import type { DailyCostRow } from '@schemas/cost';
import { buildCards, instanceMix } from './nodepool-cards';

/** The server's count of one NodePool and instance type (/api/nodes/mix). */
const mixRow = (nodePool: string, instanceType: string, nodes = 1, spotNodes = 0): NodeMixRow => ({
  nodePool,
  instanceType,
  nodes,
  spotNodes,
});

describe('instanceMix', () => {
  const rows = [
    mixRow('general', 'm6i.large', 2, 1),
    mixRow('general', 'c6i.xlarge'),
    mixRow('general', 'r6i.large'),
    mixRow('general', 'c7i.large'),
    mixRow('batch', 'm6i.large'),
  ];
  it('counts per type within the NodePool, most first, ties by name, spot counted', () =>
    expect(instanceMix(rows, 'general')).toEqual([
      { instanceType: 'm6i.large', count: 2, spot: 1 },
      { instanceType: 'c6i.xlarge', count: 1, spot: 0 },
      { instanceType: 'c7i.large', count: 1, spot: 0 },
      { instanceType: 'r6i.large', count: 1, spot: 0 },
    ]));
  it('folds the tail past `top` into one item: 4 types with top 3 -> 2 named + "2 other types"', () =>
    expect(instanceMix(rows, 'general', 3)).toEqual([
      { instanceType: 'm6i.large', count: 2, spot: 1 },
      { instanceType: 'c6i.xlarge', count: 1, spot: 0 },
      { instanceType: '2 other types', count: 2, spot: 0 },
    ]));
});

describe('buildCards', () => {
  const pool = (name: string): NodePool => ({
    name,
    weight: null,
    consolidationPolicy: 'WhenEmptyOrUnderutilized',
    consolidateAfter: '1m',
    expireAfter: null,
    capacityTypes: ['spot'],
    requirements: [],
    budgets: [],
    limits: { cpu: null, cpuMillicores: null, memory: null, memoryBytes: null, resources: [] },
    usage: { at: null, nodes: 0, cpuMillicores: 0, memoryBytes: 0, nodesWithoutCapacity: 0 },
    nodeClass: 'default',
    updatedAt: '',
  });
  const summary = (nodePool: string | null, costUsd: number, cpu: number): EfficiencySummaryRow => ({
    scope: nodePool === null ? 'cluster' : 'nodepool',
    nodePool,
    nodesAvg: 2,
    nodeHours: 48,
    costUsd,
    usdPerHourAvg: costUsd / 24,
    cpu,
    memory: 0.4,
    pods: null,
    gpu: null,
    costWeightedCpu: cpu,
    costWeightedMemory: null,
    costWeightedPods: null,
    costWeightedGpu: null,
    idleVcpuAvg: 1,
    idleMemoryGiBAvg: 2,
    idleUsdPerHourAvg: 0.3,
    idleRates: { usdPerVcpuHour: 0.0325, usdPerGiBHour: 0.0044, usdPerGpuHour: null },
  });
  const compare = (
    nodePool: string,
    capacityType: 'on-demand' | 'spot',
    costUsd: number,
    savingsUsd: number | null,
  ): NodePoolCompareRow => ({
    nodePool,
    capacityType,
    costUsd,
    nodeHours: 10,
    nodesAvg: 1,
    vcpuHoursAllocatable: 20,
    memoryGiBHoursAllocatable: 80,
    vcpuHoursRequested: 10,
    memoryGiBHoursRequested: 40,
    usdPerVcpuHourAllocatable: null,
    usdPerGiBHourAllocatable: null,
    usdPerVcpuHourRequested: null,
    usdPerGiBHourRequested: null,
    onDemandEquivalentUsd: null,
    savingsUsd,
    savingsFraction: null,
  });
  const billRow = (nodePool: string, band: DailyCostRow['band'], billUsd: number): DailyCostRow => ({
    day: '2026-11-01',
    nodePool,
    purchaseType: band === 'compute' ? 'On Demand Instances' : 'EC2 - Other',
    capacityType: band === 'compute' ? 'on-demand' : null,
    band,
    billUsd,
    billUnblendedUsd: billUsd,
    billAmortizedUsd: billUsd,
    billNetUnblendedUsd: null,
    billNetAmortizedUsd: null,
    billEstimated: false,
    estimateUsd: null,
    estimateReservedUsd: null,
  });
  const cards = buildCards(
    [pool('spot-batch'), pool('general')],
    [summary(null, 30, 0.5), summary('general', 20, 0.6), summary('', 4, 0.2)],
    [compare('general', 'on-demand', 12, 0), compare('general', 'spot', 8, 5.5), compare('', 'on-demand', 4, 0)],
    [mixRow('general', 'm6i.large'), mixRow('', 'm6i.large')],
    [
      billRow('general', 'compute', 18.5),
      billRow('general', 'storage-network', 0.75),
      billRow('general', 'storage-network', 0.25),
      billRow('', 'compute', 4.1),
    ],
    [{ nodePool: 'general', instancesUsd: 16.2, volumesUsd: 1, dataTransferUsd: 0.05, otherUsd: 0, totalUsd: 17.25 }],
  );
  it('sorts the cluster NodePools by name, then the nodes without one', () =>
    expect(cards.map((c) => c.name)).toEqual(['general', 'spot-batch', '']));
  it('sums cost and savings over capacity types: 12 + 8 = 20, 0 + 5.5 = 5.5', () =>
    expect(cards[0]).toMatchObject({ costUsd: 20, savingsUsd: 5.5, cpu: 0.6, nodesNow: 1 }));
  it('has no figures for a NodePool without data', () =>
    expect(cards[1]).toMatchObject({ costUsd: null, savingsUsd: null, cpu: null, nodesNow: 0, mix: [], idleRates: null }));
  it('carries the rates its idle was priced at, from its summary row', () =>
    expect(cards[0]?.idleRates).toEqual({ usdPerVcpuHour: 0.0325, usdPerGiBHour: 0.0044, usdPerGpuHour: null }));
  it('has no spec for the nodes without a NodePool', () => expect(cards[2]?.spec).toBeNull());
  it('the bill is the whole NodePool: instances 18.5 + storage and network 0.75 + 0.25 = 19.5; none without a line', () => {
    expect(cards.map((c) => [c.name, c.billUsd, c.billStorageNetworkUsd])).toEqual([
      ['general', 19.5, 1],
      ['spot-batch', null, null],
      ['', 4.1, null],
    ]);
  });
  it('the CUR figure where the CUR has lines for the NodePool, none elsewhere', () => {
    expect(cards.map((c) => [c.name, c.cur?.totalUsd ?? null, c.cur?.volumesUsd ?? null])).toEqual([
      ['general', 17.25, 1],
      ['spot-batch', null, null],
      ['', null, null],
    ]);
  });
});
