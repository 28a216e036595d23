import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * Pieces every group of the API shares (status, NodePools, cost, efficiency, consolidation, teams, bill): TypeBox
 * schemas give Fastify its validation and serialization, and `Static<>` gives the TypeScript types that web/
 * imports (type-only, through server/schemas/api-routes.ts).
 *
 * Units: money in the data's currency — USD, or CNY for a China (aws-cn) cluster, as /api/status says
 * (`pricing.currency`); fields named ...Usd predate currencies and hold amounts in it ("bill" figures are Cost
 * Explorer UnblendedCost, AmortizedCost where named); cpu in vCPU;
 * memory in GiB (2^30 bytes); fractions are 0..1 (0.5 = 50 %), null where the denominator is zero (nothing
 * allocatable, no cost). Days are UTC days written `YYYY-MM-DD`, each standing for [00:00, 24:00) UTC. Instants
 * are ISO 8601 UTC strings; chart points carry epoch milliseconds (`...Ms`).
 *
 * Every table route also answers CSV: `?format=csv` or `Accept: text/csv` (server/routes/api-route.ts; nested
 * fields become dotted columns, lists are joined with ";", text cells starting with = + - @ are prefixed with '
 * against formula injection).
 */

export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** `2026-11-01` (UTC midnight) or `2026-11-01T10:00:00Z` / `...+02:00` (a zone is required). */
export const ISO_DATE_OR_DATE_TIME_PATTERN = '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2}))?$';
/** A Kubernetes object name (DNS subdomain). */
export const NODEPOOL_NAME_PATTERN = '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$';

export const ErrorResponseSchema = Type.Object({
  statusCode: Type.Integer(),
  error: Type.String(),
  /** For 400s: names the parameter and says what it expects. For 5xx: a generic message (details are logged). */
  message: Type.String(),
});
export type ErrorResponse = Static<typeof ErrorResponseSchema>;

/** USD, or CNY: what AWS prices and bills the China partition (aws-cn) in. Amounts in two currencies are never added. */
export const CurrencySchema = Type.Union([Type.Literal('USD'), Type.Literal('CNY')]);
export type Currency = Static<typeof CurrencySchema>;

export const CapacityTypeSchema = Type.Union([Type.Literal('on-demand'), Type.Literal('spot'), Type.Literal('reserved')]);
export type CapacityType = Static<typeof CapacityTypeSchema>;

/** A fraction 0..1 (can exceed 1 when requests exceed allocatable); null when nothing was allocatable. */
export const Fraction = (description: string) => Nullable(Type.Number({ description }));

export const TEAM_PATTERN = '^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$';
/** A Kubernetes label key: optional DNS-subdomain prefix and "/", then a name. */
export const LABEL_KEY_PATTERN = '^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$';
/** Minutes or hours: 30m, 1h, 90m. Bounds (5m..24h) are checked after the pattern. */
export const DURATION_PATTERN = '^[1-9][0-9]{0,4}(m|h)$';
/** cpu,memory weights: two decimals 0..1 that add up to 1, e.g. 0.5,0.5 or 0.7,0.3. */
export const WEIGHTS_PATTERN = '^(0(\\.[0-9]{1,6})?|1(\\.0{1,6})?),(0(\\.[0-9]{1,6})?|1(\\.0{1,6})?)$';
/** `<epoch ms>-<node or nodeclaim name>`, as /api/consolidation/events gives it. */
export const EVENT_ID_PATTERN = '^[0-9]{1,16}-[a-z0-9]([-a-z0-9.]*[a-z0-9])?$';

