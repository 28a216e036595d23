import type { Static, TSchema } from '@sinclair/typebox';
import {
  BillExplainQuerySchema,
  BillLinesQuerySchema,
  BillLinesResponseSchema,
  ExplanationSchema,
  ImportQuerySchema,
  ImportResponseSchema,
  PracticeAnswersSchema,
  PracticeQuerySchema,
  PracticeQuestionSchema,
} from './bill.js';
import { NoQuerySchema } from './common.js';
import {
  ConsolidationCompareQuerySchema,
  ConsolidationCompareResponseSchema,
  ConsolidationEventsQuerySchema,
  ConsolidationEventsResponseSchema,
  ConsolidationTimelineQuerySchema,
  ConsolidationTimelineResponseSchema,
} from './consolidation.js';
import { BalancedTryQuerySchema, BalancedTryResponseSchema, OverlayTryQuerySchema, OverlayTryResponseSchema } from './karpenter-try.js';
import { NodePoolKarpenterQuerySchema, NodePoolKarpenterResponseSchema } from './nodepool-karpenter.js';
import { KarpenterExplanationsQuerySchema, KarpenterExplanationsResponseSchema } from './karpenter-explanations.js';
import { DailyCostQuerySchema, DailyCostResponseSchema, ReconciliationQuerySchema, ReconciliationResponseSchema } from './cost.js';
import {
  EfficiencyNodesQuerySchema,
  EfficiencyResponseSchema,
  EfficiencySeriesQuerySchema,
  EfficiencySummaryQuerySchema,
  EfficiencySummaryResponseSchema,
  NodesQuerySchema,
  NodesResponseSchema,
} from './efficiency.js';
import { NodeChangesQuerySchema, NodeChangesResponseSchema, NodeMixQuerySchema, NodeMixResponseSchema } from './node-aggregates.js';
import { NodePoolCompareQuerySchema, NodePoolCompareResponseSchema, NodePoolsQuerySchema, NodePoolsResponseSchema } from './nodepools.js';
import { StatusResponseSchema } from './status.js';
import { ClustersResponseSchema } from './clusters.js';
import { AlertSettingsResponseSchema, AlertsQuerySchema, AlertsResponseSchema } from './alerts.js';
import {
  RecommendationsQuerySchema,
  RecommendationsResponseSchema,
  WorkloadUsageQuerySchema,
  WorkloadUsageResponseSchema,
} from './workloads.js';
import {
  HeadroomQuerySchema,
  HeadroomResponseSchema,
  NodePoolEditQuerySchema,
  NodePoolEditResponseSchema,
  WorkloadPlacementQuerySchema,
  WorkloadPlacementResponseSchema,
  WhyNotQuerySchema,
  WhyNotResponseSchema,
  PredictQuerySchema,
  PredictResponseSchema,
} from './whatif.js';
import { TeamCostQuerySchema, TeamCostResponseSchema, TeamCostSeriesQuerySchema, TeamCostSeriesResponseSchema } from './teams.js';
import { CurExplainQuerySchema, CurExplainResponseSchema, CurLinesQuerySchema, CurLinesResponseSchema } from './bill-cur.js';
import { CurDailyQuerySchema, CurDailyResponseSchema } from './cost-cur.js';
import { TeamCurQuerySchema, TeamCurResponseSchema } from './teams-cur.js';
import {
  BudgetDeclarationSchema,
  BudgetDeletedSchema,
  BudgetEditSchema,
  BudgetNameParamsSchema,
  BudgetsQuerySchema,
  BudgetsResponseSchema,
  BudgetStatusSchema,
} from './budgets.js';

/**
 * The API contract in one map: path -> method, query schema, response schema (the 2xx body). The server registers
 * each route from its entry (server/routes/api-route.ts), so a route cannot take or answer other than the map says;
 * web/ imports the map's type only (`import type { ApiRoutes } from '@schemas/api-routes'`) and its getJson is typed
 * by path, so a renamed parameter or field is a compile error in web/ (web/src/lib/api-contract.test-d.ts proves it).
 *
 * Table routes also answer CSV (`?format=csv` or `Accept: text/csv`); the JSON is what is typed here. CSV-only
 * aliases kept for old links (/api/bill/lines.csv, /api/bill/explain.csv) are not in the map: they answer no JSON.
 */
interface RouteEntry {
  method: 'GET' | 'POST';
  query: TSchema;
  response: TSchema;
}

