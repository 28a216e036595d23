-- The cost metrics a finance team reads (issue 16): Cost Explorer's NetUnblendedCost and NetAmortizedCost beside
-- the UnblendedCost (unblended_usd) and AmortizedCost (amortized_usd) every line already had. Lines fetched before
-- this migration did not ask for the net metrics: they stay NULL (unknown), never a copy of the gross figure.
-- "EC2 - Other" lines (EBS volumes, snapshots, data transfer, NAT) arrive with group_by USAGE_TYPE (GetCostAndUsage
-- cannot group by USAGE_TYPE_GROUP, only filter by it); the compute lines keep PURCHASE_TYPE / INSTANCE_TYPE /
-- RESOURCE_ID, so the group_by says which service a line is from.
ALTER TABLE cost_lines ADD COLUMN net_unblended_usd REAL;
ALTER TABLE cost_lines ADD COLUMN net_amortized_usd REAL;
