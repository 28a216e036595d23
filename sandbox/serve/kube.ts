import { nodePoolsAt, type EpochMs, type Scenario, type SimNode, type SimPod, type SimPodTemplate } from '../scenario/types.js';
import type { SandboxContext, SandboxHandler, SandboxRequest, SandboxResponse, SandboxStream } from './context.js';
import { json } from './context.js';
import {
  eventObject,
  namespaceObject,
  nodeAliveAt,
  nodeClaimObject,
  nodeObject,
  type NodeState,
  nodePoolObject,
  nodeStates,
  podListedUntil,
  podObject,
  podPhaseAt,
  podUsageView,
  type ServedPhase,
} from './kube-objects.js';
import { discovery } from './kube-discovery.js';
import { type Change, deletedCopy, type Item, type Kind, rvOf, workloadKinds } from './kube-kinds.js';
import { type PodDetail, realisticPodObject } from './pod-detail.js';
import { createMetricsApi } from './metrics.js';
import { karpenterProfile } from '../scenario/karpenter-profile.js';
import type { UsageModel } from '../scenario/usage.js';

export { rvOf } from './kube-kinds.js';

/** A continue token stays valid for five simulated minutes, like an etcd compaction window; then 410 Gone. */
const CONTINUE_TTL_MS = 5 * 60_000;
/** Events live an hour in the API server (the default --event-ttl). */
const EVENT_TTL_MS = 60 * 60_000;

export const status = (code: number, reason: string, message: string): SandboxResponse =>
  json(code, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });

const EXPIRED =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.';

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Serialises each object once per state: most objects do not change between snapshots. */
function memo<K>(build: (k: K) => unknown): (cacheKey: string, k: K) => string {
  const cache = new Map<string, string>();
  return (cacheKey, k) => {
    let text = cache.get(cacheKey);
    if (text === undefined) {
      text = JSON.stringify(build(k));
      cache.set(cacheKey, text);
    }
    return text;
  };
}

/** Options of the Kubernetes adapter; the defaults give the objects the week4 tests pin byte for byte. */
export interface KubeHandlerOptions {
  /** 'realistic' serves pods of 10+ KB (managedFields, env, probes, statuses), as a real API server does. */
  podDetail?: PodDetail;
  /**
   * What the containers use (sandbox/scenario/usage.ts): pods then carry its limits and OOM restarts, and unless
   * `metricsServer` is false the metrics.k8s.io API (metrics-server) answers from it. Absent: no metrics-server,
   * as in a cluster without one (the group is not discovered and its paths answer 404).
   */
  usage?: UsageModel;
  metricsServer?: boolean;
}

/** The node state in force at t. */
function stateAt(states: readonly NodeState[], t: EpochMs): NodeState {
  let cur = states[0];
  for (const s of states) if (s.since <= t) cur = s;
  return cur;
}

