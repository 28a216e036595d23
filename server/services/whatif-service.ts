import { EngineInputError, parseObjectStream, type KubePod } from '../../core/karpenter/scheduling/index.js';
import { consolidationHeadroom } from '../analytics/whatif/headroom.js';
import { nodePoolEdit, NodePoolEditError, type NodePoolEdit } from '../analytics/whatif/nodepool-edit.js';
import { predict } from '../analytics/whatif/predict.js';
import { perMonth, type Footprint } from '../analytics/whatif/repack.js';
import { whyNotConsolidated } from '../analytics/whatif/why-not.js';
import { snapshotWorkloads, workloadId, workloadOnNodePools } from '../analytics/whatif/workload-placement.js';
import { isoInstant, QueryParamError } from '../analytics/range.js';
import type { Currency } from '../schemas/common.js';
import type {
  FootprintJson,
  HeadroomQuery,
  HeadroomResponse,
  NodePoolEditQuery,
  NodePoolEditResponse,
  PredictQuery,
  PredictResponse,
  WhyNotQuery,
  WhyNotResponse,
  WorkloadPlacementQuery,
  WorkloadPlacementResponse,
} from '../schemas/whatif.js';
import { NotFoundError, optionalInstant } from './analytics-range.js';
import type { LoadedWorld, WhatIfWorlds } from './whatif-world.js';

/**
 * What every answer assumes, said in every answer; what the snapshot itself lacks (an older snapshot: no pod specs,
 * no PDBs, the NodePools as last collected) follows from the reader's gaps.
 */
export const ASSUMPTIONS = [
  'The snapshot as the collector stored it: its nodes (taints, cordons, karpenter.sh/disrupted), pods (node selector, affinity, tolerations, topology spread, priority, volumes; finished pods left out), PodDisruptionBudgets, DaemonSets, volumes, EC2NodeClasses, NodeOverlays and the NodePools of that time, decided as the cluster’s Karpenter release decides.',
  'A re-pack places each pod from scratch in the NodePool it runs in (or the one an edit sends it to), with its own constraints; DaemonSet pods stay with their nodes and add their overhead to each new node they would run on.',
  'Karpenter’s first-fit packing is not optimal: where its re-pack costs more than today, the cheaper of the two (`best`) is today’s placement.',
];

/** A bad predict body: 400, naming the problem. */
export class PredictInputError extends Error {
  readonly statusCode = 400;
}

const MAX_PREDICT_PODS = 1000;
/** Unschedulable pods a headroom answer lists (the count is all of them); the figures count every pod either way. */
export const HEADROOM_UNSCHEDULABLE_LISTED = 200;

const round = (n: number): number => Math.round(n * 1e6) / 1e6;
const footprint = (f: Footprint): FootprintJson => ({
  nodes: f.nodes,
  usdPerHour: round(f.usdPerHour),
  mix: f.mix.map((m) => ({ ...m, usdPerHour: round(m.usdPerHour) })),
});
const list = (v: string | undefined): string[] | undefined => (v === undefined ? undefined : [...new Set(v.split(','))]);

