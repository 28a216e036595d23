import { Watch } from '@kubernetes/client-node';
import type { CoreV1Event, V1Namespace, V1Node, V1Pod } from '@kubernetes/client-node';
import { DEFAULT_TEAM_LABEL } from '../../core/labels.js';
import type {
  EventRecord,
  KubeSnapshot,
  NamespaceRecord,
  NodeClaimRecord,
  NodePoolRecord,
  NodeRecord,
  PodRecord,
} from '../../core/model.js';
import type { KubeClients } from './client.js';
import { listAll, type ListStats, type Page } from './list-all.js';
import { mapEvent, mapNamespace, mapNode, mapNodeClaim, mapNodePool, mapPod } from './map.js';

type Meta = { metadata?: { name?: string; namespace?: string; resourceVersion?: string } };

/** One resource kept current by list-then-watch: the map of its objects (already mapped) and how far it has seen. */
class WatchedResource<R> {
  readonly objects = new Map<string, R>();
  resourceVersion = '';
  /** Highest resourceVersion seen (from objects or bookmarks), as a number, for "caught up to" waits. */
  seen = 0;
  watching = false;
  constructor(
    readonly name: string,
    readonly path: string,
    readonly listPage: (cont: string | undefined) => Promise<Page<unknown> & { resourceVersion: string }>,
    readonly map: (raw: unknown) => R,
  ) {}
}

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
  private readonly nodes: WatchedResource<NodeRecord>;
  private readonly pods: WatchedResource<PodRecord>;
  private readonly nodeClaims: WatchedResource<NodeClaimRecord>;
  private readonly nodePools: WatchedResource<NodePoolRecord>;
  private readonly namespaces: WatchedResource<NamespaceRecord>;
  private readonly events: WatchedResource<EventRecord>;
  private readonly all: WatchedResource<unknown>[];
  private readonly waiters: { rv: number; resolve: () => void }[] = [];
  private readonly pendingEvents = new Map<string, EventRecord>();
  /** NodeClaims deleted since the last snapshot, as their DELETED watch event last showed them. */
  private readonly goneNodeClaims = new Map<string, NodeClaimRecord>();
  private readonly controllers = new Set<AbortController>();
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
      (o) => mapNode(o as V1Node),
    );
    // Pods are mapped without a team; the team is resolved at snapshot time against the current namespaces.
    this.pods = new WatchedResource(
      'pods',
      '/api/v1/pods',
      core((p) => k.core.listPodForAllNamespaces(p)),
      (o) => mapPod(o as V1Pod, new Map(), teamLabel),
    );
    this.nodeClaims = new WatchedResource('nodeclaims', '/apis/karpenter.sh/v1/nodeclaims', custom('nodeclaims'), mapNodeClaim);
    this.nodePools = new WatchedResource('nodepools', '/apis/karpenter.sh/v1/nodepools', custom('nodepools'), mapNodePool);
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
    this.all = [this.nodes, this.pods, this.nodeClaims, this.nodePools, this.namespaces, this.events] as WatchedResource<unknown>[];
  }

  /** Lists everything once and starts the watches; resolves when the first lists are in. */
  async start(): Promise<void> {
    await Promise.all(this.all.map((r) => this.relist(r)));
    for (const r of this.all) void this.watchLoop(r);
  }

  stop(): void {
    this.stopped = true;
    for (const c of this.controllers) c.abort();
  }

  /** Resolves when every resource has seen `rv` (or later); rejects after `timeoutMs`. */
  waitFor(rv: string, timeoutMs = 30_000): Promise<void> {
    const target = rvNumber(rv);
    if (this.all.every((r) => r.seen >= target)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const behind = this.all
          .filter((r) => r.seen < target)
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
    return {
      takenAt,
      namespaces,
      nodes: [...this.nodes.objects.values()],
      nodeClaims: [...this.nodeClaims.objects.values()],
      nodePools: [...this.nodePools.objects.values()],
      pods: [...this.pods.objects.values()].map((p) => ({ ...p, team: p.labels[teamLabel] ?? teamByNs.get(p.namespace) ?? null })),
      events,
      goneNodeClaims,
    };
  }

  private async relist(r: WatchedResource<unknown>): Promise<void> {
    let rv = '';
    const items = await listAll(
      r.name,
      async (cont) => {
        const page = await r.listPage(cont);
        if (!cont) rv = page.resourceVersion;
        return page;
      },
      this.stats,
    );
    r.objects.clear();
    for (const o of items) {
      const rec = r.map(o);
      r.objects.set(keyOf(o as Meta), rec);
      if (r === this.events) this.pendingEvents.set((rec as EventRecord).uid, rec as EventRecord);
    }
    r.resourceVersion = rv;
    this.advance(r, rvNumber(rv));
  }

  private advance(r: WatchedResource<unknown>, rv: number): void {
    if (rv > r.seen) r.seen = rv;
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i];
      if (this.all.every((x) => x.seen >= w.rv)) {
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
      if (code === 410) r.resourceVersion = '';
      if (err && code !== 410) {
        failures += 1;
        this.opts.onError?.(r.name, err);
        await new Promise((res) => setTimeout(res, Math.min(5000, 100 * 2 ** failures)));
      }
      if (!r.resourceVersion) {
        try {
          this.stats.restarts += 1;
          await this.relist(r);
        } catch (e) {
          this.opts.onError?.(r.name, e as Error);
          await new Promise((res) => setTimeout(res, 1000));
        }
      }
    }
  }
}
