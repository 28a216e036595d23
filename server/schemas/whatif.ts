import { Type, type Static } from '@sinclair/typebox';
import { CurrencySchema, FormatSchema, IsoInstantQuery, NODEPOOL_NAME_PATTERN, Nullable } from './common.js';

/**
 * What-if on the stored data: GET/POST /api/whatif/... — the scheduling engine (core/karpenter/scheduling) run over
 * one stored snapshot (server/analytics/whatif). Every answer is a simulation: it says so, names the snapshot it
 * used and where its prices came from. Amounts are per hour (or per month = × 730) in the snapshot's currency.
 */

const at = IsoInstantQuery('The snapshot used: the newest at or before this instant. Default: the newest snapshot.');
const LIST_PATTERN = (item: string) => `^${item}(,${item}){0,29}$`;
const NAME = '[a-z0-9]([-a-z0-9.]*[a-z0-9])?';

/** What every what-if answer says about itself. */
const simulationProperties = {
  /** Always true: nothing here was observed, the engine computed it. */
  simulation: Type.Literal(true),
  /** ISO 8601 UTC time of the snapshot simulated. */
  snapshotAt: Type.String(),
  currency: CurrencySchema,
  /** Where the engine's catalogue and prices came from, in words. */
  catalogueSource: Type.String(),
  /** What the stored data cannot tell the engine (pod affinities, taints, PDBs are not stored), in words. */
  assumptions: Type.Array(Type.String()),
};

export const InstanceMixSchema = Type.Object({
  instanceType: Type.String(),
  capacityType: Type.String(),
  nodes: Type.Integer(),
  usdPerHour: Type.Number(),
});

export const FootprintSchema = Type.Object({
  nodes: Type.Integer(),
  usdPerHour: Type.Number(),
  /** Costliest first. */
  mix: Type.Array(InstanceMixSchema),
});
export type FootprintJson = Static<typeof FootprintSchema>;

export const UnschedulableSchema = Type.Object({
  /** Only in an answer about every cluster of a ledger holding several. */
  cluster: Type.Optional(Type.String()),
  pod: Type.String(),
  nodePool: Type.String(),
  reason: Type.String(),
});

/**
 * One cluster's part of a what-if asked of every cluster of a ledger holding several (no `?cluster=`): the engine run
 * on that cluster's own newest snapshot (at or before `at`) with its own Karpenter version, exactly what `?cluster=`
 * answers for it; its rows are the answer's rows naming it.
 */
const clusterSectionProperties = {
  cluster: Type.String(),
  snapshotAt: Type.String(),
  currency: CurrencySchema,
  catalogueSource: Type.String(),
};

// --- consolidation headroom and the spot lever

export const HeadroomQuerySchema = Type.Object(
  { at: Type.Optional(at), format: Type.Optional(FormatSchema) },
  { additionalProperties: false },
);
export type HeadroomQuery = Static<typeof HeadroomQuerySchema>;

export const HeadroomRowSchema = Type.Object({
  /** The row's cluster: only in an answer about every cluster of a ledger holding several (no `?cluster=`). */
  cluster: Type.Optional(Type.String()),
  nodePool: Type.String(),
  /** The snapshot's nodes of the NodePool at the catalogue's prices. */
  today: FootprintSchema,
  /** The engine's re-pack from scratch (pods kept in their NodePool and capacity type). */
  repack: FootprintSchema,
  /** The cheaper of today and the re-pack. */
  best: FootprintSchema,
  bestSource: Type.Union([Type.Literal('repack'), Type.Literal('today')]),
  /** The re-pack with spot allowed (pods with karpenter.sh/do-not-disrupt keep their capacity type), or the best placement (the cheaper of today and the re-pack) when cheaper. */
  spot: FootprintSchema,
  spotSource: Type.Union([Type.Literal('repack'), Type.Literal('best')]),
  /** today − best (≥ 0). */
  headroomUsdPerHour: Type.Number(),
  headroomUsdPerMonth: Type.Number(),
  /** best − spot (≥ 0). */
  spotUsdPerHour: Type.Number(),
  spotUsdPerMonth: Type.Number(),
});
export type HeadroomRow = Static<typeof HeadroomRowSchema>;

