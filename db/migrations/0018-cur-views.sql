-- What the dashboard reads of the CUR (issue 16 items 3 and 6, cur-views): "Explain this bill" lists one UTC day of
-- resource lines (all NodePools); without an index on the day that read scans the whole table (for a 5,000-node
-- month about 15,000 resource-days a day, ~450,000 rows) on every page view. The NodePool and namespace tables are
-- indexed by day already (0017).

CREATE INDEX IF NOT EXISTS cur_resource_daily_day ON cur_resource_daily(day_ms);
