import { onDemandUsd } from '../scenario/bill.js';
import type { Scenario } from '../scenario/types.js';
import type { CoveredComputeLine, SavingsPlanHour, SavingsPlanSpec } from '../scenario/volumes-savings-plan.js';
import { type CurLineItem, type CurRow, fixed, lineItemId, regionalUsageType } from './cur-common.js';

/**
 * The instance hours of the simulated bill as CUR line items, with what the Compute Savings Plan did to them (AWS
 * Data Exports User Guide, "Understanding Savings Plans": SavingsPlanCoveredUsage, SavingsPlanNegation,
 * SavingsPlanRecurringFee). Pure.
 *
 * - on-demand and capacity-reservation hours the plan did not cover: `Usage` at the on-demand rate;
 * - spot hours: `Usage` of `SpotUsage:<type>` at the published spot price(s) of the hour;
 * - the covered part of an hour: `SavingsPlanCoveredUsage` (unblended = the on-demand cost it replaces, the plan's
 *   effective cost beside it) and its `SavingsPlanNegation` (minus that on-demand cost); an hour the plan covered in
 *   part is two usage lines, covered and not, split by the covered share of its usage, as AWS writes it;
 * - per hour, one `SavingsPlanRecurringFee` for the commitment, with the used part beside it.
 */

/** The instance's tags as resource_tags holds them. */
export type TagsOf = (line: CoveredComputeLine) => Readonly<Record<string, string>>;

/** The hour's bill and time columns (cur-common.ts commonColumnsOf). */
export type CommonOf = (hourStart: number) => Readonly<CurRow>;

function instanceColumns(scenario: Scenario, c: CoveredComputeLine, tags: Readonly<Record<string, string>>): CurRow {
  const l = c.line;
  const spot = l.capacityType === 'spot';
  const odRate = onDemandUsd(scenario, l.instanceType);
  return {
    line_item_product_code: 'AmazonEC2',
    line_item_usage_type: regionalUsageType(scenario, `${spot ? 'SpotUsage' : 'BoxUsage'}:${l.instanceType}`),
    line_item_operation: 'RunInstances',
    line_item_availability_zone: l.zone,
    line_item_resource_id: l.instanceId,
    pricing_unit: 'Hrs',
    pricing_term: spot ? 'Spot' : 'OnDemand',
    pricing_public_on_demand_rate: fixed(odRate),
    product_servicecode: 'AmazonEC2',
    product_product_family: 'Compute Instance',
    product_instance_type: l.instanceType,
    product_region_code: scenario.region,
    product: {
      instance_type: l.instanceType,
      instance_family: l.instanceType.split('.')[0],
      operating_system: 'Linux',
      tenancy: 'Shared',
      region: scenario.region,
      servicecode: 'AmazonEC2',
    },
    resource_tags: tags,
  };
}

