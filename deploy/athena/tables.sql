-- NodePool Ledger: the Athena (Glue Data Catalog) tables over what `nodepool-ledger export --to s3://BUCKET/PREFIX`
-- writes: one table per exported table, partitioned by cluster and UTC day in the Hive layout
-- PREFIX/table=NAME/cluster=CLUSTER/day=YYYY-MM-DD/part-0.parquet.
--
-- Replace before running (each statement on its own in the Athena console, or `aws athena start-query-execution`):
--   __BUCKET__     the bucket of --to            __PREFIX__     its prefix (no slashes at either end)
--   __CLUSTERS__   the clusters exported, comma-separated (prod-eu,prod-us,staging): partition projection lists them
--   __FIRST_DAY__  the first day exported, YYYY-MM-DD
-- Partition projection computes the partitions from these properties, so a new day needs nothing; a new cluster needs
-- its name added to projection.cluster.values (ALTER TABLE … SET TBLPROPERTIES). Without projection (drop the
-- projection.* and storage.location.template properties), run MSCK REPAIR TABLE <table> after each export instead.
-- Every table holds each cluster's rows under its own cluster= partition, from a ledger of one cluster or of several
-- (collect --clusters: one export run writes each cluster's five tables, each cluster's rows only).
-- `serve --org athena://WORKGROUP/ledger_org` reads nodepool_hour and namespace_hour; node_day, disruptions and
-- rightsizing are there for your own queries (e.g. SELECT cluster, SUM(cost_usd) FROM node_day GROUP BY cluster).

CREATE DATABASE IF NOT EXISTS `ledger_org`;

CREATE EXTERNAL TABLE IF NOT EXISTS `ledger_org`.`nodepool_hour` (
  `hour_start` timestamp,
  `nodepool` string,
  `capacity_type` string,
  `node_hours` double,
  `cost_usd` double,
  `alloc_cpu_millicore_hours` double,
  `req_cpu_millicore_hours` double,
  `alloc_memory_byte_hours` double,
  `req_memory_byte_hours` double,
  `alloc_pod_hours` double,
  `req_pod_hours` double,
  `alloc_gpu_hours` double,
  `req_gpu_hours` double,
  `cost_weighted_cpu_usd` double,
  `cost_weighted_memory_usd` double,
  `cost_weighted_pods_usd` double,
  `cost_weighted_gpu_usd` double,
  `gpu_nodes_usd` double,
  `on_demand_usd` double,
  `on_demand_unknown_usd` double,
  `rp_requested_usd` double,
  `rp_cpu_usd` double,
  `rp_gpu_usd` double
)
PARTITIONED BY (`cluster` string, `day` string)
STORED AS PARQUET
LOCATION 's3://__BUCKET__/__PREFIX__/table=nodepool_hour/'
TBLPROPERTIES (
  'parquet.compression' = 'ZSTD',
  'projection.enabled' = 'true',
  'projection.cluster.type' = 'enum',
  'projection.cluster.values' = '__CLUSTERS__',
  'projection.day.type' = 'date',
  'projection.day.format' = 'yyyy-MM-dd',
  'projection.day.range' = '__FIRST_DAY__,NOW',
  'projection.day.interval' = '1',
  'projection.day.interval.unit' = 'DAYS',
  'storage.location.template' = 's3://__BUCKET__/__PREFIX__/table=nodepool_hour/cluster=${cluster}/day=${day}/'
);

CREATE EXTERNAL TABLE IF NOT EXISTS `ledger_org`.`namespace_hour` (
  `hour_start` timestamp,
  `namespace` string,
  `nodepool` string,
  `team` string,
  `request_share_usd` double,
  `cpu_share_usd` double,
  `memory_share_usd` double,
  `legacy_request_share_usd` double,
  `aws_split_cost_usd` double,
  `aws_unused_cost_usd` double,
  `open_cost_usd` double,
  `legacy_methods_usd` double,
  `pod_hours` double,
  `usage_pod_hours` double
)
PARTITIONED BY (`cluster` string, `day` string)
STORED AS PARQUET
LOCATION 's3://__BUCKET__/__PREFIX__/table=namespace_hour/'
TBLPROPERTIES (
  'parquet.compression' = 'ZSTD',
  'projection.enabled' = 'true',
  'projection.cluster.type' = 'enum',
  'projection.cluster.values' = '__CLUSTERS__',
  'projection.day.type' = 'date',
  'projection.day.format' = 'yyyy-MM-dd',
  'projection.day.range' = '__FIRST_DAY__,NOW',
  'projection.day.interval' = '1',
  'projection.day.interval.unit' = 'DAYS',
  'storage.location.template' = 's3://__BUCKET__/__PREFIX__/table=namespace_hour/cluster=${cluster}/day=${day}/'
);

