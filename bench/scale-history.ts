import type { CoreV1Event, V1Namespace, V1Node, V1Pod } from '@kubernetes/client-node';
import { mapEvent, mapNamespace, mapNode, mapNodeClaim, mapNodePool, mapPod } from '../collectors/kubernetes/map.js';
import { DEFAULT_TEAM_LABEL } from '../core/labels.js';
import type { KubeSnapshot, NodeClaimRecord, NodeRecord, PodRecord, PriceQuote } from '../core/model.js';
import { SpotPriceIndex } from '../sandbox/scenario/spot-prices.js';
import type { EpochMs, Scenario, SimNode, SimPod } from '../sandbox/scenario/types.js';
import { eventObject, namespaceObject, nodeClaimObject, nodeObject, nodePoolObject, podObject } from '../sandbox/serve/kube-objects.js';

/**
 * A scale scenario's history as the collector would have seen it, one KubeSnapshot every `stepMs`, without
 * serving it over HTTP: each object is built by the sandbox's own object builders and read by the collector's
 * own mappers, once, and the snapshots are walked in time order with running sets of what is alive. Filling a
 * month of 5-minute snapshots of 1,000 nodes this way takes a minute instead of hours of paged lists.
 */

export interface HistoryStep {
  at: EpochMs;
  /** Everything alive at `at` (pods: all running ones, for the rollups). */
  snapshot: KubeSnapshot;
  /** Pods first seen at this step. */
  newPods: PodRecord[];
}

// The sandbox's objects are the JSON the API sends (timestamps as strings where the typed client has Dates);
// the collector's mappers read both forms.
const asKube = <T>(o: unknown): T => o as T;

export function* scaleHistory(sc: Scenario, stepMs: number): Generator<HistoryStep> {
  const poolByName = new Map(sc.nodePools.map((p) => [p.name, p]));
  const podsByName = new Map(sc.pods.map((p) => [p.name, p]));
  const namespaces = sc.namespaces.map((ns) => mapNamespace(asKube<V1Namespace>(namespaceObject(ns, sc.start)), DEFAULT_TEAM_LABEL));
  const teamByNs = new Map(namespaces.map((ns) => [ns.name, ns.team]));
  const nodePools = sc.nodePools.map((p) => mapNodePool(nodePoolObject(p, sc.start)));
  const nodeRecord = new Map<SimNode, { node: NodeRecord; claim: NodeClaimRecord | null }>();
  for (const n of sc.nodes) {
    const pool = n.nodePool ? poolByName.get(n.nodePool) : undefined;
    nodeRecord.set(n, {
      node: mapNode(asKube<V1Node>(nodeObject(sc, n, pool, null))),
      claim: pool ? mapNodeClaim(nodeClaimObject(sc, n, pool, podsByName, n.nodeClassHash)) : null,
    });
  }
  const hostIp = new Map(sc.nodes.map((x) => [x.name, x.privateIp]));
  const podRecord = (p: SimPod): PodRecord =>
    mapPod(asKube<V1Pod>(podObject(p, 'Running', hostIp.get(p.nodeName) ?? '')), teamByNs, DEFAULT_TEAM_LABEL);

  const byStart = <T extends { createdAt: number }>(xs: T[]) => [...xs].sort((a, b) => a.createdAt - b.createdAt);
  const byEnd = <T extends { deletedAt: number | null }>(xs: T[]) =>
    xs.filter((x) => x.deletedAt !== null).sort((a, b) => (a.deletedAt ?? 0) - (b.deletedAt ?? 0));
  const nodesByStart = byStart(sc.nodes);
  const nodesByEnd = byEnd(sc.nodes);
  const podsByStart = byStart(sc.pods);
  const podsByEnd = byEnd(sc.pods);
  const events = [...sc.events].sort((a, b) => a.at - b.at);
  const aliveNodes = new Set<SimNode>();
  const alivePods = new Map<SimPod, PodRecord>();
  const ended = (x: { deletedAt: number | null }, t: EpochMs) => x.deletedAt !== null && x.deletedAt <= t;
  let ni = 0;
  let nj = 0;
  let pi = 0;
  let pj = 0;
  let ei = 0;
  for (let t = sc.start; t < sc.end; t += stepMs) {
    for (; ni < nodesByStart.length && nodesByStart[ni].createdAt <= t; ni++) aliveNodes.add(nodesByStart[ni]);
    for (; nj < nodesByEnd.length && ended(nodesByEnd[nj], t); nj++) aliveNodes.delete(nodesByEnd[nj]);
    const newPods: PodRecord[] = [];
    for (; pi < podsByStart.length && podsByStart[pi].createdAt <= t; pi++) {
      const p = podsByStart[pi];
      if (ended(p, t)) continue;
      const r = podRecord(p);
      alivePods.set(p, r);
      newPods.push(r);
    }
    for (; pj < podsByEnd.length && ended(podsByEnd[pj], t); pj++) alivePods.delete(podsByEnd[pj]);
    const stepEvents: CoreV1Event[] = [];
    for (; ei < events.length && events[ei].at <= t; ei++) stepEvents.push(asKube<CoreV1Event>(eventObject(events[ei])));
    const nodes = [...aliveNodes]
      .map((x) => nodeRecord.get(x))
      .filter((x): x is { node: NodeRecord; claim: NodeClaimRecord | null } => x !== undefined);
    yield {
      at: t,
      snapshot: {
        takenAt: t,
        namespaces,
        nodes: nodes.map((x) => x.node),
        pods: [...alivePods.values()],
        nodePools,
        nodeClaims: nodes.map((x) => x.claim).filter((c): c is NodeClaimRecord => c !== null),
        events: stepEvents.map(mapEvent),
      },
      newPods,
    };
  }
}

/** Prices from the scenario itself: its on-demand table and its simulated spot history. */
export function scenarioPrices(sc: Scenario): {
  price: (n: NodeRecord, at: number) => PriceQuote;
  onDemand: (n: NodeRecord) => number | null;
} {
  const spot = new SpotPriceIndex(sc.spotPrices);
  return {
    price: (node, at) => {
      if (node.capacityType === 'spot') {
        const usd = spot.priceAt(node.instanceType, node.zone, at);
        if (usd !== null) return { pricePerHour: usd, currency: 'USD', source: 'spot-history' };
      }
      const od = sc.onDemandUsdPerHour[node.instanceType];
      return od === undefined
        ? { pricePerHour: 0, currency: 'USD', source: 'unknown' }
        : { pricePerHour: od, currency: 'USD', source: 'pricing-api' };
    },
    onDemand: (node) => sc.onDemandUsdPerHour[node.instanceType] ?? null,
  };
}
