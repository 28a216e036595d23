import { describe, expect, it } from 'vitest';
import { CUR_COLUMNS } from '../../core/cur/columns.js';
import { CUR_TAG_KEYS } from '../../core/cur/tag-keys.js';
import { T } from '../../test/fixtures/tiny-scenario.js';
import { CUR_AS_OF, curScenario } from '../../test/fixtures/cur-scenario.js';
import { amountOf, cellOf, type CurLineItem, textOf } from './cur-common.js';
import { curHistory } from './cur-history.js';
import { rootVolumeId } from './other-lines.js';

const scenario = curScenario();
const periods = curHistory(scenario, { asOf: CUR_AS_OF });
const all = periods.flatMap((p) => p.rows);
const at = (iso: string) => `${iso.slice(0, 19)}Z`;
const linesAt = (iso: string, resourceId: string): CurLineItem[] =>
  all.filter((l) => textOf(l, 'line_item_usage_start_date') === at(iso) && textOf(l, 'line_item_resource_id') === resourceId);
/** The instance's own lines (its data transfer shares the instance id). */
const instanceLinesAt = (iso: string, instanceId: string): CurLineItem[] =>
  linesAt(iso, instanceId).filter((l) => textOf(l, 'line_item_operation') === 'RunInstances');
const byType = (lines: CurLineItem[], type: string): CurLineItem => {
  const found = lines.filter((l) => textOf(l, 'line_item_line_item_type') === type);
  expect(found).toHaveLength(1);
  return found[0];
};
const tags = (l: CurLineItem): Record<string, string> => (cellOf(l, 'resource_tags') ?? {}) as Record<string, string>;

