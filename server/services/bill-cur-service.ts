import type { Db } from '../../db/open-db.js';
import { createClustersRepository } from '../../db/repositories/clusters-repository.js';
import { createCurRepository, type CurResourceDay } from '../../db/repositories/cur-repository.js';
import { DAY_MS } from '../../core/time.js';
import { explainCurResourceDay, inMetric, resourceKindOf, type CurLineFact } from '../explain/cur-explain.js';
import type { ExplainContext, NodeFact } from '../explain/facts.js';
import { iso } from '../explain/format.js';
import { costOverSpan } from '../explain/price-timeline.js';
import { reasonsFor } from '../explain/reasons.js';
import type {
  CurExplainQuery,
  CurExplainResponse,
  CurLinesQuery,
  CurLinesResponse,
  CurNodeClaim,
  CurResource,
} from '../schemas/bill-cur.js';
import type { CostMetric } from '../schemas/cost.js';
import { loadExplainContext } from './bill-context.js';
import { curSourceOf } from './cur-cost-service.js';

/** Explain this bill over the CUR: a day's resources, and a resource-day (or a whole day) taken apart. */

/** Past this many resources a whole day's explanation lists only the largest (ask for one with `resource`). */
export const MAX_EXPLAINED_RESOURCES = 200;
const ALL_DAYS = { fromMs: 0, toMs: Date.UTC(9999, 0, 1) };

const toFact = (r: CurResourceDay): CurLineFact => ({
  day: r.day,
  resourceId: r.resourceId,
  lineItemType: r.lineItemType,
  usageType: r.usageType,
  productCode: r.productCode,
  nodePool: r.nodePool === '' ? null : r.nodePool,
  nodeClaim: r.nodeClaim === '' ? null : r.nodeClaim,
  commitmentArn: r.commitmentArn === '' ? null : r.commitmentArn,
  usageAmount: r.usageAmount,
  unblendedUsd: r.unblendedUsd,
  amortizedUsd: r.amortizedUsd,
  netUnblendedUsd: r.netUnblendedUsd,
  netAmortizedUsd: r.netAmortizedUsd,
  publicOnDemandUsd: r.publicOnDemandUsd,
});

const byResource = <R extends CurResourceDay>(rows: readonly R[]): Map<string, R[]> => {
  const out = new Map<string, R[]>();
  for (const r of rows) out.set(r.resourceId, [...(out.get(r.resourceId) ?? []), r]);
  return out;
};

/** The NodeClaim we collected with this instance id: its hours that day, our estimate at public prices, and its reasons. */
function nodeClaimOf(node: NodeFact, ctx: ExplainContext, dayMs: number): CurNodeClaim {
  const horizon = ctx.coverage.lastSnapshotMs === null ? dayMs + DAY_MS : ctx.coverage.lastSnapshotMs + ctx.coverage.snapshotIntervalMs;
  const fromMs = Math.max(node.launchedAtMs, dayMs);
  const toMs = Math.max(fromMs, Math.min(node.deletedAtMs ?? horizon, dayMs + DAY_MS));
  const cost = costOverSpan(ctx.prices(node), fromMs, toMs);
  return {
    nodeName: node.name,
    nodeClaim: node.nodeClaim,
    nodePool: node.nodePool,
    instanceType: node.instanceType,
    capacityType: node.capacityType,
    zone: node.zone,
    launchedAt: iso(node.launchedAtMs),
    removedAt: node.deletedAtMs === null ? null : iso(node.deletedAtMs),
    hours: cost.hours,
    estimateUsd: cost.source === 'unknown' ? null : cost.usd,
    priceSource: cost.source,
    reasons: reasonsFor(node, ctx),
  };
}

/** A resource-day with the cluster it is of: its cluster tag, else its NodeClaim's cluster, else ''. */
type ClusteredDay = CurResourceDay & { clusterOf: string };

