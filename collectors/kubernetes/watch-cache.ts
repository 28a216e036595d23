import { Watch } from '@kubernetes/client-node';
import type { CoreV1Event, V1Namespace, V1Node, V1Pod } from '@kubernetes/client-node';
import { DEFAULT_TEAM_LABEL } from '../../core/labels.js';
import type {
  EventRecord,
  KindState,
  KubeSnapshot,
  NamespaceRecord,
  NodeClaimRecord,
  NodePoolRecord,
  NodeRecord,
  PodRecord,
  VersionedObjectRecord,
} from '../../core/model.js';
import type { KubeClients } from './client.js';
import { createInterner, internPod, podWithTeam } from './intern.js';
import { EXTRA_KINDS, type ExtraKind, kindStateOf } from './kinds.js';
import { listMapped, type ListStats, type Page } from './list-all.js';
import { plainList } from './plain-list.js';
import { mapEvent, mapNamespace, mapNode, mapNodeClaim, mapNodePool, mapPod } from './map.js';
import { nodePoolObject, nodeSpecObject } from './map-objects.js';
import { karpenterVersionOf } from './map-scheduling.js';
import { SpecRefs } from './spec-refs.js';

type Meta = { metadata?: { name?: string; namespace?: string; resourceVersion?: string } };

/** One resource kept current by list-then-watch: the map of its objects (already mapped) and how far it has seen. */
class WatchedResource<R> {
  readonly objects = new Map<string, R>();
  resourceVersion = '';
  /** Highest resourceVersion seen (from objects or bookmarks), as a number, for "caught up to" waits. */
  seen = 0;
  watching = false;
  /** An extra kind (kinds.ts): may be absent or forbidden; then not watched, and listed again now and then. */
  optional: ExtraKind | null = null;
  /** Whether its objects are in the cache (false: the kind is absent, forbidden or its list failed: `state` says). */
  live = true;
  state: KindState = { state: 'ok' };
  lastAttemptMs = 0;
  constructor(
    readonly name: string,
    readonly path: string,
    readonly listPage: (cont: string | undefined) => Promise<Page<unknown> & { resourceVersion: string }>,
    readonly map: (raw: unknown) => R,
  ) {}
}

/** How often an extra kind that was absent, forbidden or failing is listed again (a CRD installed, a role fixed). */
const OPTIONAL_RETRY_MS = 10 * 60_000;
/** The most distinct strings the pods' interner keeps before it starts afresh (a few thousand at the envelope). */
const INTERNED_STRINGS = 200_000;
type WithObject<R> = { record: R; object: VersionedObjectRecord | null };

const keyOf = (o: Meta): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
const rvNumber = (rv: string | undefined): number => (rv && /^\d+$/.test(rv) ? Number(rv) : 0);

export interface WatchCacheOptions {
  limit?: number;
  teamLabel?: string;
  /** Called when a watch fails for a reason other than an expired resourceVersion (logged by the caller). */
  onError?: (resource: string, err: Error) => void;
}

/**
 * The cluster as a cache kept current by watches (list once, then stream changes), as a controller would.
 * A snapshot is then read from memory. Expired resourceVersions (410) relist; other failures re-watch after a
 * pause. `waitFor(rv)` resolves once every watch has seen that resourceVersion (bookmarks make that certain).
 */
export class KubeWatchCache {
  private readonly nodes: WatchedResource<WithObject<NodeRecord>>;
  private readonly pods: WatchedResource<PodRecord>;
  private readonly nodeClaims: WatchedResource<NodeClaimRecord>;
  private readonly nodePools: WatchedResource<WithObject<NodePoolRecord>>;
  private readonly namespaces: WatchedResource<NamespaceRecord>;
  private readonly events: WatchedResource<EventRecord>;
  private readonly extras: WatchedResource<VersionedObjectRecord | null>[];
  private readonly all: WatchedResource<unknown>[];
  private readonly waiters: { rv: number; resolve: () => void }[] = [];
  private readonly pendingEvents = new Map<string, EventRecord>();
  /** NodeClaims deleted since the last snapshot, as their DELETED watch event last showed them. */
  private readonly goneNodeClaims = new Map<string, NodeClaimRecord>();
  private readonly controllers = new Set<AbortController>();
  /** The cached pods' scheduling specs: their JSON held until a snapshot carrying it is stored (`specsStored`). */
  private readonly specs = new SpecRefs();
  private stopped = false;
  readonly stats: ListStats = { requests: 0, restarts: 0 };
  watchesStarted = 0;

