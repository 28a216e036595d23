import type { Scenario, SimNode, SimPod } from '../scenario/types';
import type { SandboxContext, SandboxHandler, SandboxRequest, SandboxResponse } from './context';
import { json } from './context';
import { eventObject, namespaceObject, nodeAliveAt, nodeClaimObject, nodeObject, nodePoolObject, podObject, podPhaseAt } from './kube-objects';

/** A continue token stays valid for five simulated minutes, like an etcd compaction window; then 410 Gone. */
const CONTINUE_TTL_MS = 5 * 60_000;
/** Events live an hour in the API server (the default --event-ttl). */
const EVENT_TTL_MS = 60 * 60_000;

interface ListKind {
  kind: string;
  apiVersion: string;
  /** Objects at time t, sorted by their storage key (namespace/name), with that key and their JSON text. */
  items: (t: number, namespace: string | null) => { key: string; json: string }[];
}

export const status = (code: number, reason: string, message: string): SandboxResponse =>
  json(code, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });

/** Indexes over one scenario, built once, so each list is a scan of small sorted arrays. */
class KubeIndex {
  readonly nodesByName: SimNode[];
  readonly podsByKey: SimPod[];
  readonly podsByName = new Map<string, SimPod>();
  readonly nodeIp = new Map<string, string>();
  readonly nodeClassHashAt: (nodeClass: string, t: number) => string;

  constructor(readonly scenario: Scenario) {
    this.nodesByName = [...scenario.nodes].sort((a, b) => cmp(a.name, b.name));
    this.podsByKey = [...scenario.pods].sort((a, b) => cmp(`${a.namespace}/${a.name}`, `${b.namespace}/${b.name}`) || a.createdAt - b.createdAt);
    for (const p of scenario.pods) this.podsByName.set(p.name, p);
    for (const n of scenario.nodes) this.nodeIp.set(n.name, n.privateIp);
    // The NodeClass hash in force at t is the one of the newest node of that class launched at or before t.
    const launches = [...scenario.nodes].filter((n) => n.nodePool).sort((a, b) => a.createdAt - b.createdAt);
    const poolClass = new Map(scenario.nodePools.map((p) => [p.name, p.nodeClassName]));
    this.nodeClassHashAt = (nodeClass, t) => {
      let hash = '';
      for (const n of launches) {
        if (n.createdAt > t) break;
        if (poolClass.get(n.nodePool ?? '') === nodeClass) hash = n.nodeClassHash;
      }
      return hash;
    };
  }
}

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

function listKinds(ix: KubeIndex): Record<string, ListKind> {
  const sc = ix.scenario;
  const poolByName = new Map(sc.nodePools.map((p) => [p.name, p]));
  const nodeJson = memo((n: SimNode) => nodeObject(sc, n, n.nodePool ? poolByName.get(n.nodePool) : undefined, null));
  const podJson = memo((x: { p: SimPod; phase: 'Running' | 'Succeeded' }) => podObject(x.p, x.phase, ix.nodeIp.get(x.p.nodeName) ?? ''));
  const claimJson = memo((x: { n: SimNode; hash: string }) => {
    const pool = poolByName.get(x.n.nodePool ?? '');
    return pool ? nodeClaimObject(sc, x.n, pool, ix.podsByName, x.hash) : null;
  });
  return {
    nodes: {
      kind: 'NodeList', apiVersion: 'v1',
      items: (t) => ix.nodesByName.filter((n) => nodeAliveAt(n, t)).map((n) => ({ key: n.name, json: nodeJson(n.name, n) })),
    },
    pods: {
      kind: 'PodList', apiVersion: 'v1',
      items: (t, ns) => {
        const out: { key: string; json: string }[] = [];
        for (const p of ix.podsByKey) {
          if (ns !== null && p.namespace !== ns) continue;
          const phase = podPhaseAt(p, t);
          if (phase) out.push({ key: `${p.namespace}/${p.name}`, json: podJson(`${p.uid}|${phase}`, { p, phase }) });
        }
        return out;
      },
    },
    namespaces: {
      kind: 'NamespaceList', apiVersion: 'v1',
      items: () => [...sc.namespaces].sort((a, b) => cmp(a.name, b.name)).map((ns) => ({ key: ns.name, json: JSON.stringify(namespaceObject(ns, sc.start)) })),
    },
    events: {
      kind: 'EventList', apiVersion: 'v1',
      items: (t, ns) => sc.events
        .filter((e) => e.at <= t && e.at > t - EVENT_TTL_MS && (ns === null || (e.involvedObject.namespace ?? 'default') === ns))
        .map((e) => eventObject(e))
        .map((o) => ({ key: `${o.metadata.namespace}/${o.metadata.name}`, json: JSON.stringify(o) }))
        .sort((a, b) => cmp(a.key, b.key)),
    },
    nodepools: {
      kind: 'NodePoolList', apiVersion: 'karpenter.sh/v1',
      items: () => [...sc.nodePools].sort((a, b) => cmp(a.name, b.name)).map((p) => ({ key: p.name, json: JSON.stringify(nodePoolObject(p, sc.start)) })),
    },
    nodeclaims: {
      kind: 'NodeClaimList', apiVersion: 'karpenter.sh/v1',
      items: (t) => ix.nodesByName
        .filter((n) => n.nodeClaimName && nodeAliveAt(n, t))
        .sort((a, b) => cmp(a.nodeClaimName ?? '', b.nodeClaimName ?? ''))
        .map((n) => {
          const hash = ix.nodeClassHashAt(poolByName.get(n.nodePool ?? '')?.nodeClassName ?? '', t);
          return { key: n.nodeClaimName ?? '', json: claimJson(`${n.nodeClaimName}|${hash}`, { n, hash }) };
        }),
    },
  };
}