function kinds(sc: Scenario, opts: KubeHandlerOptions): Record<string, Kind> {
  const poolByName = new Map(sc.nodePools.map((p) => [p.name, p]));
  /** A NodePool as served at t: its disruption settings as edited by then, its generation counting the edits. */
  const nodePoolJson = (name: string, t: EpochMs): string | null => {
    const at = nodePoolsAt(sc, t).find((x) => x.pool.name === name);
    if (at === undefined) return null;
    const edited = (sc.nodePoolChanges ?? []).filter((c) => c.nodePool === name && c.at <= t).pop();
    return JSON.stringify(nodePoolObject(at.pool, sc.start, { generation: at.generation, editedAt: edited?.at ?? null }));
  };
  const nodesByName = [...sc.nodes].sort((a, b) => cmp(a.name, b.name));
  const podsByKey = [...sc.pods].sort((a, b) => cmp(`${a.namespace}/${a.name}`, `${b.namespace}/${b.name}`) || a.createdAt - b.createdAt);
  const podsByName = new Map(sc.pods.map((p) => [p.name, p]));
  const nodeIp = new Map(sc.nodes.map((n) => [n.name, n.privateIp]));
  const templates = new Map<string, SimPodTemplate>((sc.workloads ?? []).map((w) => [`${w.kind}/${w.namespace}/${w.name}`, w.template]));
  const templateOf = (p: SimPod) => (p.workload !== undefined ? templates.get(p.workload) : undefined);

  // The NodeClass hash in force changes when a node launches with a new one (a drift): its times, per class.
  const hashChanges = new Map<string, { at: EpochMs; hash: string }[]>();
  for (const n of [...sc.nodes].filter((x) => x.nodePool).sort((a, b) => a.createdAt - b.createdAt)) {
    const cls = poolByName.get(n.nodePool ?? '')?.nodeClassName ?? '';
    const list = hashChanges.get(cls) ?? [];
    if (list.length === 0 || list[list.length - 1].hash !== n.nodeClassHash) list.push({ at: n.createdAt, hash: n.nodeClassHash });
    hashChanges.set(cls, list);
  }
  const hashAt = (cls: string, t: EpochMs): { at: EpochMs; hash: string } => {
    let cur = { at: 0, hash: '' };
    for (const c of hashChanges.get(cls) ?? []) if (c.at <= t) cur = c;
    return cur;
  };

  const statesOf = new Map(sc.nodes.map((n) => [n.name, nodeStates(n)]));
  const nodeJson = memo((x: { n: SimNode; state: NodeState }) =>
    nodeObject(sc, x.n, x.n.nodePool ? poolByName.get(x.n.nodePool) : undefined, null, x.state),
  );
  const nodeAt = (n: SimNode, t: EpochMs) => {
    const state = stateAt(statesOf.get(n.name) ?? [], t);
    return nodeJson(`${n.name}|${state.since}`, { n, state });
  };
  const model = opts.usage;
  const podJson = memo((x: { p: SimPod; phase: ServedPhase; at: EpochMs }) =>
    opts.podDetail === 'realistic'
      ? realisticPodObject(x.p, x.phase, nodeIp.get(x.p.nodeName) ?? '', templateOf(x.p))
      : podObject(x.p, x.phase, nodeIp.get(x.p.nodeName) ?? '', model ? podUsageView(model, x.p, x.at) : undefined, templateOf(x.p)),
  );
  /** A pod's JSON as of t: its phase, and (with a usage model) how often its containers were OOM-killed by then. */
  const restartsKey = (p: SimPod, t: EpochMs): string =>
    model ? p.containers.map((c) => model.restartsAt(p, c, t).restartCount).join(',') : '';
  const podAt = (p: SimPod, phase: ServedPhase, t: EpochMs) => {
    const at = p.deletedAt === null ? t : Math.min(t, p.deletedAt);
    return podJson(`${p.uid}|${phase}|${restartsKey(p, at)}`, { p, phase, at });
  };
  const claimJson = memo((x: { n: SimNode; hash: { at: EpochMs; hash: string }; final: boolean }) => {
    const pool = poolByName.get(x.n.nodePool ?? '');
    return pool
      ? nodeClaimObject(sc, x.n, pool, podsByName, x.hash.hash, x.n.nodeClassHash === x.hash.hash ? x.n.createdAt : x.hash.at, x.final)
      : null;
  });
  /** A NodeClaim at t; from its disruption on (or `final`, for its DELETED event) marked and being deleted. */
  const claimAt = (n: SimNode, t: EpochMs, final = n.disruptedAt !== undefined && n.disruptedAt <= t) => {
    const h = hashAt(poolByName.get(n.nodePool ?? '')?.nodeClassName ?? '', t);
    return claimJson(`${n.nodeClaimName}|${h.hash}|${final}`, { n, hash: h, final });
  };
  const events = sc.events.map((e) => ({ e, json: JSON.stringify(eventObject(e)), key: '' }));
  for (const x of events) {
    const o = JSON.parse(x.json) as { metadata: { namespace: string; name: string } };
    x.key = `${o.metadata.namespace}/${o.metadata.name}`;
  }

  const sortByTime = (c: Change[]) => c.sort((a, b) => a.at - b.at);
  const podTimeline: Change[] = [];
  for (const p of sc.pods) {
    const running = () => podAt(p, 'Running', p.createdAt);
    podTimeline.push({ at: p.createdAt, type: 'ADDED', namespace: p.namespace, json: running });
    // An OOM kill changes the Pod (restartCount, lastState): a MODIFIED event then.
    for (const at of model?.oomKillTimes(p, p.createdAt, p.deletedAt ?? sc.end) ?? [])
      podTimeline.push({ at, type: 'MODIFIED', namespace: p.namespace, json: () => podAt(p, 'Running', at) });
    if (p.deletedAt === null) continue;
    const end = p.deletedAt;
    const gone = podListedUntil(p);
    if (p.endPhase !== 'Deleted') {
      const phase = p.endPhase;
      const done = () => podAt(p, phase, end);
      podTimeline.push({ at: end, type: 'MODIFIED', namespace: p.namespace, json: done });
      if (gone !== null) podTimeline.push({ at: gone, type: 'DELETED', namespace: p.namespace, json: () => deletedCopy(done(), gone) });
    } else {
      podTimeline.push({ at: end, type: 'DELETED', namespace: p.namespace, json: () => deletedCopy(podAt(p, 'Running', end), end) });
    }
  }
  const nodeTimeline: Change[] = [];
  const claimTimeline: Change[] = [];
  for (const n of sc.nodes) {
    for (const [i, state] of (statesOf.get(n.name) ?? []).entries()) {
      nodeTimeline.push({ at: state.since, type: i === 0 ? 'ADDED' : 'MODIFIED', namespace: null, json: () => nodeAt(n, state.since) });
    }
    if (n.deletedAt !== null) {
      const end = n.deletedAt;
      nodeTimeline.push({ at: end, type: 'DELETED', namespace: null, json: () => deletedCopy(nodeAt(n, end - 1), end) });
    }
    if (!n.nodeClaimName) continue;
    claimTimeline.push({ at: n.createdAt, type: 'ADDED', namespace: null, json: () => claimAt(n, n.createdAt) });
    const cls = poolByName.get(n.nodePool ?? '')?.nodeClassName ?? '';
    for (const c of hashChanges.get(cls) ?? []) {
      if (c.at > n.createdAt && (n.deletedAt === null || c.at < n.deletedAt)) {
        claimTimeline.push({ at: c.at, type: 'MODIFIED', namespace: null, json: () => claimAt(n, c.at) });
      }
    }
    const disruptedAt = n.disruptedAt;
    if (disruptedAt !== undefined && (n.deletedAt === null || disruptedAt < n.deletedAt)) {
      claimTimeline.push({ at: disruptedAt, type: 'MODIFIED', namespace: null, json: () => claimAt(n, disruptedAt, true) });
    }
    if (n.deletedAt !== null) {
      const end = n.deletedAt;
      // As last seen: marked for its disruption (the DisruptionReason condition) and being deleted.
      claimTimeline.push({ at: end, type: 'DELETED', namespace: null, json: () => deletedCopy(claimAt(n, end - 1, true), end) });
    }
  }
  const eventTimeline: Change[] = events.flatMap(({ e, json: text }) => [
    { at: e.at, type: 'ADDED' as const, namespace: e.involvedObject.namespace ?? 'default', json: () => text },
    {
      at: e.at + EVENT_TTL_MS,
      type: 'DELETED' as const,
      namespace: e.involvedObject.namespace ?? 'default',
      json: () => deletedCopy(text, e.at + EVENT_TTL_MS),
    },
  ]);

  return {
    nodes: {
      kind: 'NodeList',
      apiVersion: 'v1',
      timeline: sortByTime(nodeTimeline),
      list: (t) => nodesByName.filter((n) => nodeAliveAt(n, t)).map((n) => ({ key: n.name, namespace: null, json: nodeAt(n, t) })),
    },
    pods: {
      kind: 'PodList',
      apiVersion: 'v1',
      timeline: sortByTime(podTimeline),
      list: (t) => {
        const out: Item[] = [];
        for (const p of podsByKey) {
          const phase = podPhaseAt(p, t);
          if (phase) out.push({ key: `${p.namespace}/${p.name}`, namespace: p.namespace, json: podAt(p, phase, t) });
        }
        return out;
      },
    },
    namespaces: {
      kind: 'NamespaceList',
      apiVersion: 'v1',
      timeline: [],
      list: () =>
        [...sc.namespaces]
          .sort((a, b) => cmp(a.name, b.name))
          .map((ns) => ({ key: ns.name, namespace: null, json: JSON.stringify(namespaceObject(ns, sc.start)) })),
    },
    events: {
      kind: 'EventList',
      apiVersion: 'v1',
      timeline: sortByTime(eventTimeline),
      list: (t) =>
        events
          .filter(({ e }) => e.at <= t && e.at > t - EVENT_TTL_MS)
          .map(({ e, json: text, key }) => ({ key, namespace: e.involvedObject.namespace ?? 'default', json: text }))
          .sort((a, b) => cmp(a.key, b.key)),
    },
    nodepools: {
      kind: 'NodePoolList',
      apiVersion: 'karpenter.sh/v1',
      // an edit of a NodePool's disruption settings (a nodepool-disruption incident) is a MODIFIED at its time
      timeline: sortByTime(
        (sc.nodePoolChanges ?? []).map((c) => ({
          at: c.at,
          type: 'MODIFIED' as const,
          namespace: null,
          json: () => nodePoolJson(c.nodePool, c.at) ?? '{}',
        })),
      ),
      list: (t) =>
        nodePoolsAt(sc, t)
          .sort((a, b) => cmp(a.pool.name, b.pool.name))
          .map(({ pool }) => ({ key: pool.name, namespace: null, json: nodePoolJson(pool.name, t) ?? '{}' })),
    },
    nodeclaims: {
      kind: 'NodeClaimList',
      apiVersion: 'karpenter.sh/v1',
      timeline: sortByTime(claimTimeline),
      list: (t) =>
        nodesByName
          .filter((n) => n.nodeClaimName && nodeAliveAt(n, t))
          .sort((a, b) => cmp(a.nodeClaimName ?? '', b.nodeClaimName ?? ''))
          .map((n) => ({ key: n.nodeClaimName ?? '', namespace: null, json: claimAt(n, t) })),
    },
    ...workloadKinds(sc),
  };
}

