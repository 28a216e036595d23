import type { AnalyticsPackingRepository } from '../../db/repositories/analytics-packing-repository.js';
import type { UsageRepository, WorkloadPlacementRow } from '../../db/repositories/usage-repository.js';
import { DEFAULT_RIGHTSIZING, recommend, type RightsizingHour } from '../../core/rightsizing.js';
import {
  capacityEfficiency,
  HOURS_PER_MONTH,
  type CapacityEfficiency,
  type NodeCapacityUsage,
  monthlyRequestCostUsd,
  namespaceEfficiency,
  requestRates,
  workloadEfficiency,
  type EfficiencyHour,
  type RequestRates,
} from '../../core/usage-efficiency.js';
import { workloadKey, type WorkloadHourRollup } from '../../core/usage.js';
import { RELATIVE_PRICE_WEIGHTING } from '../../core/cost-weights.js';
import { DAY_MS, HOUR_MS } from '../../core/time.js';
import { isoInstant, QueryParamError } from '../analytics/range.js';
import {
  CAPACITY_NODES_LISTED,
  type NodeCapacityRow,
  type NodePoolEffectRow,
  type RecommendationRow,
  type WorkloadUsageQuery,
  type WorkloadUsageResponse,
  RecommendationsQuery,
  RecommendationsResponse,
} from '../schemas/workloads.js';
import { optionalInstant } from './analytics-range.js';
import type { EngineContext } from '../../core/karpenter/scheduling/index.js';
import {
  nodePoolPods,
  nodePoolRepack,
  repackEffect,
  workloadRef,
  type RepackResult,
  type WorkloadRequestDelta,
} from '../analytics/rightsizing-repack.js';
import { NotFoundError } from './analytics-range.js';
import { WhatIfUnavailableError, type WhatIfWorlds } from './whatif-world.js';

const DEFAULT_WINDOW = '14d';
const MAX_WINDOW_MS = 90 * DAY_MS;

export const DOLLAR_METHOD =
  'Through the scheduling engine where it can: the NodePool’s pods at the newest snapshot re-packed from scratch as Karpenter provisions (core/karpenter/scheduling), once with the current requests and once with the recommended ones; the change in nodes and in USD/hour × 730 is the difference of the two re-packs (rows: that recommendation alone; nodePools: all of them). By request share otherwise (no snapshot, no catalogue for the region, a pod neither re-pack could place, or too many pods): the change in requests times its NodePool’s node cost per requested unit (each node’s price split into CPU and memory by relative price, as everywhere), × replicas × 730 h. Each row’s dollarMethod says which.';

/**
 * Engine re-packs are made within these budgets, else request share stands: each re-pack prepares the NodePool over
 * the 1,345-type catalogue (about 0.15–0.25 s here) and places its pods (about 0.1 s for 60 pods), so the per-row
 * re-packs (one per workload container) stop at 20,000 pod placements per NodePool and the NodePool's own pair at
 * 10,000 pods; a request stays within a few seconds.
 */
export const ENGINE_ROW_BUDGET = 20_000;
export const ENGINE_POOL_BUDGET = 10_000;

export interface WorkloadsEngine {
  /** The what-ifs' snapshots (whatif-world.ts): one reader, one catalogue, so both pages price a NodePool alike. */
  worlds: WhatIfWorlds;
}

/** `14d` / `36h` -> ms, 1 h to 90 days. */
export function parseUsageWindow(value: string): number {
  const m = /^([1-9][0-9]{0,3})(h|d)$/.exec(value);
  const ms = m === null ? Number.NaN : Number(m[1]) * (m[2] === 'd' ? DAY_MS : HOUR_MS);
  if (!(ms <= MAX_WINDOW_MS)) throw new QueryParamError('window', `"${value}" must be a duration from 1h to 90d, like 14d or 36h`);
  return ms;
}

type Hour = RightsizingHour & EfficiencyHour & Pick<WorkloadHourRollup, 'limitCpuMillicores'>;

