import { CUR_TAG_KEYS } from '../../core/cur/tag-keys.js';
import { CUR_COST_CATEGORIES, type CurCostCategory } from '../../core/cur/columns.js';

/**
 * The ONE statement that turns a billing period of CUR 2.0 lines into the rows NodePool Ledger keeps, run by DuckDB
 * over local Parquet/CSV (collectors/cur/import-folder.ts) and by Athena over the export in S3 (`cur athena`).
 * Its portable form (the default, what Athena runs) keeps to the SQL both engines accept: no `::` casts, no
 * DuckDB-only functions, map values read as `CASE WHEN contains(map_keys(m), k) THEN m[k] END` (Trino's `m[k]` fails
 * on a missing key and DuckDB's element_at returns a list, so neither bare form is portable), CAST(… AS
 * DOUBLE|VARCHAR|DATE), COALESCE, CASE, LIKE, split_part, COUNT(DISTINCT), UNION ALL with a row-kind column. Its
 * DuckDB form (dialect 'duckdb', for the in-process import) differs in one sub-expression only, DuckDB's cheaper read
 * of a tag (CurStatementOptions.dialect); collectors/cur/statement-dialects.test.ts holds both to the same rows. The
 * import runs it in its two parts (curAggregateParts), the split part beside the other, and in DuckDB's dialect that
 * part counts pods by hashed keys, failing (SPLIT_HASH_COLLISION) where a collision would change a count; its exact
 * form (`splitExact`, the statement's own split rows) is then run instead.
 *
 * Rows (row_kind):
 * - 'resource':    lines with a line_item_resource_id (instance, volume, data transfer on an instance, a Savings Plan's
 *                  or reservation's fee), not pod lines, per day × resource × line item type × usage type × operation ×
 *                  commitment. The importer fills nodepool/nodeclaim from our NodeClaims (instance id) where the tag
 *                  is missing, then sums them per NodePool per day.
 * - 'unresourced': lines without a resource id (credits, taxes, refunds, or an export without INCLUDE_RESOURCES),
 *                  per day × line item type × usage type × tags.
 * - 'split':       pod lines of split cost allocation data (split_line_item_parent_resource_id set), per day ×
 *                  cluster × namespace × the parent instance's NodePool tag; resource_id is the parent instance id
 *                  only when the parent has no NodePool tag (so the importer can look it up; '' otherwise, which keeps
 *                  the row count per namespace, not per instance).
 *
 * Amortized cost by line item type, as AWS documents it ("Understanding Savings Plans":
 * https://docs.aws.amazon.com/cur/latest/userguide/cur-sp.html; reservations: "Understanding your reservations"
 * https://docs.aws.amazon.com/cur/latest/userguide/understanding-ri.html; and the Cost Explorer definitions of
 * AmortizedCost https://docs.aws.amazon.com/cost-management/latest/userguide/ce-advanced.html):
 * - Usage (and Credit, Refund, Tax, discounts, Fee without a reservation): the unblended cost; nothing to spread.
 * - SavingsPlanCoveredUsage: savings_plan_savings_plan_effective_cost (the commitment's share this usage consumed);
 *   its unblended cost is the on-demand price, cancelled by the matching SavingsPlanNegation.
 * - SavingsPlanNegation: 0 amortized; it only cancels the covered usage's on-demand unblended cost.
 * - SavingsPlanRecurringFee: the unused commitment, savings_plan_total_commitment_to_date − savings_plan_used_commitment
 *   (the used part is already in the covered lines' effective cost).
 * - SavingsPlanUpfrontFee: 0 amortized (spread over the term through the effective cost).
 * - DiscountedUsage: reservation_effective_cost (upfront share + recurring rate for the hours used).
 * - RIFee: the unused reservation, reservation_unused_amortized_upfront_fee_for_billing_period +
 *   reservation_unused_recurring_fee.
 * - Fee with a reservation ARN (an RI's upfront payment): 0 amortized (spread through DiscountedUsage/RIFee).
 * Net amortized takes the same rule over the net_ columns; a net column that is null (an account without discounts
 * leaves them empty) falls back to its gross column. For SavingsPlanRecurringFee, whose unused part has no net column,
 * the gross unused part is scaled by the fee line's net ÷ gross unblended (its discount applies to all of it).
 */

export type CurRowKind = 'resource' | 'unresourced' | 'split';

