import { Type, type Static } from '@sinclair/typebox';
import { CurrencySchema, Nullable } from './common.js';

/** GET /api/status: where the data comes from, what range it covers, and how the last collections went. */

export const DataSourceSchema = Type.Union([Type.Literal('sandbox'), Type.Literal('aws'), Type.Literal('unknown')]);
/** Where the data came from: the embedded sandbox (simulated cluster and bill) or a real AWS account. */
export type DataSource = Static<typeof DataSourceSchema>;

/**
 * running: in progress; ok / failed: finished; abandoned: its collector stopped without finishing (killed, or its
 * lock taken over), found by the next collector to take the lock — the message says which one.
 */
export const RunStatusSchema = Type.Union([Type.Literal('running'), Type.Literal('ok'), Type.Literal('failed'), Type.Literal('abandoned')]);
export type RunStatus = Static<typeof RunStatusSchema>;

export const CollectionRunSchema = Type.Object({
  /** 'kubernetes' | 'cost-explorer' | 'pricing' | 'spot' | 'demo' */
  kind: Type.String(),
  source: DataSourceSchema,
  status: RunStatusSchema,
  /** ISO 8601 UTC. */
  startedAt: Type.String(),
  /** ISO 8601 UTC; null while running (for an abandoned run: when it was found abandoned). */
  finishedAt: Nullable(Type.String()),
  rowsWritten: Type.Integer(),
  message: Nullable(Type.String()),
});
export type CollectionRun = Static<typeof CollectionRunSchema>;

export const ClusterFreshnessSchema = Type.Object({
  /** The EKS cluster name (eks:eks-cluster-name): the value `?cluster=` takes. */
  name: Type.String(),
  /** The AWS account and region as declared or learnt; null when not known. */
  account: Nullable(Type.String()),
  region: Nullable(Type.String()),
  /** Its newest snapshot (ISO 8601 UTC); null before its first. */
  lastSnapshotAt: Nullable(Type.String()),
  /** Its cadence: the median interval between its newest snapshots, in seconds; null with fewer than two. */
  cadenceSeconds: Nullable(Type.Number()),
  /**
   * Behind: its newest snapshot is more than three of its own cadences (at least 15 minutes) older than the ledger's
   * newest snapshot of any cluster, or it has none while another cluster has. A one-cluster ledger is never stale here.
   */
  stale: Type.Boolean(),
  /** Its latest Kubernetes collection run; null before any run recorded for it. */
  lastRun: Nullable(CollectionRunSchema),
});

/** Where prices come from for the cluster's region, and the currency every amount of this database is in. */
export const PricingStatusSchema = Type.Object({
  /**
   * USD, or CNY for a China (aws-cn) cluster: every amount the API returns is in it, including fields whose names
   * end in Usd (their names predate currencies). Amounts in two currencies are never added up.
   */
  currency: CurrencySchema,
  /** The cluster's region and partition as last collected; null before any collection priced a node. */
  region: Nullable(Type.String()),
  /** aws | aws-cn | aws-us-gov | aws-iso | aws-iso-b | aws-iso-e | aws-iso-f */
  partition: Nullable(Type.String()),
  /** The Pricing API endpoint region asked for on-demand prices; null where none is asked (GovCloud, isolated partitions). */
  pricingEndpoint: Nullable(Type.String()),
  /** Why no Pricing API call is made, when none is. */
  pricingSkipped: Nullable(Type.String()),
  /** The region of Karpenter's static table that prices what the APIs do not (the region's own, else its partition's). */
  staticTable: Nullable(Type.String()),
});
export type PricingStatus = Static<typeof PricingStatusSchema>;
export const UsageStatusSchema = Type.Object({
  /**
   * The last snapshot's metrics.k8s.io status: available; absent (no metrics-server, 404); unavailable (its
   * APIService not answering, 503); forbidden (RBAC); failed. null before any snapshot recorded one.
   */
  metricsServer: Nullable(
    Type.Object({
      state: Type.Union([
        Type.Literal('available'),
        Type.Literal('absent'),
        Type.Literal('unavailable'),
        Type.Literal('forbidden'),
        Type.Literal('failed'),
      ]),
      /** One sentence for the user: what happened and what to do. */
      message: Type.String(),
      /** ISO 8601 UTC. */
      checkedAt: Type.String(),
    }),
  ),
  /** Snapshots that recorded a usage status, and those where metrics-server answered. */
  snapshots: Type.Integer(),
  snapshotsWithUsage: Type.Integer(),
  /** The last snapshot with usage, ISO 8601 UTC; null without any. */
  lastUsageAt: Nullable(Type.String()),
  /** The last Prometheus backfill (collect --prometheus); null without one. */
  prometheus: Nullable(
    Type.Object({
      /** The API's base URL, without credentials. */
      url: Type.String(),
      ok: Type.Boolean(),
      message: Nullable(Type.String()),
      /** ISO 8601 UTC: when it ran, and the hours it covered [from, to). */
      at: Type.String(),
      from: Type.String(),
      to: Type.String(),
      requests: Type.Integer(),
      series: Type.Integer(),
      /** Workload-hours written (hours metrics-server had measured are never replaced). */
      rollupsWritten: Type.Integer(),
    }),
  ),
  /**
   * Only the top-level `usage` of a ledger holding several clusters, which sums up every cluster's (worst metrics-server
   * state, snapshots of all, Prometheus ok only when every cluster's is): the clusters whose metrics-server does not
   * answer or whose Prometheus backfill failed (each cluster's own status is `clusters[].usage`).
   */
  failing: Type.Optional(Type.Array(Type.String())),
});
export type UsageStatus = Static<typeof UsageStatusSchema>;