CREATE EXTERNAL TABLE IF NOT EXISTS `ledger_org`.`node_day` (
  `node_name` string,
  `nodeclaim` string,
  `nodepool` string,
  `instance_type` string,
  `capacity_type` string,
  `zone` string,
  `created_at` timestamp,
  `hours` double,
  `alloc_cpu_millicores` double,
  `req_cpu_millicores` double,
  `alloc_memory_bytes` double,
  `req_memory_bytes` double,
  `alloc_pods` double,
  `req_pods` double,
  `usd_per_hour` double,
  `cost_usd` double,
  `price_source` string
)
PARTITIONED BY (`cluster` string, `day` string)
STORED AS PARQUET
LOCATION 's3://__BUCKET__/__PREFIX__/table=node_day/'
TBLPROPERTIES (
  'parquet.compression' = 'ZSTD',
  'projection.enabled' = 'true',
  'projection.cluster.type' = 'enum',
  'projection.cluster.values' = '__CLUSTERS__',
  'projection.day.type' = 'date',
  'projection.day.format' = 'yyyy-MM-dd',
  'projection.day.range' = '__FIRST_DAY__,NOW',
  'projection.day.interval' = '1',
  'projection.day.interval.unit' = 'DAYS',
  'storage.location.template' = 's3://__BUCKET__/__PREFIX__/table=node_day/cluster=${cluster}/day=${day}/'
);

CREATE EXTERNAL TABLE IF NOT EXISTS `ledger_org`.`disruptions` (
  `disrupted_at` timestamp,
  `node_name` string,
  `nodeclaim` string,
  `nodepool` string,
  `reason` string,
  `action` string,
  `source` string,
  `spot_interrupted` boolean,
  `instance_type` string,
  `capacity_type` string,
  `node_deleted_at` timestamp,
  `replacements` string,
  `blocked` boolean,
  `message` string
)
PARTITIONED BY (`cluster` string, `day` string)
STORED AS PARQUET
LOCATION 's3://__BUCKET__/__PREFIX__/table=disruptions/'
TBLPROPERTIES (
  'parquet.compression' = 'ZSTD',
  'projection.enabled' = 'true',
  'projection.cluster.type' = 'enum',
  'projection.cluster.values' = '__CLUSTERS__',
  'projection.day.type' = 'date',
  'projection.day.format' = 'yyyy-MM-dd',
  'projection.day.range' = '__FIRST_DAY__,NOW',
  'projection.day.interval' = '1',
  'projection.day.interval.unit' = 'DAYS',
  'storage.location.template' = 's3://__BUCKET__/__PREFIX__/table=disruptions/cluster=${cluster}/day=${day}/'
);

CREATE EXTERNAL TABLE IF NOT EXISTS `ledger_org`.`rightsizing` (
  `namespace` string,
  `workload_kind` string,
  `workload_name` string,
  `container` string,
  `nodepool` string,
  `replicas` bigint,
  `current_cpu_millicores` double,
  `current_memory_bytes` double,
  `recommended_cpu_millicores` double,
  `recommended_memory_bytes` double,
  `history_hours` double,
  `flags` string,
  `idle_usd_per_month` double,
  `monthly_effect_usd` double,
  `dollar_method` string
)
PARTITIONED BY (`cluster` string, `day` string)
STORED AS PARQUET
LOCATION 's3://__BUCKET__/__PREFIX__/table=rightsizing/'
TBLPROPERTIES (
  'parquet.compression' = 'ZSTD',
  'projection.enabled' = 'true',
  'projection.cluster.type' = 'enum',
  'projection.cluster.values' = '__CLUSTERS__',
  'projection.day.type' = 'date',
  'projection.day.format' = 'yyyy-MM-dd',
  'projection.day.range' = '__FIRST_DAY__,NOW',
  'projection.day.interval' = '1',
  'projection.day.interval.unit' = 'DAYS',
  'storage.location.template' = 's3://__BUCKET__/__PREFIX__/table=rightsizing/cluster=${cluster}/day=${day}/'
);

