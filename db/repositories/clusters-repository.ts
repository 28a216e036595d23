import type { Db } from '../open-db.js';

/**
 * All SQL for the clusters of a ledger (migration 0029, docs/clusters.md): the rows, a name resolved to its id, the
 * clusters a collector was given written in one transaction, and the placeholder of a migrated ledger named.
 */

export type ClusterNamedFrom = 'cur-tag' | 'collect' | 'clusters-file' | 'context' | 'placeholder';

export interface Cluster {
  id: number;
  /** The EKS cluster name (eks:eks-cluster-name). */
  name: string;
  namedFrom: ClusterNamedFrom;
  account: string | null;
  region: string | null;
  kubeContext: string | null;
  inCluster: boolean;
  awsProfile: string | null;
  roleArn: string | null;
  prometheusUrl: string | null;
}

/** What a collector knows of a cluster it was given (a clusters file entry, a --context, a --cluster). */
export interface ClusterDeclaration {
  name: string;
  namedFrom: Exclude<ClusterNamedFrom, 'placeholder' | 'cur-tag'>;
  account: string | null;
  region: string | null;
  kubeContext: string | null;
  inCluster: boolean;
  awsProfile: string | null;
  roleArn: string | null;
  prometheusUrl: string | null;
}

interface RawCluster {
  id: number;
  name: string;
  named_from: string;
  account: string | null;
  region: string | null;
  kube_context: string | null;
  in_cluster: number;
  aws_profile: string | null;
  role_arn: string | null;
  prometheus_url: string | null;
}

const toCluster = (r: RawCluster): Cluster => ({
  id: r.id,
  name: r.name,
  namedFrom: r.named_from as ClusterNamedFrom,
  account: r.account,
  region: r.region,
  kubeContext: r.kube_context,
  inCluster: r.in_cluster === 1,
  awsProfile: r.aws_profile,
  roleArn: r.role_arn,
  prometheusUrl: r.prometheus_url,
});

const COLUMNS = 'id, name, named_from, account, region, kube_context, in_cluster, aws_profile, role_arn, prometheus_url';

export function createClustersRepository(db: Db) {
  const all = db.prepare(`SELECT ${COLUMNS} FROM clusters ORDER BY id`);
  const byName = db.prepare(`SELECT ${COLUMNS} FROM clusters WHERE name = ?`);
  const upsert = db.prepare(`
    INSERT INTO clusters (name, named_from, account, region, kube_context, in_cluster, aws_profile, role_arn, prometheus_url, added_at)
    VALUES (@name, @namedFrom, @account, @region, @kubeContext, @inCluster, @awsProfile, @roleArn, @prometheusUrl, @atMs)
    ON CONFLICT (name) DO UPDATE SET named_from = excluded.named_from, account = COALESCE(excluded.account, account),
      region = COALESCE(excluded.region, region), kube_context = excluded.kube_context, in_cluster = excluded.in_cluster,
      aws_profile = excluded.aws_profile, role_arn = excluded.role_arn, prometheus_url = excluded.prometheus_url`);
  const rename = db.prepare("UPDATE clusters SET name = ?, named_from = ? WHERE id = ? AND named_from = 'placeholder'");
  /** Rows of the placeholder cluster in its biggest tables: a placeholder with none is an empty new ledger's. */
  const placeholderHolds = db.prepare(
    'SELECT EXISTS (SELECT 1 FROM snapshots WHERE cluster_id = ?) OR EXISTS (SELECT 1 FROM cost_lines WHERE cluster_id = ?)',
  );
  const recentInstanceIds = db
    .prepare('SELECT instance_id FROM nodes WHERE cluster_id = ? AND instance_id IS NOT NULL ORDER BY last_seen DESC LIMIT ?')
    .pluck();
  const removeEmptyPlaceholder = db.prepare("DELETE FROM clusters WHERE id = ? AND named_from = 'placeholder'");

  const list = (): Cluster[] => (all.all() as RawCluster[]).map(toCluster);

  return {
    list,
    /** The placeholder cluster when it holds rows (a file from before several clusters), else null. */
    placeholderHolding(): Cluster | null {
      const p = list().find((c) => c.namedFrom === 'placeholder');
      return p !== undefined && placeholderHolds.pluck().get(p.id, p.id) === 1 ? p : null;
    },
    /** Instance ids of the cluster's most recently seen nodes (at most `limit`). */
    recentInstanceIds(clusterId: number, limit = 1000): string[] {
      return recentInstanceIds.all(clusterId, limit) as string[];
    },
    /** The cluster of that name, or null. */
    byName(name: string): Cluster | null {
      const r = byName.get(name) as RawCluster | undefined;
      return r === undefined ? null : toCluster(r);
    },
    /**
     * Writes the clusters a collector was given, in one transaction, and returns them with their ids. A ledger's
     * placeholder (a migrated file whose cluster had no name in its data, or a new file's) takes the name of the one
     * cluster given when only one is; given several, a placeholder holding rows stops it (which one it was cannot be
     * guessed), and an empty one is removed.
     */
    declare(clusters: readonly ClusterDeclaration[], atMs: number, opts: { placeholderIs?: string } = {}): Cluster[] {
      return db.transaction(() => {
        const placeholder = list().find((c) => c.namedFrom === 'placeholder');
        const named = clusters.find((c) => c.name === opts.placeholderIs);
        if (placeholder !== undefined && !clusters.some((c) => c.name === placeholder.name)) {
          if (clusters.length === 1) rename.run(clusters[0].name, clusters[0].namedFrom, placeholder.id);
          // Several given, and the caller found which of them the placeholder's rows are (placeholder.ts).
          else if (named !== undefined && byName.get(named.name) === undefined) rename.run(named.name, named.namedFrom, placeholder.id);
          else if (placeholderHolds.pluck().get(placeholder.id, placeholder.id) === 1)
            throw new Error(
              `this ledger holds one cluster's data under the placeholder name "${placeholder.name}" (a file from before several clusters): ` +
                `run collect --cluster NAME on it once to name that cluster, or name an entry "${placeholder.name}"`,
            );
          else removeEmptyPlaceholder.run(placeholder.id);
        }
        for (const c of clusters) upsert.run({ ...c, inCluster: c.inCluster ? 1 : 0, atMs });
        return clusters.map((c) => toCluster(byName.get(c.name) as RawCluster));
      })();
    },
    /**
     * `collect --cluster NAME` (one cluster, written as cluster 1 by today's writers): a placeholder takes the name,
     * the cluster of that name takes the context and region given. A ledger whose one cluster has another name is
     * left as it is (its rows are that cluster's); the answer says so, for the collector to print.
     */
    nameCollected(c: ClusterDeclaration, atMs: number): { cluster: Cluster | null; note: string | null } {
      return db.transaction(() => {
        const clusters = list();
        const same = clusters.find((x) => x.name === c.name);
        const placeholder = clusters.length === 1 && clusters[0].namedFrom === 'placeholder' ? clusters[0] : undefined;
        if (same === undefined && placeholder === undefined) {
          const held = clusters.map((x) => `"${x.name}"`).join(', ');
          return { cluster: null, note: `this ledger holds cluster ${held}, not "${c.name}": its snapshots go with ${held}` };
        }
        if (placeholder !== undefined && same === undefined) rename.run(c.name, c.namedFrom, placeholder.id);
        upsert.run({ ...c, inCluster: c.inCluster ? 1 : 0, atMs });
        return { cluster: toCluster(byName.get(c.name) as RawCluster), note: null };
      })();
    },
  };
}

export type ClustersRepository = ReturnType<typeof createClustersRepository>;
