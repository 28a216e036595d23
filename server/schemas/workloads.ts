import { Type, type Static } from '@sinclair/typebox';
import { FormatSchema, IsoInstantQuery, Nullable } from './common.js';

/**
 * Workloads: GET /api/workloads/recommendations — right-sized requests per workload (owner kind/name, namespace) and
 * container over a window of usage (core/rightsizing.ts), its usage efficiency (core/usage-efficiency.ts), and the
 * dollar effect of the change BY REQUEST SHARE: the change in requests × its NodePool's node cost per requested unit
 * at the newest snapshot, × 730 h. Nodes are not re-packed (that is the what-if engine's, future work), so the figure
 * is what request-share attribution would charge, not a bill after consolidation.
 */

/** `14d`, `36h`: 1 hour to 90 days. */
export const USAGE_WINDOW_PATTERN = '^[1-9][0-9]{0,3}(h|d)$';
const NAMESPACE_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';

export const RecommendationsQuerySchema = Type.Object(
  {
    window: Type.Optional(
      Type.String({ pattern: USAGE_WINDOW_PATTERN, maxLength: 5, description: 'Usage history read, `1h` to `90d`. Default 14d.' }),
    ),
    at: Type.Optional(IsoInstantQuery('End of the window and the snapshot prices are read at. Default: the newest snapshot.')),
    namespace: Type.Optional(Type.String({ pattern: NAMESPACE_PATTERN, maxLength: 63, description: 'Only this namespace.' })),
    format: Type.Optional(FormatSchema),
  },
  { additionalProperties: false },
);
export type RecommendationsQuery = Static<typeof RecommendationsQuerySchema>;

export const RightsizingFlagSchema = Type.Union([
  Type.Literal('short-history'),
  Type.Literal('throttled'),
  Type.Literal('oom-killed'),
  Type.Literal('no-request'),
]);

export const RecommendationRowSchema = Type.Object({
  namespace: Type.String(),
  workloadKind: Type.String(),
  workloadName: Type.String(),
  container: Type.String(),
  /** Where most of its pods ran at the newest snapshot with usage; null when none ran then. */
  nodePool: Nullable(Type.String()),
  /** Its pods at that snapshot (0: not running now, so no dollar effect). */
  replicas: Type.Integer(),
  /** Per replica, the newest request seen; null when none was. */
  currentCpuMillicores: Nullable(Type.Number()),
  currentMemoryBytes: Nullable(Type.Number()),
  recommendedCpuMillicores: Type.Number(),
  recommendedMemoryBytes: Type.Number(),
  /** Per replica: recommended − current. */
  deltaCpuMillicores: Type.Number(),
  deltaMemoryBytes: Type.Number(),
  /** What the recommendation read: the CPU quantile of the hourly p95s, the CPU and memory peaks, an OOM kill's limit. */
  cpuQuantileMillicores: Type.Number(),
  cpuMaxMillicores: Type.Number(),
  memoryMaxBytes: Type.Number(),
  oomPeakBytes: Nullable(Type.Number()),
  historyHours: Type.Number(),
  samples: Type.Integer(),
  flags: Type.Array(RightsizingFlagSchema),
  /** Mean usage ÷ current request over the window; null without a request. */
  cpuUsageOverRequest: Nullable(Type.Number()),
  memoryUsageOverRequest: Nullable(Type.Number()),
  /** Workload idle (requested, unused) × replicas at request-share prices, USD per month; null without prices. */
  idleUsdPerMonth: Nullable(Type.Number()),
  /** replicas × (Δcpu × USD per requested millicore-hour + Δmemory × USD per requested byte-hour) × 730; negative saves. */
  monthlyEffectUsd: Nullable(Type.Number()),
});
export type RecommendationRow = Static<typeof RecommendationRowSchema>;

export const NamespaceEfficiencyRowSchema = Type.Object({
  namespace: Type.String(),
  /** Σ usage ÷ Σ requests of the pods metrics-server reported, over the window's snapshots. */
  cpuUsageOverRequest: Nullable(Type.Number()),
  memoryUsageOverRequest: Nullable(Type.Number()),
  idleUsdPerMonth: Type.Number(),
});

export const RecommendationsResponseSchema = Type.Object({
  /** ISO 8601 UTC: the usage window [windowFrom, windowTo]. */
  windowFrom: Nullable(Type.String()),
  windowTo: Nullable(Type.String()),
  /** The snapshot whose node prices and requests price a requested unit; null before any snapshot. */
  pricesAt: Nullable(Type.String()),
  /** How the dollar effect is computed, in words (by request share; no re-pack). */
  dollarMethod: Type.String(),
  settings: Type.Object({
    cpuQuantile: Type.Number(),
    memoryBuffer: Type.Number(),
    minCpuMillicores: Type.Number(),
    minMemoryBytes: Type.Number(),
    minHistoryHours: Type.Number(),
    cpuWeight: Type.Number(),
    memoryWeight: Type.Number(),
  }),
  /** Biggest saving first (most negative monthlyEffectUsd), rows without a figure last. */
  rows: Type.Array(RecommendationRowSchema),
  namespaces: Type.Array(NamespaceEfficiencyRowSchema),
  totals: Type.Object({ monthlyEffectUsd: Type.Number(), idleUsdPerMonth: Type.Number() }),
});
export type RecommendationsResponse = Static<typeof RecommendationsResponseSchema>;