/** A re-pack's totals: of the answer, and of each cluster's section under "All clusters". */
const HeadroomTotalsSchema = Type.Object({
  todayUsdPerHour: Type.Number(),
  bestUsdPerHour: Type.Number(),
  spotUsdPerHour: Type.Number(),
  headroomUsdPerMonth: Type.Number(),
  spotUsdPerMonth: Type.Number(),
});

export const HeadroomResponseSchema = Type.Object({
  ...simulationProperties,
  rows: Type.Array(HeadroomRowSchema),
  totals: HeadroomTotalsSchema,
  /**
   * Every cluster of a ledger holding several, asked without `?cluster=`: each cluster's snapshot, catalogue and totals
   * (rows, unschedulable pods and unpriced nodes name their cluster; `totals` add the clusters' up, `snapshotAt` is the
   * newest of theirs). Absent from an answer about one cluster.
   */
  clusters: Type.Optional(
    Type.Array(
      Type.Object({
        ...clusterSectionProperties,
        totals: HeadroomTotalsSchema,
        unschedulableCount: Type.Integer({ minimum: 0 }),
      }),
    ),
  ),
  /**
   * Pods the re-pack could not place, the first HEADROOM_UNSCHEDULABLE_LISTED by pod (`unschedulableCount` says how
   * many in all): at the envelope a NodePool's limits leave 133,000 pods out, 30 MB of answer nobody reads pod by pod.
   */
  unschedulable: Type.Array(UnschedulableSchema),
  unschedulableCount: Type.Integer({ minimum: 0 }),
  /** Nodes the catalogue cannot price (left out of today's cost). */
  unpricedNodes: Type.Array(Type.String()),
});
export type HeadroomResponse = Static<typeof HeadroomResponseSchema>;

// --- NodePool edits

export const NodePoolEditQuerySchema = Type.Object(
  {
    at: Type.Optional(at),
    nodepool: Type.String({ pattern: NODEPOOL_NAME_PATTERN, maxLength: 253, description: 'The NodePool to edit (required).' }),
    capacityTypes: Type.Optional(
      Type.String({
        pattern: LIST_PATTERN('(on-demand|spot)'),
        maxLength: 40,
        description: 'New karpenter.sh/capacity-type values, comma-separated: `on-demand`, `spot`.',
      }),
    ),
    families: Type.Optional(
      Type.String({
        pattern: LIST_PATTERN('[a-z][a-z0-9-]{0,20}'),
        maxLength: 400,
        description: 'New karpenter.k8s.aws/instance-family values, comma-separated (`m7g,c7g`); drops instance-category.',
      }),
    ),
    minGeneration: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, description: 'karpenter.k8s.aws/instance-generation Gte this.' })),
    arch: Type.Optional(
      Type.Union([Type.Literal('amd64'), Type.Literal('arm64')], { description: 'kubernetes.io/arch (arm64: Graviton).' }),
    ),
    minCpu: Type.Optional(Type.Integer({ minimum: 1, maximum: 1024, description: 'karpenter.k8s.aws/instance-cpu Gte this (vCPUs).' })),
    maxCpu: Type.Optional(Type.Integer({ minimum: 1, maximum: 1024, description: 'karpenter.k8s.aws/instance-cpu Lte this (vCPUs).' })),
    mergeInto: Type.Optional(
      Type.String({
        pattern: NODEPOOL_NAME_PATTERN,
        maxLength: 253,
        description: 'Merge `nodepool` into this NodePool (its pods move there).',
      }),
    ),
    format: Type.Optional(FormatSchema),
  },
  { additionalProperties: false },
);
export type NodePoolEditQuery = Static<typeof NodePoolEditQuerySchema>;

export const RequirementSchema = Type.Object({
  key: Type.String(),
  operator: Type.String(),
  values: Type.Optional(Type.Array(Type.String())),
  minValues: Type.Optional(Type.Integer()),
});

