import type { Db } from '../open-db.js';
import type { KubeSnapshot } from '../../core/model.js';

/**
 * Writes a pod as the collector sees it in a snapshot, in migration 0027's narrow layout: what its workload's pods
 * share (pod_dims: namespace, owner, team, requests, annotations, labels, spec hash) looked up or made, its node's
 * name (node_names), and its pod_rows row, made when the pod is new and updated when it is seen again. What the old
 * `INSERT ... ON CONFLICT(uid) DO UPDATE` did, which a view cannot take: a pod keeps its namespace, name, owner, team,
 * requests, labels, creation and first sighting as first seen; its finish and binding as first seen; its start, node,
 * phase, annotations, volumes and last sighting as last seen; its spec hash as last seen when there is one.
 */

export interface PodSighting {
  uid: string;
  /** The pod's cluster (clusters.id); default 1. A uid is unique across clusters, so it is a column, not a key. */
  clusterId?: number;
  namespace: string;
  name: string;
  nodeName: string | null;
  ownerKind: string | null;
  ownerName: string | null;
  team: string | null;
  cpu: number;
  mem: number;
  gpu: number;
  dnd: number;
  createdAt: number;
  /** The snapshot's instant. */
  at: number;
  labels: string;
  phase: string | null;
  finishedAt: number | null;
  scheduledAt: number | null;
  startedAt: number | null;
  dndValue: string | null;
  deletionCost: string | null;
  volumes: string | null;
  specHash: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A uid as pod_rows stores it: 16 bytes for a canonical lowercase UUID (what the migration's SQL takes), else the text. */
export function storedPodUid(uid: string): string | Buffer {
  return UUID.test(uid) ? Buffer.from(uid.replaceAll('-', ''), 'hex') : uid;
}

/** A pod of a snapshot as the writer takes it, at the snapshot's instant, in its cluster. */
export function podSighting(p: KubeSnapshot['pods'][number], at: number, clusterId: number): PodSighting {
  const finished = p.phase === 'Succeeded' || p.phase === 'Failed';
  const json = (v: unknown): string => JSON.stringify(v);
  return {
    uid: p.uid,
    namespace: p.namespace,
    name: p.name,
    nodeName: p.nodeName,
    ownerKind: p.ownerKind,
    ownerName: p.ownerName,
    team: p.team,
    cpu: p.requests.cpuMillicores,
    mem: p.requests.memoryBytes,
    gpu: p.requests.gpu,
    dnd: p.doNotDisrupt ? 1 : 0,
    createdAt: p.createdAt,
    at,
    labels: json(p.labels),
    phase: p.phase,
    // when its containers ended (terminated.finishedAt); else the snapshot that first saw it finished
    finishedAt: finished ? (p.finishedAt ?? at) : null,
    scheduledAt: p.nodeName === null ? null : at,
    startedAt: p.startedAt ?? null,
    dndValue: p.doNotDisruptValue ?? null,
    deletionCost: p.deletionCost ?? null,
    volumes: p.volumes === undefined || p.volumes.length === 0 ? null : json(p.volumes),
    specHash: p.scheduling?.hash ?? null,
    clusterId,
  };
}

/** The stored name: NULL and the suffix when it is "<owner>-<suffix>", else the name and NULL. */
export function storedPodName(name: string, ownerName: string | null): [string | null, string | null] {
  return ownerName !== null && name.length > ownerName.length + 1 && name.startsWith(`${ownerName}-`)
    ? [null, name.slice(ownerName.length + 1)]
    : [name, null];
}

interface Stored {
  id: number;
  last_seen: number;
  dims_id: number;
  node_id: number | null;
  node_name: string | null;
  phase: string | null;
  volumes_json: string | null;
  do_not_disrupt: number;
  do_not_disrupt_value: string | null;
  deletion_cost: string | null;
  namespace: string;
  owner_kind: string | null;
  owner_name: string | null;
  team: string | null;
  req_cpu_m: number;
  req_memory_b: number;
  req_gpu: number;
  labels_json: string;
  spec_hash: string | null;
  finished_at: number | null;
  scheduled_at: number | null;
  started_at: number | null;
}

/**
 * pod_rows.last_seen of a pod listed in its cluster's newest snapshot: open, the largest epoch ms a Date holds. A pod
 * seen again as it was is then not written at all (issue 24: rewriting every pod's last sighting every snapshot was
 * most of the bytes a snapshot wrote); the interval is closed, at the last snapshot that listed the pod, by the first
 * snapshot that no longer does (closeGone). Every reader of last_seen asks `last_seen >= @at` for an @at no later
 * than the cluster's newest snapshot, `last_seen < @cut` (retention) or orders by it, and gets the same answer from
 * an open row as from the newest snapshot's instant it held before; none shows it.
 */
export const OPEN_LAST_SEEN = 8_640_000_000_000_000;

export interface PodWriter {
  (p: PodSighting): void;
  /**
   * After a snapshot's pods: the cluster's open pods it did not list are closed at the cluster's snapshot before
   * `at` (the last that listed them). Returns how many were closed.
   */
  closeGone(clusterId: number, at: number): number;
  /** Forgets the pods written since the last closeGone (a snapshot whose transaction failed). */
  forget(): void;
}

export function createPodWriter(db: Db): PodWriter {
  const stored = db.prepare(`
    SELECT r.id, r.last_seen, r.dims_id, r.node_id, n.name AS node_name, r.phase, r.volumes_json, d.namespace, d.owner_kind, d.owner_name, d.team,
           d.req_cpu_m, d.req_memory_b, d.req_gpu, d.do_not_disrupt, d.do_not_disrupt_value, d.deletion_cost, d.labels_json, d.spec_hash,
           r.finished_at, r.scheduled_at, r.started_at
    FROM pod_rows r JOIN pod_dims d ON d.id = r.dims_id LEFT JOIN node_names n ON n.id = r.node_id WHERE r.uid = ?`);
  const findDims = db
    .prepare(
      `SELECT id FROM pod_dims WHERE namespace = ? AND owner_name IS ? AND owner_kind IS ? AND team IS ? AND req_cpu_m = ? AND req_memory_b = ?
         AND req_gpu = ? AND do_not_disrupt = ? AND do_not_disrupt_value IS ? AND deletion_cost IS ? AND labels_json = ? AND spec_hash IS ?
       ORDER BY id LIMIT 1`,
    )
    .pluck();
  const addDims = db.prepare(
    `INSERT INTO pod_dims (namespace, owner_name, owner_kind, team, req_cpu_m, req_memory_b, req_gpu, do_not_disrupt, do_not_disrupt_value,
       deletion_cost, labels_json, spec_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const findNode = db.prepare('SELECT id FROM node_names WHERE name = ?').pluck();
  const addNode = db.prepare('INSERT INTO node_names (name) VALUES (?)');
  const insert = db.prepare(`
    INSERT INTO pod_rows (uid, dims_id, name, name_suffix, node_id, created_at, first_seen, last_seen, phase, finished_at, scheduled_at,
      started_at, volumes_json, cluster_id)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const update = db.prepare(`
    UPDATE pod_rows SET dims_id = ?, node_id = ?, last_seen = ?, phase = ?, finished_at = ?, scheduled_at = ?, started_at = ?, volumes_json = ?
    WHERE id = ?`);
  // A pod seen again as it was (the common case: every running pod, every snapshot): nothing written once its row is
  // open; opened once (a row written before OPEN_LAST_SEEN, or a uid seen again after it was closed). Setting no
  // indexed column leaves pod_rows' indexes (node, dims, bound-late) unwritten, and the lookups above unasked.
  const touch = db.prepare('UPDATE pod_rows SET last_seen = ? WHERE id = ?');
  const openOf = db.prepare('SELECT id, first_seen FROM pod_rows WHERE cluster_id = ? AND last_seen = ?').raw();
  const previousSnapshot = db.prepare('SELECT MAX(taken_at) FROM snapshots WHERE cluster_id = ? AND taken_at < ?').pluck();
  /** The rows of the pods written since the last closeGone (each snapshot's). */
  const seen = new Set<number>();
  const dimsId = (
    d: readonly [string, string | null, string | null, string | null, number, number, number, number, ...(string | null)[]],
  ) => (findDims.get(...d) as number | undefined) ?? Number(addDims.run(...d).lastInsertRowid);
  const nodeId = (name: string | null): number | null =>
    name === null ? null : ((findNode.get(name) as number | undefined) ?? Number(addNode.run(name).lastInsertRowid));

  const write = (p: PodSighting): void => {
    const uid = storedPodUid(p.uid);
    const old = stored.get(uid) as Stored | undefined;
    if (old !== undefined) seen.add(old.id);
    if (old === undefined) {
      const dims = dimsId([
        p.namespace,
        p.ownerName,
        p.ownerKind,
        p.team,
        p.cpu,
        p.mem,
        p.gpu,
        p.dnd,
        p.dndValue,
        p.deletionCost,
        p.labels,
        p.specHash,
      ]);
      const [name, suffix] = storedPodName(p.name, p.ownerName);
      const id = insert.run(
        uid,
        dims,
        name,
        suffix,
        nodeId(p.nodeName),
        p.createdAt,
        p.at,
        OPEN_LAST_SEEN,
        p.phase,
        p.finishedAt,
        p.scheduledAt,
        p.startedAt,
        p.volumes,
        p.clusterId ?? 1,
      ).lastInsertRowid;
      seen.add(Number(id));
      return;
    }
    const specHash = p.specHash ?? old.spec_hash;
    const finishedAt = old.finished_at ?? p.finishedAt;
    const scheduledAt = old.scheduled_at ?? p.scheduledAt;
    const startedAt = p.startedAt ?? old.started_at;
    const sameDims =
      p.dnd === old.do_not_disrupt &&
      p.dndValue === old.do_not_disrupt_value &&
      p.deletionCost === old.deletion_cost &&
      specHash === old.spec_hash;
    if (
      sameDims &&
      p.nodeName === old.node_name &&
      p.phase === old.phase &&
      p.volumes === old.volumes_json &&
      finishedAt === old.finished_at &&
      scheduledAt === old.scheduled_at &&
      startedAt === old.started_at
    ) {
      if (old.last_seen !== OPEN_LAST_SEEN) touch.run(OPEN_LAST_SEEN, old.id);
      return;
    }
    const dims = sameDims
      ? old.dims_id
      : dimsId([
          old.namespace,
          old.owner_name,
          old.owner_kind,
          old.team,
          old.req_cpu_m,
          old.req_memory_b,
          old.req_gpu,
          p.dnd,
          p.dndValue,
          p.deletionCost,
          old.labels_json,
          specHash,
        ]);
    update.run(
      dims,
      p.nodeName === old.node_name ? old.node_id : nodeId(p.nodeName),
      OPEN_LAST_SEEN,
      p.phase,
      finishedAt,
      scheduledAt,
      startedAt,
      p.volumes,
      old.id,
    );
  };
  const closeGone = (clusterId: number, at: number): number => {
    const prev = previousSnapshot.get(clusterId, at) as number | null;
    let closed = 0;
    for (const [id, firstSeen] of openOf.all(clusterId, OPEN_LAST_SEEN) as [number, number][]) {
      if (seen.has(id)) continue;
      // Opened by a write no snapshot followed (none lists it after its first sighting): closed where first seen.
      touch.run(Math.max(prev ?? firstSeen, firstSeen), id);
      closed += 1;
    }
    seen.clear();
    return closed;
  };
  return Object.assign(write, { closeGone, forget: () => seen.clear() });
}
