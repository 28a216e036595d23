/**
 * The cluster the dashboard shows, kept in the URL (`?cluster=NAME`; absent: "All clusters", the ledger's whole). Every
 * API call of the pages asks for it (api-client's apiUrl adds it), and every in-app link keeps it (router's Link).
 */

export const CLUSTER_PARAM = 'cluster';

/** Routes about the ledger as a whole, asked without the cluster (the banner and the picker stay up whatever it is). */
const LEDGER_WIDE: ReadonlySet<string> = new Set(['/api/status', '/api/clusters']);

/** The cluster named in `search` ("?a=1&cluster=x"), or undefined for every cluster. */
export function clusterOf(search: string): string | undefined {
  const name = new URLSearchParams(search).get(CLUSTER_PARAM);
  return name === null || name === '' ? undefined : name;
}

/** The cluster of the page's URL (undefined outside a browser, or for every cluster). */
export function currentCluster(): string | undefined {
  return typeof window === 'undefined' ? undefined : clusterOf(window.location.search);
}

/** `params` with the page's cluster added, unless they name one already or `path` is about the whole ledger. */
export function withCluster<Q extends object>(path: string, params: Q | undefined, cluster = currentCluster()): Q | undefined {
  if (cluster === undefined || LEDGER_WIDE.has(path)) return params;
  if (params !== undefined && CLUSTER_PARAM in params) return params;
  return { ...(params ?? ({} as Q)), [CLUSTER_PARAM]: cluster };
}

/**
 * An in-app link target (`/teams?range=7d`) keeping `cluster` unless it names one itself; other links (absolute,
 * anchors) as they are.
 */
export function keepCluster(to: string, cluster: string | undefined): string {
  if (cluster === undefined || !to.startsWith('/') || to.startsWith('//')) return to;
  const hash = to.indexOf('#');
  const base = hash === -1 ? to : to.slice(0, hash);
  const fragment = hash === -1 ? '' : to.slice(hash);
  const q = base.indexOf('?');
  const path = q === -1 ? base : base.slice(0, q);
  const params = new URLSearchParams(q === -1 ? '' : base.slice(q + 1));
  if (params.has(CLUSTER_PARAM)) return to;
  params.set(CLUSTER_PARAM, cluster);
  return `${path}?${params.toString()}${fragment}`;
}
