import type { KubeSnapshot } from '../../core/model';
import { DEFAULT_TEAM_LABEL } from '../../core/labels';
import type { KubeClients } from './client';
import { listAll, type ListStats } from './list-all';
import { mapEvent, mapNamespace, mapNode, mapNodeClaim, mapNodePool, mapPod } from './map';

export interface KubeCollectOptions {
  /** Page size for lists (the API server caps what it returns). */
  limit?: number;
  teamLabel?: string;
  /** Events are listed only when asked (they change slowly and live an hour). */
  withEvents?: boolean;
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
  const [namespaces, nodes, pods, nodePools, nodeClaims, events] = await Promise.all([
    listAll('namespaces', (cont) => k.core.listNamespace({ limit, _continue: cont }).then((r) => ({ items: r.items, continueToken: r.metadata?._continue })), stats),
    listAll('nodes', (cont) => k.core.listNode({ limit, _continue: cont }).then((r) => ({ items: r.items, continueToken: r.metadata?._continue })), stats),
    listAll('pods', (cont) => k.core.listPodForAllNamespaces({ limit, _continue: cont }).then((r) => ({ items: r.items, continueToken: r.metadata?._continue })), stats),
    listAll('nodepools', custom('nodepools'), stats),
    listAll('nodeclaims', custom('nodeclaims'), stats),
    opts.withEvents
      ? listAll('events', (cont) => k.core.listEventForAllNamespaces({ limit, _continue: cont }).then((r) => ({ items: r.items, continueToken: r.metadata?._continue })), stats)
      : Promise.resolve([]),
  ]);
  const nsRecords = namespaces.map((ns) => mapNamespace(ns, teamLabel));
  const teamByNs = new Map(nsRecords.map((ns) => [ns.name, ns.team]));
  return {
    takenAt,
    namespaces: nsRecords,
    nodes: nodes.map(mapNode),
    pods: pods.map((p) => mapPod(p, teamByNs, teamLabel)),
    nodePools: nodePools.map(mapNodePool),
    nodeClaims: nodeClaims.map(mapNodeClaim),
    events: events.map(mapEvent),
  };
}