export const API_ROUTES = {
  // status
  '/api/status': { method: 'GET', query: NoQuerySchema, response: StatusResponseSchema },
  '/api/clusters': { method: 'GET', query: NoQuerySchema, response: ClustersResponseSchema },
  // alerts
  '/api/alerts': { method: 'GET', query: AlertsQuerySchema, response: AlertsResponseSchema },
  '/api/alerts/settings': { method: 'GET', query: NoQuerySchema, response: AlertSettingsResponseSchema },
  // NodePools
  '/api/nodepools': { method: 'GET', query: NodePoolsQuerySchema, response: NodePoolsResponseSchema },
  '/api/nodepools/compare': { method: 'GET', query: NodePoolCompareQuerySchema, response: NodePoolCompareResponseSchema },
  '/api/nodepools/karpenter': { method: 'GET', query: NodePoolKarpenterQuerySchema, response: NodePoolKarpenterResponseSchema },
  // cost
  '/api/cost/nodepools/daily': { method: 'GET', query: DailyCostQuerySchema, response: DailyCostResponseSchema },
  '/api/reconciliation/daily': { method: 'GET', query: ReconciliationQuerySchema, response: ReconciliationResponseSchema },
  '/api/cost/cur/daily': { method: 'GET', query: CurDailyQuerySchema, response: CurDailyResponseSchema },
  // efficiency
  '/api/efficiency/nodepools': { method: 'GET', query: EfficiencySeriesQuerySchema, response: EfficiencyResponseSchema },
  '/api/efficiency/summary': { method: 'GET', query: EfficiencySummaryQuerySchema, response: EfficiencySummaryResponseSchema },
  '/api/efficiency/nodes': { method: 'GET', query: EfficiencyNodesQuerySchema, response: NodesResponseSchema },
  '/api/nodes': { method: 'GET', query: NodesQuerySchema, response: NodesResponseSchema },
  '/api/nodes/mix': { method: 'GET', query: NodeMixQuerySchema, response: NodeMixResponseSchema },
  '/api/nodes/changes': { method: 'GET', query: NodeChangesQuerySchema, response: NodeChangesResponseSchema },
  // consolidation
  '/api/consolidation/events': { method: 'GET', query: ConsolidationEventsQuerySchema, response: ConsolidationEventsResponseSchema },
  '/api/consolidation/compare': { method: 'GET', query: ConsolidationCompareQuerySchema, response: ConsolidationCompareResponseSchema },
  '/api/consolidation/timeline': { method: 'GET', query: ConsolidationTimelineQuerySchema, response: ConsolidationTimelineResponseSchema },
  '/api/consolidation/karpenter-explanations': {
    method: 'GET',
    query: KarpenterExplanationsQuerySchema,
    response: KarpenterExplanationsResponseSchema,
  },
  // teams
  '/api/teams/cost': { method: 'GET', query: TeamCostQuerySchema, response: TeamCostResponseSchema },
  '/api/teams/cost/series': { method: 'GET', query: TeamCostSeriesQuerySchema, response: TeamCostSeriesResponseSchema },
  '/api/teams/cur': { method: 'GET', query: TeamCurQuerySchema, response: TeamCurResponseSchema },
  // workloads
  '/api/workloads/recommendations': { method: 'GET', query: RecommendationsQuerySchema, response: RecommendationsResponseSchema },
  '/api/workloads/usage': { method: 'GET', query: WorkloadUsageQuerySchema, response: WorkloadUsageResponseSchema },
  // what-if (simulations over a stored snapshot)
  '/api/whatif/headroom': { method: 'GET', query: HeadroomQuerySchema, response: HeadroomResponseSchema },
  '/api/whatif/nodepool-edit': { method: 'GET', query: NodePoolEditQuerySchema, response: NodePoolEditResponseSchema },
  '/api/whatif/workload': { method: 'GET', query: WorkloadPlacementQuerySchema, response: WorkloadPlacementResponseSchema },
  '/api/whatif/why-not': { method: 'GET', query: WhyNotQuerySchema, response: WhyNotResponseSchema },
  '/api/whatif/balanced': { method: 'GET', query: BalancedTryQuerySchema, response: BalancedTryResponseSchema },
  '/api/whatif/overlay': { method: 'GET', query: OverlayTryQuerySchema, response: OverlayTryResponseSchema },
  '/api/whatif/predict': { method: 'POST', query: PredictQuerySchema, response: PredictResponseSchema },
  // bill
  '/api/bill/lines': { method: 'GET', query: BillLinesQuerySchema, response: BillLinesResponseSchema },
  '/api/bill/explain': { method: 'GET', query: BillExplainQuerySchema, response: ExplanationSchema },
  '/api/bill/import': { method: 'POST', query: ImportQuerySchema, response: ImportResponseSchema },
  '/api/bill/practice': { method: 'GET', query: PracticeQuerySchema, response: PracticeQuestionSchema },
  '/api/bill/practice/answers': { method: 'GET', query: PracticeQuerySchema, response: PracticeAnswersSchema },
  '/api/bill/cur/lines': { method: 'GET', query: CurLinesQuerySchema, response: CurLinesResponseSchema },
  '/api/bill/cur/explain': { method: 'GET', query: CurExplainQuerySchema, response: CurExplainResponseSchema },
  // budgets (their writes: API_WRITE_ROUTES)
  '/api/budgets': { method: 'GET', query: BudgetsQuerySchema, response: BudgetsResponseSchema },
} as const satisfies Record<string, RouteEntry>;

