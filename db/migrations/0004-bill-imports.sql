-- Imported bills (Cost Explorer console CSV exports). Their lines live in cost_lines with source 'csv:<name>'
-- (group_by 'NONE': the console export has one grouping, the NodePool tag); this row says where they came from.
CREATE TABLE bill_imports (
  source          TEXT PRIMARY KEY,          -- 'csv:<name>'
  file_name       TEXT,
  layout          TEXT NOT NULL,             -- 'ce-console-tag'
  granularity     TEXT NOT NULL,             -- DAILY | HOURLY | MONTHLY
  sha256          TEXT NOT NULL,
  bytes           INTEGER NOT NULL,
  lines           INTEGER NOT NULL,
  periods         INTEGER NOT NULL,
  total_usd       REAL NOT NULL,
  file_total_usd  REAL,                      -- the file's own total row
  imported_at     INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS cost_lines_source_period ON cost_lines(source, period_start_ms);