/** What each query parameter expects, in words: the 400 messages use it. */
export const QUERY_PARAM_HINTS: Readonly<Record<string, string>> = {
  from: 'an ISO 8601 date like 2026-11-01 (UTC midnight) or a date-time with a zone like 2026-11-01T00:00:00Z',
  to: 'an ISO 8601 date like 2026-11-08 (UTC midnight) or a date-time with a zone like 2026-11-08T00:00:00Z',
  nodepool: 'a NodePool name (lower-case letters, digits, "-" and ".")',
  at: 'an ISO 8601 date like 2026-11-01 (UTC midnight) or a date-time with a zone like 2026-11-01T10:00:00Z',
  window: 'a duration in minutes or hours from 5m to 24h, like 30m or 1h',
  format: '"json" or "csv"',
  team: 'a team label value (letters, digits, "-", "_" and ".")',
  label: 'a Kubernetes label key like team or example.com/team',
  weights: 'two numbers for cpu and memory that add up to 1, like 0.5,0.5 or 0.7,0.3',
  idle: '"line" (idle cost as its own line per NodePool) or "spread" (idle cost spread over the teams by share)',
  method:
    '"request-share" (weighted cpu/memory request share), "aws-split" (AWS split cost allocation data for EKS) or "opencost" (the OpenCost specification)',
  groupBy: '"team" or "namespace"',
  event: 'an event id from /api/consolidation/events, like 1793523600000-general-5xzjd',
  kind: '"disruption", "blocked" or "all"',
  reason: 'a disruption reason: Underutilized, Empty, Drifted, Expired or Interrupted',
  capacityType: '"on-demand", "spot" or "reserved"',
  sort: 'a column name of the node table (name, nodePool, instanceType, capacityType, zone, ageHours, usdPerHour, cpu, memory)',
  order: '"asc" or "desc"',
  limit: "an integer from 1 up to the route's maximum (5000 rows on /api/nodes, 1000 on /api/consolidation/events and /api/alerts)",
  offset: 'an integer from 0',
  state: '"open" (firing now) or "all"',
  rule: 'an alert rule: budget-threshold, spot-fallback, idle-share, packing-drop, nodepool-near-limit, pods-unschedulable-limits, bill-estimate-gap, nodepool-tag-inactive or collector-stale',
  bucket: '"day" or "week"',
  q: 'text to look for in node names, NodeClaims, instance types, NodePools and zones (at most 100 characters)',
};

/** Where one parameter name means something else on one route, what it expects there (before QUERY_PARAM_HINTS). */
export const QUERY_PARAM_ROUTE_HINTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  '/api/workloads/usage': { kind: 'the kind of the workload that owns the pods, like Deployment, StatefulSet, DaemonSet or Job' },
};

export const FormatSchema = Type.Union([Type.Literal('json'), Type.Literal('csv')], {
  description: 'Response format; csv downloads the table (same as Accept: text/csv). Default json.',
});
export type Format = Static<typeof FormatSchema>;

export const IsoInstantQuery = (description: string) => Type.String({ pattern: ISO_DATE_OR_DATE_TIME_PATTERN, maxLength: 40, description });

/** from / to / nodepool / format, shared by the range routes. */
export const rangeQueryProperties = {
  from: Type.Optional(IsoInstantQuery('Inclusive start (UTC). Default: 14 days before `to`.')),
  to: Type.Optional(IsoInstantQuery('Exclusive end (UTC). Default: the UTC midnight after the newest data.')),
  nodepool: Type.Optional(
    Type.String({ pattern: NODEPOOL_NAME_PATTERN, maxLength: 253, description: 'Only this NodePool. Default: all.' }),
  ),
  format: Type.Optional(FormatSchema),
};

export const RangeQuerySchema = Type.Object(rangeQueryProperties, { additionalProperties: false });
/** from / to / nodepool / format: the query of the range routes. */
export type RangeQuery = Static<typeof RangeQuerySchema>;

/** The query of a route that takes no parameters (anything given is refused: server/strict-query.ts). */
export const NoQuerySchema = Type.Object({}, { additionalProperties: false });
export type NoQuery = Static<typeof NoQuerySchema>;

/** Efficiency of a set of nodes, per resource: time-weighted Σ requests ÷ Σ allocatable. */
export const packingProperties = {
  /** Σ cpu requests ÷ Σ cpu allocatable. */
  cpu: Fraction('Σ cpu requests ÷ Σ cpu allocatable, time-weighted'),
  memory: Fraction('Σ memory requests ÷ Σ memory allocatable, time-weighted'),
  pods: Fraction('Σ pods ÷ Σ pod capacity, time-weighted'),
  /** Null unless some node offers nvidia.com/gpu. */
  gpu: Fraction('Σ GPU requests ÷ Σ GPU allocatable; null without GPU nodes'),
  /** Σ(node price × node cpu efficiency) ÷ Σ node price: the share of the money that bought requested cpu. */
  costWeightedCpu: Fraction('Σ(node price × node cpu efficiency) ÷ Σ node price'),
  costWeightedMemory: Fraction('Σ(node price × node memory efficiency) ÷ Σ node price'),
  costWeightedPods: Fraction('Σ(node price × node pods efficiency) ÷ Σ node price'),
  costWeightedGpu: Fraction('Σ(GPU node price × node GPU efficiency) ÷ Σ GPU node price'),
};
