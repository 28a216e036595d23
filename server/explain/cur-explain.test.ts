import { describe, expect, it } from 'vitest';
import { explainCurResourceDay, inMetric, lineText, resourceKindOf, type CurLineFact } from './cur-explain.js';

/*
 * CUR lines worked by hand (rates are illustrative, the arithmetic is the point):
 * - m5.large for 24 h covered by a Savings Plan: on demand 24 × $0.096 = $2.304 unblended; the plan's rate $0.06 gives
 *   24 × $0.06 = $1.44 amortized, $0.864 (37.5 %) below on demand; its SavingsPlanNegation −$2.304 unblended, $0 amortized.
 *   The resource-day: unblended 2.304 − 2.304 = $0.00, amortized $1.44.
 * - c5.xlarge for 10 h covered by a reservation: $0 unblended (the RIFee line carries the fee), effective cost
 *   10 × $0.1076 = $1.076 amortized, against 10 × $0.17 = $1.70 at the public on-demand rate.
 */

const SP_ARN = 'arn:aws:savingsplans::123456789012:savingsplan/3f8e2a52-7c11-4d7e-9d8c-0b6f1f1f0a11';
const RI_ARN = 'arn:aws:ec2:us-west-2:123456789012:reserved-instances/7d3a1c2e-5b4f-4e1a-9c0d-2a6b8e4f1c33';
const base = {
  day: '2026-11-02',
  productCode: 'AmazonEC2',
  nodePool: 'general',
  nodeClaim: 'general-x7k2p',
  netUnblendedUsd: null,
  netAmortizedUsd: null,
} as const;

const covered: CurLineFact = {
  ...base,
  resourceId: 'i-0a1b2c3d4e5f60718',
  lineItemType: 'SavingsPlanCoveredUsage',
  usageType: 'USW2-BoxUsage:m5.large',
  commitmentArn: SP_ARN,
  usageAmount: 24,
  unblendedUsd: 2.304,
  amortizedUsd: 1.44,
  publicOnDemandUsd: 2.304,
};
const negation: CurLineFact = {
  ...covered,
  lineItemType: 'SavingsPlanNegation',
  unblendedUsd: -2.304,
  amortizedUsd: 0,
  publicOnDemandUsd: 0,
};
const discounted: CurLineFact = {
  ...base,
  nodePool: 'system',
  nodeClaim: 'system-4qz9m',
  resourceId: 'i-0fedcba9876543210',
  lineItemType: 'DiscountedUsage',
  usageType: 'USW2-BoxUsage:c5.xlarge',
  commitmentArn: RI_ARN,
  usageAmount: 10,
  unblendedUsd: 0,
  amortizedUsd: 1.076,
  publicOnDemandUsd: 1.7,
};

describe('lineText: why a CUR line costs what it does', () => {
  it.each([
    [
      'SavingsPlanCoveredUsage: usage × on-demand rate, then the plan rate',
      covered,
      `24 instance-hours of USW2-BoxUsage:m5.large covered by Savings Plan ${SP_ARN}: 24 instance-hours × $0.096 on-demand = $2.30 unblended, cancelled by its SavingsPlanNegation line; at the plan's rate ($0.06 each) it is $1.44 amortized, $0.86 below on demand (37.5 % less).`,
    ],
    [
      'SavingsPlanNegation: cancels the unblended, nothing amortized',
      negation,
      `-$2.30 cancels the on-demand cost of the usage Savings Plan ${SP_ARN} covered: the plan's recurring fee pays for it instead, so this line is $0.00 amortized.`,
    ],
    [
      'DiscountedUsage: the reservation effective cost against the public on-demand rate',
      discounted,
      `10 instance-hours of USW2-BoxUsage:c5.xlarge covered by reservation ${RI_ARN}: $0.00 unblended (the reservation's fee is billed on its RIFee line), $1.08 amortized — the reservation's effective cost of $0.1076 each against $1.70 at the public on-demand rate.`,
    ],
    [
      'Usage on demand: amortized = unblended',
      { ...covered, lineItemType: 'Usage', commitmentArn: null, usageAmount: 5.5, unblendedUsd: 0.528, amortizedUsd: 0.528 },
      '5.5 instance-hours of USW2-BoxUsage:m5.large at the on-demand rate ($0.096 each) = $0.53 unblended; no commitment covers it, so amortized is the same $0.53.',
    ],
    [
      'a gp3 volume with a private discount',
      {
        ...covered,
        resourceId: 'vol-0123456789abcdef0',
        nodeClaim: null,
        lineItemType: 'Usage',
        usageType: 'USW2-EBS:VolumeUsage.gp3',
        commitmentArn: null,
        usageAmount: 2.5806,
        unblendedUsd: 0.2064,
        amortizedUsd: 0.2064,
        netUnblendedUsd: 0.1858,
        netAmortizedUsd: 0.1858,
      },
      '2.5806 GB-months of USW2-EBS:VolumeUsage.gp3 at the on-demand rate ($0.0799814 each) = $0.21 unblended; no commitment covers it, so amortized is the same $0.21. After private discounts it is $0.19 net amortized.',
    ],
  ])('%s', (_name, line, want) => {
    expect(lineText(line)).toBe(want);
  });
});