/** One result row, typed (rowFromRecord turns DuckDB's or Athena's record into it). Money in the export's currency. */
export interface CurAggregateRow {
  rowKind: CurRowKind;
  /** YYYY-MM-DD, UTC day of line_item_usage_start_date. */
  usageDay: string;
  /** resource: the line's resource id; split: the parent instance id when it has no NodePool tag, else ''. */
  resourceId: string;
  lineItemType: string;
  usageType: string;
  productCode: string;
  operation: string;
  category: CurCostCategory;
  cluster: string;
  /** The NodePool tag ('' none): of the line itself, or for split rows of the parent instance. */
  nodePool: string;
  nodeClaim: string;
  /** split rows only ('' otherwise). */
  namespace: string;
  /** The Savings Plan or reservation ARN that covered the line ('' none). */
  commitmentArn: string;
  unblendedUsd: number;
  amortizedUsd: number;
  netUnblendedUsd: number;
  netAmortizedUsd: number;
  usageAmount: number;
  publicOnDemandUsd: number;
  splitCostUsd: number;
  unusedCostUsd: number;
  netSplitCostUsd: number;
  netUnusedCostUsd: number;
  publicOnDemandSplitCostUsd: number;
  publicOnDemandUnusedCostUsd: number;
  vcpuHours: number;
  memoryGbHours: number;
  podCount: number;
  lineCount: number;
}

/** The statement's output columns, in order (snake_case of CurAggregateRow's fields). */
export const CUR_AGGREGATE_COLUMNS = [
  'row_kind',
  'usage_day',
  'resource_id',
  'line_item_type',
  'usage_type',
  'product_code',
  'operation',
  'category',
  'cluster',
  'nodepool',
  'nodeclaim',
  'namespace',
  'commitment_arn',
  'unblended_usd',
  'amortized_usd',
  'net_unblended_usd',
  'net_amortized_usd',
  'usage_amount',
  'public_on_demand_usd',
  'split_cost_usd',
  'unused_cost_usd',
  'net_split_cost_usd',
  'net_unused_cost_usd',
  'public_on_demand_split_cost_usd',
  'public_on_demand_unused_cost_usd',
  'vcpu_hours',
  'memory_gb_hours',
  'pod_count',
  'line_count',
] as const;
export type CurAggregateColumn = (typeof CUR_AGGREGATE_COLUMNS)[number];

/** The texts of the nested form: CUR_AGGREGATE_COLUMNS' up to its first figure, without the day and the namespace. */
const NESTED_TEXTS = CUR_AGGREGATE_COLUMNS.slice(0, CUR_AGGREGATE_COLUMNS.indexOf('unblended_usd')).filter(
  (c) => c !== 'usage_day' && c !== 'namespace',
);
/**
 * The columns of the resource part's nested form (curAggregateParts' `notSplitNested`, DuckDB's SQL): a row per
 * resource and line kind (the flat part's key without the day), its texts once, and `days`, a list of one struct per
 * day with CUR_NESTED_DAY_FIELDS.
 */
export const CUR_NESTED_COLUMNS: readonly string[] = [...NESTED_TEXTS, 'days'];
/** A day's fields in the nested form's `days` (day: days since 1970-01-01; line_count as a double). */
export const CUR_NESTED_DAY_FIELDS = [
  'day',
  'unblended_usd',
  'amortized_usd',
  'net_unblended_usd',
  'net_amortized_usd',
  'usage_amount',
  'public_on_demand_usd',
  'line_count',
] as const;

export interface CurTagKeyOptions {
  /** resource_tags keys (already normalised, core/cur/tag-keys.ts). */
  nodePool: string;
  nodeClaim: string;
  /** Tried in order for the cluster of a non-pod line. */
  cluster: readonly string[];
}

export const DEFAULT_CUR_TAG_KEYS: CurTagKeyOptions = {
  nodePool: CUR_TAG_KEYS.nodePool,
  nodeClaim: CUR_TAG_KEYS.nodeClaim,
  cluster: [CUR_TAG_KEYS.eksClusterName, CUR_TAG_KEYS.splitClusterName],
};

