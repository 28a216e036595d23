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

/** One PodMetrics item: its JSON, keyed for lookups by name. */
interface PodItem {
  namespace: string;
  name: string;
  json: string;
}

export function createMetricsApi(scenario: Scenario, model: UsageModel, status: Status) {
  const podsByKey = [...scenario.pods].sort((a, b) =>
    a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : a.createdAt - b.createdAt,
  );
  // Per namespace, in the same order: a namespace's list is built from its own pods (the collector lists PodMetrics
  // namespace by namespace above 10,000 pods, each request at a new time of a moving clock: building all 150,000
  // pods' usage for each of them made the sandbox, not the collector, what a snapshot waited for).
  const podsInNamespace = new Map<string, SimPod[]>();
  for (const p of podsByKey) {
    const list = podsInNamespace.get(p.namespace);
    if (list === undefined) podsInNamespace.set(p.namespace, [p]);
    else list.push(p);
  }
  const nodes = [...scenario.nodes].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const lastPods = new Map<string, { t: EpochMs; items: PodItem[] }>();
  let lastNodes: { t: EpochMs; items: { name: string; json: string }[] } | null = null;

  /** Each running pod's containers' usage at its scrape before t (what metrics-server holds at t). */
  const containersOf = (p: SimPod, t: EpochMs) => {
    const scrape = model.scrapeOf(p.uid, t);
    return { scrape, usage: p.containers.map((c) => ({ name: c.name, u: model.usageAt(p, c, scrape.measuredAt) })) };
  };

  const podsAt = (t: EpochMs, namespace: string): PodItem[] => {
    const hit = lastPods.get(namespace);
    if (hit !== undefined && hit.t === t) return hit.items;
    const now = rfc3339(t);
    const items: PodItem[] = [];
    let prev: SimPod | null = null;
    for (const p of podsInNamespace.get(namespace) ?? []) {
      if (podPhaseAt(p, t) !== 'Running') continue;
      if (prev !== null && prev.name === p.name) items.pop();
      prev = p;
      const { scrape, usage } = containersOf(p, t);
      items.push({
        namespace: p.namespace,
        name: p.name,
        json: JSON.stringify({
          metadata: { name: p.name, namespace: p.namespace, creationTimestamp: now, labels: p.labels },
          timestamp: rfc3339(scrape.measuredAt),
          window: formatGoDuration(scrape.windowMs),
          containers: usage.map(({ name, u }) => ({ name, usage: { cpu: nanocores(u.cpuMillicores), memory: kibibytes(u.memoryBytes) } })),
        }),
      });
    }
    lastPods.set(namespace, { t, items });
    return items;
  };

  const allPodsAt = (t: EpochMs): PodItem[] => [...podsInNamespace.keys()].flatMap((ns) => podsAt(t, ns));

  const nodesAt = (t: EpochMs) => {
    if (lastNodes !== null && lastNodes.t === t) return lastNodes.items;
    const now = rfc3339(t);
    // Every running pod's usage on its node (a pod listed twice under one name counts twice, as it always has).
    const onNode = new Map<string, { cpu: number; memory: number }>();
    for (const p of podsByKey) {
      if (podPhaseAt(p, t) !== 'Running') continue;
      for (const { u } of containersOf(p, t).usage) {
        const sum = onNode.get(p.nodeName) ?? { cpu: 0, memory: 0 };
        sum.cpu += u.cpuMillicores;
        sum.memory += u.memoryBytes;
        onNode.set(p.nodeName, sum);
      }
    }
    const items: { name: string; json: string }[] = [];
    for (const n of nodes) {
      if (!nodeAliveAt(n, t)) continue;
      const scrape = model.scrapeOf(n.name, t);
      const own = model.nodeOverhead(n.allocatable.cpuMillicores);
      const pods = onNode.get(n.name) ?? { cpu: 0, memory: 0 };
      items.push({
        name: n.name,
        json: JSON.stringify({
          metadata: { name: n.name, creationTimestamp: now, labels: nodeLabels(scenario, n) },
          timestamp: rfc3339(scrape.measuredAt),
          window: formatGoDuration(scrape.windowMs),
          usage: { cpu: nanocores(own.cpuMillicores + pods.cpu), memory: kibibytes(own.memoryBytes + pods.memory) },
        }),
      });
    }
    lastNodes = { t, items };
    return items;
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
    if (m[2] === 'nodes') {
      const at = nodesAt(t);
      if (name === null)
        return ok(
          listBody(
            'NodeMetricsList',
            at.map((n) => n.json),
          ),
        );
      const found = at.find((n) => n.name === name);
      return found ? ok(one('NodeMetrics', found.json)) : status(404, 'NotFound', `nodemetrics.metrics.k8s.io "${name}" not found`);
    }
    const pods = namespace === null ? allPodsAt(t) : podsAt(t, namespace);
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
