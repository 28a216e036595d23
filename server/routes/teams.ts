import type { FastifyInstance } from 'fastify';
import type { TeamsCurService } from '../services/teams-cur-service.js';
import type { ClusterName, TeamsService } from '../services/teams-service.js';
import { apiRoutes } from './api-route.js';

/** Teams: the node cost split over the teams (or namespaces) that requested it. */
export async function teamsRoutes(
  app: FastifyInstance,
  opts: { teams: TeamsService; teamsCur: TeamsCurService; clusters?: () => readonly ClusterName[] },
): Promise<void> {
  const { teams, teamsCur } = opts;
  const routes = apiRoutes(app, 'teams');
  /** The ledger's clusters: several and none named, each cluster is split on its own (rows per cluster). */
  const held = (clusterId: number | null): readonly ClusterName[] => (clusterId === null ? (opts.clusters?.() ?? []) : []);

  routes.get(
    '/api/teams/cost',
    {
      summary: 'Node cost split over teams by request share, AWS split cost allocation or OpenCost (`method`), with idle per NodePool',
      description:
        'Lines in cents that add up exactly to the node cost. `method=request-share` (default; `weights=` cpu,memory applies to it only), `aws-split` or `opencost`, answered with `methodInfo` (name, source, link, definition) and `feed` (requests only, or how much of the range usage fed); `idle` (line or spread), `label` (the team label), `groupBy` (team or namespace), `team`. Without `cluster` on a ledger of several clusters: each cluster split on its own (exactly its `?cluster=` rows), every row naming its cluster — a namespace two clusters run is two rows — and the totals added.',
      csv: { fileName: 'teams-cost', table: (b) => b.rows },
    },
    (q, c) => teams.cost(q, c.clusterId, held(c.clusterId)),
  );

  routes.get(
    '/api/teams/cost/series',
    {
      summary: 'The same split per day or week from `from` (`bucket`), each bucket equal to /api/teams/cost over its range',
      description:
        "The same parameters as /api/teams/cost; default days up to 31 days, weeks beyond; `from` on a whole UTC hour. Cents add up to each bucket's node cost, idle included. CSV: one line per bucket and team.",
      csv: {
        fileName: 'teams-cost-series',
        table: (b) =>
          b.buckets.flatMap((k) =>
            k.teams.map((t) => ({
              from: k.from,
              to: k.to,
              ...(t.cluster === undefined ? {} : { cluster: t.cluster }),
              kind: t.kind,
              team: t.team,
              costUsd: t.costUsd,
            })),
          ),
      },
    },
    (q, c) => teams.series(q, c.clusterId, held(c.clusterId)),
  );

  routes.get(
    '/api/teams/cur',
    {
      summary:
        "AWS's split cost allocation from the Cost and Usage Report per team and UTC day beside our three methods, with CUR − ours per method",
      description:
        'Whole UTC days. The four series (request share, AWS split, OpenCost, "AWS split (CUR)" with its source); unused cost as the idle row (`idle=line`) or handed to the teams (`spread`); `metric` net-* reads the net split cost (AWS splits amortized cost, so unblended reads as amortized). Teams by the same rules as /api/teams/cost (`label`, `groupBy`, `team`, `weights` for request share). Days without CUR split lines have curUsd null. CSV: one line per day and team.',
      csv: {
        fileName: 'teams-cur',
        table: (b) =>
          b.rows.map((r) => ({
            day: r.day,
            kind: r.kind,
            team: r.team,
            curUsd: r.curUsd,
            requestShareUsd: r.ours['request-share'],
            awsSplitUsd: r.ours['aws-split'],
            openCostUsd: r.ours.opencost,
            curMinusRequestShareUsd: r.differenceUsd['request-share'],
            curMinusAwsSplitUsd: r.differenceUsd['aws-split'],
            curMinusOpenCostUsd: r.differenceUsd.opencost,
          })),
      },
    },
    (q, c) => teamsCur.compare(q, c.clusterId),
  );
}
