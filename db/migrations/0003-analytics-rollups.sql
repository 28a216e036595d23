-- Rollup columns for the analytics API, so range queries read rollups and never scan snapshot_nodes.
-- NULL means "not recorded" (rows written before this migration where no backfill is possible).

-- Per NodePool x capacity type per snapshot: Σ node price × node efficiency (requested ÷ allocatable) per resource,
-- the numerators of the cost-weighted efficiency Σ(price × efficiency) ÷ Σ price; GPU sums over GPU nodes only.
ALTER TABLE snapshot_nodepools ADD COLUMN cpu_eff_usd_per_hour REAL;
ALTER TABLE snapshot_nodepools ADD COLUMN memory_eff_usd_per_hour REAL;
ALTER TABLE snapshot_nodepools ADD COLUMN pods_eff_usd_per_hour REAL;
ALTER TABLE snapshot_nodepools ADD COLUMN gpu_eff_usd_per_hour REAL;
ALTER TABLE snapshot_nodepools ADD COLUMN gpu_nodes_usd_per_hour REAL;
-- Σ on-demand price of the same instances (spot savings); NULL when unknown for some spot node.
ALTER TABLE snapshot_nodepools ADD COLUMN on_demand_usd_per_hour REAL;

-- Per namespace x NodePool per snapshot: Σ pod cpu ÷ node cpu allocatable × node price, the same for memory
-- (any cpu/memory weights apply from these two), and the AWS split cost allocation computed from requests.
ALTER TABLE snapshot_namespaces ADD COLUMN cpu_share_usd_per_hour REAL;
ALTER TABLE snapshot_namespaces ADD COLUMN memory_share_usd_per_hour REAL;
ALTER TABLE snapshot_namespaces ADD COLUMN aws_split_usd_per_hour REAL;

-- Backfill what snapshot_nodes can tell exactly (the same sums core/rollup.ts makes). Spot on-demand
-- prices and per-pod shares were not stored: those stay NULL.
UPDATE snapshot_nodepools SET (cpu_eff_usd_per_hour, memory_eff_usd_per_hour, pods_eff_usd_per_hour, gpu_eff_usd_per_hour, gpu_nodes_usd_per_hour) = (
  SELECT TOTAL(COALESCE(n.usd_per_hour, 0) * CASE WHEN n.alloc_cpu_m > 0 THEN CAST(n.req_cpu_m AS REAL) / n.alloc_cpu_m ELSE 0 END),
         TOTAL(COALESCE(n.usd_per_hour, 0) * CASE WHEN n.alloc_memory_b > 0 THEN CAST(n.req_memory_b AS REAL) / n.alloc_memory_b ELSE 0 END),
         TOTAL(COALESCE(n.usd_per_hour, 0) * CASE WHEN n.alloc_pods > 0 THEN CAST(n.req_pods AS REAL) / n.alloc_pods ELSE 0 END),
         TOTAL(COALESCE(n.usd_per_hour, 0) * CASE WHEN n.alloc_gpu > 0 THEN CAST(n.req_gpu AS REAL) / n.alloc_gpu ELSE 0 END),
         TOTAL(CASE WHEN n.alloc_gpu > 0 THEN COALESCE(n.usd_per_hour, 0) ELSE 0 END)
  FROM snapshot_nodes n
  WHERE n.snapshot_id = snapshot_nodepools.snapshot_id AND COALESCE(n.nodepool, '') = snapshot_nodepools.nodepool
    AND n.capacity_type = snapshot_nodepools.capacity_type
);
UPDATE snapshot_nodepools SET on_demand_usd_per_hour = usd_per_hour WHERE capacity_type <> 'spot';
