import type { Db } from '../open-db.js';

/**
 * Writes a node's row of a snapshot in migration 0026's narrow layout: the node's node_dims row (what it is: name,
 * NodePool, capacity and instance type, allocatable, price source and currency), made the first time it is seen so,
 * and its snapshot_node_rows row (requests, price). What the snapshot_nodes view's INSERT trigger does, in two
 * statements instead of four (the collector writes 5,000 of these a snapshot at the envelope).
 */

export interface SnapshotNodeRow {
  nodeName: string;
  nodePool: string | null;
  capacityType: string;
  instanceType: string;
  allocCpuM: number;
  allocMemoryB: number;
  allocPods: number;
  allocGpu: number;
  reqCpuM: number;
  reqMemoryB: number;
  reqPods: number;
  reqGpu: number;
  usdPerHour: number | null;
  priceSource: string | null;
  priceCurrency: string;
}

export function createSnapshotNodeWriter(db: Db): (snapshotId: number, r: SnapshotNodeRow) => void {
  const find = db
    .prepare(
      `SELECT id FROM node_dims WHERE node_name = ? AND nodepool IS ? AND capacity_type = ? AND instance_type = ? AND alloc_cpu_m = ?
         AND alloc_memory_b = ? AND alloc_pods = ? AND alloc_gpu = ? AND price_source IS ? AND price_currency = ? ORDER BY id LIMIT 1`,
    )
    .pluck();
  const add = db.prepare(
    `INSERT INTO node_dims (node_name, nodepool, capacity_type, instance_type, alloc_cpu_m, alloc_memory_b, alloc_pods, alloc_gpu, price_source,
       price_currency) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const row = db.prepare(
    `INSERT INTO snapshot_node_rows (snapshot_id, node_id, req_cpu_m, req_memory_b, req_pods, req_gpu, usd_per_hour) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  return (snapshotId, r) => {
    const dims = [
      r.nodeName,
      r.nodePool,
      r.capacityType,
      r.instanceType,
      r.allocCpuM,
      r.allocMemoryB,
      r.allocPods,
      r.allocGpu,
      r.priceSource,
      r.priceCurrency,
    ] as const;
    const id = (find.get(...dims) as number | undefined) ?? Number(add.run(...dims).lastInsertRowid);
    row.run(snapshotId, id, r.reqCpuM, r.reqMemoryB, r.reqPods, r.reqGpu, r.usdPerHour);
  };
}
