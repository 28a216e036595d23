import { formatGoDuration } from '../../core/usage.js';
import type { UsageModel } from '../scenario/usage.js';
import type { EpochMs, Scenario, SimPod } from '../scenario/types.js';
import type { SandboxResponse } from './context.js';
import { nodeAliveAt, nodeLabels, podPhaseAt } from './kube-objects.js';

/**
 * The resource metrics API as metrics-server serves it through the aggregation layer (metrics.k8s.io/v1beta1):
 * PodMetrics cluster-wide and per namespace, NodeMetrics, and each by name, as of the sandbox clock, from the usage
 * model. Shaped as metrics-server v0.7 answers (test/fixtures/metrics-server.ts has the real samples): items sorted
 * by namespace and name, only Running pods, CPU in nanocores ("9559630n"), memory in Ki ("22244Ki"), `timestamp`
 * of the scrape a little before now, `window` as a Go duration ("14.873s"), `creationTimestamp` now, the object's
 * labels. Like metrics-server it ignores `limit` and `continue`: the whole list comes in one answer.
 */

const API_VERSION = 'metrics.k8s.io/v1beta1';
const PREFIX = '/apis/metrics.k8s.io/v1beta1';

const rfc3339 = (t: EpochMs): string => new Date(Math.floor(t / 1000) * 1000).toISOString().replace('.000Z', 'Z');
const nanocores = (millicores: number): string => `${Math.round(millicores * 1e6)}n`;
const kibibytes = (bytes: number): string => `${Math.round(bytes / 1024)}Ki`;

type Status = (code: number, reason: string, message: string) => SandboxResponse;

/** What a metrics list looks like at one time: the JSON of each item, keyed for lookups by name. */
interface MetricsAt {
  t: EpochMs;
  pods: { namespace: string; name: string; json: string }[];
  nodes: { name: string; json: string }[];
}

export function createMetricsApi(scenario: Scenario, model: UsageModel, status: Status) {
  const podsByKey = [...scenario.pods].sort((a, b) =>
    a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : a.createdAt - b.createdAt,
  );
  const nodes = [...scenario.nodes].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  let last: MetricsAt | null = null;

  const build = (t: EpochMs): MetricsAt => {
    if (last !== null && last.t === t) return last;
    const now = rfc3339(t);
    const onNode = new Map<string, { cpu: number; memory: number }>();
    const pods: MetricsAt['pods'] = [];
    let prev: SimPod | null = null;
    for (const p of podsByKey) {
      if (podPhaseAt(p, t) !== 'Running') continue;
      // A StatefulSet pod re-created under the same name: only the one running now.
      if (prev !== null && prev.namespace === p.namespace && prev.name === p.name) pods.pop();
      prev = p;
      const scrape = model.scrapeOf(p.uid, t);
      const containers = p.containers.map((c) => {
        const u = model.usageAt(p, c, scrape.measuredAt);
        const sum = onNode.get(p.nodeName) ?? { cpu: 0, memory: 0 };
        sum.cpu += u.cpuMillicores;
        sum.memory += u.memoryBytes;
        onNode.set(p.nodeName, sum);
        return { name: c.name, usage: { cpu: nanocores(u.cpuMillicores), memory: kibibytes(u.memoryBytes) } };
      });
      pods.push({
        namespace: p.namespace,
        name: p.name,
        json: JSON.stringify({
          metadata: { name: p.name, namespace: p.namespace, creationTimestamp: now, labels: p.labels },
          timestamp: rfc3339(scrape.measuredAt),
          window: formatGoDuration(scrape.windowMs),
          containers,
        }),
      });
    }
    const nodeItems: MetricsAt['nodes'] = [];
    for (const n of nodes) {
      if (!nodeAliveAt(n, t)) continue;
      const scrape = model.scrapeOf(n.name, t);
      const own = model.nodeOverhead(n.allocatable.cpuMillicores);
      const pods = onNode.get(n.name) ?? { cpu: 0, memory: 0 };
      nodeItems.push({
        name: n.name,
        json: JSON.stringify({
          metadata: { name: n.name, creationTimestamp: now, labels: nodeLabels(scenario, n) },
          timestamp: rfc3339(scrape.measuredAt),
          window: formatGoDuration(scrape.windowMs),
          usage: { cpu: nanocores(own.cpuMillicores + pods.cpu), memory: kibibytes(own.memoryBytes + pods.memory) },
        }),
      });
    }
    last = { t, pods, nodes: nodeItems };
    return last;
  };

  const listBody = (kind: string, items: string[]) =>
    `{"kind":"${kind}","apiVersion":"${API_VERSION}","metadata":{},"items":[${items.join(',')}]}`;
  const ok = (body: string): SandboxResponse => ({ status: 200, headers: { 'content-type': 'application/json' }, body });
  const one = (kind: string, text: string): string => `{"kind":"${kind}","apiVersion":"${API_VERSION}",${text.slice(1)}`;

  /** Answers a metrics.k8s.io path (below /apis/metrics.k8s.io/v1beta1), or null when it is not one. */
  return (path: string, t: EpochMs): SandboxResponse | null => {
    if (!path.startsWith(`${PREFIX}/`)) return null;
    const rest = path.slice(PREFIX.length);
    const m = /^(?:\/namespaces\/([^/]+))?\/(pods|nodes)(?:\/([^/]+))?$/.exec(rest);
    if (!m || (m[2] === 'nodes' && m[1] !== undefined) || (m[2] === 'pods' && m[3] !== undefined && m[1] === undefined))
      return status(404, 'NotFound', `the server could not find the requested resource (${path})`);
    const namespace = m[1] === undefined ? null : decodeURIComponent(m[1]);
    const name = m[3] === undefined ? null : decodeURIComponent(m[3]);
    const at = build(t);
    if (m[2] === 'nodes') {
      if (name === null)
        return ok(
          listBody(
            'NodeMetricsList',
            at.nodes.map((n) => n.json),
          ),
        );
      const found = at.nodes.find((n) => n.name === name);
      return found ? ok(one('NodeMetrics', found.json)) : status(404, 'NotFound', `nodemetrics.metrics.k8s.io "${name}" not found`);
    }
    const pods = namespace === null ? at.pods : at.pods.filter((p) => p.namespace === namespace);
    if (name === null)
      return ok(
        listBody(
          'PodMetricsList',
          pods.map((p) => p.json),
        ),
      );
    const found = pods.find((p) => p.name === name);
    return found ? ok(one('PodMetrics', found.json)) : status(404, 'NotFound', `podmetrics.metrics.k8s.io "${name}" not found`);
  };
}

export type MetricsApi = ReturnType<typeof createMetricsApi>;
