import type { FastifyInstance } from 'fastify';
import { API_ROUTES, type ApiQuery } from '../schemas/api-routes.js';
import { ErrorResponseSchema } from '../schemas/common.js';
import { NodeDecisionSchema } from '../schemas/whatif.js';
import type { EngineRunner } from '../engine-pool/engine-runner.js';
import { headroomAcrossClusters, predictAcrossClusters, whyNotAcrossClusters, type ClusterAnswer } from '../services/whatif-clusters.js';
import { PredictInputError } from '../services/whatif-service.js';
import { oneCluster } from '../cluster-param.js';
import { apiRoutes, clientGone } from './api-route.js';

/** The ledger's clusters, by id and name (clusters-repository list()). */
export type ClusterList = () => readonly { id: number; name: string }[];

/**
 * Every cluster's answer, each asked of the engine as `?cluster=NAME` asks it (the same snapshot and parameters, so
 * the engine keeps one answer for both, engine-call-key.ts: the all-clusters page and a cluster picked after it share
 * their simulations, and the warm-up of the all-clusters page warms each cluster's). A cluster without a snapshot yet is left out; none at all: its 404.
 */
async function perCluster<T>(
  clusters: readonly { id: number; name: string }[],
  ask: (clusterId: number) => Promise<T>,
): Promise<ClusterAnswer<T>[]> {
  const settled = await Promise.allSettled(clusters.map((c) => ask(c.id)));
  const parts: ClusterAnswer<T>[] = [];
  let missing: unknown = null;
  settled.forEach((s, i) => {
    const name = clusters[i]?.name ?? '';
    if (s.status === 'fulfilled') parts.push({ cluster: name, answer: s.value });
    else if ((s.reason as { statusCode?: unknown } | null)?.statusCode === 404) missing ??= s.reason;
    else throw s.reason;
  });
  if (parts.length === 0) throw missing;
  return parts;
}

/** Kubernetes objects as text: what `kubectl get -o yaml` prints, or JSON. */
const TEXT_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml', 'text/plain'];
const MAX_PREDICT_BYTES = 1024 * 1024;

/** What the two what-ifs of the Savings page answer under "All clusters". */
const EVERY_CLUSTER_NOTE =
  'Without `cluster` on a ledger of several clusters: each cluster simulated on its own newest snapshot (at or before `at`) with its own Karpenter version, exactly as `?cluster=` answers it, side by side: every row names its cluster, `clusters` gives each cluster its snapshot, catalogue and figures, and what adds up across clusters (cost per hour, savings per month) is added.';

/** What the what-ifs about one cluster's NodePools answer on a ledger of several (server/cluster-param.ts oneCluster). */
export const ONE_CLUSTER_NOTE =
  'On a ledger of several clusters `cluster` is required (a 400 names the clusters to choose from): the answer is about one cluster’s NodePools, on its own newest snapshot.';

const SIMULATION_NOTE =
  'A simulation by the scheduling engine over one stored snapshot (`at`, default the newest); the answer says so (`simulation: true`), names the snapshot and the catalogue’s prices. GETs never write. Computed off the API’s thread, once per snapshot and parameters however they are asked (`?cluster=` or every cluster, JSON or CSV, an `at` naming the same snapshot); not finished within the time bound: 503 with Retry-After (it goes on, and asking again finds it).';

