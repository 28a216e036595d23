import type { HeadroomResponse, PredictResponse, WhyNotResponse } from '../schemas/whatif.js';
import { perMonth } from '../analytics/whatif/repack.js';
import { HEADROOM_UNSCHEDULABLE_LISTED } from './whatif-service.js';

/**
 * A what-if asked of every cluster of a ledger holding several (no `?cluster=`, docs/clusters.md): each cluster's own
 * answer (the engine on that cluster's newest snapshot, with that cluster's Karpenter version: exactly what
 * `?cluster=NAME` answers) put side by side, each row naming its cluster. What adds up across clusters is added (cost
 * per hour, savings per month); what does not (a consolidation command: each cluster's Karpenter decides its own
 * round) stays per cluster in `clusters`. Pure: the answers come in, one answer goes out.
 */

/** One cluster's answer, by its name. */
export interface ClusterAnswer<T> {
  cluster: string;
  answer: T;
}

const round = (n: number): number => Math.round(n * 1e6) / 1e6;
const sum = <T>(xs: readonly T[], pick: (x: T) => number): number => round(xs.reduce((s, x) => s + pick(x), 0));

/** What every merged answer says about itself: the newest snapshot of the clusters', each cluster's catalogue. */
function about(parts: readonly ClusterAnswer<HeadroomResponse | WhyNotResponse | PredictResponse>[]) {
  const first = parts[0]?.answer;
  if (first === undefined) throw new Error('a what-if over no cluster');
  const newest = parts.reduce((a, p) => (p.answer.snapshotAt > a ? p.answer.snapshotAt : a), first.snapshotAt);
  return {
    simulation: true as const,
    snapshotAt: newest,
    currency: first.currency,
    catalogueSource: parts.map((p) => `${p.cluster}: ${p.answer.catalogueSource}`).join('; '),
    assumptions: [
      ...new Set(parts.flatMap((p) => p.answer.assumptions.map((a) => (a.startsWith('This snapshot lacks') ? `${p.cluster}: ${a}` : a)))),
    ],
  };
}

const section = (p: ClusterAnswer<HeadroomResponse | WhyNotResponse | PredictResponse>) => ({
  cluster: p.cluster,
  snapshotAt: p.answer.snapshotAt,
  currency: p.answer.currency,
  catalogueSource: p.answer.catalogueSource,
});

/** Consolidation headroom of every cluster: rows per cluster and NodePool, totals added, each cluster's section. */
export function headroomAcrossClusters(parts: readonly ClusterAnswer<HeadroomResponse>[]): HeadroomResponse {
  const totals = parts.map((p) => p.answer.totals);
  return {
    ...about(parts),
    rows: parts.flatMap((p) => p.answer.rows.map((r) => ({ cluster: p.cluster, ...r }))),
    totals: {
      todayUsdPerHour: sum(totals, (t) => t.todayUsdPerHour),
      bestUsdPerHour: sum(totals, (t) => t.bestUsdPerHour),
      spotUsdPerHour: sum(totals, (t) => t.spotUsdPerHour),
      headroomUsdPerMonth: sum(totals, (t) => t.headroomUsdPerMonth),
      spotUsdPerMonth: sum(totals, (t) => t.spotUsdPerMonth),
    },
    clusters: parts.map((p) => ({ ...section(p), totals: p.answer.totals, unschedulableCount: p.answer.unschedulableCount })),
    unschedulable: parts
      .flatMap((p) => p.answer.unschedulable.map((u) => ({ cluster: p.cluster, ...u })))
      .slice(0, HEADROOM_UNSCHEDULABLE_LISTED),
    unschedulableCount: parts.reduce((s, p) => s + p.answer.unschedulableCount, 0),
    unpricedNodes: parts.flatMap((p) => p.answer.unpricedNodes.map((n) => `${p.cluster}/${n}`)),
  };
}

/** Why not consolidated, every cluster: each node naming its cluster; each cluster's next round in its section. */
export function whyNotAcrossClusters(parts: readonly ClusterAnswer<WhyNotResponse>[]): WhyNotResponse {
  return {
    ...about(parts),
    nodes: parts.flatMap((p) => p.answer.nodes.map((n) => ({ cluster: p.cluster, ...n }))),
    command: null,
    clusters: parts.map((p) => ({ ...section(p), command: p.answer.command })),
  };
}

/**
 * Predict, every cluster: the pasted objects placed in each cluster on its own (its NodePools, EC2NodeClasses,
 * Karpenter version, nodes' room), rows naming their cluster; `addedUsdPerHour` is the objects applied to every
 * cluster (each cluster's added, added: a manifest a GitOps tool rolls out everywhere), each cluster's own in `clusters`.
 */
export function predictAcrossClusters(parts: readonly ClusterAnswer<PredictResponse>[]): PredictResponse {
  const first = parts[0]?.answer;
  if (first === undefined) throw new Error('a what-if over no cluster');
  const named = <T>(pick: (a: PredictResponse) => readonly T[]) =>
    parts.flatMap((p) => pick(p.answer).map((r) => ({ cluster: p.cluster, ...r })));
  const added = sum(parts, (p) => p.answer.addedUsdPerHour);
  return {
    ...about(parts),
    pods: first.pods,
    workloads: first.workloads,
    nodeClaims: named((a) => a.nodeClaims),
    byNodePool: named((a) => a.byNodePool),
    existingNodes: named((a) => a.existingNodes),
    unschedulable: named((a) => a.unschedulable),
    addedUsdPerHour: added,
    addedUsdPerMonth: round(perMonth(added)),
    ignored: first.ignored,
    clusters: parts.map((p) => ({
      ...section(p),
      nodes: p.answer.nodeClaims.length,
      unschedulableCount: p.answer.unschedulable.length,
      addedUsdPerHour: p.answer.addedUsdPerHour,
      addedUsdPerMonth: p.answer.addedUsdPerMonth,
    })),
  };
}
