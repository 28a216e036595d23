import type { ClusterSnapshotRepository } from '../../db/repositories/cluster-snapshot-repository.js';
import { optionalInstant } from '../services/analytics-range.js';
import type { EngineCall } from './engine-services.js';

/**
 * What an engine call simulates, as the key its answer is kept under (with the data version: engine-runner.ts inline,
 * pool.ts in workers). The routes pass the request's parsed query on, so keyed by the call as sent the same simulation
 * asked two ways ran twice: `?cluster=NAME` and "All clusters" on a one-cluster ledger (the cluster's id against null,
 * and the query's own `cluster`), the side-by-side answer of several clusters and one of them picked (the query's
 * `cluster` again), `?format=csv` and JSON, `?at=` naming the newest snapshot and no `at`.
 *
 * - The what-ifs and the Karpenter tries (`whatif.*`, `karpenterTry.*`) load one snapshot: the newest of cluster
 *   `clusterId` (null: of any) at or before `at`, read whole by its own cluster (cluster-snapshot-repository.ts), and
 *   their answer is that snapshot's and the other parameters'. Their key is the snapshot's id (resolved here, by the
 *   repository's own lookup, one indexed row) and the query without `at`, `cluster` and `format`.
 * - The rest (the Workloads recommendations: a usage window over a cluster or every cluster) keep `clusterId` and
 *   `at` as asked; only `cluster` (already resolved to `clusterId`) and `format` (how the route sends the same answer)
 *   are left out.
 * A call whose snapshot cannot be resolved (none stored, an `at` the service refuses) keeps the request's own form:
 * its answer is an error, and errors are not kept.
 */

/** How a what-if finds its snapshot: the repository's own lookup, as whatif-world.ts load() does. */
export type SnapshotLookup = Pick<ClusterSnapshotRepository, 'snapshotAt'>;

/** The key of a call's answer and the snapshot it simulates (null: not resolved, or not a one-snapshot call). */
export interface EngineCallKey {
  key: string;
  snapshotId: number | null;
}

/** Services whose methods take (query, clusterId, ...rest) and simulate the one snapshot those name. */
const ONE_SNAPSHOT_SERVICES: ReadonlySet<string> = new Set(['whatif', 'karpenterTry']);

/** Query parameters that say how an answer is asked for or sent, not what is simulated. */
const NOT_SIMULATED: ReadonlySet<string> = new Set(['cluster', 'format']);

/** The query's parameters that change the simulation, sorted by name (absent ones left out). */
function simulated(query: unknown, without: ReadonlySet<string>): [string, unknown][] {
  if (typeof query !== 'object' || query === null) return [];
  return Object.entries(query as Record<string, unknown>)
    .filter(([k, v]) => v !== undefined && !NOT_SIMULATED.has(k) && !without.has(k))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

const NOTHING: ReadonlySet<string> = new Set();
const AT: ReadonlySet<string> = new Set(['at']);

export function engineCallKey(call: EngineCall, snapshots?: SnapshotLookup): EngineCallKey {
  const [query, clusterId, ...rest] = call.args;
  const cluster = typeof clusterId === 'number' ? clusterId : null;
  if (snapshots !== undefined && ONE_SNAPSHOT_SERVICES.has(call.service)) {
    let snapshotId: number | null = null;
    try {
      const at = (query as { at?: unknown } | undefined)?.at;
      snapshotId = snapshots.snapshotAt(optionalInstant('at', typeof at === 'string' ? at : undefined), cluster)?.id ?? null;
    } catch {
      // An `at` the service refuses: its 400 comes from the call itself.
    }
    if (snapshotId !== null)
      return { key: JSON.stringify([call.service, call.method, { snapshot: snapshotId }, simulated(query, AT), rest]), snapshotId };
  }
  return { key: JSON.stringify([call.service, call.method, { cluster }, simulated(query, NOTHING), rest]), snapshotId: null };
}