/** What-if on the stored data: the engine over a snapshot. Each handler is one named call into the engine (worker pool or inline). */
export async function whatIfRoutes(app: FastifyInstance, opts: { engine: EngineRunner; clusters?: ClusterList }): Promise<void> {
  const { engine } = opts;
  const routes = apiRoutes(app, 'whatif');
  /** Several clusters and none named: each cluster's answer, else null (one cluster, or `?cluster=`: as before). */
  const everyCluster = (clusterId: number | null) => {
    if (clusterId !== null || opts.clusters === undefined) return null;
    const held = opts.clusters();
    return held.length < 2 ? null : held;
  };
  /** The one cluster an edit or a placement runs on: ?cluster=, or the ledger's only one; several and none named: 400. */
  const theCluster = (clusterId: number | null, what: string) => oneCluster(clusterId, opts.clusters?.() ?? [], what);

  routes.get(
    '/api/whatif/headroom',
    {
      summary:
        'Consolidation headroom and the spot lever per NodePool: today’s cost per hour against a re-pack of every pod from scratch, USD per month (× 730)',
      description: `${SIMULATION_NOTE} Pods stay in their NodePool and capacity type for the best placement (the cheaper of today and the re-pack) (the cheaper of the re-pack and today); the spot figure lets pods without karpenter.sh/do-not-disrupt take spot. ${EVERY_CLUSTER_NOTE}`,
      errors: [404, 503],
      engineAnswer: true,
      csv: {
        fileName: 'whatif-headroom',
        table: (b) =>
          b.rows.map((r) => ({
            ...(r.cluster === undefined ? {} : { cluster: r.cluster }),
            nodePool: r.nodePool,
            todayNodes: r.today.nodes,
            todayUsdPerHour: r.today.usdPerHour,
            bestNodes: r.best.nodes,
            bestUsdPerHour: r.best.usdPerHour,
            bestSource: r.bestSource,
            spotNodes: r.spot.nodes,
            spotUsdPerHour: r.spot.usdPerHour,
            headroomUsdPerMonth: r.headroomUsdPerMonth,
            spotUsdPerMonth: r.spotUsdPerMonth,
            snapshotAt: b.snapshotAt,
          })),
      },
    },
    async (q, ctx) => {
      const all = everyCluster(ctx.clusterId);
      if (all === null) return engine.run('whatif', 'headroom', [q, ctx.clusterId], { signal: ctx.signal });
      return headroomAcrossClusters(await perCluster(all, (id) => engine.run('whatif', 'headroom', [q, id], { signal: ctx.signal })));
    },
  );

  routes.get(
    '/api/whatif/nodepool-edit',
    {
      summary:
        'A NodePool edit (capacity types, families, generation, arch, vCPU bounds) or a merge into another: node count, instance mix and cost per hour before and after',
      description: `${SIMULATION_NOTE} Before: the cheaper of today and the re-pack under today's NodePools; after: the re-pack under the edited ones; both with the pods of the NodePools touched only. ${ONE_CLUSTER_NOTE}`,
      errors: [404, 503],
      engineAnswer: true,
      csv: {
        fileName: 'whatif-nodepool-edit',
        table: (b) =>
          (['today', 'before', 'after'] as const).flatMap((side) => b[side].mix.map((m) => ({ side, ...m, snapshotAt: b.snapshotAt }))),
      },
    },
    (q, ctx) => engine.run('whatif', 'nodePoolEdit', [q, theCluster(ctx.clusterId, 'a NodePool edit')], { signal: ctx.signal }),
  );

  routes.get(
    '/api/whatif/workload',
    {
      summary:
        'This workload on that NodePool: a stored workload’s pods provisioned on fresh nodes of each NodePool asked, priced without running it',
      description: `${SIMULATION_NOTE} Without namespace/kind/name: the workloads to choose from. \`nodepools\` default: every NodePool. ${ONE_CLUSTER_NOTE}`,
      errors: [404, 503],
      engineAnswer: true,
      csv: {
        fileName: 'whatif-workload',
        // The placements of the workload asked for; without one, the workloads to choose from.
        table: (b) =>
          b.workload === null
            ? b.workloads
            : b.placements.map((p) => ({
                nodePool: p.nodePool,
                nodes: p.footprint.nodes,
                usdPerHour: p.footprint.usdPerHour,
                usdPerMonth: p.usdPerMonth,
                instanceTypes: p.footprint.mix.map((m) => `${m.nodes} x ${m.instanceType} ${m.capacityType}`).join('; '),
                unschedulable: p.unschedulable.length,
              })),
      },
    },
    (q, ctx) => engine.run('whatif', 'workload', [q, theCluster(ctx.clusterId, 'a workload placement')], { signal: ctx.signal }),
  );

  routes.get(
    '/api/whatif/why-not',
    {
      summary:
        'Why not consolidated: per node, the decision of Karpenter’s next consolidation round or the reason it stays (Karpenter’s wording where it has one), with its cost',
      description: `${SIMULATION_NOTE} CSV: one line per node. ${EVERY_CLUSTER_NOTE} Each cluster's next round (its command) is in \`clusters\`.`,
      errors: [404, 503],
      engineAnswer: true,
      csv: {
        fileName: 'why-not-consolidated',
        // The cluster column only in an answer about several clusters (one cluster's CSV as before).
        table: (b) => ({
          columns: Object.keys(NodeDecisionSchema.properties).filter((k) => k !== 'cluster' || b.clusters !== undefined),
          rows: b.nodes,
        }),
      },
    },
    async (q, ctx) => {
      const all = everyCluster(ctx.clusterId);
      if (all === null) return engine.run('whatif', 'whyNot', [q, ctx.clusterId], { signal: ctx.signal });
      return whyNotAcrossClusters(await perCluster(all, (id) => engine.run('whatif', 'whyNot', [q, id], { signal: ctx.signal })));
    },
  );

  // Predict takes Kubernetes objects as text; parsed here, in this plugin only, as a string.
  app.addContentTypeParser(TEXT_TYPES, { parseAs: 'string', bodyLimit: MAX_PREDICT_BYTES }, (_req, body, done) => done(null, body));
  const predict = API_ROUTES['/api/whatif/predict'];
  app.post(
    '/api/whatif/predict',
    {
      bodyLimit: MAX_PREDICT_BYTES,
      schema: {
        summary:
          'Predict: a pasted Pod or Deployment (with replicas) → NodePool, instance type(s), capacity type, node count and cost per hour on the stored cluster',
        description: `${SIMULATION_NOTE} The body is YAML or JSON as \`kubectl get -o yaml\` prints it (application/yaml, text/plain or application/json; at most 1 MB); a bad body is a 400 naming the document and object. \`cluster\`: the cluster the pods would join (its newest snapshot, NodePools, EC2NodeClasses and Karpenter version). Without it on a ledger of several clusters: the pods placed in each cluster on its own, exactly as \`?cluster=\` answers it, side by side: every row names its cluster, \`clusters\` gives each cluster's snapshot, catalogue, new nodes and added cost, and \`addedUsdPerHour\` is the objects applied to every cluster.`,
        tags: ['whatif'],
        querystring: predict.query,
        response: {
          200: predict.response,
          400: ErrorResponseSchema,
          404: ErrorResponseSchema,
          500: ErrorResponseSchema,
          503: ErrorResponseSchema,
        },
      },
    },
    async (req, reply) => {
      const body = typeof req.body === 'string' ? req.body : req.body === undefined || req.body === null ? '' : JSON.stringify(req.body);
      if (typeof req.body !== 'string' && req.body !== undefined && req.body !== null && typeof req.body !== 'object')
        throw new PredictInputError('Send the objects as YAML or JSON.');
      const q = req.query as ApiQuery<'/api/whatif/predict'>;
      const signal = clientGone(reply);
      const clusterId = req.cluster?.id ?? null;
      const all = everyCluster(clusterId);
      if (all === null) return engine.run('whatif', 'predict', [q, clusterId, body], { signal });
      return predictAcrossClusters(await perCluster(all, (id) => engine.run('whatif', 'predict', [q, id, body], { signal })));
    },
  );
}
