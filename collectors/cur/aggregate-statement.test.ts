import { describe, expect, it } from 'vitest';
import type { CurSampleRow } from '../../test/fixtures/cur/cur2-sample.js';
import { duckDbPerFile } from '../../test/fixtures/cur/duckdb-per-file.js';
import { loadCurTable } from '../../test/fixtures/cur/write-export.js';
import { curAggregateStatement, rowFromRecord, type CurAggregateRow } from './aggregate-statement.js';

const duck = duckDbPerFile('cur-statement-');
const { scratch } = duck;

const PERIOD = { bill_billing_period_start_date: '2026-11-01T00:00:00Z', line_item_usage_start_date: '2026-11-02T05:00:00Z' };
const SP = 'arn:aws:savingsplans::1:savingsplan/sp';
const RI = 'arn:aws:ec2:us-east-2:1:reserved-instances/ri';

async function run(
  rows: readonly CurSampleRow[],
  table = 'cur',
  tagKeys?: Parameters<typeof curAggregateStatement>[0]['tagKeys'],
): Promise<CurAggregateRow[]> {
  await loadCurTable(duck.c, table, rows, scratch);
  const reader = await duck.c.runAndReadAll(curAggregateStatement({ table, billingPeriod: '2026-11', tagKeys }));
  return reader.getRowObjectsJS().map((r) => rowFromRecord(r));
}
const r6 = (n: number): number => Math.round(n * 1e6) / 1e6;