/** A collection path: core `/api/v1/<plural>` or `/apis/<group>/<version>/<plural>`, optionally in a namespace. */
const ROUTES: { re: RegExp; kind: string }[] = [
  ...['nodes', 'namespaces', 'persistentvolumes'].map((k) => ({ re: new RegExp(`^/api/v1/${k}$`), kind: k })),
  ...['pods', 'events', 'persistentvolumeclaims'].flatMap((k) => [
    { re: new RegExp(`^/api/v1/${k}$`), kind: k },
    { re: new RegExp(`^/api/v1/namespaces/([^/]+)/${k}$`), kind: k },
  ]),
  ...[
    ['karpenter\\.sh/v1', 'nodepools'],
    ['karpenter\\.sh/v1', 'nodeclaims'],
    ['karpenter\\.sh/v1alpha1', 'nodeoverlays'],
    ['karpenter\\.k8s\\.aws/v1', 'ec2nodeclasses'],
    ['storage\\.k8s\\.io/v1', 'storageclasses'],
    ['storage\\.k8s\\.io/v1', 'csinodes'],
  ].map(([gv, k]) => ({ re: new RegExp(`^/apis/${gv}/${k}$`), kind: k })),
  ...[
    ['apps/v1', 'deployments'],
    ['apps/v1', 'replicasets'],
    ['apps/v1', 'statefulsets'],
    ['apps/v1', 'daemonsets'],
    ['batch/v1', 'jobs'],
    ['batch/v1', 'cronjobs'],
    ['policy/v1', 'poddisruptionbudgets'],
  ].flatMap(([gv, k]) => [
    { re: new RegExp(`^/apis/${gv}/${k}$`), kind: k },
    { re: new RegExp(`^/apis/${gv}/namespaces/([^/]+)/${k}$`), kind: k },
  ]),
];