describe('the CUR lines of the simulated history (hourly, resources and split cost allocation data included)', () => {
  it('has one billing period per calendar month the history covers: the untagged node started on 10-31 22:00', () => {
    expect(periods.map((p) => p.billingPeriod)).toEqual(['2026-10', '2026-11']);
    // October: two hours of the m5.xlarge (each covered in part by the plan: covered + negation + the rest as Usage),
    // its volume and data transfer, and the plan's fee.
    expect(periods[0].rows.map((l) => textOf(l, 'line_item_line_item_type')).sort()).toEqual(
      [...Array(2).fill(['SavingsPlanCoveredUsage', 'SavingsPlanNegation', 'SavingsPlanRecurringFee', 'Usage', 'Usage', 'Usage'])]
        .flat()
        .sort(),
    );
    for (const l of periods[0].rows) expect(textOf(l, 'bill_billing_period_start_date')).toBe('2026-10-01T00:00:00Z');
  });

  it('writes only the contract columns (core/cur/columns.ts), each once per line', () => {
    const seen = new Set<string>();
    let repeated = 0;
    for (const l of all) {
      const names = [...l.shared, l.own].flatMap((part) => Object.keys(part));
      if (new Set(names).size !== names.length) repeated += 1;
      for (const n of names) seen.add(n);
    }
    expect(repeated).toBe(0);
    expect([...seen].filter((n) => !(n in CUR_COLUMNS))).toEqual([]);
  });

  describe('11-02 07:00, the plan (USD 0.10/h at 28 % off) covers the m5.large, then part of the m5.xlarge', () => {
    it('m5.large: SavingsPlanCoveredUsage at the on-demand 0.096, effective 0.06912, and its negation -0.096', () => {
      const lines = instanceLinesAt('2026-11-02T07:00:00Z', 'i-0000000000000000a');
      expect(lines.map((l) => textOf(l, 'line_item_line_item_type')).sort()).toEqual(['SavingsPlanCoveredUsage', 'SavingsPlanNegation']);
      const covered = byType(lines, 'SavingsPlanCoveredUsage');
      expect([amountOf(covered, 'line_item_usage_amount'), amountOf(covered, 'line_item_unblended_cost')]).toEqual([1, 0.096]);
      expect(amountOf(covered, 'savings_plan_savings_plan_effective_cost')).toBeCloseTo(0.06912, 12);
      expect(amountOf(covered, 'savings_plan_savings_plan_rate')).toBeCloseTo(0.06912, 12);
      expect(textOf(covered, 'line_item_usage_type')).toBe('BoxUsage:m5.large');
      expect(amountOf(byType(lines, 'SavingsPlanNegation'), 'line_item_unblended_cost')).toBe(-0.096);
      expect(tags(covered)).toEqual({
        [CUR_TAG_KEYS.nodePool]: 'general',
        [CUR_TAG_KEYS.nodeClaim]: 'general-abcde',
        [CUR_TAG_KEYS.ec2NodeClass]: 'default',
        [CUR_TAG_KEYS.eksClusterName]: 'tiny-cluster',
        user_kubernetes_io_cluster_tiny_cluster: 'owned',
      });
    });

    it('m5.xlarge: the 0.03088 left covers 0.03088 / 0.72 of its 0.192, the rest is Usage; covered share of the hour the same', () => {
      const lines = instanceLinesAt('2026-11-02T07:00:00Z', 'i-0000000000000000c');
      const covered = byType(lines, 'SavingsPlanCoveredUsage');
      const usage = byType(lines, 'Usage');
      const coveredUsd = 0.03088 / 0.72;
      expect(amountOf(covered, 'line_item_unblended_cost')).toBeCloseTo(coveredUsd, 12);
      expect(amountOf(covered, 'savings_plan_savings_plan_effective_cost')).toBeCloseTo(0.03088, 12);
      expect(amountOf(covered, 'line_item_usage_amount')).toBeCloseTo(coveredUsd / 0.192, 12);
      expect(amountOf(usage, 'line_item_unblended_cost')).toBeCloseTo(0.192 - coveredUsd, 12);
      expect(amountOf(usage, 'line_item_usage_amount')).toBeCloseTo(1 - coveredUsd / 0.192, 12);
      expect(amountOf(byType(lines, 'SavingsPlanNegation'), 'line_item_unblended_cost')).toBeCloseTo(-coveredUsd, 12);
      expect(tags(usage)[CUR_TAG_KEYS.nodePool]).toBeUndefined();
    });

    it('the fee line bills the whole commitment, all of it used', () => {
      const fee = byType(
        all.filter((l) => textOf(l, 'line_item_usage_start_date') === '2026-11-02T07:00:00Z'),
        'SavingsPlanRecurringFee',
      );
      expect(textOf(fee, 'line_item_resource_id')).toBe('arn:aws:savingsplans::123456789012:savingsplan/sp-sandbox-1');
      expect([amountOf(fee, 'line_item_unblended_cost'), amountOf(fee, 'savings_plan_total_commitment_to_date')]).toEqual([0.1, 0.1]);
      expect(amountOf(fee, 'savings_plan_used_commitment')).toBeCloseTo(0.1, 12);
      // 720 hours in November.
      expect(amountOf(fee, 'savings_plan_recurring_commitment_for_billing_period')).toBeCloseTo(72, 9);
    });
  });

  it('the spot hour 11-03 00:00 is Usage of SpotUsage:c5.xlarge at the published 0.07, public on-demand 0.17', () => {
    const usage = byType(instanceLinesAt('2026-11-03T00:00:00Z', 'i-0000000000000000b'), 'Usage');
    expect(textOf(usage, 'line_item_usage_type')).toBe('SpotUsage:c5.xlarge');
    expect([amountOf(usage, 'line_item_unblended_cost'), amountOf(usage, 'pricing_public_on_demand_cost')]).toEqual([0.07, 0.17]);
    expect(textOf(usage, 'line_item_unblended_rate')).toBe('0.07');
  });

  it("the root volume: gp3 under its own vol- id, 20 GiB for one of November's 720 hours at 0.08/GB-month, the NodePool's tag and not the NodeClaim's", () => {
    const volume = linesAt('2026-11-02T07:00:00Z', rootVolumeId('i-0000000000000000a'));
    expect(volume).toHaveLength(1);
    expect(rootVolumeId('i-0000000000000000a')).toMatch(/^vol-0[0-9a-f]{16}$/);
    expect(textOf(volume[0], 'line_item_usage_type')).toBe('EBS:VolumeUsage.gp3');
    expect(amountOf(volume[0], 'line_item_usage_amount')).toBeCloseTo(20 / 720, 12);
    expect(amountOf(volume[0], 'line_item_unblended_cost')).toBeCloseTo((20 / 720) * 0.08, 12);
    expect(tags(volume[0])[CUR_TAG_KEYS.nodePool]).toBe('general');
    expect(tags(volume[0])[CUR_TAG_KEYS.nodeClaim]).toBeUndefined();
  });

  describe("split cost allocation: AWS's method on the instance hour's amortized cost", () => {
    const pods = (iso: string, parent: string) =>
      all.filter((l) => textOf(l, 'line_item_usage_start_date') === at(iso) && textOf(l, 'split_line_item_parent_resource_id') === parent);

    it('m5.large (2 vCPU, 8 GiB) at its amortized 0.06912: 26 units of 0.06912/26; web-a takes 2/3, web-b 1/3', () => {
      // CPU 9 units per vCPU, memory 1 per GiB. web-a: 1 vCPU + 2 GiB split = 9 + 2 units, unused (0.5 vCPU, 5 GiB)
      // shared by allocation: 3 + 10/3 units; 17 1/3 units = 2/3 of 26. web-b: 4.5 + 1 + 1.5 + 5/3 = 8 2/3 units.
      const lines = pods('2026-11-02T07:00:00Z', 'i-0000000000000000a');
      expect(lines).toHaveLength(4);
      const total = (pod: string) =>
        lines
          .filter((l) => textOf(l, 'line_item_resource_id').includes(`/${pod}/`))
          .reduce((t, l) => t + amountOf(l, 'split_line_item_split_cost') + amountOf(l, 'split_line_item_unused_cost'), 0);
      expect(total('web-a')).toBeCloseTo(0.04608, 12);
      expect(total('web-b')).toBeCloseTo(0.02304, 12);
      const cpuA = lines.find(
        (l) => textOf(l, 'line_item_usage_type') === 'EKS-EC2-vCPU-Hours' && textOf(l, 'line_item_resource_id').includes('/web-a/'),
      );
      expect(cpuA).toBeDefined();
      if (cpuA === undefined) return;
      expect(textOf(cpuA, 'line_item_resource_id')).toBe(
        'arn:aws:eks:us-east-1:123456789012:pod/tiny-cluster/storefront/web-a/00000000-0000-4000-8000-0000000web-a',
      );
      expect(amountOf(cpuA, 'split_line_item_split_usage_ratio')).toBe(0.5);
      expect(amountOf(cpuA, 'split_line_item_split_cost')).toBeCloseTo((9 * 0.06912) / 26, 12);
      expect(amountOf(cpuA, 'split_line_item_unused_cost')).toBeCloseTo((3 * 0.06912) / 26, 12);
      // The public on-demand variant splits the on-demand 0.096 the same way; no unblended cost of its own.
      expect(amountOf(cpuA, 'split_line_item_public_on_demand_split_cost')).toBeCloseTo((9 * 0.096) / 26, 12);
      expect(amountOf(cpuA, 'line_item_unblended_cost')).toBe(0);
      expect(textOf(cpuA, 'line_item_operation')).toBe('EKSPod-EC2');
      expect(tags(cpuA)).toEqual({
        aws_eks_cluster_name: 'tiny-cluster',
        aws_eks_namespace: 'storefront',
        aws_eks_node: 'ip-10-0-1-10.ec2.internal',
        aws_eks_workload_type: 'Deployment',
        aws_eks_workload_name: 'web',
        aws_eks_deployment: 'web',
      });
    });

    it('a pod present half the hour reserves half its request: batch-c, 2 vCPU / 4 GiB on a c5.xlarge (4 vCPU, 8 GiB) at spot 0.07', () => {
      // 44 units of 0.07/44. vCPU: 1 vCPU-hour of 4, ratio 0.25, split 9 units, unused 3 vCPU-h = 27 units, all its.
      const [cpu, memory] = pods('2026-11-03T00:00:00Z', 'i-0000000000000000b');
      expect([amountOf(cpu, 'split_line_item_reserved_usage'), amountOf(cpu, 'split_line_item_split_usage_ratio')]).toEqual([1, 0.25]);
      expect(amountOf(cpu, 'split_line_item_split_cost')).toBeCloseTo((9 * 0.07) / 44, 12);
      expect(amountOf(cpu, 'split_line_item_unused_cost')).toBeCloseTo((27 * 0.07) / 44, 12);
      expect([amountOf(memory, 'split_line_item_reserved_usage'), amountOf(memory, 'split_line_item_split_usage_ratio')]).toEqual([
        2, 0.25,
      ]);
      expect(cellOf(cpu, 'split_line_item_actual_usage')).toBeNull();
      const whole = [cpu, memory].reduce(
        (t, l) => t + amountOf(l, 'split_line_item_split_cost') + amountOf(l, 'split_line_item_unused_cost'),
        0,
      );
      expect(whole).toBeCloseTo(0.07, 12);
    });

    it('no pod lines for hours without pods, nor beyond asOf', () => {
      expect(all.filter((l) => textOf(l, 'line_item_product_code') === 'AmazonEKS')).toHaveLength(6);
      expect(Math.max(...all.map((l) => Date.parse(textOf(l, 'line_item_usage_end_date'))))).toBe(CUR_AS_OF);
      expect(T('2026-11-03T12:00:00Z')).toBe(CUR_AS_OF);
    });
  });
});