/** The database file and what retention keeps of it (collect --raw-retention, --retention; issue 24). */
export const StoreStatusSchema = Type.Object({
  /** The database file's size (its pages; the WAL beside it not counted), bytes, and of that what is free pages. */
  fileBytes: Type.Integer(),
  freeBytes: Type.Integer(),
  /** incremental: freed pages are handed back after each fold, so the file shrinks; none: a file made before that. */
  autoVacuum: Type.Union([Type.Literal('incremental'), Type.Literal('full'), Type.Literal('none')]),
  /** How long 5-minute snapshots are kept before they are folded into hourly ones ("14d"), and everything ("13mo"). */
  rawRetention: Type.String(),
  retention: Type.String(),
  /** The oldest 5-minute snapshot, ISO 8601 UTC; null without any. */
  rawFrom: Nullable(Type.String()),
  /** The hourly (folded) snapshots: [hourlyFrom, hourlyTo), ISO 8601 UTC; null when nothing is folded yet. */
  hourlyFrom: Nullable(Type.String()),
  hourlyTo: Nullable(Type.String()),
  /** The collector's last retention pass; null before any. */
  lastRun: Nullable(
    Type.Object({
      /** When it ran (the collector's clock), ISO 8601 UTC. */
      at: Type.String(),
      /** 5-minute snapshots folded, and those left before the raw boundary for the next passes. */
      folded: Type.Integer(),
      pending: Type.Integer(),
      /** Rows deleted as older than the horizon; pages handed back to the file system. */
      deleted: Type.Integer(),
      pagesFreed: Type.Integer(),
      /** The longest single transaction of the pass, ms (a reader never waits for it; the next snapshot at most that). */
      longestTransactionMs: Type.Number(),
      /** Folded before this hour; deleted before this instant (ISO 8601 UTC). */
      rawBoundary: Type.String(),
      horizon: Type.String(),
      /** What stopped the pass, if anything (each step is its own transaction: the file stays sound). */
      error: Nullable(Type.String()),
    }),
  ),
});
export type StoreStatus = Static<typeof StoreStatusSchema>;

/**
 * What `demo` still fills in behind a dashboard that already answers (issue 24): it serves as soon as its database is
 * open, then simulates the scenario, collects its snapshots oldest first, pulls the bill, writes and imports the CUR.
 */
export const FillStatusSchema = Type.Object({
  /**
   * simulating (the scenario's history, in a worker thread), snapshots, bill (Cost Explorer), cur (the export written,
   * then imported), retention; done; failed (see error).
   */
  stage: Type.Union([
    Type.Literal('simulating'),
    Type.Literal('snapshots'),
    Type.Literal('bill'),
    Type.Literal('cur'),
    Type.Literal('retention'),
    Type.Literal('done'),
    Type.Literal('failed'),
  ]),
  /** Snapshots written by this fill, of how many it collects (0 of 0 when the file was seeded already). */
  snapshotsDone: Type.Integer(),
  snapshotsTotal: Type.Integer(),
  /** When the fill started and (once done or failed) finished, ISO 8601 UTC, the machine's clock. */
  startedAt: Type.String(),
  finishedAt: Nullable(Type.String()),
  /** Why it stopped, when it failed; the dashboard keeps serving what was written. */
  error: Nullable(Type.String()),
});
export type FillStatus = Static<typeof FillStatusSchema>;

export const StatusResponseSchema = Type.Object({
  /** Source of the most recent collection run; 'unknown' before any run. */
  dataSource: DataSourceSchema,
  range: Type.Object({
    /** First and last snapshot, ISO 8601 UTC; null without snapshots. */
    firstSnapshotAt: Nullable(Type.String()),
    lastSnapshotAt: Nullable(Type.String()),
    /** First and last Cost Explorer day (YYYY-MM-DD, UTC); null without cost lines. */
    firstCostDay: Nullable(Type.String()),
    lastCostDay: Nullable(Type.String()),
  }),
  /** What the cost and efficiency routes use when `from` / `to` are left out (ISO 8601 UTC; `to` exclusive). */
  defaultRange: Type.Object({ from: Type.String(), to: Type.String() }),
  lastRun: Nullable(CollectionRunSchema),
  /** The latest run of each kind, sorted by kind. */
  lastRunByKind: Type.Array(CollectionRunSchema),
  counts: Type.Object({ snapshots: Type.Integer(), nodePools: Type.Integer(), costLines: Type.Integer() }),
  pricing: PricingStatusSchema,
  /** Where what pods really use comes from: metrics-server with every snapshot, and an optional Prometheus backfill. */
  usage: UsageStatusSchema,
  store: StoreStatusSchema,
  /** The demo's fill behind the dashboard, while this process runs it (and once it finished); null from `serve`. */
  fill: Nullable(FillStatusSchema),
  /**
   * Each cluster of the ledger, how fresh its snapshots are (the banner names a stale one) and where its usage comes
   * from (its own metrics-server status, Prometheus backfill and snapshots; the banner names a cluster whose usage
   * source fails; only with several clusters). The top-level `usage` is the first cluster's status over every
   * cluster's snapshots, as before.
   */
  clusters: Type.Array(Type.Object({ ...ClusterFreshnessSchema.properties, usage: Type.Optional(UsageStatusSchema) })),
});
export type StatusResponse = Static<typeof StatusResponseSchema>;