interface ContinueToken {
  t: number;
  after: string;
}

const encodeToken = (c: ContinueToken): string => Buffer.from(JSON.stringify(c)).toString('base64url');
function decodeToken(s: string): ContinueToken | null {
  try {
    const v = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as Partial<ContinueToken>;
    return typeof v.t === 'number' && typeof v.after === 'string' ? { t: v.t, after: v.after } : null;
  } catch {
    return null;
  }
}

/** The Kubernetes API: lists and watches as of the sandbox clock, limit/continue paging, bearer-token auth. */
export function createKubeHandler(scenario: Scenario, token: string | null, opts: KubeHandlerOptions = {}): SandboxHandler {
  const all = kinds(scenario, opts);
  const lists = new ListCache();
  const withMetrics = opts.usage !== undefined && opts.metricsServer !== false;
  const overlays = karpenterProfile(scenario.karpenterVersion).nodeOverlayApi;
  const metrics = withMetrics && opts.usage ? createMetricsApi(scenario, opts.usage, status) : null;
  return (req: SandboxRequest, ctx: SandboxContext): SandboxResponse | SandboxStream | null => {
    const path = req.url.pathname;
    if (!(path === '/version' || path === '/api' || path === '/apis' || path.startsWith('/api/') || path.startsWith('/apis/'))) return null;
    const watching = req.url.searchParams.get('watch') === 'true' || req.url.searchParams.get('watch') === '1';
    ctx.requestLog.push({ at: ctx.clock.now(), operation: `kube:${watching ? 'WATCH' : req.method} ${path}` });
    if (token !== null && req.headers.authorization !== `Bearer ${token}`) return status(401, 'Unauthorized', 'Unauthorized');
    const fault = ctx.faults.find((f) => f.remaining > 0 && path.startsWith(f.match));
    if (fault) {
      fault.remaining -= 1;
      const answer =
        fault.status === 410
          ? status(410, 'Expired', EXPIRED)
          : status(fault.status, fault.status === 429 ? 'TooManyRequests' : 'InternalError', `injected fault ${fault.status}`);
      if (fault.retryAfter !== undefined) answer.headers['retry-after'] = fault.retryAfter;
      return answer;
    }
    if (req.method !== 'GET') return status(405, 'MethodNotAllowed', `the sandbox API is read-only: ${req.method} ${path}`);
    if (path === '/version') return json(200, { major: '1', minor: '31', gitVersion: 'v1.31.7-eks-sandbox', platform: 'linux/amd64' });
    const found = discovery(path, withMetrics, overlays);
    if (found) return json(200, found);
    if (metrics !== null) {
      const answer = metrics(path, ctx.clock.now());
      if (answer) return answer;
    }
    for (const route of ROUTES) {
      const m = route.re.exec(path);
      if (!m || (route.kind === 'nodeoverlays' && !overlays)) continue;
      const namespace = m[1] ? decodeURIComponent(m[1]) : null;
      return watching
        ? watch(all[route.kind], namespace, req.url.searchParams, ctx)
        : list(all[route.kind], namespace, req.url.searchParams, ctx, lists);
    }
    // one object by name (kubectl get pdb payments-api -n payments): the collection's item as of the clock
    const slash = path.lastIndexOf('/');
    const parent = path.slice(0, slash);
    for (const route of ROUTES) {
      const m = route.re.exec(parent);
      if (!m || watching || (route.kind === 'nodeoverlays' && !overlays)) continue;
      const namespace = m[1] ? decodeURIComponent(m[1]) : null;
      const name = decodeURIComponent(path.slice(slash + 1));
      const kind = all[route.kind];
      const key = namespace === null ? name : `${namespace}/${name}`;
      const item = lists.get(kind, ctx.clock.now(), namespace).find((i) => i.key === key);
      const resource = route.kind;
      if (item) return { status: 200, headers: { 'content-type': 'application/json' }, body: item.json };
      return status(404, 'NotFound', `${resource} "${name}" not found`);
    }
    return status(404, 'NotFound', `the server could not find the requested resource (${path})`);
  };
}

