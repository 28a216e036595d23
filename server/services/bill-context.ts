import { perConnection } from '../../db/per-connection.js';
import { loadInstanceCatalog } from '../../core/instance-catalog.js';
import { requirementsFromJson } from '../../core/karpenter/requirements.js';
import { TAG_NODEPOOL } from '../../core/labels.js';
import { isRegionName, regionOfZone, staticTableSource } from '../../core/partitions.js';
import { type StaticTable, staticTableFor } from '../../core/static-prices.js';
import type { Db } from '../../db/open-db.js';
import {
  type BillContextRepository,
  createBillContextRepository,
  type BillNodeRow,
} from '../../db/repositories/bill-context-repository.js';
import { ALLOCATION_TAGS_SETTING, createRunsRepository, type RunsRepository } from '../../db/repositories/runs-repository.js';
import { DISRUPTION_EDGE_MS } from '../../core/karpenter/disruptions.js';
import { createDisruptionsRepository, type DisruptionsRepository } from '../../db/repositories/disruptions-repository.js';
import { createDataVersionRepository, type DataVersionRepository } from '../../db/repositories/data-version-repository.js';
import type { ExplainContext, LaunchFact, NodeFact, NodePoolFact, TagStatus } from '../explain/facts.js';
import type { PricePoint } from '../explain/price-timeline.js';

/**
 * Loads what the explainer needs for a window, from the repositories, into plain facts: the nodes alive in it,
 * NodePools, first snapshots, lifecycle events around those nodes, prices, snapshot coverage and whether the
 * NodePool tag is an active cost allocation tag.
 */

const DEFAULT_SNAPSHOT_INTERVAL_MS = 5 * 60_000;
/** Where a collector stores the last ListCostAllocationTags answer ({ active, inactive, unknown } tag keys). */
export { ALLOCATION_TAGS_SETTING };

function parseJson<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** The one zone -> region rule (core/partitions.ts; Local Zones included: us-west-2-lax-1a -> us-west-2). */
export { regionOfZone };

function toNodeFact(r: BillNodeRow): NodeFact {
  return {
    name: r.name,
    nodeClaim: r.nodeClaim,
    nodePool: r.nodePool,
    instanceType: r.instanceType,
    capacityType: r.capacityType,
    zone: r.zone,
    instanceId: r.instanceId,
    launchedAtMs: r.claimCreatedAt === null ? r.nodeCreatedAt : Math.min(r.claimCreatedAt, r.nodeCreatedAt),
    firstSeenMs: r.firstSeen,
    lastSeenMs: r.lastSeen,
    deletedAtMs: r.deletedAt,
    disruptionReason: r.disruptionReason,
    allocatable: { cpuMillicores: r.allocCpuM, memoryBytes: r.allocMemoryB, pods: r.allocPods },
    labels: parseJson<Record<string, string>>(r.labelsJson, {}),
  };
}

/**
 * Price histories per market from the prices table, as far as they price [fromMs, toMs) (from the point in effect at
 * fromMs), on-demand falling back to Karpenter's static table (the region's, else its partition's, named in the
 * source as `static-table (us-east-1)`).
 */
function priceLookup(
  repo: BillContextRepository,
  regions: readonly string[],
  instanceTypes: readonly string[],
  fromMs: number,
  toMs: number,
): ExplainContext['prices'] {
  const onDemand = new Map<string, PricePoint[]>();
  const spot = new Map<string, PricePoint[]>();
  const statics = new Map<string, StaticTable | null>();
  for (const region of regions) {
    statics.set(region, isRegionName(region) ? staticTableFor(region) : null);
    for (const row of repo.priceRows(region, instanceTypes, fromMs, toMs)) {
      const map = row.kind === 'spot' ? spot : onDemand;
      const key = row.kind === 'spot' ? `${row.instanceType} ${row.zone}` : `${region} ${row.instanceType}`;
      const point = { atMs: row.effectiveAt, usdPerHour: row.usdPerHour, source: row.source };
      const list = map.get(key);
      if (list) list.push(point);
      else map.set(key, [point]);
    }
  }
  for (const list of [...onDemand.values(), ...spot.values()]) list.sort((a, b) => a.atMs - b.atMs);
  const onDemandOf = (instanceType: string, zone: string): PricePoint[] => {
    const region = regionOfZone(zone);
    const stored = onDemand.get(`${region} ${instanceType}`);
    if (stored && stored.length > 0) return stored;
    const table = statics.get(region) ?? null;
    const fallback = table?.prices.get(instanceType);
    return table === null || fallback === undefined ? [] : [{ atMs: 0, usdPerHour: fallback, source: staticTableSource(table.region) }];
  };
  return (node) => {
    if (node.capacityType === 'spot') {
      const history = spot.get(`${node.instanceType} ${node.zone}`);
      if (history && history.length > 0) return history;
    }
    return onDemandOf(node.instanceType, node.zone);
  };
}

interface ExplainRepositories {
  context: BillContextRepository;
  disruptions: DisruptionsRepository;
  runs: RunsRepository;
  dataVersion: DataVersionRepository;
  /** The contexts loaded last (by window and cluster, oldest first), and the data version they were read under. */
  kept: { version: string; contexts: Map<string, ExplainContext> };
}

/** How many windows' contexts are kept per database (a page's lines are of a few periods). */
const CONTEXTS_KEPT = 4;