describe('the shared statement on DuckDB: amortized and net amortized cost by line item type, worked by hand', () => {
  describe.each<[string, CurSampleRow, number, number, number, number]>([
    // [case, line, unblended, amortized, net unblended, net amortized]
    [
      'Usage: amortized = unblended',
      {
        line_item_line_item_type: 'Usage',
        line_item_usage_type: 'USE2-BoxUsage:m5.large',
        line_item_unblended_cost: 2,
        line_item_net_unblended_cost: 1.9,
      },
      2,
      2,
      1.9,
      1.9,
    ],
    [
      'Usage without net columns: net = gross',
      { line_item_line_item_type: 'Usage', line_item_usage_type: 'USE2-BoxUsage:m5.large', line_item_unblended_cost: 2 },
      2,
      2,
      2,
      2,
    ],
    [
      'SavingsPlanCoveredUsage: the Savings Plan effective cost',
      {
        line_item_line_item_type: 'SavingsPlanCoveredUsage',
        line_item_usage_type: 'USE2-BoxUsage:m5.xlarge',
        line_item_unblended_cost: 4.608,
        line_item_net_unblended_cost: 4.3776,
        savings_plan_savings_plan_a_r_n: SP,
        savings_plan_savings_plan_effective_cost: 3.2256,
        savings_plan_net_savings_plan_effective_cost: 3.06432,
      },
      4.608,
      3.2256,
      4.3776,
      3.06432,
    ],
    [
      'SavingsPlanNegation: 0 amortized, it only cancels unblended',
      {
        line_item_line_item_type: 'SavingsPlanNegation',
        line_item_usage_type: 'USE2-BoxUsage:m5.xlarge',
        line_item_unblended_cost: -4.608,
        line_item_net_unblended_cost: -4.3776,
        savings_plan_savings_plan_a_r_n: SP,
      },
      -4.608,
      0,
      -4.3776,
      0,
    ],
    // 3.60 committed - 3.2256 used = 0.3744 unused; net: x 3.42 / 3.60 = 0.35568
    [
      'SavingsPlanRecurringFee: the unused commitment',
      {
        line_item_line_item_type: 'SavingsPlanRecurringFee',
        line_item_resource_id: SP,
        line_item_unblended_cost: 3.6,
        line_item_net_unblended_cost: 3.42,
        savings_plan_savings_plan_a_r_n: SP,
        savings_plan_total_commitment_to_date: 3.6,
        savings_plan_used_commitment: 3.2256,
      },
      3.6,
      0.3744,
      3.42,
      0.35568,
    ],
    [
      'SavingsPlanUpfrontFee: 0 amortized',
      {
        line_item_line_item_type: 'SavingsPlanUpfrontFee',
        line_item_resource_id: SP,
        line_item_unblended_cost: 1000,
        savings_plan_savings_plan_a_r_n: SP,
      },
      1000,
      0,
      1000,
      0,
    ],
    [
      'DiscountedUsage: the reservation effective cost',
      {
        line_item_line_item_type: 'DiscountedUsage',
        line_item_usage_type: 'USE2-BoxUsage:r5.large',
        line_item_unblended_cost: 0,
        reservation_reservation_a_r_n: RI,
        reservation_effective_cost: 1.92,
        reservation_net_effective_cost: 1.824,
      },
      0,
      1.92,
      0,
      1.824,
    ],
    // unused upfront 2 + unused recurring 3; net 1.9 + 2.85
    [
      'RIFee: the unused reservation',
      {
        line_item_line_item_type: 'RIFee',
        line_item_resource_id: RI,
        line_item_unblended_cost: 43.8,
        line_item_net_unblended_cost: 41.61,
        reservation_reservation_a_r_n: RI,
        reservation_unused_amortized_upfront_fee_for_billing_period: 2,
        reservation_net_unused_amortized_upfront_fee_for_billing_period: 1.9,
        reservation_unused_recurring_fee: 3,
        reservation_net_unused_recurring_fee: 2.85,
      },
      43.8,
      5,
      41.61,
      4.75,
    ],
    [
      "Fee with a reservation ARN (the RI's upfront payment): 0 amortized",
      { line_item_line_item_type: 'Fee', line_item_resource_id: RI, line_item_unblended_cost: 500, reservation_reservation_a_r_n: RI },
      500,
      0,
      500,
      0,
    ],
    ['Fee without a reservation: as billed', { line_item_line_item_type: 'Fee', line_item_unblended_cost: 12 }, 12, 12, 12, 12],
    ['Credit: as billed', { line_item_line_item_type: 'Credit', line_item_unblended_cost: -5 }, -5, -5, -5, -5],
    ['Refund: as billed', { line_item_line_item_type: 'Refund', line_item_unblended_cost: -3 }, -3, -3, -3, -3],
    ['Tax: as billed', { line_item_line_item_type: 'Tax', line_item_unblended_cost: 1.2 }, 1.2, 1.2, 1.2, 1.2],
  ])('%s', (_name, line, unblended, amortized, netUnblended, netAmortized) => {
    it(`${unblended} unblended -> ${amortized} amortized, ${netUnblended} net unblended -> ${netAmortized} net amortized`, async () => {
      const [row, more] = await run([{ ...PERIOD, ...line }]);
      expect(more).toBeUndefined();
      expect([row?.unblendedUsd, row?.amortizedUsd, row?.netUnblendedUsd, row?.netAmortizedUsd].map((n) => r6(n ?? NaN))).toEqual([
        unblended,
        amortized,
        netUnblended,
        netAmortized,
      ]);
    });
  });
});

