-- Spot price history is asked for every instance type the NodePools admit, in every zone the cluster names
-- (collectors/spot/sync.ts): how far each market's history is stored, so the next ask starts there (incremental,
-- across runs of `collect`) and a market EC2 has no price for is not asked again from scratch at every run.
-- asked_until: the EndTime of the last DescribeSpotPriceHistory answer stored for the market (epoch ms); zone '*'
-- when it was asked without a zone filter (no zone known).
CREATE TABLE spot_price_coverage (
  region         TEXT NOT NULL,
  instance_type  TEXT NOT NULL,
  zone           TEXT NOT NULL,
  asked_until    INTEGER NOT NULL,
  PRIMARY KEY (region, instance_type, zone)
) WITHOUT ROWID;

-- Markets stored before: their history is known at least up to their newest change (EC2 answers the price in effect
-- at StartTime, so starting there loses nothing).
INSERT INTO spot_price_coverage (region, instance_type, zone, asked_until)
SELECT region, instance_type, zone, MAX(effective_at) FROM prices WHERE kind = 'spot' GROUP BY region, instance_type, zone;