export interface CurStatementOptions {
  /** A table or view name, optionally qualified (`db.table`): letters, digits, `_`, one `.` at most per part. */
  table: string;
  /** YYYY-MM: only lines whose bill_billing_period_start_date is in this month. */
  billingPeriod: string;
  tagKeys?: CurTagKeyOptions;
  /**
   * The table's partition column holding YYYY-MM (`billing_period` in an Athena table over a Data Export): also
   * filtered on, so Athena reads only that period's files (it bills by data scanned) instead of every period's.
   */
  partitionColumn?: string;
  /**
   * 'portable' (the default): SQL that Athena (Trino) and DuckDB both accept, for `cur athena`. 'duckdb': the same rows
   * through DuckDB's own, cheaper form of one sub-expression, for the in-process import (duckdb-reader.ts): a tag read
   * as map_extract_value(m, k) (NULL for a missing key) instead of a list of the map's keys made per line and key.
   */
  dialect?: CurSqlDialect;
  /**
   * DuckDB's dialect only: the SQL of a 64-bit hash of the comma-separated expressions given, for the split part's
   * compact keys (curAggregateParts' `split`). Default DuckDB's `hash(…)`; tests pass one that collides, to see a
   * collision refused (SPLIT_HASH_COLLISION) and the exact form used instead.
   */
  keyHash?: (expressions: string) => string;
}

/**
 * The message DuckDB's fast split part fails with when its hashed keys are not one-to-one over the period's pods or
 * split groups (curAggregateParts' `split`): the caller then runs `splitExact`, which has no hashed key.
 */
export const SPLIT_HASH_COLLISION = 'CUR split rows: hashed keys collide';

/** Which engine the statement is written for (CurStatementOptions.dialect). */
export type CurSqlDialect = 'portable' | 'duckdb';

const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;
const BILLING_PERIOD = /^(\d{4})-(0[1-9]|1[0-2])$/;
const TAG_KEY = /^[a-z0-9_]+$/;

/** The UTC start of the month after YYYY-MM, as YYYY-MM-DD. */
function nextMonth(period: string): string {
  const m = BILLING_PERIOD.exec(period);
  if (m === null) throw new Error(`billing period "${period}" is not YYYY-MM`);
  const year = Number(m[1]);
  const month = Number(m[2]);
  return month === 12 ? `${year + 1}-01-01` : `${year}-${String(month + 1).padStart(2, '0')}-01`;
}

const mapValue = (column: string, key: string, dialect: CurSqlDialect): string =>
  dialect === 'duckdb'
    ? `map_extract_value(${column}, '${key}')`
    : `CASE WHEN contains(map_keys(${column}), '${key}') THEN ${column}['${key}'] END`;

/** The statement for one billing period. Throws on a table name, period or tag key that is not plain. */
export function curAggregateStatement(options: CurStatementOptions): string {
  return statementParts(options).whole;
}

/**
 * The statement in its two parts: the resource and unresourced rows (by resource, then day), and the split rows (in the
 * statement's order). Together they are the statement's rows in another order, so the in-process import can run the
 * split part, the heavier one for DuckDB and the lighter one to store, while it writes the other part's rows.
 */
export function curAggregateParts(options: CurStatementOptions): {
  notSplit: string;
  notSplitNested: string;
  split: string;
  splitExact: string;
} {
  const { notSplit, notSplitNested, split, splitExact } = statementParts(options);
  return { notSplit, notSplitNested, split, splitExact };
}