/**
 * The last list built per kind and time: paging through 150,000 pods asks for the same list 300 times, and
 * building it each time (phase of every pod, its cached JSON) would cost the sandbox more than the client.
 */
class ListCache {
  private readonly last = new Map<Kind, { t: EpochMs; namespace: string | null; items: Item[] }>();
  get(kind: Kind, t: EpochMs, namespace: string | null): Item[] {
    const hit = this.last.get(kind);
    if (hit && hit.t === t && hit.namespace === namespace) return hit.items;
    const all = kind.list(t);
    const items = namespace === null ? all : all.filter((i) => i.namespace === namespace);
    this.last.set(kind, { t, namespace, items });
    return items;
  }
}

/** First index of a key-sorted list whose key sorts after `after` (binary search; lists are sorted by key). */
function firstKeyAfter(items: Item[], after: string): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (items[mid].key > after) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function list(kind: Kind, namespace: string | null, q: URLSearchParams, ctx: SandboxContext, lists: ListCache): SandboxResponse {
  const now = ctx.clock.now();
  const limitText = q.get('limit');
  const limit = limitText === null ? 0 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 0) return status(400, 'BadRequest', `invalid limit: ${limitText}`);
  let asOf = now;
  let after: string | null = null;
  const cont = q.get('continue');
  if (cont) {
    const token = decodeToken(cont);
    if (!token)
      return status(400, 'BadRequest', 'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
    if (now - token.t > CONTINUE_TTL_MS || token.t > now) return status(410, 'Expired', EXPIRED);
    asOf = token.t;
    after = token.after;
  }
  const items = lists.get(kind, asOf, namespace);
  const start = after === null ? 0 : firstKeyAfter(items, after);
  const end = limit > 0 ? Math.min(items.length, start + limit) : items.length;
  const page = items.slice(start, end);
  const metadata: Record<string, unknown> = { resourceVersion: rvOf(asOf) };
  if (end < items.length) {
    metadata.continue = encodeToken({ t: asOf, after: page[page.length - 1].key });
    metadata.remainingItemCount = items.length - end;
  }
  const body = `{"kind":${JSON.stringify(kind.kind)},"apiVersion":${JSON.stringify(kind.apiVersion)},"metadata":${JSON.stringify(metadata)},"items":[${page.map((i) => i.json).join(',')}]}`;
  return { status: 200, headers: { 'content-type': 'application/json' }, body };
}

