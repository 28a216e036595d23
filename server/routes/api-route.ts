import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toCsv, type CsvTable } from '../csv/write-csv.js';
import { API_ROUTES, type ApiGetPath, type ApiQuery, type ApiResponse } from '../schemas/api-routes.js';
import { ErrorResponseSchema } from '../schemas/common.js';
import { sendKeptJson } from './kept-json.js';

/**
 * The API's one convention, in one place: a route is registered from its entry in the route map
 * (server/schemas/api-routes.ts: query and response schemas), under its group's OpenAPI tag, with a summary that
 * the README's API table is generated from (npm run docs:api); a table route answers its JSON or, with `?format=csv`
 * or `Accept: text/csv`, its table as a CSV download through the one writer (server/csv/write-csv.ts).
 */

/** What the API answers, in the order docs/api.md's table lists them. */
export const API_GROUPS = [
  'status',
  'alerts',
  'nodepools',
  'cost',
  'efficiency',
  'consolidation',
  'teams',
  'workloads',
  'whatif',
  'bill',
  'budgets',
] as const;
export type ApiGroup = (typeof API_GROUPS)[number];

/** The body of a CSV-only route, for the OpenAPI document. */
const CSV_BODY = Type.String({ description: 'The table as CSV (RFC 4180, CRLF), formula cells defused with a leading apostrophe.' });

/** Response content types of a table route, for the OpenAPI document. */
export const TABLE_PRODUCES = ['application/json', 'text/csv'];

/** CSV when `?format=csv`, or without a format when the client asks for text/csv (Accept). */
export function wantsCsv(req: FastifyRequest): boolean {
  const q = req.query as { format?: string } | undefined;
  if (q?.format !== undefined) return q.format === 'csv';
  const accept = req.headers.accept ?? '';
  return /(^|,)\s*text\/csv\b/i.test(accept);
}

export function sendCsv(reply: FastifyReply, fileName: string, table: CsvTable): FastifyReply {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${fileName}.csv"`)
    .send(toCsv(table.rows, table.columns));
}

export interface RouteDoc<P extends ApiGetPath> {
  /** One line: what the route answers (docs/api.md's table, first sentence). */
  summary: string;
  /** More on parameters, defaults, paging, CSV (the rest of docs/api.md's table cell). */
  description?: string;
  /** Statuses the route answers besides 200, 400 and 500. */
  errors?: readonly (404 | 409 | 422 | 501 | 503)[];
  /** A table route: the file name of its download and the table of its answer. */
  csv?: { fileName: string; table: (body: ApiResponse<P>) => CsvTable | readonly object[] };
  /**
   * The handler answers with an object the engine keeps (the same object for every request on the same data): its JSON
   * is serialised once and kept beside it (kept-json.ts).
   */
  engineAnswer?: true;
  /** Older paths that answer the CSV only (`/api/bill/lines.csv`), kept so links and scripts keep working. */
  csvAliases?: readonly string[];
}

/** What a handler is told besides the query: whether the answer goes out as CSV (then paged routes give every row). */
export interface RouteContext {
  csv: boolean;
  /** Aborted when the client goes away before the answer (the engine pool cancels work nobody waits for). */
  signal: AbortSignal;
  /** The cluster named by ?cluster= (server/cluster-param.ts), or null: every cluster. */
  clusterId: number | null;
}

/** A signal aborted when the response closes before it was sent: the client went away. */
export function clientGone(reply: FastifyReply): AbortSignal {
  const gone = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) gone.abort();
  });
  return gone.signal;
}

const asTable = (t: CsvTable | readonly object[]): CsvTable =>
  'rows' in t && 'columns' in t ? (t as CsvTable) : { columns: [], rows: t as readonly object[] };

/** The routes of one group: `routes.get(path, doc, handler)`, the handler one call into a service. */
export function apiRoutes(app: FastifyInstance, group: ApiGroup) {
  return {
    get<P extends ApiGetPath>(
      path: P,
      doc: RouteDoc<P>,
      handler: (query: ApiQuery<P>, ctx: RouteContext) => ApiResponse<P> | Promise<ApiResponse<P>>,
    ): void {
      const entry = API_ROUTES[path];
      const takesFormat = 'format' in (entry.query.properties as Record<string, unknown>);
      // A table route without `format`, or `format` on a route without a table, would make the CSV promise a lie.
      if ((doc.csv !== undefined) !== takesFormat) {
        throw new Error(`${path}: a table route declares format in its query schema, and only a table route does`);
      }
      const errors = Object.fromEntries([400, 500, ...(doc.errors ?? [])].map((code) => [code, ErrorResponseSchema]));
      const schema = {
        summary: doc.summary,
        ...(doc.description === undefined ? {} : { description: doc.description }),
        tags: [group],
        querystring: entry.query,
        ...(doc.csv === undefined ? {} : { produces: TABLE_PRODUCES }),
      };
      const csv = doc.csv;
      app.get(path, { schema: { ...schema, response: { 200: entry.response, ...errors } } }, async (req, reply) => {
        const asCsv = csv !== undefined && wantsCsv(req);
        const body = await handler(req.query as ApiQuery<P>, { csv: asCsv, signal: clientGone(reply), clusterId: req.cluster?.id ?? null });
        const json = () => (doc.engineAnswer === true ? sendKeptJson(reply, body) : body);
        if (csv === undefined) return json();
        // The same URL answers JSON or CSV by Accept: caches must keep them apart.
        reply.header('vary', 'accept');
        return asCsv ? sendCsv(reply, csv.fileName, asTable(csv.table(body))) : json();
      });
      for (const alias of doc.csvAliases ?? []) {
        if (csv === undefined) throw new Error(`${alias}: a CSV alias of ${path}, which has no table`);
        app.get(
          alias,
          {
            schema: {
              ...schema,
              summary: `${doc.summary} — as CSV`,
              description: `The same as ${path}?format=csv; kept for links made before every table route answered CSV.`,
              produces: ['text/csv'],
              response: { 200: CSV_BODY, ...errors },
            },
          },
          async (req, reply) =>
            sendCsv(
              reply,
              csv.fileName,
              asTable(
                csv.table(
                  await handler(req.query as ApiQuery<P>, { csv: true, signal: clientGone(reply), clusterId: req.cluster?.id ?? null }),
                ),
              ),
            ),
        );
      }
    },
  };
}
