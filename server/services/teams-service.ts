import type { AnalyticsPackingRepository } from '../../db/repositories/analytics-packing-repository.js';
import type { AnalyticsTeamsRepository, NamespaceSumsRow } from '../../db/repositories/analytics-teams-repository.js';
import { DEFAULT_TEAM_LABEL } from '../../core/labels.js';
import { DEFAULT_SHARE_WEIGHTS, sumByNodePool } from '../analytics/packing.js';
import { parseWeights } from '../analytics/query-params.js';
import { isoInstant, QueryParamError } from '../analytics/range.js';
import { attributeTeamCost, type TeamCostOptions } from '../analytics/team-cost.js';
import { methodFeed, TEAM_METHODS } from '../analytics/team-methods.js';
import { BUCKET_MS, defaultBucket, seriesBuckets, teamCostSeries } from '../analytics/team-series.js';
import type { TeamCostQuery, TeamCostResponse, TeamCostSeriesQuery, TeamCostSeriesResponse } from '../schemas/teams.js';
import { rangeOf, type RangeContext } from './analytics-range.js';
import { HOUR_MS } from '../../core/time.js';

/**
 * The team of a namespace row: the collected team (the pod label, then the namespace label), the namespace itself
 * (groupBy=namespace), or another namespace label (pod labels other than the default are not kept per snapshot).
 * One rule for the three methods and for AWS's split from the CUR.
 */
export function teamRule(
  teams: Pick<AnalyticsTeamsRepository, 'namespaceLabels'>,
  label: string,
  groupBy: 'team' | 'namespace',
): { teamOf: (r: Pick<NamespaceSumsRow, 'namespace' | 'team'>) => string | null; notes: string[] } {
  if (groupBy === 'namespace') return { teamOf: (r) => r.namespace, notes: [] };
  if (label === DEFAULT_TEAM_LABEL) return { teamOf: (r) => r.team, notes: [] };
  const labels = teams.namespaceLabels();
  return {
    teamOf: (r) => labels.get(r.namespace)?.[label] ?? null,
    notes: [`Teams come from the namespace label "${label}"; pod labels other than "${DEFAULT_TEAM_LABEL}" are not stored.`],
  };
}

