import type { ClusterEntry } from '../clusters-file.js';
import { createKubeClients } from '../../collectors/kubernetes/client.js';
import { instanceIdFromProviderId } from '../../collectors/kubernetes/map.js';
import type { Db } from '../../db/open-db.js';
import { createClustersRepository } from '../../db/repositories/clusters-repository.js';

/**
 * The first `--clusters` run on a file from before several clusters: its rows sit under a placeholder cluster (no
 * name was kept), and several clusters are given. Which one it was is read from the clusters themselves: the entry
 * whose nodes run the instances the placeholder saw last (EC2 instance ids are unique, node names are not) is the
 * placeholder's cluster, and takes over its rows. Null when there is no such placeholder, or no entry's nodes match
 * (declare() then stops with its message, as before).
 */
export async function placeholderCluster(
  db: Db,
  entries: readonly ClusterEntry[],
  kubeconfig: string | undefined,
  note: (line: string) => void,
): Promise<string | null> {
  const repo = createClustersRepository(db);
  const placeholder = repo.placeholderHolding();
  if (placeholder === null || entries.length < 2 || entries.some((e) => e.name === placeholder.name)) return null;
  const seen = new Set(repo.recentInstanceIds(placeholder.id));
  if (seen.size === 0) return null;
  let best: { name: string; shared: number } | null = null;
  for (const e of entries) {
    try {
      const k = createKubeClients({ ...(e.inCluster ? {} : { kubeconfig }), ...(e.context !== null ? { context: e.context } : {}) });
      const nodes = await k.core.listNode();
      const shared = nodes.items.filter((n) => seen.has(instanceIdFromProviderId(n.spec?.providerID) ?? '')).length;
      if (shared > 0 && (best === null || shared > best.shared)) best = { name: e.name, shared };
    } catch (err) {
      note(
        `! cannot list ${e.name}'s nodes to tell whether the ledger's unnamed cluster is it: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  if (best !== null)
    note(`the ledger's unnamed cluster ("${placeholder.name}") is ${best.name}: ${best.shared} of its nodes run instances it saw; renamed`);
  return best?.name ?? null;
}
