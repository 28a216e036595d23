import { describe, expect, it } from 'vitest';
import type { DailyCostRow } from '../schemas/cost.js';
import { nodePoolCompareRows, nodePoolCompareTotals } from './nodepool-cost.js';
import { zeroSums } from './packing.js';
import { reconcileDays, reconcileRows, reconciliationCause } from './reconciliation.js';

const GiB = 1024 ** 3;

describe('nodePoolCompareRows', () => {
  // 10 hours. general on-demand: 2 nodes of 4 vCPU / 16 GiB at $0.20/h, requesting 4 vCPU and 8 GiB in all.
  // general spot: 1 node of 4 vCPU / 16 GiB at $0.06/h (on-demand $0.20/h), requesting 1 vCPU / 4 GiB.
  const rows = nodePoolCompareRows(
    [
      {
        ...zeroSums(),
        nodePool: 'general',
        capacityType: 'spot',
        nodeHours: 10,
        costUsd: 0.6,
        allocCpuMillicoreHours: 4000 * 10,
        reqCpuMillicoreHours: 1000 * 10,
        allocMemoryByteHours: 16 * GiB * 10,
        reqMemoryByteHours: 4 * GiB * 10,
        onDemandUsd: 2,
      },
      {
        ...zeroSums(),
        nodePool: 'general',
        capacityType: 'on-demand',
        nodeHours: 20,
        costUsd: 4,
        allocCpuMillicoreHours: 8000 * 10,
        reqCpuMillicoreHours: 4000 * 10,
        allocMemoryByteHours: 32 * GiB * 10,
        reqMemoryByteHours: 8 * GiB * 10,
        onDemandUsd: 4,
      },
    ],
    10,
  );

  it('cost per vCPU-hour and GiB-hour of allocatable and of requested capacity', () => {
    const od = rows[0];
    expect(od.capacityType).toBe('on-demand');
    expect(od.nodesAvg).toBe(2);
    expect(od.vcpuHoursAllocatable).toBe(80);
    expect(od.usdPerVcpuHourAllocatable).toBeCloseTo(0.05, 12); // $4 / 80 vCPU-h
    expect(od.usdPerGiBHourAllocatable).toBeCloseTo(0.0125, 12); // $4 / 320 GiB-h
    expect(od.usdPerVcpuHourRequested).toBeCloseTo(0.1, 12); // $4 / 40 vCPU-h: half the cpu requested, twice the price
    expect(od.usdPerGiBHourRequested).toBeCloseTo(0.05, 12); // $4 / 80 GiB-h
    expect(od.savingsUsd).toBe(0);
  });

  it('spot savings against the on-demand price of the same instances', () => {
    const spot = rows[1];
    expect(spot.onDemandEquivalentUsd).toBe(2);
    expect(spot.savingsUsd).toBeCloseTo(1.4, 12); // 2 − 0.6
    expect(spot.savingsFraction).toBeCloseTo(0.7, 12);
    expect(spot.usdPerVcpuHourRequested).toBeCloseTo(0.06, 12); // $0.60 / 10 vCPU-h
    expect(nodePoolCompareTotals(rows)).toEqual({
      costUsd: 4.6,
      nodeHours: 30,
      onDemandEquivalentUsd: 6,
      savingsUsd: expect.closeTo(1.4, 12),
    });
  });

  it('no on-demand figure when a spot price was stored without its on-demand price', () => {
    const [r] = nodePoolCompareRows([{ ...zeroSums(), nodePool: 'batch', capacityType: 'spot', costUsd: 1, onDemandUnknownUsd: 0.5 }], 1);
    expect(r).toMatchObject({ onDemandEquivalentUsd: null, savingsUsd: null, savingsFraction: null, usdPerVcpuHourRequested: null });
    expect(nodePoolCompareTotals([r]).savingsUsd).toBeNull();
  });
});

describe('reconciliation', () => {
  // The bill in the unblended metric unless a case says otherwise: billUnblendedUsd follows billUsd.
  const row = (o: Partial<DailyCostRow>): DailyCostRow => ({
    day: '2026-11-01',
    nodePool: 'general',
    purchaseType: 'On Demand Instances',
    capacityType: 'on-demand',
    band: 'compute',
    billUsd: 10,
    billAmortizedUsd: 10,
    billNetUnblendedUsd: null,
    billNetAmortizedUsd: null,
    billEstimated: false,
    estimateUsd: 10,
    estimateReservedUsd: null,
    ...o,
    billUnblendedUsd: o.billUnblendedUsd ?? (o.billUsd === undefined ? 10 : o.billUsd),
  });

  it.each([
    ['match within 1 %', row({ billUsd: 10.09 }), 'match'],
    ['match within a cent', row({ billUsd: 0.015, estimateUsd: 0.01, billAmortizedUsd: null }), 'match'],
    ['bill not final', row({ billUsd: 8, billEstimated: true }), 'bill-not-final'],
    ['untagged line', row({ nodePool: '', billUsd: 3, estimateUsd: null }), 'untagged'],
    ['no bill line', row({ billUsd: null, billAmortizedUsd: null }), 'no-bill'],
    ['Savings Plans row', row({ capacityType: null, purchaseType: 'Savings Plans', estimateUsd: null }), 'no-estimate'],
    ['amortized below unblended', row({ billUsd: 10.5, billAmortizedUsd: 7 }), 'amortized-differs'],
    ['amortized below unblended, read in amortized', row({ billUsd: 7, billUnblendedUsd: 10.5, billAmortizedUsd: 7 }), 'amortized-differs'],
    [
      'volumes and data transfer (EC2 - Other)',
      row({
        band: 'storage-network',
        purchaseType: 'EC2 - Other',
        capacityType: null,
        billUsd: 1.6,
        billAmortizedUsd: 1.6,
        estimateUsd: null,
      }),
      'volumes',
    ],
    ['spot within 5 %', row({ capacityType: 'spot', billUsd: 10.4, billAmortizedUsd: 10.4 }), 'spot-price-within-hour'],
    ['on-demand within 5 %', row({ billUsd: 9.6, billAmortizedUsd: 9.6 }), 'sampling'],
    ['far apart', row({ billUsd: 13, billAmortizedUsd: 13 }), 'unexplained'],
  ])('%s', (_name, r, cause) => {
    expect(reconciliationCause(r)).toBe(cause);
  });

  it('differences per row and per day, with the cause of the largest', () => {
    const rows = reconcileRows([
      row({ billUsd: 10.4, capacityType: 'spot', billAmortizedUsd: 10.4 }),
      row({ nodePool: '', billUsd: 3, estimateUsd: null }),
      row({ day: '2026-11-02', billUsd: 10 }),
    ]);
    expect(rows.map((r) => [r.differenceUsd, r.differenceFraction])).toEqual([
      [expect.closeTo(0.4, 12), expect.closeTo(0.04, 12)],
      [3, null],
      [0, 0],
    ]);
    expect(reconcileDays(rows)).toEqual([
      { day: '2026-11-01', billUsd: 13.4, estimateUsd: 10, differenceUsd: expect.closeTo(3.4, 12), mainCause: 'untagged' },
      { day: '2026-11-02', billUsd: 10, estimateUsd: 10, differenceUsd: 0, mainCause: 'match' },
    ]);
  });
});
