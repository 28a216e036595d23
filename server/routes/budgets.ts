import type { FastifyInstance } from 'fastify';
import { ErrorResponseSchema } from '../schemas/common.js';
import { API_WRITE_ROUTES, type ApiQuery, type ApiWriteBody, type ApiWriteKey, type ApiWriteParams } from '../schemas/api-routes.js';
import type { BudgetService } from '../services/budget-service.js';
import { apiRoutes } from './api-route.js';

const WRITE_NOTE =
  'Writes under the collector lock (409 while another collector holds the file under `serve`). A budget declared in a --budgets file is read-only here (409 naming the file). A bad field is a 400 naming it.';

/** Budgets: the list with each one's standing, and create, edit, delete (one call into the service each). */
export async function budgetsRoutes(app: FastifyInstance, opts: { budgets: BudgetService }): Promise<void> {
  const { budgets } = opts;
  apiRoutes(app, 'budgets').get(
    '/api/budgets',
    {
      summary:
        "Every budget with its standing in its current period: spent (final days from the bill, the rest estimated, each given), the period-end forecast with its spread and method, shares of the amount, nodes before a NodePool's dollar limit",
      description: '`at` looks from another moment (default now).',
    },
    (q: ApiQuery<'/api/budgets'>, c) => budgets.list(q, c.clusterId),
  );

  /** A write route registered from its entry in API_WRITE_ROUTES. */
  const write = (
    key: ApiWriteKey,
    doc: { summary: string; status: 200 | 201 },
    handler: (params: unknown, body: unknown, clusterId: number | null) => unknown,
  ): void => {
    const e = API_WRITE_ROUTES[key];
    app.route({
      method: e.method,
      url: e.path,
      schema: {
        summary: doc.summary,
        description: WRITE_NOTE,
        tags: ['budgets'],
        ...(e.params === null ? {} : { params: e.params }),
        ...(e.body === null ? {} : { body: e.body }),
        response: {
          [doc.status]: e.response,
          400: ErrorResponseSchema,
          404: ErrorResponseSchema,
          409: ErrorResponseSchema,
          500: ErrorResponseSchema,
          503: ErrorResponseSchema,
        },
      },
      handler: async (req, reply) => {
        const out = handler(req.params, req.body, req.cluster?.id ?? null);
        return reply.code(doc.status).send(out);
      },
    });
  };

  type Params<K extends ApiWriteKey> = ApiWriteParams<K>;
  write(
    'POST /api/budgets',
    { summary: "Create a budget (JSON body: the declaration); under ?cluster= that cluster's, else the whole ledger's", status: 201 },
    (_p, body, clusterId) => budgets.create(body as ApiWriteBody<'POST /api/budgets'>, clusterId),
  );
  write(
    'PUT /api/budgets/{name}',
    { summary: 'Edit a budget made through the API (JSON body: the declaration without its name)', status: 200 },
    (p, body) => budgets.edit((p as Params<'PUT /api/budgets/{name}'>).name, body as ApiWriteBody<'PUT /api/budgets/{name}'>),
  );
  write('DELETE /api/budgets/{name}', { summary: 'Delete a budget made through the API', status: 200 }, (p) =>
    budgets.remove((p as Params<'DELETE /api/budgets/{name}'>).name),
  );
}