export const NodePoolEditResponseSchema = Type.Object({
  ...simulationProperties,
  nodePools: Type.Array(Type.String()),
  requirements: Type.Array(RequirementSchema),
  today: FootprintSchema,
  /** The cheaper of today and the re-pack under today's NodePools. */
  before: FootprintSchema,
  /** The re-pack under the edited NodePools. */
  after: FootprintSchema,
  /** before − after per hour; null when the edit leaves pods unschedulable. */
  savingsUsdPerHour: Nullable(Type.Number()),
  savingsUsdPerMonth: Nullable(Type.Number()),
  unschedulable: Type.Array(UnschedulableSchema),
  skippedNodePools: Type.Array(Type.Object({ nodePool: Type.String(), reason: Type.String() })),
});
export type NodePoolEditResponse = Static<typeof NodePoolEditResponseSchema>;

// --- this workload on that NodePool

export const WorkloadPlacementQuerySchema = Type.Object(
  {
    at: Type.Optional(at),
    namespace: Type.Optional(Type.String({ pattern: `^${NAME}$`, maxLength: 63, description: 'The workload’s namespace.' })),
    kind: Type.Optional(Type.String({ pattern: '^[A-Za-z]{1,40}$', description: 'Deployment, StatefulSet, ReplicaSet, Job, Pod…' })),
    name: Type.Optional(Type.String({ pattern: `^${NAME}$`, maxLength: 253, description: 'The workload’s name.' })),
    nodepools: Type.Optional(
      Type.String({
        pattern: LIST_PATTERN(NAME),
        maxLength: 1000,
        description: 'NodePools to place it on, comma-separated. Default: every NodePool.',
      }),
    ),
    format: Type.Optional(FormatSchema),
  },
  { additionalProperties: false },
);
export type WorkloadPlacementQuery = Static<typeof WorkloadPlacementQuerySchema>;

export const WorkloadSummarySchema = Type.Object({
  namespace: Type.String(),
  kind: Type.String(),
  name: Type.String(),
  replicas: Type.Integer(),
  nodePool: Type.String(),
  cpuMillicores: Type.Number(),
  memoryBytes: Type.Number(),
});

export const WorkloadPlacementResponseSchema = Type.Object({
  ...simulationProperties,
  /** Every workload of the snapshot's Karpenter nodes (what the form offers). */
  workloads: Type.Array(WorkloadSummarySchema),
  /** The workload asked for, or null when none was. */
  workload: Nullable(WorkloadSummarySchema),
  placements: Type.Array(
    Type.Object({
      nodePool: Type.String(),
      footprint: FootprintSchema,
      usdPerMonth: Type.Number(),
      unschedulable: Type.Array(UnschedulableSchema),
    }),
  ),
});
export type WorkloadPlacementResponse = Static<typeof WorkloadPlacementResponseSchema>;

// --- why not consolidated

export const WhyNotQuerySchema = Type.Object(
  { at: Type.Optional(at), format: Type.Optional(FormatSchema) },
  { additionalProperties: false },
);
export type WhyNotQuery = Static<typeof WhyNotQuerySchema>;

export const NodeDecisionSchema = Type.Object({
  /** The node's cluster: only in an answer about every cluster of a ledger holding several (no `?cluster=`). */
  cluster: Type.Optional(Type.String()),
  node: Type.String(),
  nodePool: Nullable(Type.String()),
  instanceType: Nullable(Type.String()),
  capacityType: Nullable(Type.String()),
  zone: Nullable(Type.String()),
  pods: Type.Integer(),
  /** What keeping the node costs per hour; null when the catalogue cannot price it. */
  usdPerHour: Nullable(Type.Number()),
  usdPerMonth: Nullable(Type.Number()),
  decision: Type.Union([Type.Literal('delete'), Type.Literal('replace'), Type.Literal('keep')]),
  reason: Type.String(),
  /** karpenter: Karpenter's own message (Unconsolidatable, DisruptionBlocked); ledger: ours, where Karpenter says nothing. */
  wording: Type.Union([Type.Literal('karpenter'), Type.Literal('ledger')]),
});
export type NodeDecision = Static<typeof NodeDecisionSchema>;

