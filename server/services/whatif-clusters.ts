import type { HeadroomResponse, WhyNotResponse } from '../schemas/whatif.js';
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
function about(parts: readonly ClusterAnswer<HeadroomResponse | WhyNotResponse>[]) {
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

const section = (p: ClusterAnswer<HeadroomResponse | WhyNotResponse>) => ({
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
