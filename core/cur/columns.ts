/**
 * The CUR 2.0 columns NodePool Ledger reads (and the sandbox writes), with their types as AWS documents them in the
 * Data Exports table dictionary for CUR 2.0 (https://docs.aws.amazon.com/cur/latest/userguide/table-dictionary-cur2.html
 * and its per-group pages: table-dictionary-cur2-bill.html, -line-item.html, -pricing.html, -product.html,
 * -reservation.html, -savings-plan.html, -resource-tags.html, -split-line-item.html under the same folder).
 *
 * CUR 2.0 has a fixed schema: every column is present in every export (a column that does not apply to a line is
 * null, or an empty string in CSV). Money is USD (or the account's line_item_currency_code) as double; dates are
 * timestamps (UTC); `product` and `resource_tags` are map<string,string>. In gzip CSV AWS writes a map column as a
 * JSON object in one CSV field ({"user_team":"a"}), timestamps as ISO-8601 (2026-11-01T00:00:00Z).
 */

/** The documented types of the columns we use. `map` is map<string,string>. */
export type CurColumnType = 'string' | 'double' | 'timestamp' | 'map';

export const CUR_COLUMNS = {
  // bill_*
  bill_billing_period_start_date: 'timestamp',
  bill_billing_period_end_date: 'timestamp',
  bill_payer_account_id: 'string',
  bill_bill_type: 'string',
  // identity_*
  identity_line_item_id: 'string',
  identity_time_interval: 'string',
  // line_item_*
  line_item_line_item_type: 'string',
  line_item_usage_account_id: 'string',
  line_item_usage_start_date: 'timestamp',
  line_item_usage_end_date: 'timestamp',
  line_item_product_code: 'string',
  line_item_usage_type: 'string',
  line_item_operation: 'string',
  line_item_availability_zone: 'string',
  line_item_resource_id: 'string',
  line_item_usage_amount: 'double',
  line_item_currency_code: 'string',
  line_item_unblended_rate: 'string',
  line_item_unblended_cost: 'double',
  line_item_net_unblended_cost: 'double',
  line_item_line_item_description: 'string',
  // pricing_*
  pricing_public_on_demand_cost: 'double',
  pricing_public_on_demand_rate: 'string',
  pricing_term: 'string',
  pricing_unit: 'string',
  // product (map) and the product_* columns CUR 2.0 keeps as their own columns
  product: 'map',
  product_instance_type: 'string',
  product_product_family: 'string',
  product_region_code: 'string',
  product_servicecode: 'string',
  // savings_plan_*
  savings_plan_savings_plan_a_r_n: 'string',
  savings_plan_savings_plan_effective_cost: 'double',
  savings_plan_net_savings_plan_effective_cost: 'double',
  savings_plan_savings_plan_rate: 'double',
  savings_plan_total_commitment_to_date: 'double',
  savings_plan_used_commitment: 'double',
  savings_plan_amortized_upfront_commitment_for_billing_period: 'double',
  savings_plan_net_amortized_upfront_commitment_for_billing_period: 'double',
  savings_plan_recurring_commitment_for_billing_period: 'double',
  savings_plan_net_recurring_commitment_for_billing_period: 'double',
  savings_plan_offering_type: 'string',
  // reservation_*
  reservation_reservation_a_r_n: 'string',
  reservation_effective_cost: 'double',
  reservation_net_effective_cost: 'double',
  reservation_amortized_upfront_fee_for_billing_period: 'double',
  reservation_unused_amortized_upfront_fee_for_billing_period: 'double',
  reservation_net_unused_amortized_upfront_fee_for_billing_period: 'double',
  reservation_unused_recurring_fee: 'double',
  reservation_net_unused_recurring_fee: 'double',
  // resource_tags: map<string,string>, keys normalised (core/cur/tag-keys.ts)
  resource_tags: 'map',
  // split_line_item_* (split cost allocation data, on the pod lines only)
  split_line_item_parent_resource_id: 'string',
  split_line_item_split_usage: 'double',
  split_line_item_split_usage_ratio: 'double',
  split_line_item_reserved_usage: 'double',
  split_line_item_actual_usage: 'double',
  split_line_item_split_cost: 'double',
  split_line_item_unused_cost: 'double',
  split_line_item_net_split_cost: 'double',
  split_line_item_net_unused_cost: 'double',
  split_line_item_public_on_demand_split_cost: 'double',
  split_line_item_public_on_demand_unused_cost: 'double',
} as const satisfies Record<string, CurColumnType>;

export type CurColumnName = keyof typeof CUR_COLUMNS;
export const CUR_COLUMN_NAMES = Object.keys(CUR_COLUMNS) as CurColumnName[];

/**
 * line_item_line_item_type values (table-dictionary-cur2-line-item.html, "line_item_line_item_type"). How each one
 * counts in amortized cost is in collectors/cur/aggregate-statement.ts.
 */
export const CUR_LINE_ITEM_TYPES = [
  'Usage',
  'DiscountedUsage',
  'SavingsPlanCoveredUsage',
  'SavingsPlanNegation',
  'SavingsPlanRecurringFee',
  'SavingsPlanUpfrontFee',
  'RIFee',
  'Fee',
  'Credit',
  'Refund',
  'Tax',
  'BundledDiscount',
  'EdpDiscount',
  'PrivateRateDiscount',
  'DistributorDiscount',
] as const;
export type CurLineItemType = (typeof CUR_LINE_ITEM_TYPES)[number];

/** Where a line's cost goes in a NodePool's bill (the "storage and network" band is volumes + data-transfer). */
export const CUR_COST_CATEGORIES = ['instances', 'volumes', 'data-transfer', 'other'] as const;
export type CurCostCategory = (typeof CUR_COST_CATEGORIES)[number];