describe('explainCurResourceDay', () => {
  it('a Savings Plan covered instance-day: $0 unblended, $1.44 amortized, its NodeClaim and the ARN named', () => {
    const e = explainCurResourceDay([negation, covered], 'amortized', null);
    expect(e.lines.map((l) => l.lineItemType)).toEqual(['SavingsPlanCoveredUsage', 'SavingsPlanNegation']); // usage first
    expect(e.totals.unblendedUsd).toBeCloseTo(0, 9);
    expect(e.totals.amortizedUsd).toBeCloseTo(1.44, 9);
    expect(e.billUsd).toBeCloseTo(1.44, 9);
    expect(e.lines[0].commitment).toEqual({ kind: 'savings-plan', arn: SP_ARN });
    expect(e.lines[0].unblendedRateUsd).toBeCloseTo(0.096, 9);
    expect(e.lines[0].amortizedRateUsd).toBeCloseTo(0.06, 9);
    expect(e.summary).toBe(
      `i-0a1b2c3d4e5f60718 (instance, NodeClaim general-x7k2p of NodePool general) on 2026-11-02: $1.44 amortized over 2 CUR lines (SavingsPlanCoveredUsage, SavingsPlanNegation). Covered by ${SP_ARN}. Amortized $1.44 vs unblended $0.00: the commitment's rate, not the on-demand one, is what this usage really cost.`,
    );
    // No NodeClaim collected with that instance id: said, not hidden.
    expect(e.notes).toEqual([expect.stringContaining('No NodeClaim we collected has this instance id')]);
  });

  it('a reserved instance-day in unblended: $0.00, with our estimate beside the usage before commitments', () => {
    const node = {
      nodeName: 'ip-10-0-1-23.us-west-2.compute.internal',
      nodeClaim: 'system-4qz9m',
      nodePool: 'system',
      instanceType: 'c5.xlarge',
      capacityType: 'on-demand',
      zone: 'us-west-2a',
      launchedAt: '2026-11-02T14:00:00.000Z',
      removedAt: null,
      hours: 10,
      estimateUsd: 1.7,
      priceSource: 'pricing-api',
      reasons: null,
    };
    const e = explainCurResourceDay([discounted], 'unblended', node);
    expect(e.billUsd).toBe(0);
    expect(e.lines[0].commitment).toEqual({ kind: 'reservation', arn: RI_ARN });
    expect(e.node).toBe(node);
    expect(e.notes).toEqual(["We estimated $1.70 for its 10 h that day at public prices; the CUR's usage before commitments is $0.00."]);
  });

  it('refuses lines of two resources', () => {
    expect(() => explainCurResourceDay([covered, discounted], 'amortized', null)).toThrow(/mixed with i-0fedcba9876543210/);
  });

  it.each([
    ['i-0a1b2c3d4e5f60718', 'instance'],
    ['vol-0123456789abcdef0', 'volume'],
    ['arn:aws:ec2:us-west-2:123456789012:natgateway/nat-0abc', 'other'],
  ] as const)('%s is a %s', (id, kind) => expect(resourceKindOf(id)).toBe(kind));

  it.each([
    ['unblended', 2.304],
    ['amortized', 1.44],
    ['net-unblended', 2.304], // no net column: the gross figure
    ['net-amortized', 1.44],
  ] as const)('inMetric %s', (m, want) => expect(inMetric(covered, m)).toBe(want));
});
