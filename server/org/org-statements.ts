/**
 * The statements the organisation's view sends to Athena (Trino SQL; every one is parsed with a Trino grammar in
 * server/org/athena-statements.test.ts). They read the tables `export` writes (deploy/athena/tables.sql), filter on
 * the `day` partition so Athena scans only the range's days, and sum hours into the range: the hours-weighted sums
 * the ledger's own API divides and splits (server/analytics/), so the same analytics run over either source.
 * Days are 'YYYY-MM-DD' literals (checked here: nothing else enters the text).
 */

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** [fromDay, toDay) as a partition filter. */
function dayFilter(fromDay: string, toDayExclusive: string): string {
  for (const d of [fromDay, toDayExclusive]) if (!DAY.test(d)) throw new Error(`not a day: ${d}`);
  return `day >= '${fromDay}' AND day < '${toDayExclusive}'`;
}

/** The Overview's columns: the estimate and the packing sums per cluster, day, NodePool and capacity type. */
export const OVERVIEW_SUMS = [
  'cost_usd',
  'node_hours',
  'alloc_cpu_millicore_hours',
  'req_cpu_millicore_hours',
  'alloc_memory_byte_hours',
  'req_memory_byte_hours',
  'cost_weighted_cpu_usd',
  'cost_weighted_memory_usd',
] as const;

export function overviewStatement(fromDay: string, toDayExclusive: string): string {
  return [
    `SELECT cluster, day, nodepool, capacity_type, ${OVERVIEW_SUMS.map((c) => `SUM(${c}) AS ${c}`).join(', ')}`,
    'FROM nodepool_hour',
    `WHERE ${dayFilter(fromDay, toDayExclusive)}`,
    'GROUP BY cluster, day, nodepool, capacity_type',
    'ORDER BY cluster, day, nodepool, capacity_type',
  ].join('\n');
}

/** Per namespace x NodePool: what each attribution method charges it (namespace_hour's sums). */
export const NAMESPACE_SUMS = [
  'request_share_usd',
  'cpu_share_usd',
  'memory_share_usd',
  'legacy_request_share_usd',
  'aws_split_cost_usd',
  'aws_unused_cost_usd',
  'open_cost_usd',
  'legacy_methods_usd',
  'pod_hours',
  'usage_pod_hours',
] as const;

/** Per NodePool: the node cost the teams split, and the cost-weighted requests behind request share's idle. */
export const POOL_SUMS = ['cost_usd', 'cost_weighted_cpu_usd', 'cost_weighted_memory_usd'] as const;

/**
 * One statement for the Teams view: the namespace rows and the NodePool rows of the range, told apart by `kind`
 * (the columns of the other kind are 0). A namespace's team is the one of its newest hour in the range, as the
 * ledger names it by its newest snapshot.
 */
export function teamsStatement(fromDay: string, toDayExclusive: string): string {
  const filter = dayFilter(fromDay, toDayExclusive);
  const zero = (c: string): string => `CAST(0 AS double) AS ${c}`;
  return [
    'WITH ns AS (',
    `  SELECT cluster, nodepool, namespace, max_by(team, hour_start) AS team, ${NAMESPACE_SUMS.map((c) => `SUM(${c}) AS ${c}`).join(', ')}`,
    '  FROM namespace_hour',
    `  WHERE ${filter}`,
    '  GROUP BY cluster, nodepool, namespace',
    '), pools AS (',
    `  SELECT cluster, nodepool, ${POOL_SUMS.map((c) => `SUM(${c}) AS ${c}`).join(', ')}`,
    '  FROM nodepool_hour',
    `  WHERE ${filter}`,
    '  GROUP BY cluster, nodepool',
    ')',
    `SELECT 'namespace' AS kind, cluster, nodepool, namespace, team, ${NAMESPACE_SUMS.join(', ')}, ${POOL_SUMS.map(zero).join(', ')}`,
    'FROM ns',
    'UNION ALL',
    `SELECT 'pool' AS kind, cluster, nodepool, CAST(NULL AS varchar) AS namespace, CAST(NULL AS varchar) AS team, ${NAMESPACE_SUMS.map(zero).join(', ')}, ${POOL_SUMS.join(', ')}`,
    'FROM pools',
    'ORDER BY kind, cluster, nodepool, namespace',
  ].join('\n');
}