interface WriteRouteEntry {
  method: 'POST' | 'PUT' | 'DELETE';
  /** The path as Fastify registers it (`:name`); the key is the OpenAPI form (`{name}`). */
  path: string;
  params: TSchema | null;
  body: TSchema | null;
  response: TSchema;
}

/**
 * Routes that change what the ledger stores through a JSON body (budgets), keyed `METHOD /path` as the OpenAPI
 * document lists them: their path parameters, body and answer. web/'s sendJson is typed by this map.
 */
export const API_WRITE_ROUTES = {
  'POST /api/budgets': { method: 'POST', path: '/api/budgets', params: null, body: BudgetDeclarationSchema, response: BudgetStatusSchema },
  'PUT /api/budgets/{name}': {
    method: 'PUT',
    path: '/api/budgets/:name',
    params: BudgetNameParamsSchema,
    body: BudgetEditSchema,
    response: BudgetStatusSchema,
  },
  'DELETE /api/budgets/{name}': {
    method: 'DELETE',
    path: '/api/budgets/:name',
    params: BudgetNameParamsSchema,
    body: null,
    response: BudgetDeletedSchema,
  },
} as const satisfies Record<string, WriteRouteEntry>;

export type ApiWriteRoutes = typeof API_WRITE_ROUTES;
export type ApiWriteKey = keyof ApiWriteRoutes;
/**
 * Each write route's parameters, body and answer as TypeScript types, spelled out from the schemas of its entry
 * (Static<> over the entries indexed by a generic key is too deep for the compiler).
 */
interface ApiWriteTypes {
  'POST /api/budgets': {
    params: Record<string, never>;
    body: Static<typeof BudgetDeclarationSchema>;
    response: Static<typeof BudgetStatusSchema>;
  };
  'PUT /api/budgets/{name}': {
    params: Static<typeof BudgetNameParamsSchema>;
    body: Static<typeof BudgetEditSchema>;
    response: Static<typeof BudgetStatusSchema>;
  };
  'DELETE /api/budgets/{name}': { params: Static<typeof BudgetNameParamsSchema>; body: null; response: Static<typeof BudgetDeletedSchema> };
}
/** The path parameters of a write route (none: an empty record). */
export type ApiWriteParams<K extends ApiWriteKey> = ApiWriteTypes[K]['params'];
/** The JSON body a write route takes (null: none). */
export type ApiWriteBody<K extends ApiWriteKey> = ApiWriteTypes[K]['body'];
/** The JSON a write route answers. */
export type ApiWriteResponse<K extends ApiWriteKey> = ApiWriteTypes[K]['response'];

export type ApiRoutes = typeof API_ROUTES;
export type ApiPath = keyof ApiRoutes;
/** Paths a GET reaches (what the web's getJson takes). */
export type ApiGetPath = { [P in ApiPath]: ApiRoutes[P]['method'] extends 'GET' ? P : never }[ApiPath];
/** Paths a POST reaches. */
export type ApiPostPath = Exclude<ApiPath, ApiGetPath>;
/**
 * `?cluster=NAME` is taken by every route (server/cluster-param.ts adds it to each route's query schema when the
 * route is registered): the cluster the answer is about; absent, every cluster of the ledger.
 */
export interface ClusterQuery {
  cluster?: string;
}
/** The query a path takes, as the server validates it (numbers are numbers), `cluster` included. */
export type ApiQuery<P extends ApiPath> = Static<ApiRoutes[P]['query']> & ClusterQuery;
/** The JSON a path answers. */
export type ApiResponse<P extends ApiPath> = Static<ApiRoutes[P]['response']>;
