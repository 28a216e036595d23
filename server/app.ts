import fastifyStatic from '@fastify/static';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { existsSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from '../db/open-db.js';
import { API_PAGE_CACHE_MIB, sizePageCache } from '../db/page-cache.js';
import { createDisruptionsRepository } from '../db/repositories/disruptions-repository.js';
import { createKarpenterExplanationsRepository } from '../db/repositories/karpenter-explanations-repository.js';
import { createAnalyticsPackingRepository } from '../db/repositories/analytics-packing-repository.js';
import { createAnalyticsTeamsRepository } from '../db/repositories/analytics-teams-repository.js';
import { createReportsRepository } from '../db/repositories/reports-repository.js';
import { createUsageRepository } from '../db/repositories/usage-repository.js';
import { redactToken, requireAccessToken } from './access-token.js';
import { type DatabaseWriter, sameConnectionWriter } from './database-writer.js';
import { refuseNonFiniteNumbers } from './finite-numbers.js';
import { keptSchemaCompilers } from './schema-compilers.js';
import { declaredQueryParams, strictQueryStrings, undeclaredQueryParams } from './strict-query.js';
import { unknownQueryParamMessage } from './unknown-query-param.js';
import { cacheApiResponses } from './response-cache.js';
import { QueryParamError } from './analytics/range.js';
import { billRoutes } from './routes/bill.js';
import { consolidationRoutes } from './routes/consolidation.js';
import { karpenterExplanationsRoutes } from './routes/karpenter-explanations.js';
import { nodePoolKarpenterRoutes } from './routes/nodepool-karpenter.js';
import { karpenterTryRoutes } from './routes/karpenter-try.js';
import { createNodePoolKarpenterService } from './services/nodepool-karpenter-service.js';
import { createClusterSnapshotRepository } from '../db/repositories/cluster-snapshot-repository.js';
import { costRoutes } from './routes/cost.js';
import { registerOpenApi } from './routes/docs.js';
import { metricsRoutes } from './routes/metrics.js';
import { alertRoutes } from './routes/alerts.js';
import { createAlertService } from './services/alert-service.js';
import { createLedgerMetrics } from './metrics/ledger-metrics.js';
import { efficiencyRoutes } from './routes/efficiency.js';
import { nodeAggregatesRoutes } from './routes/node-aggregates.js';
import { nodePoolsRoutes } from './routes/nodepools.js';
import { statusRoutes } from './routes/status.js';
import { teamsRoutes } from './routes/teams.js';
import { workloadsRoutes } from './routes/workloads.js';
import { budgetsRoutes } from './routes/budgets.js';
import { budgetStatusesAt, createBudgetService } from './services/budget-service.js';
import { whatIfRoutes } from './routes/whatif.js';
import { EngineBusyError, EngineCancelledError } from './engine-pool/engine-errors.js';
import { engineFor, type EngineOptions } from './engine-pool/engine-options.js';
import type { EngineRunner } from './engine-pool/engine-runner.js';
import { warmEngineAnswers } from './engine-pool/engine-warm.js';
import { warmOverviewRoutes } from './overview-warm.js';
import { createDataVersionRepository } from '../db/repositories/data-version-repository.js';
import { QUERY_PARAM_HINTS, QUERY_PARAM_ROUTE_HINTS, type ErrorResponse } from './schemas/common.js';
import type { FillStatus } from './schemas/status.js';
import { BUDGET_FIELD_HINTS } from './schemas/budgets.js';
import { createBillPractice, type PracticeBillProvider } from './services/bill-practice.js';
import { createBillCurService } from './services/bill-cur-service.js';
import { createBillService } from './services/bill-service.js';
import { createCurCostService } from './services/cur-cost-service.js';
import { createTeamsCurService } from './services/teams-cur-service.js';
import { createCurRepository } from '../db/repositories/cur-repository.js';
import { createExplanationsService } from './services/explanations-service.js';
import { createConsolidationService } from './services/consolidation-service.js';
import { keptDisruptions } from './services/disruption-source.js';
import { createEfficiencyService } from './services/efficiency-service.js';
import { createNodeAggregatesService } from './services/node-aggregates-service.js';
import { createNodeAggregatesRepository } from '../db/repositories/node-aggregates-repository.js';
import { createNodePoolCostService } from './services/nodepool-cost-service.js';
import { createReportsService } from './services/reports-service.js';
import { createTeamsService } from './services/teams-service.js';
import { createWorkloadsService } from './services/workloads-service.js';
import type { OrgEngine } from '../core/org-query.js';
import { createOrgService } from './org/org-service.js';
import { orgRoutes } from './org/org-routes.js';
import { createClustersRepository } from '../db/repositories/clusters-repository.js';
import { clusterQueryParam } from './cluster-param.js';

export interface BuildAppOptions {
  db: Db;
  /** Folder of the built dashboard (index.html + assets/). Default: dist/web at the repository root. */
  webRoot?: string;
  /** Fastify's request logger. Default: false. */
  logger?: boolean;
  /** Clock for default ranges; tests pin it. Default: Date.now. */
  now?: () => number;
  /**
   * When set, every /api route requires it (Bearer header, or the session cookie a `/?token=` link sets): the CLI
   * demands one whenever the server binds beyond loopback. See server/access-token.ts.
   */
  accessToken?: string;
  /** Answer repeated GET /api requests from memory until the data changes (server/response-cache.ts). Default true. */
  cacheResponses?: boolean;
  /**
   * Where practice bills come from: `demo` passes the sandbox's (sandbox/practice-bills.ts). Without one (`serve`) the
   * server loads no simulator code and /api/bill/practice answers 501, saying practice bills need the demo.
   */
  practiceBills?: PracticeBillProvider;
  /**
   * How the few user actions that write (a bill CSV import) write: under the collector lock, on a writable connection
   * (server/database-writer.ts). `serve` reads a read-only `db` and passes lockingWriter(path); `demo` passes
   * heldLockWriter. Default: the lock taken on `db` itself for each action.
   */
  writer?: DatabaseWriter;
  /**
   * Where the scheduling engine runs (the what-ifs, the Workloads re-packs): `{ workers: N }` in a pool of N worker
   * threads over the database's file (server/engine-pool/), with a time bound per request (`timeoutMs`) answered 503
   * with Retry-After. Default (and for a database in memory): on the API's thread. `serve` and `demo` pass
   * engineOptionsFromEnv(). A runner made by the caller (engineFor) is used as given and closed with the app.
   */
  engine?: EngineOptions | EngineRunner;
  /**
   * With the engine in its pool: compute the Savings page's default answers when the server is ready and after each
   * change of the data (engine-warm.ts), looking at the data every `checkEveryMs` (default 15 s). Default true.
   */
  warmEngine?: boolean | { checkEveryMs: number };
  /**
   * With the engine in its pool (`serve`, `demo`): answer the Overview's routes once when the server is ready, so its
   * first viewer does not pay each route's first-use cost in this process (overview-warm.ts). Default true.
   */
  warmOverview?: boolean;
  /** What `demo` still fills in behind the dashboard (GET /api/status `fill`, the banner). Default: nothing (`serve`). */
  fill?: () => FillStatus | null;
  /**
   * The organisation's engine (`serve --org athena://WORKGROUP/DATABASE`): adds /api/org/overview and /api/org/teams,
   * every exported cluster answered by Athena (server/org/). Default: none, and no /api/org routes.
   */
  org?: OrgEngine;
}

/**
 * The dashboard Vite builds into dist/web: from this source file (server/app.ts, run through tsx) that is
 * ../dist/web; from the compiled one (dist/server/app.js, what `npm run build:server` writes and the image runs), ../web.
 */
export const DEFAULT_WEB_ROOT = import.meta.url.endsWith('.js')
  ? resolve(dirname(fileURLToPath(import.meta.url)), '..', 'web')
  : resolve(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'web');

/** Same-origin only; Recharts and React set styles through the CSSOM, which style-src does not restrict. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

const errorBody = (statusCode: number, error: string, message: string): ErrorResponse => ({ statusCode, error, message });

/** "from" from a validation error: the property path, or the property a keyword names. */
function paramOf(err: FastifyError): string | null {
  const v = err.validation?.[0];
  if (v === undefined) return null;
  const fromPath = v.instancePath.replace(/^\//, '').split('/')[0];
  if (fromPath !== '') return fromPath;
  const p = v.params as Record<string, unknown>;
  const named = p.missingProperty ?? p.additionalProperty;
  return typeof named === 'string' ? named : null;
}

/** The 400 of a JSON body that fails its schema: the field's path, what it expects, what it got. */
function bodyError(err: FastifyError, req: FastifyRequest): ErrorResponse {
  const v = err.validation?.[0];
  const p = (v?.params ?? {}) as Record<string, unknown>;
  const named = p.missingProperty ?? p.additionalProperty;
  const segments = (v?.instancePath ?? '').split('/').filter((x) => x !== '');
  const field = [...segments, ...(typeof named === 'string' ? [named] : [])].join('.');
  if (field === '') return errorBody(400, 'Bad Request', `Invalid body: ${err.message}`);
  if (p.additionalProperty !== undefined)
    return errorBody(400, 'Bad Request', `Invalid body field "${field}": not a field of this request`);
  let got: unknown = req.body;
  for (const s of segments) got = typeof got === 'object' && got !== null ? (got as Record<string, unknown>)[s] : undefined;
  const hint = BUDGET_FIELD_HINTS[field.replace(/\.\d+$/, '')];
  const expected = p.missingProperty !== undefined ? 'is required' : hint === undefined ? (v?.message ?? 'is invalid') : `must be ${hint}`;
  const gotText = got === undefined || p.missingProperty !== undefined ? '' : ` (got ${JSON.stringify(got).slice(0, 60)})`;
  return errorBody(400, 'Bad Request', `Invalid body field "${field}": ${expected}${gotText}`);
}

function queryValue(req: FastifyRequest, param: string): unknown {
  const q = req.query;
  return typeof q === 'object' && q !== null ? (q as Record<string, unknown>)[param] : undefined;
}

function handleError(err: FastifyError, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  // The engine's time bound: the simulation goes on, and asking again after Retry-After finds it.
  if (err instanceof EngineBusyError) {
    return reply
      .code(503)
      .header('retry-after', String(err.retryAfterSeconds))
      .send(errorBody(503, 'Service Unavailable', err.message));
  }
  // The client went away: nobody reads an answer, and its half-closed connection would otherwise stay open until
  // the server's headers timeout (60 s), holding `close` up.
  if (err instanceof EngineCancelledError) {
    reply.hijack();
    req.raw.socket?.destroy();
    return reply;
  }
  if (err instanceof QueryParamError) {
    return reply.code(400).send(errorBody(400, 'Bad Request', `Invalid query parameter "${err.param}": ${err.detail}`));
  }
  // An unknown parameter is named first, whatever ajv tripped on: "?nodPool=x" is a typo, not a missing nodepool.
  const unknown = err.validationContext === 'querystring' ? undeclaredQueryParams(req) : [];
  if (unknown.length > 0)
    return reply.code(400).send(errorBody(400, 'Bad Request', unknownQueryParamMessage(unknown, declaredQueryParams(req))));
  // A JSON body's field is named by its whole path (scope.kind), with what it expects and what it got.
  if (err.validation !== undefined && err.validationContext === 'body') return reply.code(400).send(bodyError(err, req));
  if (err.validation !== undefined) {
    const param = paramOf(err);
    const where = err.validationContext ?? 'request';
    if (param === null) return reply.code(400).send(errorBody(400, 'Bad Request', `Invalid ${where}: ${err.message}`));
    const got = queryValue(req, param);
    const hint = QUERY_PARAM_ROUTE_HINTS[req.routeOptions.url ?? '']?.[param] ?? QUERY_PARAM_HINTS[param];
    const expected = hint === undefined ? (err.validation[0]?.message ?? 'is invalid') : `must be ${hint}`;
    const gotText = typeof got === 'string' ? ` (got "${got.slice(0, 60)}")` : '';
    return reply.code(400).send(errorBody(400, 'Bad Request', `Invalid ${where} parameter "${param}": ${expected}${gotText}`));
  }
  const status = err.statusCode ?? 500;
  // 501: a feature this server was started without (practice bills under `serve`); the message says which.
  if ((status >= 400 && status < 500) || status === 501) {
    return reply.code(status).send(errorBody(status, STATUS_CODES[status] ?? 'Client Error', err.message));
  }
  // 5xx: the detail goes to the log, never to the client.
  req.log.error({ err, url: redactToken(req.url) }, 'request failed');
  return reply
    .code(500)
    .send(errorBody(500, 'Internal Server Error', 'The server could not answer this request; the cause is in its log.'));
}

/**
 * Every /api route, in one place: repositories -> services -> one route module per group (server/routes/<group>.ts),
 * each route registered from the route map (server/schemas/api-routes.ts) and documented for /docs and the README.
 */
function registerApiRoutes(
  app: FastifyInstance,
  db: Db,
  now: () => number,
  writer: DatabaseWriter,
  practiceBills: PracticeBillProvider | undefined,
  engine: EngineRunner,
  fill: (() => FillStatus | null) | undefined,
  org: OrgEngine | undefined,
): void {
  const reportsRepo = createReportsRepository(db);
  const packing = createAnalyticsPackingRepository(db);
  const ctx = { extent: () => reportsRepo.dataRange(), now };
  const reports = createReportsService(reportsRepo, now, fill);
  const nodePoolCost = createNodePoolCostService(packing, reportsRepo, ctx);
  // Kept current by the collector in the same transaction as what they derive from: read as they are.
  const disruptions = keptDisruptions(createDisruptionsRepository(db));
  const clustersRepo = createClustersRepository(db);
  const bill = createBillService(db, now, writer);

  app.register(statusRoutes, { reports });
  if (org !== undefined) app.register(orgRoutes, { org: createOrgService(org, { now }) });
  const alerts = createAlertService(db);
  app.register(alertRoutes, { alerts });
  app.register(nodePoolsRoutes, { reports, nodePoolCost });
  app.register(nodePoolKarpenterRoutes, {
    nodePoolKarpenter: createNodePoolKarpenterService(createClusterSnapshotRepository(db)),
    clusters: () => clustersRepo.list(),
  });
  const cur = createCurRepository(db);
  app.register(costRoutes, { reports, nodePoolCost, curCost: createCurCostService(cur, reportsRepo, ctx, () => clustersRepo.list()) });
  const efficiency = createEfficiencyService(packing, ctx);
  app.register(efficiencyRoutes, { reports, efficiency });
  app.register(nodeAggregatesRoutes, { nodeAggregates: createNodeAggregatesService(createNodeAggregatesRepository(db), ctx) });
  app.register(consolidationRoutes, { consolidation: createConsolidationService(disruptions, packing, ctx, () => clustersRepo.list()) });
  app.register(karpenterExplanationsRoutes, {
    explanations: createExplanationsService(createKarpenterExplanationsRepository(db), ctx),
  });
  const teamsRepo = createAnalyticsTeamsRepository(db);
  const clusterList = createClustersRepository(db);
  app.register(teamsRoutes, {
    clusters: () => clusterList.list(),
    teams: createTeamsService(teamsRepo, packing, ctx),
    teamsCur: createTeamsCurService(teamsRepo, packing, cur, ctx, createClustersRepository(db)),
  });
  // Usage charts on this thread; the recommendations (engine re-packs) through the engine.
  app.register(workloadsRoutes, {
    workloads: createWorkloadsService(createUsageRepository(db), packing, undefined, () => clustersRepo.list()),
    engine,
  });
  app.register(billRoutes, {
    bill,
    practice: createBillPractice(db, bill, practiceBills),
    billCur: createBillCurService(db),
    clusters: () => clustersRepo.list(),
  });
  app.register(whatIfRoutes, { engine, clusters: () => clusterList.list() });
  app.register(karpenterTryRoutes, { engine, clusters: () => clusterList.list() });
  app.register(budgetsRoutes, { budgets: createBudgetService(db, writer, now) });
  // Prometheus exposition of the same figures (not an /api route: hidden from the OpenAPI document).
  app.register(metricsRoutes, {
    metrics: createLedgerMetrics({
      reports,
      nodePoolCost,
      efficiency,
      now,
      budgetStatuses: (atMs) => budgetStatusesAt(db, atMs),
      firingAlerts: () => alerts.firing(),
    }),
  });
}

/** How often the data version is looked at to compute the Savings page's answers again, ms. */
const WARM_CHECK_MS = 15_000;

/** The API and the built dashboard. Does not listen: the caller listens (on 127.0.0.1). */
export function buildApp(options: BuildAppOptions): FastifyInstance {
  // The request log never shows a `?token=` link's token (the default serializer logs the raw url).
  const logger: FastifyServerOptions['logger'] =
    options.logger === true
      ? { serializers: { req: (req: FastifyRequest) => ({ method: req.method, url: redactToken(req.url), host: req.host }) } }
      : false;
  // removeAdditional: false makes ajv refuse undeclared query parameters instead of dropping them (strict-query.ts).
  // Each route's schemas compiled once per process, however many apps it builds (schema-compilers.ts).
  const app = Fastify({
    logger,
    ajv: { customOptions: { removeAdditional: false } },
    schemaController: { compilersFactory: keptSchemaCompilers },
  });
  const webRoot = resolve(options.webRoot ?? DEFAULT_WEB_ROOT);
  const indexHtml = join(webRoot, 'index.html');

  app.addHook('onSend', async (_req, reply, payload) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
    return payload;
  });
  app.setErrorHandler(handleError);
  if (options.accessToken !== undefined) requireAccessToken(app, options.accessToken);
  refuseNonFiniteNumbers(app);
  // ?cluster= on every /api route: declared before strictQueryStrings makes the query schemas strict.
  clusterQueryParam(app, createClustersRepository(options.db));
  sizePageCache(options.db, API_PAGE_CACHE_MIB);
  strictQueryStrings(app);
  if (options.cacheResponses !== false) cacheApiResponses(app, options.db);

  // OpenAPI (/docs) first: it documents the routes registered after it.
  registerOpenApi(app);
  const engine = options.engine !== undefined && 'run' in options.engine ? options.engine : engineFor(options.db, options.engine);
  app.addHook('onClose', async () => engine.close());
  // With the pool, the Savings page's default simulations run ahead of its first viewer, per data version.
  if (engine.kind === 'pool' && options.warmEngine !== false) {
    warmEngineAnswers(app, {
      version: createDataVersionRepository(options.db).current,
      checkEveryMs: typeof options.warmEngine === 'object' ? options.warmEngine.checkEveryMs : WARM_CHECK_MS,
      ...(options.accessToken === undefined ? {} : { headers: { authorization: `Bearer ${options.accessToken}` } }),
    });
  }
  if (engine.kind === 'pool' && options.warmOverview !== false)
    warmOverviewRoutes(app, options.accessToken === undefined ? {} : { authorization: `Bearer ${options.accessToken}` });
  registerApiRoutes(
    app,
    options.db,
    options.now ?? Date.now,
    options.writer ?? sameConnectionWriter(options.db),
    options.practiceBills,
    engine,
    options.fill,
    options.org,
  );

  const webBuilt = existsSync(indexHtml);
  if (webBuilt) {
    app.register(fastifyStatic, {
      root: webRoot,
      index: 'index.html',
      // The build writes each script and style sheet beside itself brotli- and gzip-compressed (vite.config.ts): sent
      // to a browser that accepts them (Recharts' chunk 391 KB -> about 100 KB), nothing compressed per request; a file
      // without a compressed copy is sent as it is.
      preCompressed: true,
      setHeaders: (reply, path) => {
        // Vite names files under assets/ by content hash: cache them for good; everything else revalidates.
        reply.header('cache-control', path.includes(`${join(webRoot, 'assets')}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    if (path === '/api' || path.startsWith('/api/') || (req.method !== 'GET' && req.method !== 'HEAD')) {
      return reply.code(404).send(errorBody(404, 'Not Found', `No route ${req.method} ${path}`));
    }
    if (!webBuilt) {
      return reply
        .code(404)
        .type('text/plain; charset=utf-8')
        .send(`The dashboard is not built at ${webRoot}: run "npx vite build", then reload.`);
    }
    // SPA fallback: client-side routes get index.html.
    return reply.header('cache-control', 'no-cache').sendFile('index.html', webRoot);
  });

  return app;
}
