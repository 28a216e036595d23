-- Currencies are carried, not assumed. AWS prices and bills China (aws-cn) in CNY and every other partition in
-- USD; a price, a node's cost in a snapshot and a Cost Explorer line now say which. Rows written before this
-- migration were all USD (China's prices were dropped), so they read as USD.
-- The *_usd column names predate this: they hold amounts in the row's currency.

ALTER TABLE prices ADD COLUMN currency TEXT NOT NULL DEFAULT 'USD';
ALTER TABLE snapshot_nodes ADD COLUMN price_currency TEXT NOT NULL DEFAULT 'USD';
-- The currency of every cost in the snapshot and its rollups (a snapshot is one cluster in one region).
ALTER TABLE snapshots ADD COLUMN currency TEXT NOT NULL DEFAULT 'USD';
ALTER TABLE cost_lines ADD COLUMN currency TEXT NOT NULL DEFAULT 'USD';
