import type { NodeMetricsRecord, PodMetricsRecord, SnapshotUsage, MetricsState } from '../../core/usage.js';
import { kubeErrorText } from './api-error.js';
import type { KubeClients } from './client.js';
import { createInterner } from './intern.js';
import { KubeListError, listMapped, type ListStats } from './list-all.js';
import { mapNodeMetrics, mapPodMetrics } from './map-metrics.js';

/**
 * What pods and nodes use now, from the resource metrics API that HPA and `kubectl top` read
 * (metrics.k8s.io/v1beta1, served by metrics-server through the API aggregation layer): PodMetrics and NodeMetrics
 * listed cluster-wide through the custom objects API, `limit` and `continue` sent like the other lists (metrics-server
 * itself answers the whole list at once and ignores them; another implementation may page).
 *
 * A cluster without metrics-server is not an error: the snapshot goes on with requests only and the status says
 * why, in words meant for the user.
 */

export const METRICS_GROUP = 'metrics.k8s.io';
export const METRICS_VERSION = 'v1beta1';

/** What a failed metrics list means for the user, by HTTP status. */
export function metricsStateOf(status: number | undefined): Exclude<MetricsState, 'available'> {
  if (status === 404) return 'absent';
  if (status === 503) return 'unavailable';
  if (status === 401 || status === 403) return 'forbidden';
  return 'failed';
}

const ADVICE: Record<Exclude<MetricsState, 'available'>, string> = {
  absent:
    'no metrics-server: the metrics.k8s.io API is not served (HTTP 404); usage is not collected and figures use requests only. Install it with `kubectl apply -f https://github.com/kubernetes-sigs/metrics-server/releases/latest/download/components.yaml` (EKS: the metrics-server add-on)',
  unavailable:
    'metrics-server is registered but not answering (HTTP 503: its APIService v1beta1.metrics.k8s.io is unavailable; see `kubectl get apiservice v1beta1.metrics.k8s.io`); figures use requests only until it answers',
  forbidden:
    'not allowed to list metrics.k8s.io pods and nodes: grant `list` on them (deploy/kubernetes/clusterrole.yaml); figures use requests only',
  failed: 'reading metrics.k8s.io failed; figures use requests only',
};

/** The sentence for a state, with the API's own message where it says more. */
export function metricsMessage(state: Exclude<MetricsState, 'available'>, detail?: string): string {
  return detail ? `${ADVICE[state]} (${detail})` : ADVICE[state];
}

/**
 * Above this many pods in the snapshot, PodMetrics are listed namespace by namespace. metrics-server ignores
 * `limit` and answers a list in one body, which the client holds as text and as parsed JSON at once: 150,000 pods
 * in one answer raised the collector's peak RSS by ~226 MB (npm run bench, snapshot). One list per namespace
 * bounds that by the largest namespace, at one request per namespace; small clusters keep their one request.
 */
export const PER_NAMESPACE_ABOVE_PODS = 10_000;

/** The namespaces to list PodMetrics in one by one, or undefined for one cluster-wide list. */
export function usageNamespaces(pods: readonly { namespace: string }[]): string[] | undefined {
  if (pods.length <= PER_NAMESPACE_ABOVE_PODS) return undefined;
  return [...new Set(pods.map((p) => p.namespace))].sort();
}

/**
 * PodMetrics and NodeMetrics at `at`. Never throws for the API's answers: a 404 (no metrics-server), 503
 * (APIService unavailable), 401/403 or any other failure gives a status that says so and empty lists. 5xx and
 * dropped connections are retried twice (a 503 from an unavailable APIService lasts: retrying longer only delays
 * the snapshot). With `namespaces` (see usageNamespaces), PodMetrics are listed in each of them instead of
 * cluster-wide.
 */
export async function collectUsage(
  k: KubeClients,
  at: number,
  opts: { limit?: number; namespaces?: readonly string[] } = {},
  stats: ListStats = { requests: 0, restarts: 0 },
): Promise<SnapshotUsage> {
  const limit = opts.limit ?? 500;
  const list = async <R>(plural: string, map: (raw: unknown) => R | null, namespace?: string): Promise<R[]> => {
    const page = (cont: string | undefined): Promise<unknown> =>
      namespace === undefined
        ? k.custom.listClusterCustomObject({ group: METRICS_GROUP, version: METRICS_VERSION, plural, limit, _continue: cont })
        : k.custom.listNamespacedCustomObject({
            group: METRICS_GROUP,
            version: METRICS_VERSION,
            namespace,
            plural,
            limit,
            _continue: cont,
          });
    const items = await listMapped(
      namespace === undefined ? `${plural}.${METRICS_GROUP}` : `${plural}.${METRICS_GROUP} in ${namespace}`,
      (cont) =>
        page(cont).then((r: unknown) => {
          const o = r as { items?: unknown; metadata?: { continue?: unknown } };
          const c = o.metadata?.continue;
          return { items: Array.isArray(o.items) ? o.items : [], continueToken: typeof c === 'string' && c !== '' ? c : undefined };
        }),
      map,
      stats,
      1,
      2,
    );
    return items.filter((x): x is R => x !== null);
  };
  // One copy of each namespace and container name across every record.
  const intern = createInterner();
  const mapPod = (raw: unknown): PodMetricsRecord | null => mapPodMetrics(raw, intern);
  try {
    // Pods first: when the group is absent, one request says so.
    let pods: PodMetricsRecord[];
    if (opts.namespaces === undefined) pods = await list<PodMetricsRecord>('pods', mapPod);
    else {
      pods = [];
      for (const ns of opts.namespaces) for (const p of await list<PodMetricsRecord>('pods', mapPod, ns)) pods.push(p);
    }
    const nodes = await list<NodeMetricsRecord>('nodes', mapNodeMetrics);
    return {
      status: { state: 'available', message: `metrics-server reported ${pods.length} pods and ${nodes.length} nodes`, checkedAt: at },
      pods,
      nodes,
    };
  } catch (err) {
    const status = err instanceof KubeListError ? err.status : undefined;
    const state = metricsStateOf(status);
    const detail = state === 'absent' ? undefined : kubeErrorText(err);
    return { status: { state, message: metricsMessage(state, detail), checkedAt: at }, pods: [], nodes: [] };
  }
}
