import type { AnalyticsPackingRepository } from '../../db/repositories/analytics-packing-repository.js';
import type { AnalyticsTeamsRepository } from '../../db/repositories/analytics-teams-repository.js';
import type { ClustersRepository } from '../../db/repositories/clusters-repository.js';
import type { CurRepository, CurSplitFigure } from '../../db/repositories/cur-repository.js';
import { DEFAULT_TEAM_LABEL } from '../../core/labels.js';
import { DAY_MS } from '../../core/time.js';
import { curSourceInfo, newestPerPeriod } from '../analytics/cur-source.js';
import { DEFAULT_SHARE_WEIGHTS } from '../analytics/packing.js';
import { parseWeights } from '../analytics/query-params.js';
import { dayCeil, dayFloor, utcDay } from '../analytics/range.js';
import type { TeamMethod } from '../analytics/team-cost.js';
import {
  collectedTeams,
  compareTeamsWithCur,
  curTeamFigures,
  TEAM_METHOD_IDS,
  type CurSplitDay,
  type TeamFigure,
} from '../analytics/team-cur.js';
import { TEAM_METHODS } from '../analytics/team-methods.js';
import { seriesBuckets, teamCostSeries } from '../analytics/team-series.js';
import type { CostMetric } from '../schemas/cost.js';
import type { TeamCurQuery, TeamCurResponse } from '../schemas/teams-cur.js';
import { rangeOf, type RangeContext } from './analytics-range.js';
import { teamRule } from './teams-service.js';

/**
 * Which of a namespace-day's split figures the CUR series reads: AWS splits the amortized cost, so of the metric only
 * net vs gross applies; or the split of the instances' public on-demand cost, the basis our methods price at (for
 * on-demand nodes).
 */
const splitFigure = (metric: CostMetric, basis: 'billed' | 'public-on-demand'): CurSplitFigure =>
  basis === 'public-on-demand' ? 'public-on-demand' : metric === 'net-unblended' || metric === 'net-amortized' ? 'net-split' : 'split';

