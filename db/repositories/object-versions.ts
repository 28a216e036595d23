import type { KindState, VersionedObjectRecord } from '../../core/model.js';
import type { Db } from '../open-db.js';

/**
 * The versioned object store (migration 0019): per object a row per version, the snapshots [first_seen, last_seen]
 * that saw that body, each body stored once per content hash. Written in the snapshot's transaction by the kube
 * repository, read at a snapshot's time by the cluster snapshot repository.
 */

interface LatestVersion {
  first_seen: number;
  last_seen: number;
  hash: string;
}

export function createObjectVersionWriter(db: Db) {
  const latest = db.prepare(
    'SELECT first_seen, last_seen, hash FROM kube_object_versions WHERE kind = ? AND namespace = ? AND name = ? AND cluster_id = ? ORDER BY first_seen DESC LIMIT 1',
  );
  const extend = db.prepare(
    'UPDATE kube_object_versions SET last_seen = ? WHERE kind = ? AND namespace = ? AND name = ? AND first_seen = ? AND cluster_id = ?',
  );
  const insertVersion = db.prepare(
    'INSERT INTO kube_object_versions (kind, namespace, name, first_seen, last_seen, hash, cluster_id) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const insertBody = db.prepare('INSERT OR IGNORE INTO kube_object_bodies (hash, body_json) VALUES (?, ?)');
  // The last snapshot that read each kind: a version seen then and unchanged now is extended, else a new one starts.
  const lastCollected = db.prepare('SELECT MAX(last_seen) FROM kube_object_versions WHERE kind = ? AND cluster_id = ?').pluck();
  const previousSnapshots = db.prepare(
    'SELECT taken_at, kinds_json FROM snapshots WHERE taken_at < ? AND cluster_id = ? ORDER BY taken_at DESC LIMIT 50',
  );

  /** When each kind was last read before `at` (from the snapshots' kinds), or null. */
  function lastReadBefore(at: number, kinds: string[], clusterId: number): Map<string, number | null> {
    const out = new Map<string, number | null>(kinds.map((k) => [k, null]));
    let open = kinds.length;
    for (const r of previousSnapshots.all(at, clusterId) as { taken_at: number; kinds_json: string | null }[]) {
      if (open === 0) break;
      const states = r.kinds_json === null ? {} : (JSON.parse(r.kinds_json) as Record<string, KindState>);
      for (const k of kinds)
        if (out.get(k) === null && states[k]?.state === 'ok') {
          out.set(k, r.taken_at);
          open -= 1;
        }
    }
    // Past the last 50 snapshots (a kind unread that long): its newest version's last_seen says when.
    for (const k of kinds) if (out.get(k) === null) out.set(k, (lastCollected.get(k, clusterId) as number | null) ?? null);
    return out;
  }

  return {
    /** Records the objects of every kind read in the snapshot at `at` (kinds whose state is not ok are left as they were). */
    write(at: number, objects: readonly VersionedObjectRecord[], kinds: Readonly<Record<string, KindState>>, clusterId = 1): void {
      const read = Object.keys(kinds).filter((k) => kinds[k].state === 'ok');
      const previous = lastReadBefore(at, read, clusterId);
      const readSet = new Set(read);
      const seen = new Set<string>();
      for (const o of objects) {
        if (!readSet.has(o.kind)) continue;
        const key = `${o.kind}\u0000${o.namespace}\u0000${o.name}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const last = latest.get(o.kind, o.namespace, o.name, clusterId) as LatestVersion | undefined;
        const prev = previous.get(o.kind) ?? null;
        if (last !== undefined && last.hash === o.hash && prev !== null && last.last_seen >= prev && last.last_seen < at) {
          extend.run(at, o.kind, o.namespace, o.name, last.first_seen, clusterId);
          continue;
        }
        if (last !== undefined && last.first_seen === at) continue; // written already (a retried write)
        insertBody.run(o.hash, o.json);
        insertVersion.run(o.kind, o.namespace, o.name, at, at, o.hash, clusterId);
      }
    },
  };
}

export interface StoredObject {
  namespace: string;
  name: string;
  body: unknown;
}

export function createObjectVersionReader(db: Db) {
  const at = db.prepare(`
    SELECT v.namespace, v.name, b.body_json
    FROM kube_object_versions v JOIN kube_object_bodies b ON b.hash = v.hash
    WHERE v.kind = ? AND v.last_seen >= ? AND v.first_seen <= ? AND v.cluster_id = ?
    ORDER BY v.namespace, v.name`);
  return {
    /** The objects of `kind` as the snapshot at `takenAt` of cluster `clusterId` (default 1, the one) saw them. */
    objectsAt(kind: string, takenAt: number, clusterId = 1): StoredObject[] {
      return (at.all(kind, takenAt, takenAt, clusterId) as { namespace: string; name: string; body_json: string }[]).map((r) => {
        // A body is stored without its name and namespace (objects alike share it): put back from the version.
        const body = JSON.parse(r.body_json) as { metadata?: Record<string, unknown> };
        body.metadata = { name: r.name, ...(r.namespace === '' ? {} : { namespace: r.namespace }), ...body.metadata };
        return { namespace: r.namespace, name: r.name, body };
      });
    },
  };
}