/** Team attribution of node cost over a range, and per day or week of it. */
export function createTeamsService(teams: AnalyticsTeamsRepository, packing: AnalyticsPackingRepository, ctx: RangeContext) {
  /** The query's split options and the response fields that echo them. */
  const optionsOf = (q: TeamCostQuery) => {
    const method = q.method ?? 'request-share';
    if (method !== 'request-share' && q.weights !== undefined) {
      const own = method === 'aws-split' ? 'AWS split weighs a vCPU 9 times a GB' : 'OpenCost weighs a core by its base prices';
      throw new QueryParamError('weights', `applies to method=request-share only, not method=${method} (${own})`);
    }
    const weights = q.weights === undefined ? DEFAULT_SHARE_WEIGHTS : parseWeights('weights', q.weights);
    const label = q.label ?? DEFAULT_TEAM_LABEL;
    const groupBy = q.groupBy ?? 'team';
    const idle = q.idle ?? 'line';
    const { teamOf, notes } = teamRule(teams, label, groupBy);
    const options: TeamCostOptions = { method, weights, idle, teamOf };
    const echo = { method, methodInfo: TEAM_METHODS[method], weights: method === 'request-share' ? weights : null, idle, label, groupBy };
    return { options, echo, notes };
  };
  const onlyTeam =
    (q: TeamCostQuery) =>
    <T extends { kind: string; team: string | null }>(rows: T[]): T[] =>
      q.team === undefined ? rows : rows.filter((r) => r.kind === 'team' && r.team === q.team);

  /** One cluster's split (null: every cluster's rows as one), with the namespace sums that fed it. */
  const costOf = (q: TeamCostQuery, clusterId: number | null): { answer: TeamCostResponse; namespaces: NamespaceSumsRow[] } => {
    const range = rangeOf(ctx, q, clusterId);
    const { options, echo, notes } = optionsOf(q);
    const pools = [...sumByNodePool(packing.poolSums(range)).entries()].map(([nodePool, s]) => ({
      nodePool,
      costUsd: s.costUsd,
      costWeightedCpuUsd: s.costWeightedCpuUsd,
      costWeightedMemoryUsd: s.costWeightedMemoryUsd,
    }));
    const namespaces = teams.namespaceSums(range);
    const result = attributeTeamCost(namespaces, pools, options);
    const only = onlyTeam(q);
    const answer = {
      from: isoInstant(range.fromMs),
      to: isoInstant(range.toMs),
      ...echo,
      feed: methodFeed(options.method, namespaces),
      rows: only(result.rows),
      teams: only(result.teams),
      totals: result.totals,
      notes: [...notes, ...result.notes],
    };
    return { answer, namespaces };
  };

  /** One cluster's series (null: every cluster's rows as one), with the namespace sums that fed it. */
  const seriesOf = (
    q: TeamCostSeriesQuery,
    clusterId: number | null,
  ): { answer: TeamCostSeriesResponse; namespaces: readonly { podHours: number; usagePodHours: number }[] } => {
    const range = rangeOf(ctx, q, clusterId);
    // Buckets start at `from`: on a whole hour, every bucket is whole hours, read from the rollups and cut exactly
    // where a request for that bucket's range would cut (off the hour, snapshots could not be split at bucket edges).
    if (range.fromMs % HOUR_MS !== 0) {
      throw new QueryParamError('from', `must be on a whole UTC hour for a series (buckets start there), got ${isoInstant(range.fromMs)}`);
    }
    const { options, echo, notes } = optionsOf(q);
    const bucket = q.bucket ?? defaultBucket(range.fromMs, range.toMs);
    const cut = { ...range, bucketMs: BUCKET_MS[bucket], originMs: range.fromMs };
    const namespaces = teams.bucketNamespaceSums(cut);
    const series = teamCostSeries(seriesBuckets(range.fromMs, range.toMs, cut.bucketMs), namespaces, packing.bucketSums(cut), options);
    const only = onlyTeam(q);
    const answer: TeamCostSeriesResponse = {
      from: isoInstant(range.fromMs),
      to: isoInstant(range.toMs),
      bucket,
      ...echo,
      feed: methodFeed(options.method, namespaces),
      buckets: series.buckets.map((b) => ({
        from: isoInstant(b.fromMs),
        to: isoInstant(b.toMs),
        teams: only(b.result.teams),
        totals: b.result.totals,
      })),
      notes: [...notes, ...series.notes],
    };
    return { answer, namespaces };
  };

  return {
    /**
     * The split over the range. `clusters` (every cluster of a ledger holding several, no `?cluster=`): each cluster
     * split on its own, exactly as `?cluster=` splits it, its rows naming it; the totals added in cents.
     */
    cost(q: TeamCostQuery, clusterId: number | null = null, clusters: readonly ClusterName[] = []): TeamCostResponse {
      if (clusterId !== null || clusters.length < 2) return costOf(q, clusterId).answer;
      const parts = clusters.map((c) => ({ cluster: c.name, ...costOf(q, c.id) }));
      const first = parts[0]?.answer ?? costOf(q, null).answer;
      return {
        ...first,
        feed: methodFeed(
          first.method,
          parts.flatMap((p) => p.namespaces),
        ),
        rows: parts.flatMap((p) => p.answer.rows.map((r) => ({ cluster: p.cluster, ...r }))),
        teams: parts.flatMap((p) => p.answer.teams.map((t) => ({ cluster: p.cluster, ...t }))),
        totals: addTotals(parts.map((p) => p.answer.totals)),
        notes: [...new Set(parts.flatMap((p) => p.answer.notes))],
      };
    },

    /**
     * The same split per day or week bucket from `from`: two rollup reads for the whole range, whatever its length. Every
     * cluster of several: each bucket's teams per cluster, its totals added.
     */
    series(q: TeamCostSeriesQuery, clusterId: number | null = null, clusters: readonly ClusterName[] = []): TeamCostSeriesResponse {
      if (clusterId !== null || clusters.length < 2) return seriesOf(q, clusterId).answer;
      const parts = clusters.map((c) => ({ cluster: c.name, ...seriesOf(q, c.id) }));
      const first = parts[0]?.answer ?? seriesOf(q, null).answer;
      return {
        ...first,
        feed: methodFeed(
          first.method,
          parts.flatMap((p) => p.namespaces),
        ),
        buckets: first.buckets.map((b, i) => ({
          from: b.from,
          to: b.to,
          teams: parts.flatMap((p) => (p.answer.buckets[i]?.teams ?? []).map((t) => ({ cluster: p.cluster, ...t }))),
          totals: addTotals(parts.flatMap((p) => p.answer.buckets[i]?.totals ?? [])),
        })),
        notes: [...new Set(parts.flatMap((p) => p.answer.notes))],
      };
    },
  };
}

/** A cluster as the all-clusters answers name it. */
export interface ClusterName {
  id: number;
  name: string;
}

/** The clusters' totals added: cents as cents (each cluster's add up exactly, so their sum does). */
function addTotals(ts: readonly TeamCostResponse['totals'][]): TeamCostResponse['totals'] {
  const cents = (pick: (t: TeamCostResponse['totals']) => number): number => ts.reduce((s, t) => s + Math.round(pick(t) * 100), 0) / 100;
  return {
    nodeCostUsd: cents((t) => t.nodeCostUsd),
    teamsUsd: cents((t) => t.teamsUsd),
    idleUsd: cents((t) => t.idleUsd),
    residualUsd: ts.reduce((s, t) => s + t.residualUsd, 0),
  };
}

export type TeamsService = ReturnType<typeof createTeamsService>;