const ROUTES: { re: RegExp; list: string }[] = [
  { re: /^\/api\/v1\/nodes$/, list: 'nodes' },
  { re: /^\/api\/v1\/pods$/, list: 'pods' },
  { re: /^\/api\/v1\/namespaces\/([^/]+)\/pods$/, list: 'pods' },
  { re: /^\/api\/v1\/namespaces$/, list: 'namespaces' },
  { re: /^\/api\/v1\/events$/, list: 'events' },
  { re: /^\/api\/v1\/namespaces\/([^/]+)\/events$/, list: 'events' },
  { re: /^\/apis\/karpenter\.sh\/v1\/nodepools$/, list: 'nodepools' },
  { re: /^\/apis\/karpenter\.sh\/v1\/nodeclaims$/, list: 'nodeclaims' },
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

/** The Kubernetes API: lists as of the sandbox clock, with limit/continue paging and bearer-token auth. */
export function createKubeHandler(scenario: Scenario, token: string | null): SandboxHandler {
  const ix = new KubeIndex(scenario);
  const kinds = listKinds(ix);
  return (req: SandboxRequest, ctx: SandboxContext): SandboxResponse | null => {
    const path = req.url.pathname;
    if (!(path === '/version' || path === '/api' || path === '/apis' || path.startsWith('/api/') || path.startsWith('/apis/'))) return null;
    ctx.requestLog.push({ at: ctx.clock.now(), operation: `kube:${req.method} ${path}` });
    if (token !== null && req.headers.authorization !== `Bearer ${token}`) return status(401, 'Unauthorized', 'Unauthorized');
    const fault = ctx.faults.find((f) => f.remaining > 0 && path.startsWith(f.match));
    if (fault) {
      fault.remaining -= 1;
      return fault.status === 410
        ? status(410, 'Expired', 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.')
        : status(fault.status, fault.status === 429 ? 'TooManyRequests' : 'InternalError', `injected fault ${fault.status}`);
    }
    if (req.method !== 'GET') return status(405, 'MethodNotAllowed', `the sandbox API is read-only: ${req.method} ${path}`);
    if (path === '/version') return json(200, { major: '1', minor: '31', gitVersion: 'v1.31.7-eks-sandbox', platform: 'linux/amd64' });
    if (path === '/api') return json(200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] });
    for (const route of ROUTES) {
      const m = route.re.exec(path);
      if (!m) continue;
      return list(kinds[route.list], m[1] ? decodeURIComponent(m[1]) : null, req.url.searchParams, ctx);
    }
    return status(404, 'NotFound', `the server could not find the requested resource (${path})`);
  };
}

function list(kind: ListKind, namespace: string | null, q: URLSearchParams, ctx: SandboxContext): SandboxResponse {
  const now = ctx.clock.now();
  const limitText = q.get('limit');
  const limit = limitText === null ? 0 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 0) return status(400, 'BadRequest', `invalid limit: ${limitText}`);
  let asOf = now;
  let after: string | null = null;
  const cont = q.get('continue');
  if (cont) {
    const token = decodeToken(cont);
    if (!token) return status(400, 'BadRequest', 'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
    if (now - token.t > CONTINUE_TTL_MS) {
      return status(410, 'Expired', 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.');
    }
    asOf = token.t;
    after = token.after;
  }
  const all = kind.items(asOf, namespace);
  const start = after === null ? 0 : all.findIndex((i) => i.key > after);
  const rest = start < 0 ? [] : all.slice(start);
  const page = limit > 0 ? rest.slice(0, limit) : rest;
  const more = limit > 0 && rest.length > limit;
  const metadata: Record<string, unknown> = { resourceVersion: String(Math.floor(asOf / 1000)) };
  if (more) {
    metadata.continue = encodeToken({ t: asOf, after: page[page.length - 1].key });
    metadata.remainingItemCount = rest.length - page.length;
  }
  const body = `{"kind":${JSON.stringify(kind.kind)},"apiVersion":${JSON.stringify(kind.apiVersion)},"metadata":${JSON.stringify(metadata)},"items":[${page.map((i) => i.json).join(',')}]}`;
  return { status: 200, headers: { 'content-type': 'application/json' }, body };
}