/** Per workload container: its pods at the newest snapshot with usage, and the NodePool most of them ran in. */
function placements(rows: readonly WorkloadPlacementRow[]): Map<string, { nodePool: string; replicas: number }> {
  const out = new Map<string, { nodePool: string; replicas: number; most: number }>();
  for (const r of rows) {
    const key = workloadKey(r);
    const p = out.get(key);
    if (p === undefined) out.set(key, { nodePool: r.nodePool, replicas: r.pods, most: r.pods });
    else {
      p.replicas += r.pods;
      // Ties go to the first by name (rows come sorted), so the answer does not depend on row order.
      if (r.pods > p.most) Object.assign(p, { nodePool: r.nodePool, most: r.pods });
    }
  }
  return out;
}

const byNullLast = (x: number | null, y: number | null): number => {
  if (x === y) return 0;
  if (x === null) return 1;
  if (y === null) return -1;
  return x - y;
};

/** Rows with a saving first (most negative), then the rest, rows without a figure last; ties by request share, then name. */
function byEffect(a: RecommendationRow, b: RecommendationRow): number {
  const d = byNullLast(a.monthlyEffectUsd, b.monthlyEffectUsd) || byNullLast(a.requestShareMonthlyUsd, b.requestShareMonthlyUsd);
  if (d !== 0) return d;
  const ka = workloadKey(a);
  const kb = workloadKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

const newestLimit = (hours: readonly { hourStart: number; limitCpuMillicores: number | null }[]): number | null => {
  let at = -Infinity;
  let limit: number | null = null;
  for (const h of hours)
    if (h.limitCpuMillicores !== null && h.hourStart >= at) {
      at = h.hourStart;
      limit = h.limitCpuMillicores;
    }
  return limit;
};

/**
 * The engine's figures: per row (that recommendation alone) and per NodePool (all of its recommendations), each the
 * difference of two re-packs of the NodePool at the snapshot. Rows and pools it cannot price keep request share.
 */
function engineEffects(rows: RecommendationRow[], ctx: EngineContext | null): NodePoolEffectRow[] {
  const byPool = new Map<string, RecommendationRow[]>();
  for (const r of rows) {
    if (r.nodePool === null || r.replicas === 0) continue;
    byPool.set(r.nodePool, [...(byPool.get(r.nodePool) ?? []), r]);
  }
  const delta = (r: RecommendationRow): WorkloadRequestDelta => ({
    workload: workloadRef(r.namespace, r.workloadKind, r.workloadName),
    cpuMillicores: r.deltaCpuMillicores,
    memoryBytes: r.deltaMemoryBytes,
  });
  const pools: NodePoolEffectRow[] = [];
  for (const [nodePool, poolRows] of [...byPool.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const requestShare = poolRows.reduce((s, r) => s + (r.requestShareMonthlyUsd ?? 0), 0);
    const podsInPool = ctx === null ? 0 : nodePoolPods(ctx, nodePool).length;
    let all = null;
    if (ctx !== null && podsInPool > 0 && podsInPool <= ENGINE_POOL_BUDGET) {
      const before: RepackResult = nodePoolRepack(ctx, nodePool);
      all = repackEffect(ctx, nodePool, poolRows.map(delta), before);
      if (podsInPool * poolRows.length <= ENGINE_ROW_BUDGET) {
        for (const r of poolRows) {
          const one = repackEffect(ctx, nodePool, [delta(r)], before);
          if (one.monthlyEffectUsd === null) continue;
          r.monthlyEffectUsd = one.monthlyEffectUsd;
          r.nodesDelta = one.nodesDelta;
          r.dollarMethod = 'engine-repack';
        }
      }
    }
    const engine = all !== null && all.monthlyEffectUsd !== null ? all : null;
    pools.push({
      nodePool,
      pods: podsInPool,
      workloads: poolRows.length,
      dollarMethod: engine === null ? 'request-share' : 'engine-repack',
      nodesBefore: engine?.before.nodes ?? null,
      nodesAfter: engine?.after.nodes ?? null,
      usdPerHourBefore: engine?.before.usdPerHour ?? null,
      usdPerHourAfter: engine?.after.usdPerHour ?? null,
      monthlyEffectUsd: engine?.monthlyEffectUsd ?? requestShare,
      requestShareMonthlyUsd: requestShare,
    });
  }
  return pools;
}

/** The snapshot prepared as the what-ifs prepare it; null when it cannot be priced (request share then). */
function worldAt(engine: WorkloadsEngine, at: number, clusterId: number | null): EngineContext | null {
  try {
    return engine.worlds.load(at, clusterId).context;
  } catch (err) {
    if (err instanceof WhatIfUnavailableError || err instanceof NotFoundError) return null;
    throw err;
  }
}

type CapacityFields = Omit<NodeCapacityRow, 'node' | 'nodePool' | 'instanceType'>;

const perMonth = (e: CapacityEfficiency): CapacityFields => ({
  nodes: e.nodes,
  usdPerMonth: e.usdPerHour * HOURS_PER_MONTH,
  allocCpuMillicores: e.allocCpuMillicores,
  allocMemoryBytes: e.allocMemoryBytes,
  requestCpuMillicores: e.requestCpuMillicores,
  requestMemoryBytes: e.requestMemoryBytes,
  usageCpuMillicores: e.usageCpuMillicores,
  usageMemoryBytes: e.usageMemoryBytes,
  cpuUsageOverRequest: e.cpuUsageOverRequest,
  memoryUsageOverRequest: e.memoryUsageOverRequest,
  cpuUsageOverAllocatable: e.cpuUsageOverAllocatable,
  memoryUsageOverAllocatable: e.memoryUsageOverAllocatable,
  usedUsdPerMonth: e.usedUsdPerHour * HOURS_PER_MONTH,
  workloadIdleUsdPerMonth: e.workloadIdleUsdPerHour * HOURS_PER_MONTH,
  infrastructureIdleUsdPerMonth: e.infrastructureIdleUsdPerHour * HOURS_PER_MONTH,
  idleRates: e.rates,
});

/** Node, NodePool and cluster efficiency at one snapshot; null when it has no pod usage. */
function capacityAt(
  nodes: readonly {
    name: string;
    nodePool: string;
    instanceType: string;
    usdPerHour: number | null;
    allocCpuMillicores: number;
    allocMemoryBytes: number;
    allocGpu: number;
    reqCpuMillicores: number;
    reqMemoryBytes: number;
    reqGpu: number;
  }[],
  usage: readonly { nodeName: string; usageCpuMillicores: number; usageMemoryBytes: number }[],
): RecommendationsResponse['capacity'] {
  if (usage.length === 0) return null;
  const usageOf = new Map(usage.map((u) => [u.nodeName, u]));
  const rows = nodes.map((n) => {
    const u = usageOf.get(n.name);
    const input: NodeCapacityUsage = {
      usdPerHour: n.usdPerHour,
      allocCpuMillicores: n.allocCpuMillicores,
      allocMemoryBytes: n.allocMemoryBytes,
      requestCpuMillicores: n.reqCpuMillicores,
      requestMemoryBytes: n.reqMemoryBytes,
      usageCpuMillicores: u?.usageCpuMillicores ?? 0,
      usageMemoryBytes: u?.usageMemoryBytes ?? 0,
      allocGpu: n.allocGpu,
      requestGpu: n.reqGpu,
    };
    return { n, input };
  });
  const pools = new Map<string, NodeCapacityUsage[]>();
  for (const { n, input } of rows) pools.set(n.nodePool, [...(pools.get(n.nodePool) ?? []), input]);
  const nodeRows = rows
    .map(({ n, input }) => ({ node: n.name, nodePool: n.nodePool, instanceType: n.instanceType, ...perMonth(capacityEfficiency([input])) }))
    .sort((a, b) => b.infrastructureIdleUsdPerMonth - a.infrastructureIdleUsdPerMonth || (a.node < b.node ? -1 : 1));
  return {
    cluster: perMonth(capacityEfficiency(rows.map((r) => r.input))),
    nodePools: [...pools.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([nodePool, list]) => ({ nodePool, ...perMonth(capacityEfficiency(list)) })),
    nodes: nodeRows.slice(0, CAPACITY_NODES_LISTED),
  };
}

/** The ledger's clusters (clusters-repository list()). */
export type ClusterList = () => readonly { id: number; name: string }[];

const byName = <T extends { name: string }>(a: T, b: T): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const earliest = (xs: (string | null)[]): string | null =>
  xs.reduce<string | null>((m, x) => (x !== null && (m === null || x < m) ? x : m), null);
const latest = (xs: (string | null)[]): string | null =>
  xs.reduce<string | null>((m, x) => (x !== null && (m === null || x > m) ? x : m), null);

/**
 * Right-sizing recommendations with usage efficiency and their dollar effect (engine re-pack, else request share), of
 * one cluster (`clusterId`) or every cluster (null): a ledger of several clusters then answers each cluster's own
 * answer side by side, each row naming its cluster; a ledger of one answers as before several clusters.
 */
export function createWorkloadsService(
  usage: UsageRepository,
  packing: AnalyticsPackingRepository,
  engine?: WorkloadsEngine,
  clusters: ClusterList = () => [],
) {
  /** Every cluster by name when the answer spans several (no cluster asked, several held); else null. */
  const spanned = (clusterId: number | null): readonly { id: number; name: string }[] | null => {
    if (clusterId !== null) return null;
    const all = clusters();
    return all.length > 1 ? [...all].sort(byName) : null;
  };

  /** One cluster's (or, on a one-cluster ledger, the ledger's) hourly usage of one workload container. */
  function usageOf(q: WorkloadUsageQuery, clusterId: number | null): WorkloadUsageResponse {
    const windowMs = parseUsageWindow(q.window ?? DEFAULT_WINDOW);
    const endMs = optionalInstant('at', q.at) ?? packing.snapshotAtOrBefore(undefined, clusterId);
    if (endMs === null) return { windowFrom: null, windowTo: null, points: [] };
    const points = usage
      .workloadHours({ fromMs: endMs - windowMs, toMs: endMs + 1, namespace: q.namespace, clusterId })
      .filter((h) => h.workloadKind === q.kind && h.workloadName === q.name && h.container === q.container)
      .sort((a, b) => a.hourStart - b.hourStart)
      .map((h) => ({
        hour: isoInstant(h.hourStart),
        hourMs: h.hourStart,
        samples: h.samples,
        pods: h.pods,
        cpuP95Millicores: h.cpuP95Millicores,
        cpuMaxMillicores: h.cpuMaxMillicores,
        memoryMaxBytes: h.memoryMaxBytes,
        requestCpuMillicores: h.requestCpuMillicores,
        requestMemoryBytes: h.requestMemoryBytes,
        limitCpuMillicores: h.limitCpuMillicores,
        oomKills: h.oomKills,
        source: h.source,
      }));
    return { windowFrom: isoInstant(endMs - windowMs), windowTo: isoInstant(endMs), points };
  }

  /** One cluster's (or, on a one-cluster ledger, the ledger's) recommendations. */
  function recommendationsOf(q: RecommendationsQuery, clusterId: number | null): RecommendationsResponse {
    const windowMs = parseUsageWindow(q.window ?? DEFAULT_WINDOW);
    const atMs = optionalInstant('at', q.at);
    const pricesAtMs = packing.snapshotAtOrBefore(atMs, clusterId);
    const settings = {
      cpuQuantile: DEFAULT_RIGHTSIZING.cpuQuantile,
      memoryBuffer: DEFAULT_RIGHTSIZING.memoryBuffer,
      minCpuMillicores: DEFAULT_RIGHTSIZING.minCpuMillicores,
      minMemoryBytes: DEFAULT_RIGHTSIZING.minMemoryBytes,
      minHistoryHours: DEFAULT_RIGHTSIZING.minHistoryMs / HOUR_MS,
      cpuLimitNearFraction: DEFAULT_RIGHTSIZING.cpuLimitNearFraction,
      weighting: RELATIVE_PRICE_WEIGHTING,
    };
    const endMs = atMs ?? pricesAtMs;
    if (endMs === null || endMs === undefined) {
      return {
        windowFrom: null,
        windowTo: null,
        pricesAt: null,
        dollarMethod: DOLLAR_METHOD,
        settings,
        rows: [],
        nodePools: [],
        namespaces: [],
        teams: [],
        capacity: null,
        totals: { monthlyEffectUsd: 0, requestShareMonthlyUsd: 0, idleUsdPerMonth: 0 },
      };
    }
    // [end − window, end]: the hour holding `end` counts.
    const range = { fromMs: endMs - windowMs, toMs: endMs + 1, namespace: q.namespace, clusterId };

    const pricedNodes = pricesAtMs === null ? [] : packing.nodeWindow({ fromMs: pricesAtMs - 1, toMs: pricesAtMs, clusterId });
    const rates =
      pricesAtMs === null
        ? new Map<string, RequestRates>()
        : requestRates(
            pricedNodes.map((n) => ({
              nodePool: n.nodePool,
              usdPerHour: n.usdPerHour,
              allocCpuMillicores: n.allocCpuMillicores,
              allocMemoryBytes: n.allocMemoryBytes,
              allocGpu: n.allocGpu,
              requestCpuMillicores: n.reqCpuMillicores,
              requestMemoryBytes: n.reqMemoryBytes,
            })),
          );
    const placed = placements(usage.workloadPlacement(range.toMs, clusterId));

    const hoursOf = new Map<
      string,
      { ref: Hour & { namespace: string; workloadKind: string; workloadName: string; container: string }; hours: Hour[] }
    >();
    for (const h of usage.workloadHours(range)) {
      const key = workloadKey(h);
      const g = hoursOf.get(key);
      if (g === undefined) hoursOf.set(key, { ref: h, hours: [h] });
      else g.hours.push(h);
    }
    const oomLimits = new Map<string, (number | null)[]>();
    for (const k of usage.oomKills(range)) {
      const key = workloadKey(k);
      oomLimits.set(key, [...(oomLimits.get(key) ?? []), k.memoryLimitBytes]);
    }

    const rows: RecommendationRow[] = [];
    for (const [key, { ref, hours }] of hoursOf) {
      const r = recommend({
        namespace: ref.namespace,
        workloadKind: ref.workloadKind,
        workloadName: ref.workloadName,
        container: ref.container,
        hours,
        oomKillLimitsBytes: oomLimits.get(key) ?? [],
        cpuLimitMillicores: newestLimit(hours),
      });
      if (r === null) continue;
      const place = placed.get(key);
      const replicas = place?.replicas ?? 0;
      const poolRates = place === undefined ? undefined : rates.get(place.nodePool);
      const requestShare = monthlyRequestCostUsd(r.deltaCpuMillicores, r.deltaMemoryBytes, replicas, poolRates);
      const eff = workloadEfficiency(
        hours,
        { cpuMillicores: r.currentCpuMillicores, memoryBytes: r.currentMemoryBytes },
        replicas,
        poolRates,
      );
      rows.push({
        namespace: r.namespace,
        workloadKind: r.workloadKind,
        workloadName: r.workloadName,
        container: r.container,
        nodePool: place?.nodePool ?? null,
        replicas,
        currentCpuMillicores: r.currentCpuMillicores,
        currentMemoryBytes: r.currentMemoryBytes,
        recommendedCpuMillicores: r.recommendedCpuMillicores,
        recommendedMemoryBytes: r.recommendedMemoryBytes,
        deltaCpuMillicores: r.deltaCpuMillicores,
        deltaMemoryBytes: r.deltaMemoryBytes,
        cpuQuantileMillicores: r.cpuQuantileMillicores,
        cpuMaxMillicores: r.cpuMaxMillicores,
        memoryMaxBytes: r.memoryMaxBytes,
        oomPeakBytes: r.oomPeakBytes,
        historyHours: r.historyMs / HOUR_MS,
        samples: r.samples,
        flags: r.flags,
        cpuLimitMillicores: r.cpuLimitMillicores,
        throttledBy: r.throttledBy,
        cpuUsageOverRequest: eff.cpuUsageOverRequest,
        memoryUsageOverRequest: eff.memoryUsageOverRequest,
        idleUsdPerMonth: eff.idleUsdPerMonth,
        monthlyEffectUsd: requestShare,
        requestShareMonthlyUsd: requestShare,
        nodesDelta: null,
        dollarMethod: requestShare === null ? null : 'request-share',
      });
    }
    // The world (every pod of the snapshot, 150,000 at the envelope) is loaded only when a recommendation can be re-packed.
    const repackable = rows.some((r) => r.nodePool !== null && r.replicas > 0);
    const nodePools =
      pricesAtMs === null || engine === undefined || !repackable ? [] : engineEffects(rows, worldAt(engine, pricesAtMs, clusterId));
    rows.sort(byEffect);
    const namespaceRows = usage.namespaceUsage(range);
    const namespaces = namespaceEfficiency(namespaceRows, rows);
    const teamOf = usage.namespaceTeams(clusterId);
    const team = (ns: string) => teamOf.get(ns) ?? '';
    const teams = namespaceEfficiency(
      namespaceRows.map((r) => ({ ...r, namespace: team(r.namespace) })),
      rows.map((r) => ({ namespace: team(r.namespace), idleUsdPerMonth: r.idleUsdPerMonth })),
    ).map(({ namespace, ...rest }) => ({ team: namespace, ...rest }));
    const capacity = pricesAtMs === null ? null : capacityAt(pricedNodes, usage.podUsageByNode(pricesAtMs, clusterId));
    return {
      windowFrom: isoInstant(range.fromMs),
      windowTo: isoInstant(endMs),
      pricesAt: pricesAtMs === null ? null : isoInstant(pricesAtMs),
      dollarMethod: DOLLAR_METHOD,
      settings,
      rows,
      nodePools,
      namespaces,
      teams,
      capacity,
      totals: {
        // The NodePools' figures: one re-pack with every recommendation applied (per-row re-packs do not add up).
        monthlyEffectUsd: nodePools.reduce((s, p) => s + p.monthlyEffectUsd, 0),
        requestShareMonthlyUsd: rows.reduce((s, r) => s + (r.requestShareMonthlyUsd ?? 0), 0),
        idleUsdPerMonth: rows.reduce((s, r) => s + (r.idleUsdPerMonth ?? 0), 0),
      },
    };
  }

  return {
    /**
     * One workload container's hourly usage over the window, oldest first; under "All clusters" of several, each
     * cluster's hours in turn (clusters by name), each point naming its cluster.
     */
    usage(q: WorkloadUsageQuery, clusterId: number | null = null): WorkloadUsageResponse {
      const named = spanned(clusterId);
      if (named === null) return usageOf(q, clusterId);
      const each = named.map((c) => ({ c, answer: usageOf(q, c.id) }));
      return {
        windowFrom: earliest(each.map((e) => e.answer.windowFrom)),
        windowTo: latest(each.map((e) => e.answer.windowTo)),
        points: each.flatMap(({ c, answer }) => answer.points.map((p) => ({ cluster: c.name, ...p }))),
      };
    },

    /**
     * The recommendations of one cluster, or under "All clusters" of several, each cluster's answer side by side:
     * rows, NodePools, namespaces and teams each naming its cluster (a workload in two clusters is two rows), each
     * cluster's window and capacity under `clusters` (capacity is not summed), totals summed.
     */
    recommendations(q: RecommendationsQuery, clusterId: number | null = null): RecommendationsResponse {
      const named = spanned(clusterId);
      if (named === null) return recommendationsOf(q, clusterId);
      const each = named.map((c) => ({ cluster: c.name, answer: recommendationsOf(q, c.id) }));
      const tag = <T extends object>(cluster: string, xs: readonly T[]): (T & { cluster: string })[] => xs.map((x) => ({ cluster, ...x }));
      const rows = each
        .flatMap(({ cluster, answer }) => tag(cluster, answer.rows))
        .sort((a, b) => byEffect(a, b) || (a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0));
      const sum = (k: keyof RecommendationsResponse['totals']): number => each.reduce((s, e) => s + e.answer.totals[k], 0);
      const first = each[0].answer;
      return {
        windowFrom: earliest(each.map((e) => e.answer.windowFrom)),
        windowTo: latest(each.map((e) => e.answer.windowTo)),
        pricesAt: latest(each.map((e) => e.answer.pricesAt)),
        dollarMethod: first.dollarMethod,
        settings: first.settings,
        rows,
        nodePools: each.flatMap(({ cluster, answer }) => tag(cluster, answer.nodePools)),
        namespaces: each.flatMap(({ cluster, answer }) => tag(cluster, answer.namespaces)),
        teams: each.flatMap(({ cluster, answer }) => tag(cluster, answer.teams)),
        capacity: null,
        clusters: each.map(({ cluster, answer }) => ({
          cluster,
          windowFrom: answer.windowFrom,
          windowTo: answer.windowTo,
          pricesAt: answer.pricesAt,
          capacity: answer.capacity,
        })),
        totals: {
          monthlyEffectUsd: sum('monthlyEffectUsd'),
          requestShareMonthlyUsd: sum('requestShareMonthlyUsd'),
          idleUsdPerMonth: sum('idleUsdPerMonth'),
        },
      };
    },
  };
}

export type WorkloadsService = ReturnType<typeof createWorkloadsService>;