/** The lines of one instance hour: one `Usage`, or covered + negation (+ the uncovered rest). */
export function instanceHourLines(
  scenario: Scenario,
  common: CommonOf,
  c: CoveredComputeLine,
  plan: SavingsPlanSpec | null,
  tags: TagsOf,
): CurLineItem[] {
  const l = c.line;
  const shared = [common(l.hourStart), instanceColumns(scenario, c, tags(c))];
  const odRate = onDemandUsd(scenario, l.instanceType);
  const netFraction = c.costs.unblendedUsd === 0 ? 1 : c.costs.netUnblendedUsd / c.costs.unblendedUsd;
  const key = `${l.instanceId}|${l.hourStart}`;
  const spot = l.capacityType === 'spot';
  const rows: CurLineItem[] = [];
  const coveredShare = c.line.unblendedUsd === 0 ? 0 : c.coveredOnDemandUsd / c.line.unblendedUsd;
  const uncoveredUsd = l.unblendedUsd - c.coveredOnDemandUsd;
  if (c.coveredOnDemandUsd === 0 || coveredShare < 1) {
    const hours = l.usageHours * (1 - coveredShare);
    rows.push({
      shared,
      own: {
        identity_line_item_id: lineItemId(`${key}|Usage`),
        line_item_line_item_type: 'Usage',
        line_item_usage_amount: hours,
        line_item_unblended_rate: fixed(hours === 0 ? odRate : uncoveredUsd / hours),
        line_item_unblended_cost: uncoveredUsd,
        line_item_net_unblended_cost: uncoveredUsd * netFraction,
        line_item_line_item_description: spot
          ? `$${fixed(hours === 0 ? 0 : uncoveredUsd / hours)} per Linux/UNIX ${l.instanceType} Spot Instance-hour in ${l.zone}`
          : `$${fixed(odRate)} per On Demand Linux ${l.instanceType} Instance Hour`,
        pricing_public_on_demand_cost: odRate * hours,
      },
    });
  }
  if (c.coveredOnDemandUsd > 0 && plan !== null) {
    const hours = l.usageHours * coveredShare;
    const spRate = odRate * (1 - plan.discountFraction);
    rows.push({
      shared,
      own: {
        savings_plan_savings_plan_a_r_n: plan.arn,
        savings_plan_savings_plan_rate: spRate,
        identity_line_item_id: lineItemId(`${key}|SavingsPlanCoveredUsage`),
        line_item_line_item_type: 'SavingsPlanCoveredUsage',
        line_item_usage_amount: hours,
        line_item_unblended_rate: fixed(odRate),
        line_item_unblended_cost: c.coveredOnDemandUsd,
        line_item_net_unblended_cost: c.coveredOnDemandUsd * netFraction,
        line_item_line_item_description: `$${fixed(spRate)} per hour for ${l.instanceType} in ${scenario.region} covered by Compute Savings Plan ${plan.arn}`,
        pricing_public_on_demand_cost: odRate * hours,
        savings_plan_savings_plan_effective_cost: c.savingsPlanEffectiveUsd,
        savings_plan_net_savings_plan_effective_cost: c.savingsPlanEffectiveUsd * netFraction,
      },
    });
    rows.push({
      shared,
      own: {
        savings_plan_savings_plan_a_r_n: plan.arn,
        savings_plan_savings_plan_rate: spRate,
        identity_line_item_id: lineItemId(`${key}|SavingsPlanNegation`),
        line_item_line_item_type: 'SavingsPlanNegation',
        line_item_usage_amount: hours,
        line_item_unblended_rate: fixed(odRate),
        line_item_unblended_cost: -c.coveredOnDemandUsd,
        line_item_net_unblended_cost: -c.coveredOnDemandUsd * netFraction,
        line_item_line_item_description: `SavingsPlanNegation used by AccountId : ${scenario.accountId} and UsageSku : ${l.instanceType}`,
        pricing_public_on_demand_cost: 0,
      },
    });
  }
  return rows;
}

/** One hour of the plan's commitment: billed whole; amortized, what the covered lines did not use. */
export function savingsPlanFeeLine(
  scenario: Scenario,
  common: CommonOf,
  plan: SavingsPlanSpec,
  hour: SavingsPlanHour,
  hoursInPeriod: number,
): CurLineItem {
  return {
    shared: [common(hour.hourStart)],
    own: {
      identity_line_item_id: lineItemId(`${plan.arn}|${hour.hourStart}|SavingsPlanRecurringFee`),
      line_item_line_item_type: 'SavingsPlanRecurringFee',
      line_item_product_code: 'ComputeSavingsPlans',
      line_item_usage_type: 'ComputeSP:1yrNoUpfront',
      line_item_operation: '',
      line_item_resource_id: plan.arn,
      line_item_usage_amount: 1,
      line_item_unblended_rate: fixed(hour.commitmentUsd),
      line_item_unblended_cost: hour.commitmentUsd,
      line_item_net_unblended_cost: hour.commitmentUsd,
      line_item_line_item_description: `1 year No Upfront Compute Savings Plan, ${fixed(hour.commitmentUsd)} USD per hour`,
      pricing_unit: 'Hrs',
      product_servicecode: 'ComputeSavingsPlans',
      product_product_family: 'Savings Plans',
      product_region_code: '',
      product: { product_name: 'Savings Plans for AWS Compute usage' },
      resource_tags: {},
      savings_plan_savings_plan_a_r_n: plan.arn,
      savings_plan_offering_type: 'ComputeSavingsPlans',
      savings_plan_total_commitment_to_date: hour.commitmentUsd,
      savings_plan_used_commitment: hour.usedUsd,
      savings_plan_recurring_commitment_for_billing_period: hour.commitmentUsd * hoursInPeriod,
      savings_plan_net_recurring_commitment_for_billing_period: hour.commitmentUsd * hoursInPeriod,
      savings_plan_amortized_upfront_commitment_for_billing_period: 0,
      savings_plan_net_amortized_upfront_commitment_for_billing_period: 0,
    },
  };
}
