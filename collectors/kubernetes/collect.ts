import type { KindState, KubeSnapshot, NamespaceRecord, NodePoolRecord, VersionedObjectRecord } from '../../core/model.js';
import { DEFAULT_TEAM_LABEL } from '../../core/labels.js';
import type { KubeClients } from './client.js';
import { createInterner, internPod } from './intern.js';
import { listMapped, type ListStats } from './list-all.js';
import { EXTRA_KINDS, type ExtraKind, kindStateOf } from './kinds.js';
import { mapEvent, mapNamespace, mapNode, mapNodeClaim, mapNodePool, mapPod } from './map.js';
import { nodePoolObject, nodeSpecObject } from './map-objects.js';
import { createSpecTable, karpenterVersionOf } from './map-scheduling.js';

export interface KubeCollectOptions {
  /** Page size for lists (the API server caps what it returns). */
  limit?: number;
  teamLabel?: string;
  /** Events are listed only when asked (they live an hour in the API server: every 30 minutes is enough). */
  withEvents?: boolean;
  /** NodePools and namespaces change rarely: pass the last ones read to skip listing them. */
  reuse?: { nodePools: NodePoolRecord[]; namespaces: NamespaceRecord[] };
  /**
   * List the kinds beyond nodes, pods, NodeClaims, NodePools, namespaces and events (PDBs, DaemonSets, volumes,
   * CSINodes, EC2NodeClasses, NodeOverlays: kinds.ts). On unless set false; only the snapshot bench turns it off, to
   * weigh what they add.
   */
  extraKinds?: boolean;
}

const itemsOf = (v: unknown): unknown[] => {
  const items = (v as { items?: unknown }).items;
  return Array.isArray(items) ? items : [];
};
const continueOf = (v: unknown): string | undefined => {
  const c = (v as { metadata?: { continue?: unknown } }).metadata?.continue;
  return typeof c === 'string' && c !== '' ? c : undefined;
};

/** Reads one consistent-enough picture of the cluster: nodes, pods, NodeClaims, NodePools, namespaces (and events). */
export async function collectKubeSnapshot(
  k: KubeClients,
  takenAt: number,
  opts: KubeCollectOptions = {},
  stats: ListStats = { requests: 0, restarts: 0 },
): Promise<KubeSnapshot> {
  const limit = opts.limit ?? 500;
  const teamLabel = opts.teamLabel ?? DEFAULT_TEAM_LABEL;
  const custom = (plural: string) => (cont: string | undefined) =>
    k.custom
      .listClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural, limit, _continue: cont })
      .then((r: unknown) => ({ items: itemsOf(r), continueToken: continueOf(r) }));
  // Namespaces first (one small page): a pod's team falls back to its namespace's, and pods are mapped to
  // records page by page as they arrive, so the API objects of a 150,000-pod list are never all held at once.
  const nsRecords = opts.reuse
    ? opts.reuse.namespaces
    : await listMapped(
        'namespaces',
        (cont) => k.core.listNamespace({ limit, _continue: cont }).then((r) => ({ items: r.items, continueToken: r.metadata?._continue })),
        (ns) => mapNamespace(ns, teamLabel),
        stats,
      );
  const teamByNs = new Map(nsRecords.map((ns) => [ns.name, ns.team]));
  const intern = createInterner();
  const specs = createSpecTable();
  const kinds: Record<string, KindState> = {};
  const objects: VersionedObjectRecord[] = [];
  // Kept once a list is complete (a list restarted on 410 drops what it had mapped).
  const keep = (list: (VersionedObjectRecord | null)[]): void => {
    for (const o of list) if (o !== null) objects.push(o);
  };
  const both = <R>(list: { record: R; object: VersionedObjectRecord | null }[]): R[] => {
    keep(list.map((x) => x.object));
    return list.map((x) => x.record);
  };
  // The extra kinds are optional: one the cluster does not serve, or the role does not grant, is noted in `kinds`.
  const extra = (x: ExtraKind): Promise<void> =>
    listMapped(x.kind, x.list(k, limit), x.map, stats).then(
      (list) => {
        keep(list);
        kinds[x.kind] = { state: 'ok' };
      },
      (err: unknown) => void (kinds[x.kind] = kindStateOf(x, err)),
    );
  const [nodes, pods, nodePools, nodeClaims, events] = await Promise.all([
    listMapped(
      'nodes',
      (cont) => k.core.listNode({ limit, _continue: cont }).then((r) => ({ items: r.items, continueToken: r.metadata?._continue })),
      (n) => ({ record: mapNode(n), object: nodeSpecObject(n) }),
      stats,
    ).then(both),
    listMapped(
      'pods',
      (cont) =>
        k.core.listPodForAllNamespaces({ limit, _continue: cont }).then((r) => ({ items: r.items, continueToken: r.metadata?._continue })),
      (p) => internPod(mapPod(p, teamByNs, teamLabel, specs), intern),
      stats,
    ),
    opts.reuse
      ? Promise.resolve(opts.reuse.nodePools)
      : listMapped('nodepools', custom('nodepools'), (raw) => ({ record: mapNodePool(raw), object: nodePoolObject(raw) }), stats).then(
          both,
        ),
    listMapped('nodeclaims', custom('nodeclaims'), mapNodeClaim, stats),
    opts.withEvents
      ? listMapped(
          'events',
          (cont) =>
            k.core
              .listEventForAllNamespaces({ limit, _continue: cont })
              .then((r) => ({ items: r.items, continueToken: r.metadata?._continue })),
          mapEvent,
          stats,
        )
      : Promise.resolve([]),
    ...(opts.extraKinds === false ? [] : EXTRA_KINDS.map(extra)),
  ]);
  kinds.Node = { state: 'ok' };
  if (!opts.reuse) kinds.NodePool = { state: 'ok' };
  const karpenterVersion = karpenterVersionOf(pods);
  return {
    takenAt,
    namespaces: nsRecords,
    nodes,
    pods,
    nodePools,
    nodeClaims,
    events,
    objects,
    kinds,
    ...(karpenterVersion === undefined ? {} : { karpenterVersion }),
  };
}
