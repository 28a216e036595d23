-- Timeline markers (issue 24: every GET route within 100 ms at 90 days over a 13-month store at the envelope): the
-- consolidation timeline counts the disruptions of its range per bucket x cluster x NodePool x reason
-- (db/repositories/disruptions-repository.ts, markerGroups). Through disruptions_at (at, seq, cluster_id) each of a
-- 90-day range's ~90,000 disruptions was a lookup of its table row for blocked, NodePool and reason; this index holds
-- them, so the count reads the index alone (92 -> 32 ms for 91,800 disruptions, a 300-node store with 17x the
-- disruptions; the reproduction in docs/benchmarks.md). About 20 MB at the envelope's 395,000 disruptions.
CREATE INDEX disruptions_markers ON disruptions (at, blocked, cluster_id, nodepool, reason);