/**
 * The repositories an explanation reads, made once per database: each prepares its statements when made, which cost
 * more than the reads of one line's window (a page explaining its lines asks once per line).
 */
const repositories = perConnection((db): ExplainRepositories => ({
  context: createBillContextRepository(db),
  disruptions: createDisruptionsRepository(db),
  runs: createRunsRepository(db),
  dataVersion: createDataVersionRepository(db),
  kept: { version: '', contexts: new Map() },
}));

function tagStatus(runs: RunsRepository): TagStatus {
  const stored = runs.getSetting(ALLOCATION_TAGS_SETTING);
  if (stored === null) return 'unknown';
  const status = parseJson<{ active?: string[]; inactive?: string[] }>(stored, {});
  if (status.inactive?.includes(TAG_NODEPOOL)) return 'inactive';
  if (status.active?.includes(TAG_NODEPOOL)) return 'active';
  return 'unknown';
}

/**
 * Everything about [fromMs, toMs) in one cluster the explainer may read: a line is explained by its own cluster's
 * NodePool and NodeClaims (`clusterId`; 1 is a one-cluster ledger's).
 * The same object again while the database is unchanged (SQLite's data_version for another connection's commits,
 * total_changes() for this one's writes, as the API's response cache): each line is explained by a request of its
 * own, and every line of a period (with its siblings) read the same window's nodes, launches, events and prices
 * again. The explainer only reads a context.
 */
export function loadExplainContext(db: Db, fromMs: number, toMs: number, clusterId: number): ExplainContext {
  const repos = repositories(db);
  const version = repos.dataVersion.current();
  if (repos.kept.version !== version) repos.kept = { version, contexts: new Map() };
  const key = `${fromMs} ${toMs} ${clusterId}`;
  const kept = repos.kept.contexts.get(key);
  if (kept !== undefined) return kept;
  const ctx = readExplainContext(repos, fromMs, toMs, clusterId);
  repos.kept.contexts.set(key, ctx);
  if (repos.kept.contexts.size > CONTEXTS_KEPT) repos.kept.contexts.delete(repos.kept.contexts.keys().next().value as string);
  return ctx;
}

function readExplainContext(repos: ExplainRepositories, fromMs: number, toMs: number, clusterId: number): ExplainContext {
  const { context: repo, disruptions: disruptionsRepo, runs } = repos;
  const nodes = repo.nodesOverlapping(fromMs, toMs, clusterId).map(toNodeFact);
  const nodePools = new Map<string, NodePoolFact>(
    repo.nodePools(clusterId).map((p) => [
      p.name,
      {
        name: p.name,
        capacityTypes: parseJson<string[]>(p.capacityTypesJson, []),
        requirements: requirementsFromJson(parseJson<unknown>(p.requirementsJson, [])),
      },
    ]),
  );

  const { launches: launchRows, pods } = repo.launches(
    nodes.map((n) => n.name),
    clusterId,
  );
  const launches = new Map<string, LaunchFact>(
    launchRows.map((l) => [
      l.nodeName,
      {
        observedAtMs: l.takenAt,
        requested: { cpuMillicores: l.reqCpuM, memoryBytes: l.reqMemoryB, pods: l.reqPods },
        pods: pods
          .filter((p) => p.nodeName === l.nodeName)
          .map((p) => ({
            namespace: p.namespace,
            name: p.name,
            ownerKind: p.ownerKind,
            cpuMillicores: p.reqCpuM,
            memoryBytes: p.reqMemoryB,
          })),
      },
    ]),
  );

  // Karpenter's events and the kept disruptions around these NodeClaims' launches and removals (managed nodes have
  // none worth a 30-day scan). A disruption that replaced a node comes up to DISRUPTION_EDGE_MS after its launch.
  const karpenter = nodes.filter((n) => n.nodeClaim !== null);
  const aroundFrom = Math.min(fromMs, ...karpenter.map((n) => n.launchedAtMs)) - DISRUPTION_EDGE_MS;
  const aroundTo = Math.max(toMs, ...karpenter.map((n) => n.deletedAtMs ?? n.lastSeenMs)) + DISRUPTION_EDGE_MS;
  const events = repo
    .lifecycleEvents(aroundFrom, aroundTo, clusterId)
    .map((e) => ({ atMs: e.at, reason: e.reason, message: e.message, kind: e.kind, name: e.name }));
  const disruptions = disruptionsRepo.inRange({ fromMs: aroundFrom, toMs: aroundTo + 1, clusterId });

  const cov = repo.snapshotCoverage(clusterId);
  const snapshotIntervalMs =
    cov.count >= 2 && cov.firstMs !== null && cov.lastMs !== null
      ? Math.round((cov.lastMs - cov.firstMs) / (cov.count - 1))
      : DEFAULT_SNAPSHOT_INTERVAL_MS;
  const regions = [...new Set(nodes.map((n) => regionOfZone(n.zone)))].sort();

  return {
    nodes,
    nodePools,
    launches,
    events,
    disruptions,
    prices: priceLookup(repo, regions, [...new Set(nodes.map((n) => n.instanceType))].sort(), fromMs, toMs),
    catalog: loadInstanceCatalog(),
    coverage: { firstSnapshotMs: cov.firstMs, lastSnapshotMs: cov.lastMs, snapshotIntervalMs },
    nodePoolTag: tagStatus(runs),
  };
}