/** AWS's split from the CUR per team and day beside our three methods (GET /api/teams/cur). */
export function createTeamsCurService(
  teams: AnalyticsTeamsRepository,
  packing: AnalyticsPackingRepository,
  cur: Pick<CurRepository, 'splitDays' | 'periods'>,
  ctx: RangeContext,
  clusterList?: Pick<ClustersRepository, 'list'>,
) {
  return {
    /**
     * `clusterId`: one cluster's teams (our methods over its nodes, the CUR's split lines whose cluster is its name);
     * null: every cluster's.
     */
    compare(q: TeamCurQuery, clusterId: number | null = null): TeamCurResponse {
      const range = rangeOf(ctx, q, clusterId);
      // The CUR is per UTC day: whole days, as the reconciliation reads the bill.
      const fromMs = dayFloor(range.fromMs);
      const toMs = Math.max(dayCeil(range.toMs), fromMs + DAY_MS);
      const metric: CostMetric = q.metric ?? 'amortized';
      const basis = q.basis ?? 'billed';
      const label = q.label ?? DEFAULT_TEAM_LABEL;
      const groupBy = q.groupBy ?? 'team';
      const idle = q.idle ?? 'line';
      const weights = q.weights === undefined ? DEFAULT_SHARE_WEIGHTS : parseWeights('weights', q.weights);
      const { teamOf, notes } = teamRule(teams, label, groupBy);

      // Our three methods per day, each exactly as /api/teams/cost/series over the same days.
      const cut = { fromMs, toMs, nodePool: range.nodePool, clusterId, bucketMs: DAY_MS, originMs: fromMs };
      const namespaces = teams.bucketNamespaceSums(cut);
      const pools = packing.bucketSums(cut);
      const buckets = seriesBuckets(fromMs, toMs, DAY_MS);
      const ours = Object.fromEntries(
        TEAM_METHOD_IDS.map((method) => {
          const s = teamCostSeries(buckets, namespaces, pools, { method, weights, idle, teamOf });
          const byDay = new Map<string, TeamFigure[]>(
            s.buckets.map((b) => [utcDay(b.fromMs), b.result.teams.map((t) => ({ kind: t.kind, team: t.team, usd: t.costUsd }))]),
          );
          return [method, byDay];
        }),
      ) as Record<TeamMethod, Map<string, TeamFigure[]>>;

      // AWS's split: CUR namespaces named by the same rule (the team collected for that namespace, else its label).
      const collected = collectedTeams(namespaces);
      const labels = groupBy === 'team' && label === DEFAULT_TEAM_LABEL ? teams.namespaceLabels() : null;
      const nsTeam = (namespace: string): string | null =>
        teamOf({ namespace, team: collected.get(namespace) ?? labels?.get(namespace)?.[DEFAULT_TEAM_LABEL] ?? null });
      const clusterName = clusterId === null ? null : (clusterList?.list().find((c) => c.id === clusterId)?.name ?? null);
      const rows = cur
        .splitDays({ fromMs, toMs }, splitFigure(metric, basis))
        .filter(
          (r) => (range.nodePool === undefined || r.nodePool === range.nodePool) && (clusterId === null || r.cluster === clusterName),
        );
      const byDay = new Map<string, CurSplitDay[]>();
      // Appended in place: copying the day's list for every row was quadratic in the rows of a day.
      for (const r of rows) {
        const list = byDay.get(r.day);
        if (list === undefined) byDay.set(r.day, [r]);
        else list.push(r);
      }
      const curByDay = new Map([...byDay].map(([day, list]) => [day, curTeamFigures(list, nsTeam, idle)]));

      const days = buckets.map((b) => utcDay(b.fromMs));
      const result = compareTeamsWithCur(days, curByDay, ours);
      const only = <T extends { kind: string; team: string | null }>(list: T[]): T[] =>
        q.team === undefined ? list : list.filter((r) => r.kind === 'team' && r.team === q.team);

      const periods = cur.periods();
      const chosen = newestPerPeriod(
        periods.map((p) => ({ source: p.source, billingPeriod: p.billingPeriod, importedAtMs: p.importedAt })),
      );
      const source = curSourceInfo(chosen, periods.length - chosen.length);
      const clusters = [...new Set(rows.map((r) => r.cluster).filter((c) => c !== ''))];
      if (clusters.length > 1)
        notes.push(`The CUR's split lines name ${clusters.length} clusters (${clusters.join(', ')}): all are counted.`);
      if (result.curDays.length === 0) {
        notes.push(
          'No split cost allocation data in the CUR for this range: turn on "Split cost allocation data" (Amazon EKS) for the Data Export, then import it with nodepool-ledger cur import.',
        );
      } else if (result.curDays.length < days.length) {
        notes.push(`The CUR has split lines for ${result.curDays.length} of ${days.length} days; the other days are not compared.`);
      }
      if (basis === 'public-on-demand') {
        notes.push(
          "AWS's split of the instances' public on-demand cost: commitments and discounts are out of the difference; Spot instances count at their on-demand price there, where our methods take the Spot price.",
        );
      } else if (metric === 'unblended' || metric === 'net-unblended') {
        notes.push(
          `AWS splits the instance's amortized cost: the CUR series is ${metric === 'unblended' ? 'amortized' : 'net amortized'} whatever the metric.`,
        );
      }
      if (basis === 'billed') {
        notes.push(
          'Our methods price nodes at public on-demand and Spot prices, the CUR at what was billed: a Savings Plan or reservation shows as a negative difference (basis=public-on-demand takes it out).',
        );
      }

      return {
        from: utcDay(fromMs),
        to: utcDay(toMs),
        metric,
        basis,
        idle,
        label,
        groupBy,
        available: result.curDays.length > 0,
        source,
        series: [
          ...TEAM_METHOD_IDS.map((m) => ({ id: m, name: TEAM_METHODS[m].name, source: `Our estimate: ${TEAM_METHODS[m].source}` })),
          { id: 'aws-split-cur' as const, name: 'AWS split (CUR)', source: source.text },
        ],
        curDays: result.curDays,
        rows: only(result.rows),
        totals: only(result.totals),
        notes,
      };
    },
  };
}

export type TeamsCurService = ReturnType<typeof createTeamsCurService>;