export function createWhatIfService(worlds: WhatIfWorlds) {
  const load = (q: { at?: string }, clusterId: number | null = null): LoadedWorld => worlds.load(optionalInstant('at', q.at), clusterId);
  const about = (w: LoadedWorld) => ({
    simulation: true as const,
    snapshotAt: isoInstant(w.world.takenAt),
    currency: (w.currency === 'CNY' ? 'CNY' : 'USD') as Currency,
    catalogueSource: w.catalogueSource,
    assumptions: [...ASSUMPTIONS, ...w.gaps.map((g) => `This snapshot lacks: ${g}.`)],
  });

  return {
    headroom(q: HeadroomQuery, clusterId: number | null = null): HeadroomResponse {
      const w = load(q, clusterId);
      const h = consolidationHeadroom(w.world, w.context);
      const sum = (pick: (r: (typeof h.rows)[number]) => number) => round(h.rows.reduce((s, r) => s + pick(r), 0));
      return {
        ...about(w),
        rows: h.rows.map((r) => ({
          nodePool: r.nodePool,
          today: footprint(r.today),
          repack: footprint(r.repack),
          best: footprint(r.best),
          bestSource: r.bestSource,
          spot: footprint(r.spot),
          spotSource: r.spotSource,
          headroomUsdPerHour: round(r.headroomUsdPerHour),
          headroomUsdPerMonth: round(r.headroomUsdPerMonth),
          spotUsdPerHour: round(r.spotUsdPerHour),
          spotUsdPerMonth: round(r.spotUsdPerMonth),
        })),
        totals: {
          todayUsdPerHour: sum((r) => r.today.usdPerHour),
          bestUsdPerHour: sum((r) => r.best.usdPerHour),
          spotUsdPerHour: sum((r) => r.spot.usdPerHour),
          headroomUsdPerMonth: sum((r) => r.headroomUsdPerMonth),
          spotUsdPerMonth: sum((r) => r.spotUsdPerMonth),
        },
        unschedulable: h.unschedulable.slice(0, HEADROOM_UNSCHEDULABLE_LISTED),
        unschedulableCount: h.unschedulable.length,
        unpricedNodes: h.unpricedNodes,
      };
    },

    nodePoolEdit(q: NodePoolEditQuery, clusterId: number | null = null): NodePoolEditResponse {
      const w = load(q, clusterId);
      const edit: NodePoolEdit = {
        nodePool: q.nodepool,
        ...(q.capacityTypes === undefined ? {} : { capacityTypes: list(q.capacityTypes) }),
        ...(q.families === undefined ? {} : { families: list(q.families) }),
        ...(q.minGeneration === undefined ? {} : { minGeneration: q.minGeneration }),
        ...(q.arch === undefined ? {} : { arch: q.arch }),
        ...(q.minCpu === undefined ? {} : { minCpu: q.minCpu }),
        ...(q.maxCpu === undefined ? {} : { maxCpu: q.maxCpu }),
        ...(q.mergeInto === undefined ? {} : { mergeInto: q.mergeInto }),
      };
      if (q.minCpu !== undefined && q.maxCpu !== undefined && q.minCpu > q.maxCpu)
        throw new QueryParamError('minCpu', `${q.minCpu} is above maxCpu ${q.maxCpu}`);
      try {
        const r = nodePoolEdit(w.world, edit, w.context);
        return {
          ...about(w),
          nodePools: r.nodePools,
          requirements: r.requirements,
          today: footprint(r.today),
          before: footprint(r.before),
          after: footprint(r.after),
          savingsUsdPerHour: r.savingsUsdPerHour === null ? null : round(r.savingsUsdPerHour),
          savingsUsdPerMonth: r.savingsUsdPerHour === null ? null : round(perMonth(r.savingsUsdPerHour)),
          unschedulable: r.unschedulable,
          skippedNodePools: r.skippedNodePools,
        };
      } catch (err) {
        if (err instanceof NodePoolEditError) throw new QueryParamError(err.param, err.message);
        throw err;
      }
    },

    workload(q: WorkloadPlacementQuery, clusterId: number | null = null): WorkloadPlacementResponse {
      const w = load(q, clusterId);
      const workloads = snapshotWorkloads(w.context);
      const given = [q.namespace, q.kind, q.name].filter((v) => v !== undefined).length;
      if (given !== 0 && given !== 3)
        throw new QueryParamError(
          q.namespace === undefined ? 'namespace' : q.kind === undefined ? 'kind' : 'name',
          'a workload is named by namespace, kind and name together',
        );
      const pools = w.world.objects.nodePools.map((np) => np.metadata.name);
      const asked = list(q.nodepools) ?? pools;
      const unknown = asked.filter((p) => !pools.includes(p));
      if (unknown.length > 0) throw new QueryParamError('nodepools', `${unknown.join(', ')} not in the snapshot (${pools.join(', ')})`);
      let workload: WorkloadPlacementResponse['workload'] = null;
      let placements: WorkloadPlacementResponse['placements'] = [];
      if (q.namespace !== undefined && q.kind !== undefined && q.name !== undefined) {
        const id = workloadId({ namespace: q.namespace, kind: q.kind, name: q.name });
        workload = workloads.find((x) => workloadId(x) === id) ?? null;
        if (workload === null)
          throw new NotFoundError(
            `no workload ${q.kind} ${q.namespace}/${q.name} runs on Karpenter nodes at ${isoInstant(w.world.takenAt)}`,
          );
        placements = workloadOnNodePools(w.context, workload, asked).map((p) => ({
          nodePool: p.nodePool,
          footprint: footprint(p.footprint),
          usdPerMonth: round(perMonth(p.footprint.usdPerHour)),
          unschedulable: p.unschedulable,
        }));
      }
      return { ...about(w), workloads, workload, placements };
    },

    whyNot(q: WhyNotQuery, clusterId: number | null = null): WhyNotResponse {
      const w = load(q, clusterId);
      const r = whyNotConsolidated(w.context);
      return {
        ...about(w),
        nodes: r.nodes.map((n) => ({
          ...n,
          usdPerHour: n.usdPerHour === null ? null : round(n.usdPerHour),
          usdPerMonth: n.usdPerHour === null ? null : round(perMonth(n.usdPerHour)),
        })),
        command: r.command,
      };
    },

    /** The cluster second, as every what-if takes it (the engine pool's affinity reads it there). */
    predict(q: PredictQuery, clusterId: number | null, body: string): PredictResponse {
      if (body.trim() === '') throw new PredictInputError('The body is empty: send a Pod or Deployment as YAML or JSON.');
      let stream;
      try {
        stream = parseObjectStream(body, 'body');
      } catch (err) {
        if (err instanceof EngineInputError) throw new PredictInputError(err.message);
        throw err;
      }
      const pods: KubePod[] = stream.pods.filter((p) => !p.spec.nodeName);
      if (pods.length === 0)
        throw new PredictInputError('The YAML holds no Pod or workload to place (a Pod, Deployment, StatefulSet, ReplicaSet or Job).');
      if (pods.length > MAX_PREDICT_PODS)
        throw new PredictInputError(`${pods.length} pods to place: at most ${MAX_PREDICT_PODS} per request.`);
      const w = load(q, clusterId);
      let r;
      try {
        r = predict(w.context, pods);
      } catch (err) {
        if (err instanceof EngineInputError) throw new PredictInputError(err.message);
        throw err;
      }
      const byPool = new Map<string, { nodes: number; types: Set<string>; cts: Set<string>; usd: number }>();
      for (const nc of r.nodeClaims) {
        const p = byPool.get(nc.nodePool) ?? { nodes: 0, types: new Set<string>(), cts: new Set<string>(), usd: 0 };
        p.nodes += 1;
        p.types.add(nc.instanceType);
        p.cts.add(nc.capacityType);
        p.usd += nc.usdPerHour;
        byPool.set(nc.nodePool, p);
      }
      const ignored = [
        ...stream.nodePools.map((np) => `NodePool ${np.metadata.name} (predict uses the stored NodePools)`),
        ...stream.nodes.map((n) => `Node ${n.metadata.name} (predict uses the stored nodes)`),
        ...stream.ignored.map((o) => `${o.kind} ${o.name}`),
      ];
      return {
        ...about(w),
        pods: r.pods,
        workloads: stream.expanded.map((e) => `${e.workload}: ${e.pods.length} replica(s)`),
        nodeClaims: r.nodeClaims.map((nc) => ({ ...nc, usdPerHour: round(nc.usdPerHour) })),
        byNodePool: [...byPool]
          .sort((a, b) => a[0].localeCompare(b[0]))
          .map(([nodePool, p]) => ({
            nodePool,
            nodes: p.nodes,
            instanceTypes: [...p.types].sort(),
            capacityTypes: [...p.cts].sort(),
            usdPerHour: round(p.usd),
          })),
        existingNodes: r.existingNodes,
        unschedulable: r.unschedulable,
        addedUsdPerHour: round(r.addedUsdPerHour),
        addedUsdPerMonth: round(perMonth(r.addedUsdPerHour)),
        ignored,
      };
    },
  };
}

export type WhatIfService = ReturnType<typeof createWhatIfService>;