function statementParts(options: CurStatementOptions): {
  whole: string;
  notSplit: string;
  notSplitNested: string;
  split: string;
  splitExact: string;
} {
  const { table, billingPeriod } = options;
  const tags = options.tagKeys ?? DEFAULT_CUR_TAG_KEYS;
  if (!TABLE_NAME.test(table)) throw new Error(`table name "${table}" is not a plain SQL name`);
  const periodEnd = nextMonth(billingPeriod);
  for (const key of [tags.nodePool, tags.nodeClaim, ...tags.cluster]) {
    if (!TAG_KEY.test(key)) throw new Error(`tag key "${key}" is not a CUR 2.0 resource_tags key (lower-case, digits, _)`);
  }
  if (tags.cluster.length === 0) throw new Error('at least one cluster tag key is needed');
  const partition = options.partitionColumn;
  if (partition !== undefined && !/^[a-z_][a-z0-9_]*$/.test(partition))
    throw new Error(`partition column "${partition}" is not a plain lower-case SQL name`);

  const dialect = options.dialect ?? 'portable';
  const tag = (key: string): string => mapValue('resource_tags', key, dialect);
  const clusterTag = `COALESCE(${tags.cluster.map(tag).join(', ')})`;
  const zero = 'CAST(0 AS DOUBLE)';
  const d = (column: string): string => `COALESCE(CAST(${column} AS DOUBLE), ${zero})`;
  const netOr = (net: string, gross: string): string => `COALESCE(CAST(${net} AS DOUBLE), CAST(${gross} AS DOUBLE), ${zero})`;
  const s = (column: string): string => `COALESCE(CAST(${column} AS VARCHAR), '')`;

  // 'Usage' first, though the ELSE gives it the same: nearly every line is Usage (every pod line), so each WHEN after
  // it is tried on the few others only.
  const amortized = `CASE line_item_line_item_type
      WHEN 'Usage' THEN ${d('line_item_unblended_cost')}
      WHEN 'SavingsPlanCoveredUsage' THEN ${d('savings_plan_savings_plan_effective_cost')}
      WHEN 'SavingsPlanNegation' THEN ${zero}
      WHEN 'SavingsPlanRecurringFee' THEN ${d('savings_plan_total_commitment_to_date')} - ${d('savings_plan_used_commitment')}
      WHEN 'SavingsPlanUpfrontFee' THEN ${zero}
      WHEN 'DiscountedUsage' THEN ${d('reservation_effective_cost')}
      WHEN 'RIFee' THEN ${d('reservation_unused_amortized_upfront_fee_for_billing_period')} + ${d('reservation_unused_recurring_fee')}
      WHEN 'Fee' THEN CASE WHEN ${s('reservation_reservation_a_r_n')} <> '' THEN ${zero} ELSE ${d('line_item_unblended_cost')} END
      ELSE ${d('line_item_unblended_cost')} END`;
  const netAmortized = `CASE line_item_line_item_type
      WHEN 'Usage' THEN ${netOr('line_item_net_unblended_cost', 'line_item_unblended_cost')}
      WHEN 'SavingsPlanCoveredUsage' THEN ${netOr('savings_plan_net_savings_plan_effective_cost', 'savings_plan_savings_plan_effective_cost')}
      WHEN 'SavingsPlanNegation' THEN ${zero}
      WHEN 'SavingsPlanRecurringFee' THEN (${d('savings_plan_total_commitment_to_date')} - ${d('savings_plan_used_commitment')})
        * CASE WHEN ${d('line_item_unblended_cost')} <> 0
          THEN ${netOr('line_item_net_unblended_cost', 'line_item_unblended_cost')} / ${d('line_item_unblended_cost')}
          ELSE CAST(1 AS DOUBLE) END
      WHEN 'SavingsPlanUpfrontFee' THEN ${zero}
      WHEN 'DiscountedUsage' THEN ${netOr('reservation_net_effective_cost', 'reservation_effective_cost')}
      WHEN 'RIFee' THEN ${netOr('reservation_net_unused_amortized_upfront_fee_for_billing_period', 'reservation_unused_amortized_upfront_fee_for_billing_period')}
        + ${netOr('reservation_net_unused_recurring_fee', 'reservation_unused_recurring_fee')}
      WHEN 'Fee' THEN CASE WHEN ${s('reservation_reservation_a_r_n')} <> '' THEN ${zero}
        ELSE ${netOr('line_item_net_unblended_cost', 'line_item_unblended_cost')} END
      ELSE ${netOr('line_item_net_unblended_cost', 'line_item_unblended_cost')} END`;
  // Fees, credits and the like are the account's, not a resource's usage: 'other' whatever their usage type says.
  const category = `CASE
      WHEN line_item_line_item_type NOT IN ('Usage', 'DiscountedUsage', 'SavingsPlanCoveredUsage', 'SavingsPlanNegation') THEN 'other'
      WHEN line_item_usage_type LIKE '%BoxUsage%' OR line_item_usage_type LIKE '%SpotUsage%'
        OR line_item_usage_type LIKE '%DedicatedUsage%' OR line_item_usage_type LIKE '%HostUsage%' THEN 'instances'
      WHEN line_item_usage_type LIKE '%EBS:%' THEN 'volumes'
      WHEN line_item_usage_type LIKE '%DataTransfer%' OR line_item_usage_type LIKE '%-Bytes'
        OR line_item_usage_type LIKE '%-Bytes-%' THEN 'data-transfer'
      ELSE 'other' END`;

  // The period's lines, split lines or the others: each part of the statement reads the table with its own filter
  // rather than sharing one CTE of every line, which DuckDB materialises when it is read more than once (every line
  // with every column: gigabytes at the envelope, and the time to write them) and Trino inlines anyway.
  const linesOf = (kind: 'split' | 'not-split'): string => `(
    SELECT
      -- Grouped as a date, written as text once per row of the result rather than once per line.
      CAST(line_item_usage_start_date AS DATE) AS usage_date,
      ${s('line_item_resource_id')} AS resource_id,
      ${s('line_item_line_item_type')} AS line_item_type,
      ${s('line_item_usage_type')} AS usage_type,
      ${s('line_item_product_code')} AS product_code,
      ${s('line_item_operation')} AS operation,
      ${category} AS category,
      COALESCE(${clusterTag}, '') AS cluster,
      COALESCE(${tag(tags.nodePool)}, '') AS nodepool,
      COALESCE(${tag(tags.nodeClaim)}, '') AS nodeclaim,
      -- Trino's split_part is NULL past the last field, DuckDB's is '': COALESCE to '' for both.
      COALESCE(${tag(CUR_TAG_KEYS.splitNamespace)}, split_part(${s('line_item_resource_id')}, '/', 3), '') AS pod_namespace,
      COALESCE(${tag(CUR_TAG_KEYS.splitClusterName)}, split_part(${s('line_item_resource_id')}, '/', 2), '') AS pod_cluster,
      CASE WHEN ${s('savings_plan_savings_plan_a_r_n')} <> '' THEN ${s('savings_plan_savings_plan_a_r_n')}
        ELSE ${s('reservation_reservation_a_r_n')} END AS commitment_arn,
      ${s('split_line_item_parent_resource_id')} AS parent_resource_id,
      ${d('line_item_unblended_cost')} AS unblended_usd,
      ${amortized} AS amortized_usd,
      ${netOr('line_item_net_unblended_cost', 'line_item_unblended_cost')} AS net_unblended_usd,
      ${netAmortized} AS net_amortized_usd,
      ${d('line_item_usage_amount')} AS usage_amount,
      ${d('pricing_public_on_demand_cost')} AS public_on_demand_usd,
      ${d('split_line_item_split_cost')} AS split_cost_usd,
      ${d('split_line_item_unused_cost')} AS unused_cost_usd,
      ${netOr('split_line_item_net_split_cost', 'split_line_item_split_cost')} AS net_split_cost_usd,
      ${netOr('split_line_item_net_unused_cost', 'split_line_item_unused_cost')} AS net_unused_cost_usd,
      ${d('split_line_item_public_on_demand_split_cost')} AS public_on_demand_split_cost_usd,
      ${d('split_line_item_public_on_demand_unused_cost')} AS public_on_demand_unused_cost_usd,
      CASE WHEN line_item_usage_type LIKE '%vCPU-Hours' THEN ${d('split_line_item_split_usage')} ELSE ${zero} END AS vcpu_hours,
      CASE WHEN line_item_usage_type LIKE '%GB-Hours' THEN ${d('split_line_item_split_usage')} ELSE ${zero} END AS memory_gb_hours
    FROM ${table}
    WHERE bill_billing_period_start_date >= TIMESTAMP '${billingPeriod}-01 00:00:00'
      AND bill_billing_period_start_date < TIMESTAMP '${periodEnd} 00:00:00'${
        partition !== undefined
          ? `
      AND ${partition} = '${billingPeriod}'`
          : ''
      }
      AND ${
        // The same as COALESCE(parent, '') <> '' (or = ''), as comparisons of the bare column, the form a scan can take
        // as its own filter (Parquet statistics, rows filtered as they are read).
        kind === 'split'
          ? `split_line_item_parent_resource_id <> ''`
          : `(split_line_item_parent_resource_id IS NULL OR split_line_item_parent_resource_id = '')`
      }
  )`;
  // The NodePool of each instance that pods ran on: its tag on any of its lines of the period.
  const parents = `parents AS (
    SELECT resource_id, MAX(nodepool) AS nodepool
    FROM ${linesOf('not-split')} l WHERE resource_id LIKE 'i-%' AND nodepool <> ''
    GROUP BY resource_id
  )`;
  const money = `SUM(unblended_usd) AS unblended_usd, SUM(amortized_usd) AS amortized_usd,
    SUM(net_unblended_usd) AS net_unblended_usd, SUM(net_amortized_usd) AS net_amortized_usd,
    SUM(usage_amount) AS usage_amount, SUM(public_on_demand_usd) AS public_on_demand_usd`;
  const noSplit = `${zero} AS split_cost_usd, ${zero} AS unused_cost_usd, ${zero} AS net_split_cost_usd,
    ${zero} AS net_unused_cost_usd, ${zero} AS public_on_demand_split_cost_usd, ${zero} AS public_on_demand_unused_cost_usd,
    ${zero} AS vcpu_hours, ${zero} AS memory_gb_hours, CAST(0 AS BIGINT) AS pod_count`;
  // Resource and unresourced rows in one aggregation, so one read of the lines: the tags are part of the key only
  // where there is no resource id (a resource's row takes the largest of its lines' tags, as it always did).
  const notSplit = `not_split AS (
    SELECT usage_date, resource_id, line_item_type, usage_type, product_code, operation, category, commitment_arn,
      MAX(cluster) AS cluster, MAX(nodepool) AS nodepool, MAX(nodeclaim) AS nodeclaim, ${money}, COUNT(*) AS line_count
    FROM ${linesOf('not-split')} l
    GROUP BY usage_date, resource_id, line_item_type, usage_type, product_code, operation, category, commitment_arn,
      CASE WHEN resource_id = '' THEN cluster END, CASE WHEN resource_id = '' THEN nodepool END,
      CASE WHEN resource_id = '' THEN nodeclaim END
  )`;
  const notSplitRows = `SELECT CASE WHEN resource_id = '' THEN CAST('unresourced' AS VARCHAR) ELSE CAST('resource' AS VARCHAR) END
    AS row_kind, CAST(usage_date AS VARCHAR) AS usage_day, resource_id, line_item_type, usage_type, product_code,
    operation, category, cluster, nodepool, nodeclaim, CAST('' AS VARCHAR) AS namespace, commitment_arn, unblended_usd,
    amortized_usd, net_unblended_usd, net_amortized_usd, usage_amount, public_on_demand_usd, ${noSplit}, line_count
  FROM not_split`;

  const splitParent = `CASE WHEN p.nodepool IS NULL THEN l.parent_resource_id ELSE '' END`;
  const splitWith = [parents];
  const splitRows = `SELECT CAST('split' AS VARCHAR) AS row_kind, CAST(l.usage_date AS VARCHAR) AS usage_day,
    ${splitParent} AS resource_id,
    CAST('' AS VARCHAR) AS line_item_type, CAST('' AS VARCHAR) AS usage_type, CAST('' AS VARCHAR) AS product_code,
    CAST('' AS VARCHAR) AS operation, CAST('instances' AS VARCHAR) AS category, l.pod_cluster AS cluster,
    COALESCE(p.nodepool, '') AS nodepool, CAST('' AS VARCHAR) AS nodeclaim, l.pod_namespace AS namespace,
    CAST('' AS VARCHAR) AS commitment_arn,
    SUM(l.unblended_usd) AS unblended_usd, SUM(l.amortized_usd) AS amortized_usd,
    SUM(l.net_unblended_usd) AS net_unblended_usd, SUM(l.net_amortized_usd) AS net_amortized_usd,
    SUM(l.usage_amount) AS usage_amount, SUM(l.public_on_demand_usd) AS public_on_demand_usd,
    SUM(l.split_cost_usd) AS split_cost_usd, SUM(l.unused_cost_usd) AS unused_cost_usd,
    SUM(l.net_split_cost_usd) AS net_split_cost_usd, SUM(l.net_unused_cost_usd) AS net_unused_cost_usd,
    SUM(l.public_on_demand_split_cost_usd) AS public_on_demand_split_cost_usd,
    SUM(l.public_on_demand_unused_cost_usd) AS public_on_demand_unused_cost_usd, SUM(l.vcpu_hours) AS vcpu_hours,
    SUM(l.memory_gb_hours) AS memory_gb_hours, COUNT(DISTINCT l.resource_id) AS pod_count, COUNT(*) AS line_count
  FROM ${linesOf('split')} l LEFT JOIN parents p ON p.resource_id = l.parent_resource_id
  GROUP BY l.usage_date, ${splitParent}, l.pod_cluster, COALESCE(p.nodepool, ''), l.pod_namespace`;
  // DuckDB's form of the split rows, the same rows for less work: its COUNT(DISTINCT pod ARN) per group of (day,
  // parent, cluster, NodePool, namespace) kept every group's strings beside each of ~3.5 million (group, ARN) pairs
  // at the envelope (most of the import's DuckDB time, and over its memory limit). Here the lines are grouped by day and
  // a 64-bit hash of the group's four strings, and the pods counted by a hash of their ARN: a few integers per pair.
  // Exact, or it fails: the strings of each group are read back as MIN and MAX, equal unless two groups' keys
  // collided; and the period's pod ARNs are counted distinct both as text and as hashes, equal unless two ARNs
  // collided. Either collision fails the statement with SPLIT_HASH_COLLISION (in the projection below the ORDER BY, so
  // before any row is returned), and the importer runs splitExact.
  const keyHash = options.keyHash ?? ((e: string): string => `hash(${e})`);
  const splitNodePool = `COALESCE(p.nodepool, '')`;
  // The summed figures: the statement's columns from unblended_usd to memory_gb_hours (the pod and line counts after
  // them are counted).
  const splitSums = CUR_AGGREGATE_COLUMNS.slice(CUR_AGGREGATE_COLUMNS.indexOf('unblended_usd'), CUR_AGGREGATE_COLUMNS.indexOf('pod_count'));
  const hashedGroups = `split_groups AS (
    SELECT l.usage_date, ${keyHash(`${splitParent}, l.pod_cluster, ${splitNodePool}, l.pod_namespace`)} AS group_hash,
      MIN(${splitParent}) AS resource_id, MAX(${splitParent}) AS resource_id_max, MIN(l.pod_cluster) AS cluster,
      MAX(l.pod_cluster) AS cluster_max, MIN(${splitNodePool}) AS nodepool, MAX(${splitNodePool}) AS nodepool_max,
      MIN(l.pod_namespace) AS namespace, MAX(l.pod_namespace) AS namespace_max,
      ${splitSums.map((c) => `SUM(l.${c}) AS ${c}`).join(', ')},
      COUNT(DISTINCT ${keyHash('l.resource_id')}) AS pod_count, COUNT(*) AS line_count
    FROM ${linesOf('split')} l LEFT JOIN parents p ON p.resource_id = l.parent_resource_id
    GROUP BY l.usage_date, group_hash
  ),
  pod_hashes AS (
    SELECT COUNT(DISTINCT l.resource_id) AS pods, COUNT(DISTINCT ${keyHash('l.resource_id')}) AS hashes FROM ${linesOf('split')} l
  )`;
  const collided = `g.resource_id <> g.resource_id_max OR g.cluster <> g.cluster_max OR g.nodepool <> g.nodepool_max
      OR g.namespace <> g.namespace_max OR h.pods <> h.hashes`;
  const hashedSplitRows = `SELECT CASE WHEN ${collided} THEN error('${SPLIT_HASH_COLLISION}') ELSE CAST('split' AS VARCHAR) END AS row_kind,
    CAST(g.usage_date AS VARCHAR) AS usage_day, g.resource_id,
    CAST('' AS VARCHAR) AS line_item_type, CAST('' AS VARCHAR) AS usage_type, CAST('' AS VARCHAR) AS product_code,
    CAST('' AS VARCHAR) AS operation, CAST('instances' AS VARCHAR) AS category, g.cluster, g.nodepool,
    CAST('' AS VARCHAR) AS nodeclaim, g.namespace, CAST('' AS VARCHAR) AS commitment_arn,
    ${splitSums.map((c) => `g.${c}`).join(', ')}, g.pod_count, g.line_count
  FROM split_groups g, pod_hashes h`;

  // A day of the nested resource part: CUR_NESTED_DAY_FIELDS, the day as a number and the line count as a double (no
  // date or BigInt object made per value in JavaScript).
  const nestedDay = CUR_NESTED_DAY_FIELDS.map((f) =>
    f === 'day'
      ? `'day': CAST(date_diff('day', DATE '1970-01-01', usage_date) AS INTEGER)`
      : f === 'line_count'
        ? `'line_count': CAST(line_count AS DOUBLE)`
        : `'${f}': ${f}`,
  ).join(', ');

  // Its group key: the nested form's texts but the row kind (worked out from the resource id).
  const nestedKeys = NESTED_TEXTS.filter((c) => c !== 'row_kind').join(', ');

  const order = `ORDER BY usage_day, row_kind, resource_id, line_item_type, usage_type, product_code, operation, commitment_arn, cluster,
  nodepool, nodeclaim, namespace`;

  return {
    whole: `WITH ${[notSplit, ...splitWith].join(',\n')}
${notSplitRows}
UNION ALL
${splitRows}
${order}`,
    // Resource by resource, each one's days together: the importer's SQLite rows are keyed by resource then day, so
    // in this order each is written beside the one before (in the statement's, day by day, every row of a day lands
    // somewhere else in the key and its page is seldom still in the page cache).
    notSplit: `WITH ${notSplit}
SELECT * FROM (${notSplitRows}) r
ORDER BY resource_id, line_item_type, usage_type, product_code, operation, commitment_arn, row_kind, cluster, nodepool,
  nodeclaim, usage_day`,
    // The same rows nested (DuckDB's SQL, for the in-process import): one row per resource and line kind, whose texts
    // are the same on each of its days, with its days as a list. About 30 times fewer rows, so 30 times fewer texts
    // made into JavaScript strings (about a fifth of the import's main thread before). The list is in no order (an ordered list()
    // ran out of memory_limit at the envelope): the reader puts each group's days in order.
    notSplitNested: `WITH ${notSplit}
SELECT CASE WHEN resource_id = '' THEN CAST('unresourced' AS VARCHAR) ELSE CAST('resource' AS VARCHAR) END AS row_kind,
  ${nestedKeys}, list({${nestedDay}}) AS days
FROM not_split
GROUP BY ${nestedKeys}
ORDER BY resource_id, line_item_type, usage_type, product_code, operation, commitment_arn, row_kind, cluster, nodepool,
  nodeclaim`,
    split:
      dialect === 'duckdb'
        ? `WITH ${[...splitWith, hashedGroups].join(',\n')}
SELECT * FROM (${hashedSplitRows}) r
${order}`
        : `WITH ${splitWith.join(',\n')}
SELECT * FROM (${splitRows}) r
${order}`,
    splitExact: `WITH ${splitWith.join(',\n')}
SELECT * FROM (${splitRows}) r
${order}`,
  };
}