describe('the shared statement: rows, categories, tags and the billing period', () => {
  it('sorts lines into instances, volumes, data transfer and other by usage type and line item type', async () => {
    const line = (resource: string, usageType: string, type = 'Usage'): CurSampleRow => ({
      ...PERIOD,
      line_item_line_item_type: type,
      line_item_resource_id: resource,
      line_item_usage_type: usageType,
      line_item_unblended_cost: 1,
    });
    const rows = await run([
      line('i-1', 'USE2-BoxUsage:m5.large'),
      line('i-2', 'USE2-SpotUsage:c5.large'),
      line('i-3', 'USE2-DedicatedUsage:m5.large'),
      line('vol-1', 'USE2-EBS:VolumeUsage.gp3'),
      line('snap-1', 'USE2-EBS:SnapshotUsage'),
      line('i-1', 'USE2-DataTransfer-Regional-Bytes'),
      line('i-1', 'USE2-USE1-AWS-Out-Bytes'),
      line('nat-1', 'USE2-NatGateway-Hours'),
      line('i-1', 'USE2-BoxUsage:m5.large', 'Credit'),
    ]);
    expect(rows.map((r) => [r.resourceId, r.usageType, r.lineItemType, r.category]).sort()).toEqual(
      [
        ['i-1', 'USE2-BoxUsage:m5.large', 'Usage', 'instances'],
        ['i-2', 'USE2-SpotUsage:c5.large', 'Usage', 'instances'],
        ['i-3', 'USE2-DedicatedUsage:m5.large', 'Usage', 'instances'],
        ['vol-1', 'USE2-EBS:VolumeUsage.gp3', 'Usage', 'volumes'],
        ['snap-1', 'USE2-EBS:SnapshotUsage', 'Usage', 'volumes'],
        ['i-1', 'USE2-DataTransfer-Regional-Bytes', 'Usage', 'data-transfer'],
        ['i-1', 'USE2-USE1-AWS-Out-Bytes', 'Usage', 'data-transfer'],
        ['nat-1', 'USE2-NatGateway-Hours', 'Usage', 'other'],
        ['i-1', 'USE2-BoxUsage:m5.large', 'Credit', 'other'],
      ].sort(),
    );
  });

  it('keeps only the billing period asked for, and reads the tag keys it is given', async () => {
    const rows = await run(
      [
        {
          ...PERIOD,
          line_item_line_item_type: 'Usage',
          line_item_resource_id: 'i-1',
          line_item_unblended_cost: 1,
          resource_tags: { user_pool: 'gpu', user_karpenter_sh_nodepool: 'general' },
        },
        {
          ...PERIOD,
          bill_billing_period_start_date: '2026-10-01T00:00:00Z',
          line_item_usage_start_date: '2026-10-31T23:00:00Z',
          line_item_line_item_type: 'Usage',
          line_item_resource_id: 'i-2',
          line_item_unblended_cost: 7,
        },
      ],
      'cur_tags',
      { nodePool: 'user_pool', nodeClaim: 'user_karpenter_sh_nodeclaim', cluster: ['user_eks_eks_cluster_name'] },
    );
    expect(rows.map((r) => [r.resourceId, r.nodePool, r.usageDay])).toEqual([['i-1', 'gpu', '2026-11-02']]);
  });

  it('refuses a table name, billing period or tag key that is not plain (they are spliced into the SQL)', () => {
    expect(() => curAggregateStatement({ table: 'cur; DROP TABLE x', billingPeriod: '2026-11' })).toThrow('not a plain SQL name');
    expect(() => curAggregateStatement({ table: 'cur', billingPeriod: '2026-13' })).toThrow('not YYYY-MM');
    expect(() =>
      curAggregateStatement({
        table: 'db.cur',
        billingPeriod: '2026-12',
        tagKeys: { nodePool: "x' OR 1=1", nodeClaim: 'a', cluster: ['b'] },
      }),
    ).toThrow('not a CUR 2.0 resource_tags key');
    expect(curAggregateStatement({ table: 'db.cur', billingPeriod: '2026-12' })).toContain("TIMESTAMP '2027-01-01 00:00:00'");
  });

  it('keeps to SQL Athena (Trino) also accepts: none of the DuckDB-only forms', () => {
    const sql = curAggregateStatement({ table: 'cur', billingPeriod: '2026-11' });
    // `::` casts, DuckDB's list-returning element_at and map_extract, strftime, struct/list literals, QUALIFY, ILIKE.
    for (const form of ['::', 'element_at', 'map_extract', 'strftime', '{', 'QUALIFY', 'ILIKE', 'list_']) expect(sql).not.toContain(form);
  });
});
