import type { NamespaceSumsRow } from '../../db/repositories/analytics-teams-repository.js';
import type { OrgEngine, OrgQueryResult, OrgValue } from '../../core/org-query.js';
import { DAY_MS } from '../../core/time.js';
import { toCents } from '../analytics/cents.js';
import { DEFAULT_SHARE_WEIGHTS } from '../analytics/packing.js';
import { dayCeil, dayFloor, parseInstant, QueryParamError, utcDay } from '../analytics/range.js';
import { attributeTeamCost, type IdleMode, type TeamMethod } from '../analytics/team-cost.js';
import { TEAM_METHODS } from '../analytics/team-methods.js';
import { overviewStatement, teamsStatement } from './org-statements.js';
import type { OrgOverviewResponse, OrgQueryInfo, OrgRange, OrgTeamsResponse } from '../schemas/org.js';

/**
 * The organisation's Overview and Teams, every cluster of the export at once, answered by Athena: one statement per
 * view and range (server/org/org-statements.ts) whose sums go through the same analytics as one ledger's API (the
 * estimate is Σ price × hours, packing Σ requested ÷ Σ allocatable, the team split attributeTeamCost per cluster), so
 * a cluster's figures here equal its ledger's to the cent. Ranges are whole UTC days, `to` exclusive (default the 7
 * days to the end of today). Each answer says what its query scanned and cost at Athena's price: USD 5 per TB scanned,
 * at least 10 MB a query, rounded up to the MB. Answers are kept per statement: for good once every day of the range
 * is over (a final day's export does not change), else for `liveTtlMs`.
 */

/** Athena's price: USD per TB (10^12 bytes) scanned, with its 10 MB minimum per query, rounded up to the MB. */
export const ATHENA_USD_PER_TB = 5;
const MB = 1_000_000;
export const athenaBilledBytes = (scannedBytes: number): number => Math.max(10 * MB, Math.ceil(scannedBytes / MB) * MB);
export const athenaCostUsd = (scannedBytes: number): number => (athenaBilledBytes(scannedBytes) / 1e12) * ATHENA_USD_PER_TB;

/** The engine refused or failed a statement: answered 502 with its reason (Athena's, naming the query id). */
export class OrgEngineError extends Error {}

export type { OrgOverviewResponse, OrgQueryInfo, OrgRange, OrgTeamsResponse } from '../schemas/org.js';

const num = (v: OrgValue | undefined): number => (typeof v === 'number' ? v : v === null || v === undefined ? 0 : Number(v));
const str = (v: OrgValue | undefined): string | null => (v === null || v === undefined ? null : String(v));
const cents = (usd: number): number => toCents(usd);

