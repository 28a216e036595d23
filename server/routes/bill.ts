import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { MAX_IMPORT_BYTES } from '../explain/csv-import.js';
import { BillImportError } from '../explain/csv-syntax.js';
import { fileFromMultipart } from '../explain/multipart.js';
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
  type BillExplainQuery,
  type BillLinesQuery,
  type ImportQuery,
  type PracticeQuery,
} from '../schemas/bill.js';
import { ErrorResponseSchema } from '../schemas/reports.js';
import type { BillPractice } from '../services/bill-practice.js';
import type { BillService } from '../services/bill-service.js';

const errors = { 400: ErrorResponseSchema, 404: ErrorResponseSchema, 500: ErrorResponseSchema };
const importErrors = {
  400: ErrorResponseSchema,
  413: ErrorResponseSchema,
  415: ErrorResponseSchema,
  422: ErrorResponseSchema,
  500: ErrorResponseSchema,
};
/** Room for multipart framing around a file at the limit; the file itself is checked against MAX_IMPORT_BYTES. */
const IMPORT_BODY_LIMIT = MAX_IMPORT_BYTES + 64 * 1024;
const CSV_TYPES = ['text/csv', 'application/csv', 'text/plain', 'application/octet-stream', 'multipart/form-data'];

function sendCsv(reply: FastifyReply, fileName: string, csv: string): FastifyReply {
  return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${fileName}"`).send(csv);
}

/** Explain this bill: lines, explanations, CSV import and practice bills. Each handler is one call into a service. */
export async function billRoutes(app: FastifyInstance, opts: { bill: BillService; practice: BillPractice }): Promise<void> {
  const { bill, practice } = opts;

  // Uploads arrive as raw bytes (the parser checks size and encoding itself); only for this plugin's routes.
  app.addContentTypeParser(CSV_TYPES, { parseAs: 'buffer', bodyLimit: IMPORT_BODY_LIMIT }, (_req, body, done) => done(null, body));

  // Import failures carry their own status (413/415/400/422); the body limit gets a message that says the limit.
  app.setErrorHandler((err: FastifyError, _req, reply) => {
    if (err instanceof BillImportError) {
      return reply.code(err.statusCode).send({ statusCode: err.statusCode, error: reasonPhrase(err.statusCode), message: err.message });
    }
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply
        .code(413)
        .send({
          statusCode: 413,
          error: 'Payload Too Large',
          message: `The upload is over ${MAX_IMPORT_BYTES} bytes (5 MB): export a shorter date range.`,
        });
    }
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply
        .code(415)
        .send({
          statusCode: 415,
          error: 'Unsupported Media Type',
          message: `Send the CSV as text/csv or multipart/form-data (got ${String(_req.headers['content-type'] ?? 'no content type')}).`,
        });
    }
    throw err;
  });

  app.get<{ Querystring: BillLinesQuery }>(
    '/api/bill/lines',
    { schema: { querystring: BillLinesQuerySchema, response: { 200: BillLinesResponseSchema, ...errors } } },
    async (req) => bill.lines(req.query),
  );

  app.get<{ Querystring: BillLinesQuery }>(
    '/api/bill/lines.csv',
    { schema: { querystring: BillLinesQuerySchema, response: errors } },
    async (req, reply) => sendCsv(reply, 'bill-lines.csv', bill.linesCsv(req.query)),
  );

  app.get<{ Querystring: BillExplainQuery }>(
    '/api/bill/explain',
    { schema: { querystring: BillExplainQuerySchema, response: { 200: ExplanationSchema, ...errors } } },
    async (req) => bill.explain(req.query),
  );

  app.get<{ Querystring: BillExplainQuery }>(
    '/api/bill/explain.csv',
    { schema: { querystring: BillExplainQuerySchema, response: errors } },
    async (req, reply) => sendCsv(reply, 'bill-explained.csv', bill.explainCsv(req.query)),
  );

  app.post<{ Querystring: ImportQuery; Body: unknown }>(
    '/api/bill/import',
    { bodyLimit: IMPORT_BODY_LIMIT, schema: { querystring: ImportQuerySchema, response: { 201: ImportResponseSchema, ...importErrors } } },
    async (req, reply) => {
      const type = String(req.headers['content-type'] ?? '');
      if (!Buffer.isBuffer(req.body))
        throw new BillImportError(415, `Send the CSV as text/csv or multipart/form-data (got ${type || 'no content type'}).`);
      const upload = type.toLowerCase().startsWith('multipart/form-data')
        ? fileFromMultipart(req.body, type)
        : { fileName: null, bytes: req.body };
      return reply.code(201).send(bill.importCsv({ bytes: upload.bytes, fileName: upload.fileName, query: req.query }));
    },
  );

  app.get<{ Querystring: PracticeQuery }>(
    '/api/bill/practice',
    { schema: { querystring: PracticeQuerySchema, response: { 200: PracticeQuestionSchema, ...errors, 409: ErrorResponseSchema } } },
    async (req) => practice.question(req.query),
  );

  app.get<{ Querystring: PracticeQuery }>(
    '/api/bill/practice/answers',
    { schema: { querystring: PracticeQuerySchema, response: { 200: PracticeAnswersSchema, ...errors, 409: ErrorResponseSchema } } },
    async (req) => practice.answers(req.query),
  );
}

function reasonPhrase(status: number): string {
  return (
    (
      { 400: 'Bad Request', 413: 'Payload Too Large', 415: 'Unsupported Media Type', 422: 'Unprocessable Entity' } as Record<number, string>
    )[status] ?? 'Client Error'
  );
}