const num = (v: unknown, column: string): number => {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (v === null || v === undefined || v === '') return 0;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`CUR aggregate column ${column}: "${String(v)}" is not a number`);
  return n;
};
const str = (v: unknown): string => (typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v));
const CATEGORIES: ReadonlySet<string> = new Set(CUR_COST_CATEGORIES);

/**
 * A result row as its values in CUR_AGGREGATE_COLUMNS order (DuckDB's chunk read column by column, no object per row
 * in between) as a typed row. Throws naming the column on a value that is not what the statement returns.
 */
export function rowFromValues(v: readonly unknown[]): CurAggregateRow {
  const kind = str(v[0]);
  if (kind !== 'resource' && kind !== 'unresourced' && kind !== 'split') throw new Error(`CUR aggregate row_kind "${kind}" is unknown`);
  const category = str(v[7]);
  if (!CATEGORIES.has(category)) throw new Error(`CUR aggregate category "${category}" is unknown`);
  return {
    rowKind: kind,
    usageDay: str(v[1]),
    resourceId: str(v[2]),
    lineItemType: str(v[3]),
    usageType: str(v[4]),
    productCode: str(v[5]),
    operation: str(v[6]),
    category: category as CurCostCategory,
    cluster: str(v[8]),
    nodePool: str(v[9]),
    nodeClaim: str(v[10]),
    namespace: str(v[11]),
    commitmentArn: str(v[12]),
    unblendedUsd: num(v[13], 'unblended_usd'),
    amortizedUsd: num(v[14], 'amortized_usd'),
    netUnblendedUsd: num(v[15], 'net_unblended_usd'),
    netAmortizedUsd: num(v[16], 'net_amortized_usd'),
    usageAmount: num(v[17], 'usage_amount'),
    publicOnDemandUsd: num(v[18], 'public_on_demand_usd'),
    splitCostUsd: num(v[19], 'split_cost_usd'),
    unusedCostUsd: num(v[20], 'unused_cost_usd'),
    netSplitCostUsd: num(v[21], 'net_split_cost_usd'),
    netUnusedCostUsd: num(v[22], 'net_unused_cost_usd'),
    publicOnDemandSplitCostUsd: num(v[23], 'public_on_demand_split_cost_usd'),
    publicOnDemandUnusedCostUsd: num(v[24], 'public_on_demand_unused_cost_usd'),
    vcpuHours: num(v[25], 'vcpu_hours'),
    memoryGbHours: num(v[26], 'memory_gb_hours'),
    podCount: num(v[27], 'pod_count'),
    lineCount: num(v[28], 'line_count'),
  };
}

/**
 * A result record (DuckDB's row object, or Athena's GetQueryResults row zipped with CUR_AGGREGATE_COLUMNS: every
 * value a string) as a typed row. Throws naming the column on a value that is not what the statement returns.
 */
export function rowFromRecord(record: Readonly<Record<string, unknown>>): CurAggregateRow {
  return rowFromValues(CUR_AGGREGATE_COLUMNS.map((c) => record[c]));
}