export function createBillCurService(db: Db) {
  const cur = createCurRepository(db);
  const clustersRepo = createClustersRepository(db);

  /**
   * The day's rows of one cluster (`clusterId`; null: every cluster), each with its cluster. A CUR line is of the
   * cluster its cluster tag names; an untagged one of the cluster whose NodeClaim had its instance id.
   */
  const clustered = (rows: readonly CurResourceDay[], clusterId: number | null): ClusteredDay[] => {
    const untagged = [...new Set(rows.filter((r) => r.cluster === '').map((r) => r.resourceId))];
    const byInstance = cur.nodeClaimClusters(untagged);
    const withCluster = rows.map((r) => ({ ...r, clusterOf: r.cluster !== '' ? r.cluster : (byInstance.get(r.resourceId) ?? '') }));
    if (clusterId === null) return withCluster;
    const name = clustersRepo.list().find((c) => c.id === clusterId)?.name;
    return withCluster.filter((r) => r.clusterOf === name);
  };
  /** Whether answers name each resource's cluster: in a ledger of several clusters. */
  const namesClusters = (): boolean => clustersRepo.list().length > 1;
  /** The cluster whose NodeClaims explain a resource: its named cluster's, the only one in a one-cluster ledger. */
  const clusterIdOf = (name: string): number | null => {
    const all = clustersRepo.list();
    if (all.length === 1) return all[0].id;
    return all.find((c) => c.name === name)?.id ?? null;
  };

  /** The day asked for, else the newest with lines; null when the CUR holds none. */
  const dayOf = (q: { day?: string }): { days: string[]; day: string | null } => {
    const days = cur.dayList(ALL_DAYS);
    return { days, day: q.day ?? days.at(-1) ?? null };
  };
  const rowsOf = (day: string, filter: { resourceId?: string; nodePool?: string }): CurResourceDay[] => {
    const dayMs = Date.parse(`${day}T00:00:00Z`);
    return cur.resourceDays({ fromMs: dayMs, toMs: dayMs + DAY_MS }, filter);
  };
  const metricOf = (q: { metric?: CostMetric }): CostMetric => q.metric ?? 'amortized';

  return {
    lines(q: CurLinesQuery, clusterId: number | null = null): CurLinesResponse {
      const metric = metricOf(q);
      const { days, day } = dayOf(q);
      const rows = day === null ? [] : clustered(rowsOf(day, { nodePool: q.nodepool }), clusterId);
      const name = namesClusters();
      const resources: CurResource[] = [...byResource(rows)].map(([resourceId, list]) => ({
        resourceId,
        resourceKind: resourceKindOf(resourceId),
        category: list[0].category,
        nodePool: list.find((r) => r.nodePool !== '')?.nodePool ?? '',
        nodeClaim: list.find((r) => r.nodeClaim !== '')?.nodeClaim ?? '',
        ...(name ? { cluster: list.find((r) => r.clusterOf !== '')?.clusterOf ?? '' } : {}),
        lineItemTypes: [...new Set(list.map((r) => r.lineItemType))],
        usageTypes: [...new Set(list.map((r) => r.usageType))],
        committed: list.some((r) => r.commitmentArn !== ''),
        billUsd: list.reduce((t, r) => t + inMetric(r, metric), 0),
        unblendedUsd: list.reduce((t, r) => t + r.unblendedUsd, 0),
        amortizedUsd: list.reduce((t, r) => t + r.amortizedUsd, 0),
      }));
      resources.sort((a, b) => b.billUsd - a.billUsd || a.resourceId.localeCompare(b.resourceId));
      // Per NodePool, and per cluster when resources name theirs: two clusters' `default` are two totals.
      const pools = new Map<string, { nodePool: string; cluster?: string; billUsd: number; resources: number }>();
      for (const r of resources) {
        const k = r.cluster === undefined ? r.nodePool : `${r.nodePool}\u0000${r.cluster}`;
        const p = pools.get(k) ?? {
          nodePool: r.nodePool,
          ...(r.cluster === undefined ? {} : { cluster: r.cluster }),
          billUsd: 0,
          resources: 0,
        };
        pools.set(k, { ...p, billUsd: p.billUsd + r.billUsd, resources: p.resources + 1 });
      }
      return {
        source: curSourceOf(cur),
        metric,
        days,
        day,
        resources,
        totals: {
          billUsd: resources.reduce((t, r) => t + r.billUsd, 0),
          byNodePool: [...pools.values()].sort(
            (a, b) => b.billUsd - a.billUsd || a.nodePool.localeCompare(b.nodePool) || (a.cluster ?? '').localeCompare(b.cluster ?? ''),
          ),
        },
      };
    },

    explain(q: CurExplainQuery, clusterId: number | null = null): CurExplainResponse {
      const metric = metricOf(q);
      const { day } = dayOf(q);
      const source = curSourceOf(cur);
      if (day === null) return { source, metric, day, explanations: [], omitted: 0 };
      const rows = clustered(rowsOf(day, q.resource !== undefined ? { resourceId: q.resource } : { nodePool: q.nodepool }), clusterId);
      const name = namesClusters();
      const groups = [...byResource(rows)]
        .filter(([, list]) => q.nodepool === undefined || list.some((r) => r.nodePool === q.nodepool))
        .map(([, list]) => ({ cluster: list.find((r) => r.clusterOf !== '')?.clusterOf ?? '', lines: list.map(toFact) }))
        .sort((a, b) => b.lines.reduce((t, l) => t + inMetric(l, metric), 0) - a.lines.reduce((t, l) => t + inMetric(l, metric), 0));
      const kept = q.resource === undefined ? groups.slice(0, MAX_EXPLAINED_RESOURCES) : groups;
      // One resource: the NodeClaim behind it, with the reasons Karpenter launched it (the costly part, so not for a whole day),
      // read from the resource's own cluster (its NodePools, NodeClaims and events; never another cluster's of the same name).
      const dayMs = Date.parse(`${day}T00:00:00Z`);
      const one = q.resource !== undefined && resourceKindOf(q.resource) === 'instance';
      const explanations = kept.map(({ cluster, lines }) => {
        const named = (e: ReturnType<typeof explainCurResourceDay>) => (name ? { ...e, cluster } : e);
        if (!one) return named(explainCurResourceDay(lines, metric, undefined));
        const ofCluster = clusterIdOf(cluster);
        const ctx = ofCluster === null ? null : loadExplainContext(db, dayMs, dayMs + DAY_MS, ofCluster);
        const node = ctx?.nodes.find((n) => n.instanceId === lines[0].resourceId);
        return named(explainCurResourceDay(lines, metric, node === undefined || ctx === null ? null : nodeClaimOf(node, ctx, dayMs)));
      });
      return { source, metric, day, explanations, omitted: groups.length - kept.length };
    },
  };
}

export type BillCurService = ReturnType<typeof createBillCurService>;