/** First index in a time-sorted timeline with at > t. */
function firstAfter(timeline: Change[], t: EpochMs): number {
  let lo = 0;
  let hi = timeline.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (timeline[mid].at <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A watch: from `resourceVersion` (or from the current list when absent/"0"), streams every change as the clock
 * moves, each as one JSON line, followed by a BOOKMARK at the clock's resourceVersion when the client allows
 * bookmarks. A clock moved backwards, or a resourceVersion older than the event window, ends in 410 Expired.
 */
function watch(kind: Kind, namespace: string | null, q: URLSearchParams, ctx: SandboxContext): SandboxResponse | SandboxStream {
  const rvText = q.get('resourceVersion');
  const bookmarks = q.get('allowWatchBookmarks') === 'true';
  const fromList = rvText === null || rvText === '' || rvText === '0';
  const from = fromList ? ctx.clock.now() : Number(rvText) * 1000;
  if (!Number.isFinite(from)) return status(400, 'BadRequest', `invalid resourceVersion: ${rvText}`);
  const inNs = (c: { namespace: string | null }) => namespace === null || c.namespace === namespace;
  return {
    status: 200,
    headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    open(write, end) {
      let seen = from;
      const line = (type: string, text: string) => `{"type":"${type}","object":${text}}\n`;
      const gone = () => {
        write(
          line(
            'ERROR',
            JSON.stringify({
              kind: 'Status',
              apiVersion: 'v1',
              metadata: {},
              status: 'Failure',
              message: 'too old resource version',
              reason: 'Expired',
              code: 410,
            }),
          ),
        );
        end();
      };
      const bookmark = (t: EpochMs) =>
        line(
          'BOOKMARK',
          JSON.stringify({ kind: kind.kind.replace(/List$/, ''), apiVersion: kind.apiVersion, metadata: { resourceVersion: rvOf(t) } }),
        );
      const catchUp = (to: EpochMs): void => {
        if (to < seen) return gone();
        let out = '';
        for (let i = firstAfter(kind.timeline, seen); i < kind.timeline.length && kind.timeline[i].at <= to; i++) {
          const c = kind.timeline[i];
          if (inNs(c)) out += line(c.type, c.json());
        }
        seen = to;
        if (bookmarks) out += bookmark(to);
        if (out) write(out);
      };
      if (fromList) {
        let out = '';
        for (const item of kind.list(from)) if (inNs(item)) out += line('ADDED', item.json);
        if (bookmarks) out += bookmark(from);
        if (out) write(out);
      } else if (ctx.clock.now() - from > 60 * 60_000 || from > ctx.clock.now()) {
        gone();
        return () => undefined;
      } else {
        catchUp(ctx.clock.now());
      }
      return ctx.clock.onChange((_prev, to) => catchUp(to));
    },
  };
}
