import { describe, expect, it } from 'vitest';
import { dailyCostTotals, mergeDailyCost, purchaseTypeToCapacityType } from './daily-cost.js';

const day1 = Date.parse('2026-11-01T00:00:00Z');
const day2 = Date.parse('2026-11-02T00:00:00Z');

describe('purchaseTypeToCapacityType', () => {
  describe.each([
    { purchaseType: 'On Demand Instances', expected: 'on-demand' },
    { purchaseType: 'On-Demand Instances', expected: 'on-demand' },
    { purchaseType: 'Spot Instances', expected: 'spot' },
    { purchaseType: 'Savings Plans', expected: null },
    { purchaseType: 'Standard Reserved Instances', expected: null },
  ])('$purchaseType', ({ purchaseType, expected }) => {
    it(`-> ${expected}`, () => expect(purchaseTypeToCapacityType(purchaseType)).toBe(expected));
  });
});

describe('mergeDailyCost', () => {
  const rows = mergeDailyCost(
    [
      { dayMs: day1, nodePool: 'general', purchaseType: 'On Demand Instances', unblendedUsd: 23.04, amortizedUsd: 20, estimated: false },
      { dayMs: day1, nodePool: 'general', purchaseType: 'Savings Plans', unblendedUsd: 1.5, amortizedUsd: null, estimated: false },
      { dayMs: day1, nodePool: '', purchaseType: 'On Demand Instances', unblendedUsd: 0.4, amortizedUsd: null, estimated: true },
      { dayMs: day2, nodePool: 'batch', purchaseType: 'Spot Instances', unblendedUsd: 3, amortizedUsd: null, estimated: true },
    ],
    [
      // $0.96/h for 24 h = $23.04 estimated against a $23.04 bill.
      { dayMs: day1, nodePool: 'general', capacityType: 'on-demand', usd: 23.04 },
      { dayMs: day1, nodePool: 'general', capacityType: 'spot', usd: 2.5 },
      { dayMs: day2, nodePool: 'batch', capacityType: 'spot', usd: 2.75 },
    ],
  );

  it('joins "On Demand Instances" with on-demand and "Spot Instances" with spot; keeps other purchase types apart', () => {
    expect(rows).toEqual([
      {
        day: '2026-11-01',
        nodePool: '',
        purchaseType: 'On Demand Instances',
        capacityType: 'on-demand',
        band: 'compute',
        billUsd: 0.4,
        billUnblendedUsd: 0.4,
        billNetUnblendedUsd: null,
        billNetAmortizedUsd: null,
        billAmortizedUsd: null,
        billEstimated: true,
        estimateUsd: null,
        estimateReservedUsd: null,
      },
      {
        day: '2026-11-01',
        nodePool: 'general',
        purchaseType: 'On Demand Instances',
        capacityType: 'on-demand',
        band: 'compute',
        billUsd: 23.04,
        billUnblendedUsd: 23.04,
        billNetUnblendedUsd: null,
        billNetAmortizedUsd: null,
        billAmortizedUsd: 20,
        billEstimated: false,
        estimateUsd: 23.04,
        estimateReservedUsd: null,
      },
      {
        day: '2026-11-01',
        nodePool: 'general',
        purchaseType: null,
        capacityType: 'spot',
        band: 'compute',
        billUsd: null,
        billUnblendedUsd: null,
        billNetUnblendedUsd: null,
        billNetAmortizedUsd: null,
        billAmortizedUsd: null,
        billEstimated: false,
        estimateUsd: 2.5,
        estimateReservedUsd: null,
      },
      {
        day: '2026-11-01',
        nodePool: 'general',
        purchaseType: 'Savings Plans',
        capacityType: null,
        band: 'compute',
        billUsd: 1.5,
        billUnblendedUsd: 1.5,
        billNetUnblendedUsd: null,
        billNetAmortizedUsd: null,
        billAmortizedUsd: null,
        billEstimated: false,
        estimateUsd: null,
        estimateReservedUsd: null,
      },
      {
        day: '2026-11-02',
        nodePool: 'batch',
        purchaseType: 'Spot Instances',
        capacityType: 'spot',
        band: 'compute',
        billUsd: 3,
        billUnblendedUsd: 3,
        billNetUnblendedUsd: null,
        billNetAmortizedUsd: null,
        billAmortizedUsd: null,
        billEstimated: true,
        estimateUsd: 2.75,
        estimateReservedUsd: null,
      },
    ]);
  });

  it('totals: bill 23.04 + 1.5 + 0.4 + 3 = 27.94; estimate 23.04 + 2.5 + 2.75 = 28.29', () => {
    const t = dailyCostTotals(rows);
    expect(t.billUsd).toBeCloseTo(27.94, 10);
    expect(t.estimateUsd).toBeCloseTo(28.29, 10);
  });
});

describe('mergeDailyCost: capacity reservations are billed as On Demand Instances', () => {
  it('a reserved m6i.large (0.096/h x 24 h = 2.304) and an on-demand one reconcile against one On Demand line of 4.608', () => {
    const rows = mergeDailyCost(
      [{ dayMs: day1, nodePool: 'system', purchaseType: 'On Demand Instances', unblendedUsd: 4.608, amortizedUsd: null, estimated: false }],
      [
        { dayMs: day1, nodePool: 'system', capacityType: 'reserved', usd: 2.304 },
        { dayMs: day1, nodePool: 'system', capacityType: 'on-demand', usd: 2.304 },
      ],
    );
    expect(rows).toEqual([
      {
        day: '2026-11-01',
        nodePool: 'system',
        purchaseType: 'On Demand Instances',
        capacityType: 'on-demand',
        band: 'compute',
        billUsd: 4.608,
        billUnblendedUsd: 4.608,
        billNetUnblendedUsd: null,
        billNetAmortizedUsd: null,
        billAmortizedUsd: null,
        billEstimated: false,
        estimateUsd: 4.608,
        estimateReservedUsd: 2.304,
      },
    ]);
  });
});