const ConsolidationCommandSchema = Type.Object({
  action: Type.Union([Type.Literal('delete'), Type.Literal('replace')]),
  reason: Type.String(),
  method: Type.String(),
  candidates: Type.Array(Type.String()),
  replacement: Nullable(
    Type.Object({ instanceType: Type.String(), capacityType: Type.String(), zone: Type.String(), usdPerHour: Type.Number() }),
  ),
  savingsUsdPerHour: Type.Number(),
});

export const WhyNotResponseSchema = Type.Object({
  ...simulationProperties,
  nodes: Type.Array(NodeDecisionSchema),
  /** The command Karpenter's next round would run, or null (every cluster of several: null, each cluster's is in `clusters`). */
  command: Nullable(ConsolidationCommandSchema),
  /**
   * Every cluster of a ledger holding several, asked without `?cluster=`: each cluster's snapshot and the command its own
   * Karpenter's next round would run (each cluster consolidates on its own); the nodes name their cluster.
   */
  clusters: Type.Optional(Type.Array(Type.Object({ ...clusterSectionProperties, command: Nullable(ConsolidationCommandSchema) }))),
});
export type WhyNotResponse = Static<typeof WhyNotResponseSchema>;

// --- predict

export const PredictQuerySchema = Type.Object({ at: Type.Optional(at) }, { additionalProperties: false });
export type PredictQuery = Static<typeof PredictQuerySchema>;

/** A row's cluster: only in an answer about every cluster of a ledger holding several (no `?cluster=`). */
const rowCluster = { cluster: Type.Optional(Type.String()) };

export const PredictResponseSchema = Type.Object({
  ...simulationProperties,
  /** Pending pods predicted (a Deployment's replicas): the pasted objects' pods, once (every cluster: placed in each). */
  pods: Type.Integer(),
  /** Where they came from ("Deployment shop/web: 3 replicas"). */
  workloads: Type.Array(Type.String()),
  nodeClaims: Type.Array(
    Type.Object({
      ...rowCluster,
      nodePool: Type.String(),
      instanceType: Type.String(),
      instanceTypeOptions: Type.Array(Type.String()),
      capacityType: Type.String(),
      zone: Type.String(),
      usdPerHour: Type.Number(),
      pods: Type.Array(Type.String()),
    }),
  ),
  /** Per NodePool (every cluster: per cluster and NodePool): new nodes, their instance types and what they add per hour. */
  byNodePool: Type.Array(
    Type.Object({
      ...rowCluster,
      nodePool: Type.String(),
      nodes: Type.Integer(),
      instanceTypes: Type.Array(Type.String()),
      capacityTypes: Type.Array(Type.String()),
      usdPerHour: Type.Number(),
    }),
  ),
  existingNodes: Type.Array(
    Type.Object({ ...rowCluster, node: Type.String(), nodePool: Nullable(Type.String()), pods: Type.Array(Type.String()) }),
  ),
  unschedulable: Type.Array(Type.Object({ ...rowCluster, pod: Type.String(), reason: Type.String() })),
  /** What the new NodeClaims add per hour (every cluster: the objects applied to each cluster, the clusters' added). */
  addedUsdPerHour: Type.Number(),
  addedUsdPerMonth: Type.Number(),
  /** Objects of the YAML not used (NodePools, Nodes and other kinds: predict runs against the stored cluster). */
  ignored: Type.Array(Type.String()),
  /**
   * Every cluster of a ledger holding several, asked without `?cluster=`: the pods placed in each cluster on its own
   * (its newest snapshot, NodePools, EC2NodeClasses and Karpenter version), what each would add; the rows name their
   * cluster.
   */
  clusters: Type.Optional(
    Type.Array(
      Type.Object({
        ...clusterSectionProperties,
        nodes: Type.Integer({ minimum: 0 }),
        unschedulableCount: Type.Integer({ minimum: 0 }),
        addedUsdPerHour: Type.Number(),
        addedUsdPerMonth: Type.Number(),
      }),
    ),
  ),
});
export type PredictResponse = Static<typeof PredictResponseSchema>;
