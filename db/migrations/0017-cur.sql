-- The Cost and Usage Report 2.0 (AWS Data Exports) import, issue 16 items 3, 4 and 6. Every amount is USD (the
-- export's line_item_currency_code), summed from CUR lines by collectors/cur/aggregate-statement.ts: the CUR itself
-- (millions of rows a month for a 5,000-node cluster) is never stored, only these daily aggregates (≤ ~1M rows).
-- A source is one export: the folder it was read from, `s3://bucket/prefix/export-name`, or `athena:db.table`.
-- AWS re-states a billing period for weeks after it ends, so a period of a source is always replaced whole, in
-- one transaction: cur_periods, cur_files and the three daily tables of that (source, billing_period) together.
-- The four cost metrics are Cost Explorer's: unblended, amortized (Savings Plan / reservation effective cost by line
-- item type), net unblended and net amortized (after credits and private discounts; equal to the gross figures when
-- the export has no net columns filled).

-- One imported billing period of one source (its totals let a view check itself against the files).
CREATE TABLE cur_periods (
  source             TEXT NOT NULL,
  billing_period     TEXT NOT NULL,              -- YYYY-MM
  period_start_ms    INTEGER NOT NULL,           -- UTC start of the billing period
  imported_at        INTEGER NOT NULL,
  files              INTEGER NOT NULL,
  cur_rows           INTEGER NOT NULL,           -- CUR lines read
  unblended_usd      REAL NOT NULL,              -- total of every line of the period (the invoice's unblended total)
  amortized_usd      REAL NOT NULL,
  -- lines with a cost but no NodePool: neither the tag nor a NodeClaim we know by instance id gave one
  unattributed_lines INTEGER NOT NULL,
  unattributed_usd   REAL NOT NULL,              -- their unblended cost
  -- lines whose NodePool came from our NodeClaims (instance id) because the tag was missing
  nodeclaim_filled_lines INTEGER NOT NULL,
  split_lines        INTEGER NOT NULL,           -- pod lines of split cost allocation data
  manifest_execution_id TEXT,                    -- Data Exports' executionId, when a manifest was read
  PRIMARY KEY (source, billing_period)
);

-- The data files a period was read from: an unchanged set (same keys, sizes, etags) is skipped on re-import.
CREATE TABLE cur_files (
  source         TEXT NOT NULL,
  billing_period TEXT NOT NULL,
  file_key       TEXT NOT NULL,                  -- path under the export (data/BILLING_PERIOD=YYYY-MM/…)
  format         TEXT NOT NULL CHECK (format IN ('parquet', 'csv.gz')),
  size_bytes     INTEGER NOT NULL,
  etag           TEXT NOT NULL,                  -- S3 ETag, or sha256 hex of a local file
  cur_rows       INTEGER NOT NULL,
  PRIMARY KEY (source, billing_period, file_key),
  FOREIGN KEY (source, billing_period) REFERENCES cur_periods(source, billing_period) ON DELETE CASCADE
);

-- Per NodePool per UTC day per cost category: what the NodePool's bill is. nodepool '' = no NodePool found (kept,
-- never dropped: it is the "unattributed" figure); attributed_by says how the NodePool was found.
CREATE TABLE cur_nodepool_daily (
  source            TEXT NOT NULL,
  billing_period    TEXT NOT NULL,
  day               TEXT NOT NULL,               -- YYYY-MM-DD (UTC, line_item_usage_start_date's day)
  day_ms            INTEGER NOT NULL,
  cluster           TEXT NOT NULL DEFAULT '',
  nodepool          TEXT NOT NULL DEFAULT '',
  category          TEXT NOT NULL CHECK (category IN ('instances', 'volumes', 'data-transfer', 'other')),
  attributed_by     TEXT NOT NULL CHECK (attributed_by IN ('tag', 'nodeclaim', 'none')),
  unblended_usd     REAL NOT NULL,
  amortized_usd     REAL NOT NULL,
  net_unblended_usd REAL NOT NULL,
  net_amortized_usd REAL NOT NULL,
  usage_amount      REAL NOT NULL,               -- mixed units across usage types: meaningful per category only
  public_on_demand_usd REAL NOT NULL,
  line_count        INTEGER NOT NULL,
  PRIMARY KEY (source, billing_period, day, cluster, nodepool, category, attributed_by),
  FOREIGN KEY (source, billing_period) REFERENCES cur_periods(source, billing_period) ON DELETE CASCADE
);
CREATE INDEX cur_nodepool_daily_day ON cur_nodepool_daily(day_ms, nodepool);

-- AWS's split cost allocation for EKS per namespace per NodePool per UTC day (pod lines summed; the NodePool is the
-- parent instance's tag, or our NodeClaim of that instance id). nodepool '' = the parent instance has no NodePool.
CREATE TABLE cur_namespace_daily (
  source            TEXT NOT NULL,
  billing_period    TEXT NOT NULL,
  day               TEXT NOT NULL,
  day_ms            INTEGER NOT NULL,
  cluster           TEXT NOT NULL DEFAULT '',
  nodepool          TEXT NOT NULL DEFAULT '',
  namespace         TEXT NOT NULL,
  split_cost_usd    REAL NOT NULL,
  unused_cost_usd   REAL NOT NULL,
  net_split_cost_usd REAL NOT NULL,
  net_unused_cost_usd REAL NOT NULL,
  public_on_demand_split_cost_usd REAL NOT NULL,
  public_on_demand_unused_cost_usd REAL NOT NULL,
  vcpu_hours        REAL NOT NULL,               -- split usage on the vCPU lines
  memory_gb_hours   REAL NOT NULL,               -- split usage on the GB lines
  pod_count         INTEGER NOT NULL,            -- distinct pods with a line that day
  line_count        INTEGER NOT NULL,
  PRIMARY KEY (source, billing_period, day, cluster, nodepool, namespace),
  FOREIGN KEY (source, billing_period) REFERENCES cur_periods(source, billing_period) ON DELETE CASCADE
);
CREATE INDEX cur_namespace_daily_day ON cur_namespace_daily(day_ms, namespace);

-- Per resource per UTC day per line item type and usage type, for "Explain this bill": an instance's Usage or
-- SavingsPlanCoveredUsage (+ its SavingsPlanNegation), a volume, a data transfer line, a commitment's fee.
-- Pod (split) lines are not here: they are per namespace above. commitment_arn = the Savings Plan or reservation
-- that covered the line ('' none).
CREATE TABLE cur_resource_daily (
  source            TEXT NOT NULL,
  billing_period    TEXT NOT NULL,
  day               TEXT NOT NULL,
  day_ms            INTEGER NOT NULL,
  resource_id       TEXT NOT NULL,
  line_item_type    TEXT NOT NULL,
  usage_type        TEXT NOT NULL,
  product_code      TEXT NOT NULL,
  operation         TEXT NOT NULL DEFAULT '',
  category          TEXT NOT NULL CHECK (category IN ('instances', 'volumes', 'data-transfer', 'other')),
  cluster           TEXT NOT NULL DEFAULT '',
  nodepool          TEXT NOT NULL DEFAULT '',
  nodeclaim         TEXT NOT NULL DEFAULT '',    -- the tag, or our NodeClaim of this instance id; '' unknown
  attributed_by     TEXT NOT NULL CHECK (attributed_by IN ('tag', 'nodeclaim', 'none')),
  commitment_arn    TEXT NOT NULL DEFAULT '',
  unblended_usd     REAL NOT NULL,
  amortized_usd     REAL NOT NULL,
  net_unblended_usd REAL NOT NULL,
  net_amortized_usd REAL NOT NULL,
  usage_amount      REAL NOT NULL,
  public_on_demand_usd REAL NOT NULL,
  line_count        INTEGER NOT NULL,
  PRIMARY KEY (source, billing_period, day, resource_id, line_item_type, usage_type, product_code, operation, commitment_arn),
  FOREIGN KEY (source, billing_period) REFERENCES cur_periods(source, billing_period) ON DELETE CASCADE
);
CREATE INDEX cur_resource_daily_resource ON cur_resource_daily(resource_id, day_ms);
CREATE INDEX cur_resource_daily_nodepool ON cur_resource_daily(nodepool, day_ms);
