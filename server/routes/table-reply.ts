import type { FastifyReply, FastifyRequest } from 'fastify';
import { toCsv } from '../analytics/csv.js';

/** Response content types of a table route, for the OpenAPI document. */
export const TABLE_PRODUCES = ['application/json', 'text/csv'];

/** CSV when `?format=csv`, or without a format when the client asks for text/csv (Accept). */
export function wantsCsv(req: FastifyRequest): boolean {
  const q = req.query as { format?: string } | undefined;
  if (q?.format !== undefined) return q.format === 'csv';
  const accept = req.headers.accept ?? '';
  return /(^|,)\s*text\/csv\b/i.test(accept);
}

/**
 * The body as JSON, or its table as a CSV download: one route answers both, so every table can be
 * downloaded with the same filters as the page shows.
 */
export function tableReply<T>(
  req: FastifyRequest,
  reply: FastifyReply,
  body: T,
  table: (b: T) => readonly object[],
  fileName: string,
): T | string {
  if (!wantsCsv(req)) return body;
  reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${fileName}.csv"`);
  return toCsv(table(body));
}
