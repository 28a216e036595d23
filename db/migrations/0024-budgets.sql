-- Budgets (issue 23): an amount per month or ISO week for the cluster, a NodePool, a team or a namespace, in the
-- data's currency on one bill metric. Declared through the API (source 'api') or a `--budgets FILE` (source 'file',
-- source_file its path: read-only through the API, the file wins). Configuration, not collected data: kept by a
-- reset of the collected data (db/repositories/reset-repository.ts).
CREATE TABLE budgets (
  name             TEXT PRIMARY KEY,
  scope_kind       TEXT NOT NULL CHECK (scope_kind IN ('cluster', 'nodepool', 'team', 'namespace')),
  scope_name       TEXT NOT NULL,
  period           TEXT NOT NULL CHECK (period IN ('monthly', 'weekly')),
  amount           REAL NOT NULL CHECK (amount > 0),
  currency         TEXT NOT NULL,
  cost_metric      TEXT NOT NULL CHECK (cost_metric IN ('unblended', 'amortized', 'net')),
  thresholds_json  TEXT NOT NULL DEFAULT '[0.8,1]',
  dollar_limit     INTEGER NOT NULL DEFAULT 0,
  source           TEXT NOT NULL CHECK (source IN ('api', 'file')),
  source_file      TEXT,
  updated_at       INTEGER NOT NULL
) WITHOUT ROWID;