export function createOrgService(engine: OrgEngine, opts: { now?: () => number; liveTtlMs?: number; maxEntries?: number } = {}) {
  const now = opts.now ?? Date.now;
  const liveTtlMs = opts.liveTtlMs ?? 5 * 60_000;
  const maxEntries = opts.maxEntries ?? 200;
  const cache = new Map<string, { result: OrgQueryResult; storedAt: number; final: boolean }>();
  const engineName = `athena://${engine.workGroup}/${engine.database}`;

  /** [from, to) on whole UTC days. */
  const rangeOf = (q: OrgRange): { fromMs: number; toMs: number } => {
    const toMs = q.to === undefined ? dayCeil(now() + 1) : parseInstant('to', q.to);
    const fromMs = q.from === undefined ? toMs - 7 * DAY_MS : parseInstant('from', q.from);
    if (fromMs % DAY_MS !== 0) throw new QueryParamError('from', 'must be a UTC day (YYYY-MM-DD): the export is partitioned by day');
    if (toMs % DAY_MS !== 0) throw new QueryParamError('to', 'must be a UTC day (YYYY-MM-DD), exclusive');
    if (toMs <= fromMs) throw new QueryParamError('to', 'must be after from');
    if (toMs - fromMs > 731 * DAY_MS) throw new QueryParamError('to', 'the range is at most 731 days');
    return { fromMs, toMs };
  };

  const run = async (statement: string, toMs: number): Promise<{ result: OrgQueryResult; info: OrgQueryInfo }> => {
    const kept = cache.get(statement);
    if (kept !== undefined && (kept.final || now() - kept.storedAt < liveTtlMs)) {
      return { result: kept.result, info: infoOf(kept.result, true) };
    }
    let result: OrgQueryResult;
    try {
      result = await engine.run(statement);
    } catch (err) {
      throw new OrgEngineError(`${engineName}: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
    cache.set(statement, { result, storedAt: now(), final: toMs <= dayFloor(now()) });
    return { result, info: infoOf(result, false) };
  };

  const infoOf = (r: OrgQueryResult, cached: boolean): OrgQueryInfo => ({
    engine: engineName,
    queryExecutionId: r.queryExecutionId,
    scannedBytes: r.scannedBytes,
    billedBytes: athenaBilledBytes(r.scannedBytes),
    costUsd: cached ? 0 : athenaCostUsd(r.scannedBytes),
    engineMs: r.engineMs,
    cached,
  });

  return {
    async overview(q: OrgRange): Promise<OrgOverviewResponse> {
      const { fromMs, toMs } = rangeOf(q);
      const { result, info } = await run(overviewStatement(utcDay(fromMs), utcDay(toMs)), toMs);
      const rows = result.rows.map((r) => ({
        cluster: str(r.cluster) ?? '',
        day: (str(r.day) ?? '').slice(0, 10),
        nodePool: str(r.nodepool) ?? '',
        capacityType: str(r.capacity_type) ?? '',
        estimateUsd: num(r.cost_usd),
      }));
      const byCluster = new Map<
        string,
        { usd: number; nodeHours: number; reqCpu: number; allocCpu: number; reqMem: number; allocMem: number }
      >();
      for (const r of result.rows) {
        const k = str(r.cluster) ?? '';
        const c = byCluster.get(k) ?? { usd: 0, nodeHours: 0, reqCpu: 0, allocCpu: 0, reqMem: 0, allocMem: 0 };
        c.usd += num(r.cost_usd);
        c.nodeHours += num(r.node_hours);
        c.reqCpu += num(r.req_cpu_millicore_hours);
        c.allocCpu += num(r.alloc_cpu_millicore_hours);
        c.reqMem += num(r.req_memory_byte_hours);
        c.allocMem += num(r.alloc_memory_byte_hours);
        byCluster.set(k, c);
      }
      const clusters = [...byCluster.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([cluster, c]) => ({
          cluster,
          estimateUsd: cents(c.usd) / 100,
          nodeHours: c.nodeHours,
          cpu: c.allocCpu > 0 ? c.reqCpu / c.allocCpu : null,
          memory: c.allocMem > 0 ? c.reqMem / c.allocMem : null,
        }));
      const totalUsd = rows.reduce((t, r) => t + r.estimateUsd, 0);
      return { from: utcDay(fromMs), to: utcDay(toMs), rows, clusters, totals: { estimateUsd: totalUsd }, query: info };
    },

    async teams(q: OrgRange & { method?: TeamMethod; idle?: IdleMode; groupBy?: 'team' | 'namespace' }): Promise<OrgTeamsResponse> {
      const { fromMs, toMs } = rangeOf(q);
      const method = q.method ?? 'request-share';
      const idle = q.idle ?? 'line';
      const groupBy = q.groupBy ?? 'team';
      const { result, info } = await run(teamsStatement(utcDay(fromMs), utcDay(toMs)), toMs);
      const perCluster = new Map<
        string,
        {
          namespaces: NamespaceSumsRow[];
          pools: { nodePool: string; costUsd: number; costWeightedCpuUsd: number; costWeightedMemoryUsd: number }[];
        }
      >();
      for (const r of result.rows) {
        const cluster = str(r.cluster) ?? '';
        const c = perCluster.get(cluster) ?? { namespaces: [], pools: [] };
        perCluster.set(cluster, c);
        const nodePool = str(r.nodepool) ?? '';
        if (r.kind === 'pool') {
          c.pools.push({
            nodePool,
            costUsd: num(r.cost_usd),
            costWeightedCpuUsd: num(r.cost_weighted_cpu_usd),
            costWeightedMemoryUsd: num(r.cost_weighted_memory_usd),
          });
        } else {
          c.namespaces.push({
            namespace: str(r.namespace) ?? '',
            nodePool,
            team: str(r.team),
            requestShareUsd: num(r.request_share_usd),
            cpuShareUsd: num(r.cpu_share_usd),
            memoryShareUsd: num(r.memory_share_usd),
            legacyRequestShareUsd: num(r.legacy_request_share_usd),
            awsSplitCostUsd: num(r.aws_split_cost_usd),
            awsUnusedCostUsd: num(r.aws_unused_cost_usd),
            openCostUsd: num(r.open_cost_usd),
            legacyMethodsUsd: num(r.legacy_methods_usd),
            podHours: num(r.pod_hours),
            usagePodHours: num(r.usage_pod_hours),
          });
        }
      }
      const teamOf = groupBy === 'namespace' ? (r: NamespaceSumsRow) => r.namespace : (r: NamespaceSumsRow) => r.team;
      const clusters = [...perCluster.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([cluster, c]) => {
          const split = attributeTeamCost(c.namespaces, c.pools, { method, weights: DEFAULT_SHARE_WEIGHTS, idle, teamOf });
          const { nodeCostUsd, teamsUsd, idleUsd } = split.totals;
          return { cluster, teams: split.teams, totals: { nodeCostUsd, teamsUsd, idleUsd } };
        });
      const all = new Map<string, { kind: 'team' | 'idle'; team: string | null; cents: number }>();
      for (const c of clusters)
        for (const t of c.teams) {
          const k = `${t.kind}\u0000${t.team ?? '\u0001'}`;
          const e = all.get(k) ?? { kind: t.kind, team: t.team, cents: 0 };
          e.cents += cents(t.costUsd);
          all.set(k, e);
        }
      const teams = [...all.values()]
        .sort(
          (a, b) =>
            Number(a.kind === 'idle') - Number(b.kind === 'idle') || b.cents - a.cents || (a.team ?? '').localeCompare(b.team ?? ''),
        )
        .map((t) => ({ kind: t.kind, team: t.team, costUsd: t.cents / 100 }));
      const sum = (k: 'nodeCostUsd' | 'teamsUsd' | 'idleUsd'): number => clusters.reduce((t, c) => t + cents(c.totals[k]), 0) / 100;
      return {
        from: utcDay(fromMs),
        to: utcDay(toMs),
        method,
        methodName: TEAM_METHODS[method].name,
        idle,
        groupBy,
        clusters,
        teams,
        totals: { nodeCostUsd: sum('nodeCostUsd'), teamsUsd: sum('teamsUsd'), idleUsd: sum('idleUsd') },
        query: info,
      };
    },
  };
}

export type OrgService = ReturnType<typeof createOrgService>;
