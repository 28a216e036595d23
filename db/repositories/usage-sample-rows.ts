import type { Db } from '../open-db.js';

/**
 * The collector's writer of container samples in migration 0031's narrow layout: what a workload's container is
 * (usage_sample_dims) and the node's name (node_names) looked up once per batch, then one usage_sample_rows row per
 * sample — what the usage_samples view's INSERT trigger does per row, without its two lookups a sample (at the envelope
 * 150,000 samples a snapshot share 240 containers and 5,000 nodes). The mapping is the trigger's: the pod's name kept
 * as the part after "<workload>-" when it starts so, measured_at as its offset before taken_at.
 */

export interface SampleToWrite {
  namespace: string;
  workloadKind: string;
  workloadName: string;
  container: string;
  pod: string;
  nodeName: string | null;
  nodePool: string | null;
  cpuMillicores: number;
  memoryBytes: number;
  requestCpuMillicores: number | null;
  requestMemoryBytes: number | null;
  limitCpuMillicores?: number | null;
  measuredAt: number;
  windowMs: number;
}

export function createSampleRowsWriter(db: Db) {
  const findDims = db
    .prepare(
      `SELECT id FROM usage_sample_dims WHERE namespace = @namespace AND workload_name = @workloadName AND container = @container
         AND workload_kind = @workloadKind AND cluster_id = @clusterId AND nodepool IS @nodePool AND req_cpu_m IS @requestCpuMillicores
         AND req_memory_b IS @requestMemoryBytes AND lim_cpu_m IS @limitCpuMillicores ORDER BY id LIMIT 1`,
    )
    .pluck();
  const insertDims = db.prepare(
    `INSERT INTO usage_sample_dims (cluster_id, namespace, workload_kind, workload_name, container, nodepool, req_cpu_m, req_memory_b, lim_cpu_m)
     VALUES (@clusterId, @namespace, @workloadKind, @workloadName, @container, @nodePool, @requestCpuMillicores, @requestMemoryBytes,
       @limitCpuMillicores)`,
  );
  const findNode = db.prepare('SELECT id FROM node_names WHERE name = ?').pluck();
  const insertNode = db.prepare('INSERT INTO node_names (name) VALUES (?)');
  const insertRow = db.prepare(
    `INSERT INTO usage_sample_rows (snapshot_id, taken_at, dims_id, pod, pod_suffix, node_id, cpu_m, memory_b, measured_before_ms, window_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );

  /** One snapshot's samples, inside the caller's transaction (the ids looked up are kept for this call only). */
  return (snapshotId: number, takenAt: number, samples: Iterable<SampleToWrite>, clusterId = 1): void => {
    const dimsIds = new Map<string, number>();
    const nodeIds = new Map<string, number>();
    for (const s of samples) {
      // JSON: a NULL NodePool and an empty one are different rows.
      const key = JSON.stringify([
        s.namespace,
        s.workloadKind,
        s.workloadName,
        s.container,
        s.nodePool,
        s.requestCpuMillicores,
        s.requestMemoryBytes,
        s.limitCpuMillicores ?? null,
      ]);
      let dimsId = dimsIds.get(key);
      if (dimsId === undefined) {
        const p = {
          clusterId,
          namespace: s.namespace,
          workloadKind: s.workloadKind,
          workloadName: s.workloadName,
          container: s.container,
          nodePool: s.nodePool,
          requestCpuMillicores: s.requestCpuMillicores,
          requestMemoryBytes: s.requestMemoryBytes,
          limitCpuMillicores: s.limitCpuMillicores ?? null,
        };
        dimsId = (findDims.get(p) as number | undefined) ?? Number(insertDims.run(p).lastInsertRowid);
        dimsIds.set(key, dimsId);
      }
      let nodeId: number | null = null;
      if (s.nodeName !== null) {
        nodeId = nodeIds.get(s.nodeName) ?? null;
        if (nodeId === null) {
          nodeId = (findNode.get(s.nodeName) as number | undefined) ?? Number(insertNode.run(s.nodeName).lastInsertRowid);
          nodeIds.set(s.nodeName, nodeId);
        }
      }
      const prefixed = s.pod.length > s.workloadName.length + 1 && s.pod.startsWith(`${s.workloadName}-`);
      insertRow.run(
        snapshotId,
        takenAt,
        dimsId,
        prefixed ? null : s.pod,
        prefixed ? s.pod.slice(s.workloadName.length + 1) : null,
        nodeId,
        s.cpuMillicores,
        s.memoryBytes,
        takenAt - s.measuredAt,
        s.windowMs,
      );
    }
  };
}