  constructor(
    private readonly k: KubeClients,
    private readonly opts: WatchCacheOptions = {},
  ) {
    const limit = opts.limit ?? 500;
    const teamLabel = opts.teamLabel ?? DEFAULT_TEAM_LABEL;
    const core =
      <T>(
        call: (p: {
          limit: number;
          _continue?: string;
        }) => Promise<{ items: T[]; metadata?: { _continue?: string; resourceVersion?: string } }>,
      ) =>
      (cont: string | undefined) =>
        call({ limit, _continue: cont }).then((r) => ({
          items: r.items as unknown[],
          continueToken: r.metadata?._continue,
          resourceVersion: r.metadata?.resourceVersion ?? '',
        }));
    const custom = (plural: string) => (cont: string | undefined) =>
      k.custom.listClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural, limit, _continue: cont }).then((r: unknown) => {
        const o = r as { items?: unknown[]; metadata?: { continue?: string; resourceVersion?: string } };
        return {
          items: o.items ?? [],
          continueToken: o.metadata?.continue || undefined,
          resourceVersion: o.metadata?.resourceVersion ?? '',
        };
      });
    this.nodes = new WatchedResource(
      'nodes',
      '/api/v1/nodes',
      core((p) => k.core.listNode(p)),
      (o) => ({
        record: mapNode(o as V1Node),
        object: nodeSpecObject(o as V1Node),
      }),
    );
    // Pods are mapped without a team; the team is resolved at snapshot time against the current namespaces. Their
    // repeated strings (namespaces, node and owner names, label keys and values) are shared, as the one-shot list
    // shares them: 150,000 cached pods each held their own copies.
    const intern = createInterner(INTERNED_STRINGS);
    // Listed as plain JSON (plain-list.ts), as their watch events come: no typed copy of 150,000 pods to make.
    this.pods = new WatchedResource(
      'pods',
      '/api/v1/pods',
      (cont) =>
        plainList((options) => k.core.listPodForAllNamespaces({ limit, _continue: cont }, options)).then((r) => ({
          items: r.items,
          continueToken: r.metadata?.continue || undefined,
          resourceVersion: r.metadata?.resourceVersion ?? '',
        })),
      (o) => internPod(mapPod(o as V1Pod, new Map(), teamLabel, this.specs.ref), intern),
    );
    this.nodeClaims = new WatchedResource('nodeclaims', '/apis/karpenter.sh/v1/nodeclaims', custom('nodeclaims'), mapNodeClaim);
    this.nodePools = new WatchedResource('nodepools', '/apis/karpenter.sh/v1/nodepools', custom('nodepools'), (o) => ({
      record: mapNodePool(o),
      object: nodePoolObject(o),
    }));
    this.namespaces = new WatchedResource(
      'namespaces',
      '/api/v1/namespaces',
      core((p) => k.core.listNamespace(p)),
      (o) => mapNamespace(o as V1Namespace, teamLabel),
    );
    this.events = new WatchedResource(
      'events',
      '/api/v1/events',
      core((p) => k.core.listEventForAllNamespaces(p)),
      (o) => mapEvent(o as CoreV1Event),
    );
    this.extras = EXTRA_KINDS.map((x) => {
      const r = new WatchedResource<VersionedObjectRecord | null>(x.kind, x.path, x.list(k, limit), x.map);
      r.optional = x;
      return r;
    });
    this.all = [
      this.nodes,
      this.pods,
      this.nodeClaims,
      this.nodePools,
      this.namespaces,
      this.events,
      ...this.extras,
    ] as WatchedResource<unknown>[];
  }

  /** Lists everything once and starts the watches; resolves when the first lists are in. */
  async start(): Promise<void> {
    await Promise.all(this.all.map((r) => (r.optional ? this.listOptional(r) : this.relist(r))));
    for (const r of this.all) if (r.live) void this.watchLoop(r);
  }

  /**
   * Lists an extra kind; one that is absent (404), forbidden (403) or failing is left out of the cache (and of
   * `waitFor`) with its state, and tried again after OPTIONAL_RETRY_MS. Resolves true when it is live.
   */
  private async listOptional(r: WatchedResource<unknown>): Promise<boolean> {
    r.lastAttemptMs = Date.now();
    try {
      await this.relist(r);
      r.live = true;
      r.state = { state: 'ok' };
      return true;
    } catch (err) {
      r.live = false;
      r.objects.clear();
      r.state = r.optional ? kindStateOf(r.optional, err) : { state: 'failed', message: String(err) };
      return false;
    }
  }

  /** Tries the extra kinds that are not live again, once OPTIONAL_RETRY_MS has passed (in the background). */
  private retryOptional(): void {
    if (this.stopped) return;
    for (const r of this.all) {
      if (r.live || r.optional === null || r.watching || Date.now() - r.lastAttemptMs < OPTIONAL_RETRY_MS) continue;
      r.watching = true; // one retry at a time
      void this.listOptional(r).then((live) => {
        r.watching = false;
        if (live && !this.stopped) void this.watchLoop(r);
      });
    }
  }

  stop(): void {
    this.stopped = true;
    for (const c of this.controllers) c.abort();
  }

  /** Resolves when every resource has seen `rv` (or later); rejects after `timeoutMs`. */
  waitFor(rv: string, timeoutMs = 30_000): Promise<void> {
    const target = rvNumber(rv);
    if (this.all.every((r) => !r.live || r.seen >= target)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const behind = this.all
          .filter((r) => r.live && r.seen < target)
          .map((r) => `${r.name}@${r.seen}`)
          .join(', ');
        reject(new Error(`watches did not reach resourceVersion ${rv} within ${timeoutMs} ms (behind: ${behind})`));
      }, timeoutMs);
      this.waiters.push({
        rv: target,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  /** The cluster now, from memory. Events are those that arrived since the previous snapshot. */
  snapshot(takenAt: number): KubeSnapshot {
    const namespaces = [...this.namespaces.objects.values()];
    const teamByNs = new Map(namespaces.map((n) => [n.name, n.team]));
    const teamLabel = this.opts.teamLabel ?? DEFAULT_TEAM_LABEL;
    const events = [...this.pendingEvents.values()];
    this.pendingEvents.clear();
    const goneNodeClaims = [...this.goneNodeClaims.values()];
    this.goneNodeClaims.clear();
    this.retryOptional();
    const objects: VersionedObjectRecord[] = [];
    const kinds: Record<string, KindState> = { Node: { state: 'ok' }, NodePool: { state: 'ok' } };
    const nodes: NodeRecord[] = [];
    for (const n of this.nodes.objects.values()) {
      nodes.push(n.record);
      if (n.object !== null) objects.push(n.object);
    }
    const nodePools: NodePoolRecord[] = [];
    for (const np of this.nodePools.objects.values()) {
      nodePools.push(np.record);
      if (np.object !== null) objects.push(np.object);
    }
    for (const r of this.extras) {
      kinds[r.name] = r.state;
      if (r.live) for (const o of r.objects.values()) if (o !== null) objects.push(o);
    }
    const pods: PodRecord[] = [];
    for (const p of this.pods.objects.values()) pods.push(podWithTeam(p, p.labels[teamLabel] ?? teamByNs.get(p.namespace) ?? null));
    this.specs.retain(pods.map((p) => p.scheduling));
    const karpenterVersion = karpenterVersionOf(pods);
    return {
      takenAt,
      namespaces,
      nodes,
      nodeClaims: [...this.nodeClaims.objects.values()],
      nodePools,
      pods,
      events,
      goneNodeClaims,
      objects,
      kinds,
      ...(karpenterVersion === undefined ? {} : { karpenterVersion }),
    };
  }

  /**
   * The snapshot `s` (from `snapshot`) is stored, its pods' scheduling specs with it: the cache keeps their hashes
   * alone from now on (spec-refs.ts). Call it only once the write committed; a snapshot not stored leaves the JSON
   * for the next one to write.
   */
  specsStored(s: KubeSnapshot): void {
    this.specs.stored(s.pods.map((p) => p.scheduling));
  }

  /** How many scheduling specs the cache knows, and how many still hold their JSON (not yet stored). */
  get specCount(): { specs: number; withJson: number } {
    return this.specs.size;
  }

  private async relist(r: WatchedResource<unknown>): Promise<void> {
    let rv = '';
    // Each page mapped as it comes (listMapped), as the one-shot snapshot lists: holding every API object of a list
    // until its end made the watch collector's start-up peak 1,392 MB at 30,000 pods, 568 MB mapped per page
    // (npm run bench, watch).
    const items = await listMapped(
      r.name,
      async (cont) => {
        const page = await r.listPage(cont);
        if (!cont) rv = page.resourceVersion;
        return page;
      },
      (o) => ({ key: keyOf(o as Meta), rec: r.map(o) }),
      this.stats,
    );
    r.objects.clear();
    for (const { key, rec } of items) {
      r.objects.set(key, rec);
      if (r === this.events) this.pendingEvents.set((rec as EventRecord).uid, rec as EventRecord);
    }
    r.resourceVersion = rv;
    this.advance(r, rvNumber(rv));
  }

  private advance(r: WatchedResource<unknown>, rv: number): void {
    if (rv > r.seen) r.seen = rv;
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i];
      if (this.all.every((x) => !x.live || x.seen >= w.rv)) {
        this.waiters.splice(i, 1);
        w.resolve();
      }
    }
  }

  private async watchLoop(r: WatchedResource<unknown>): Promise<void> {
    const watch = new Watch(this.k.config);
    let failures = 0;
    while (!this.stopped) {
      const err = await new Promise<Error | null>((resolve) => {
        this.watchesStarted += 1;
        watch
          .watch(
            r.path,
            { resourceVersion: r.resourceVersion, allowWatchBookmarks: true },
            (type: string, obj: unknown) => {
              const o = obj as Meta & { code?: number };
              if (type === 'ERROR') {
                if (o.code === 410) r.resourceVersion = '';
                return;
              }
              if (type === 'ADDED' || type === 'MODIFIED') {
                const rec = r.map(obj);
                r.objects.set(keyOf(o), rec);
                if (r === this.events) this.pendingEvents.set((rec as EventRecord).uid, rec as EventRecord);
              } else if (type === 'DELETED') {
                r.objects.delete(keyOf(o));
                // Its last state: a disruption's DisruptionReason condition is often set and gone between snapshots.
                if (r === this.nodeClaims) this.goneNodeClaims.set(keyOf(o), r.map(obj) as NodeClaimRecord);
              }
              failures = 0;
              r.resourceVersion = o.metadata?.resourceVersion ?? r.resourceVersion;
              this.advance(r, rvNumber(o.metadata?.resourceVersion));
            },
            (e: unknown) => resolve(e ? (e as Error) : null),
          )
          .then(
            (c: AbortController) => this.controllers.add(c),
            (e: unknown) => resolve(e as Error),
          );
      });
      if (this.stopped) return;
      const code = (err as { statusCode?: number } | null)?.statusCode;
      // 410: the resourceVersion is too old; an extra kind answering 404/403 is listed again to learn its state.
      if (code === 410 || (r.optional && (code === 404 || code === 403))) r.resourceVersion = '';
      if (err && code !== 410 && !(r.optional && (code === 404 || code === 403))) {
        failures += 1;
        this.opts.onError?.(r.name, err);
        await new Promise((res) => setTimeout(res, Math.min(5000, 100 * 2 ** failures)));
      }
      if (!r.resourceVersion) {
        this.stats.restarts += 1;
        if (r.optional) {
          // An extra kind that went away (its CRD deleted, the role changed): out of the cache, tried again later.
          if (!(await this.listOptional(r))) return;
          continue;
        }
        try {
          await this.relist(r);
        } catch (e) {
          this.opts.onError?.(r.name, e as Error);
          await new Promise((res) => setTimeout(res, 1000));
        }
      }
    }
  }
}
