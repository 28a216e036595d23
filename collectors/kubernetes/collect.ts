import type { KubeSnapshot, NamespaceRecord, NodePoolRecord } from '../../core/model';
import { DEFAULT_TEAM_LABEL } from '../../core/labels';
import type { KubeClients } from './client';
import { listAll, type ListStats } from './list-all';
import { mapEvent, mapNamespace, mapNode, mapNodeClaim, mapNodePool, mapPod } from './map';

export interface KubeCollectOptions {
  /** Page size for lists (the API server caps what it returns). */
  limit?: number;
  teamLabel?: string;
  /** Events are listed only when asked (they live an hour in the API server: every 30 minutes is enough). */
  withEvents?: boolean;
  /** NodePools and namespaces change rarely: pass the last ones read to skip listing them. */
  reuse?: { nodePools: NodePoolRecord[]; namespaces: NamespaceRecord[] };
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
export async function collectKubeSnapshot(k: KubeClients, takenAt: number, opts: KubeCollectOptions = {}, stats: ListStats = { requests: 0, restarts: 0 }): Promise<KubeSnapshot> {
  const limit = opts.limit ?? 500;
  const teamLabel = opts.teamLabel ?? DEFAULT_TEAM_LABEL;
  const custom = (plural: string) => (cont: string | undefined) =>
    k.custom.listClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural, limit, _continue: cont })
      .then((r: unknown) => ({ items: itemsOf(r), continueToken: continueOf(r) }));
  const [nsRecords, nodes, pods, nodePools, nodeClaims, events] = await Promise.all([
    opts.reuse
      ? Promise.resolve(opts.reuse.namespaces)
      : listAll('namespaces', (cont) => k.core.listNamespace({ limit, _continue: cont }).then((r) => ({ items: r.items, continueToken: r.metadata?._continue })), stats)
        .then((list) => list.map((ns) => mapNamespace(ns, teamLabel))),
    listAll('nodes', (cont) => k.core.listNode({ limit, _continue: cont }).then((r) => ({ items: r.items, continueToken: r.metadata?._continue })), stats),
    listAll('pods', (cont) => k.core.listPodForAllNamespaces({ limit, _continue: cont }).then((r) => ({ items: r.items, continueToken: r.metadata?._continue })), stats),
    opts.reuse ? Promise.resolve(opts.reuse.nodePools) : listAll('nodepools', custom('nodepools'), stats).then((list) => list.map(mapNodePool)),
    listAll('nodeclaims', custom('nodeclaims'), stats),
    opts.withEvents
      ? listAll('events', (cont) => k.core.listEventForAllNamespaces({ limit, _continue: cont }).then((r) => ({ items: r.items, continueToken: r.metadata?._continue })), stats)
      : Promise.resolve([]),
  ]);
  const teamByNs = new Map(nsRecords.map((ns) => [ns.name, ns.team]));
  return {
    takenAt,
    namespaces: nsRecords,
    nodes: nodes.map(mapNode),
    pods: pods.map((p) => mapPod(p, teamByNs, teamLabel)),
    nodePools,
    nodeClaims: nodeClaims.map(mapNodeClaim),
    events: events.map(mapEvent),
  };
}
