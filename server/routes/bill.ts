import fastifyMultipart from '@fastify/multipart';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { explanationsTable, linesTable } from '../explain/csv-export.js';
import { MAX_IMPORT_BYTES } from '../explain/csv-import.js';
import { DatabaseWriteError } from '../database-writer.js';
import { BillImportError } from '../explain/csv-syntax.js';
import { API_ROUTES, type ApiQuery } from '../schemas/api-routes.js';
import { ErrorResponseSchema } from '../schemas/common.js';
import type { BillCurService } from '../services/bill-cur-service.js';
import type { BillPractice } from '../services/bill-practice.js';
import type { BillService } from '../services/bill-service.js';
import { apiRoutes } from './api-route.js';

const importErrors = {
  400: ErrorResponseSchema,
  /** A collector holds the database: an import writes, so it needs the collector lock. */
  409: ErrorResponseSchema,
  413: ErrorResponseSchema,
  415: ErrorResponseSchema,
  422: ErrorResponseSchema,
  500: ErrorResponseSchema,
  /** The database cannot be written (read-only file or folder, full disk). */
  503: ErrorResponseSchema,
};
/** A raw CSV body; multipart/form-data is streamed by @fastify/multipart instead. */
const CSV_TYPES = ['text/csv', 'application/csv', 'text/plain', 'application/octet-stream'];
const TOO_LARGE = `The upload is over ${MAX_IMPORT_BYTES} bytes (5 MB): export a shorter date range.`;
const NO_FILE = 'The form has no file: send the CSV as a file field (e.g. curl -F file=@costs.csv).';

const REASON_PHRASES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  503: 'Service Unavailable',
};

/** Just the file name, whatever path a browser sent. */
const baseName = (name: string): string => name.split(/[\\/]/).pop() ?? name;

/**
 * The first file part of a multipart/form-data upload, streamed by @fastify/multipart with its limits: one file of
 * at most MAX_IMPORT_BYTES (the part is cut there and the request refused with 413 before anything is parsed).
 */
async function fileOfForm(req: FastifyRequest): Promise<{ fileName: string | null; bytes: Buffer }> {
  let upload: { fileName: string | null; bytes: Buffer } | null = null;
  // Read the form to its end before anything is stored: a second file or a form cut short refuses the whole upload.
  for await (const part of req.parts()) {
    if (part.type !== 'file') continue;
    if (upload !== null) throw new BillImportError(400, 'The form holds more than one file: send one CSV per import.');
    upload = { fileName: part.filename === '' ? null : baseName(part.filename), bytes: await part.toBuffer() };
  }
  if (upload === null) throw new BillImportError(400, NO_FILE);
  return upload;
}

/** @fastify/multipart's and busboy's errors as the import's own: the status it promises and a message that says what to do. */
function importErrorOf(err: FastifyError): BillImportError | DatabaseWriteError | null {
  if (err instanceof BillImportError || err instanceof DatabaseWriteError) return err;
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
      return new BillImportError(413, TOO_LARGE);
    case 'FST_FILES_LIMIT':
      return new BillImportError(400, 'The form holds more than one file: send one CSV per import.');
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new BillImportError(400, 'The form holds too many fields: send just the CSV file (e.g. curl -F file=@costs.csv).');
    case 'FST_MP_PREMATURE_CLOSE':
      return new BillImportError(400, 'multipart body cut short: the closing boundary is missing.');
    default:
      break;
  }
  if (/boundary not found/i.test(err.message)) return new BillImportError(400, 'multipart/form-data without a boundary parameter.');
  if (/unexpected end of (multipart|form)|part terminated early/i.test(err.message)) {
    return new BillImportError(400, 'multipart body cut short: the closing boundary is missing.');
  }
  return null;
}

/** Explain this bill: lines, explanations, CSV import and practice bills. Each handler is one call into a service. */
export async function billRoutes(
  app: FastifyInstance,
  opts: { bill: BillService; practice: BillPractice; billCur: BillCurService; clusters?: () => readonly { id: number; name: string }[] },
): Promise<void> {
  const { bill, practice, billCur } = opts;
  const routes = apiRoutes(app, 'bill');

  // Uploads arrive as raw bytes (the parser checks size and encoding itself); only for this plugin's routes.
  app.addContentTypeParser(CSV_TYPES, { parseAs: 'buffer', bodyLimit: MAX_IMPORT_BYTES }, (_req, body, done) => done(null, body));
  await app.register(fastifyMultipart, {
    limits: { fileSize: MAX_IMPORT_BYTES, files: 1, fields: 20, fieldSize: 64 * 1024, parts: 21, headerPairs: 100 },
    throwFileSizeLimit: true,
  });

  // Import failures carry their own status (413/415/400/422, 409/503 when the database cannot be written) and say
  // why; the others go to the app's handler.
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const importError = importErrorOf(err);
    if (importError !== null) {
      const status = importError.statusCode;
      return reply.code(status).send({ statusCode: status, error: REASON_PHRASES[status] ?? 'Client Error', message: importError.message });
    }
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply.code(415).send({
        statusCode: 415,
        error: 'Unsupported Media Type',
        message: `Send the CSV as text/csv or multipart/form-data (got ${String(req.headers['content-type'] ?? 'no content type')}).`,
      });
    }
    throw err;
  });

  routes.get(
    '/api/bill/lines',
    {
      summary: 'The lines of a stored bill (synced from Cost Explorer, or an imported CSV) with totals per NodePool',
      description:
        '`source` (cost-explorer, the default, or `csv:<name>`), one grouping (`groupBy`, default PURCHASE_TYPE) and one granularity at a time, so lines add up; `sources` lists every stored bill.',
      csv: { fileName: 'bill-lines', table: (b) => linesTable(b.lines) },
      csvAliases: ['/api/bill/lines.csv'],
    },
    (q, c) => bill.lines(q, c.clusterId),
  );

  routes.get(
    '/api/bill/explain',
    {
      summary: 'One bill line explained: the NodeClaims behind it, what each cost and why it existed, and the remainder with its cause',
      description:
        'The line by `lineId` (from /api/bill/lines) or by its key (`source`, `period`, `nodepool`, `groupBy`, `dimension`). CSV: one row per NodeClaim, then the line and its remainder.',
      errors: [404],
      csv: { fileName: 'bill-explained', table: (b) => explanationsTable([b]) },
      csvAliases: ['/api/bill/explain.csv'],
    },
    (q, c) => bill.explain(q, c.clusterId),
  );

  app.post(
    '/api/bill/import',
    {
      schema: {
        summary: 'Import a Cost Explorer console CSV (grouped by the karpenter.sh/nodepool tag) as the bill `csv:<name>`',
        description:
          'The file as multipart/form-data (`-F file=@costs.csv`) or as the body (text/csv). At most 5 MB (413), UTF-8 only (415), a Cost Explorer export grouped by karpenter.sh/nodepool without formulas (422); nothing of a refused file is stored. Importing a name again replaces it. The bill is of the cluster `cluster` names, default the ledger’s only cluster; a ledger of several clusters needs `cluster` (400 naming it: the console export is grouped by the NodePool tag only, so it cannot say). An import writes: it takes the collector lock for that moment, so it is refused (409, naming the collector) while a collector holds the database, and with 503 when the file cannot be written.',
        tags: ['bill'],
        querystring: API_ROUTES['/api/bill/import'].query,
        response: { 201: API_ROUTES['/api/bill/import'].response, ...importErrors },
      },
    },
    async (req, reply) => {
      // The cluster the bill is of: `?cluster=`, else the ledger's only one; a ledger of several must be told.
      const held = opts.clusters?.() ?? [];
      const clusterId = req.cluster?.id ?? (held.length <= 1 ? (held[0]?.id ?? 1) : null);
      if (clusterId === null)
        throw new BillImportError(
          400,
          `Query parameter "cluster": this ledger holds ${held.length} clusters (${held.map((c) => `"${c.name}"`).join(', ')}); name the one the bill is of (?cluster=NAME). A Cost Explorer console CSV is grouped by the NodePool tag only, so it cannot say.`,
        );
      const upload = req.isMultipart() ? await fileOfForm(req) : Buffer.isBuffer(req.body) ? { fileName: null, bytes: req.body } : null;
      if (upload === null) {
        const type = String(req.headers['content-type'] ?? '');
        throw new BillImportError(415, `Send the CSV as text/csv or multipart/form-data (got ${type || 'no content type'}).`);
      }
      const query = req.query as ApiQuery<'/api/bill/import'>;
      return reply.code(201).send(bill.importCsv({ bytes: upload.bytes, fileName: upload.fileName, query, clusterId }));
    },
  );

  routes.get(
    '/api/bill/practice',
    {
      summary: 'A practice question: a hypothetical bill the sandbox makes for a day, and which line to explain',
      description:
        'Needs a database seeded by `demo` (409 otherwise). `seed` picks the day, the perturbation and the question; the answers are a separate call. `csv` in the JSON is the bill as the Cost Explorer console would download it; the CSV download is its lines.',
      errors: [409, 501],
      csv: { fileName: 'bill-practice', table: (b) => linesTable(b.lines) },
    },
    (q, c) => practice.question(q, c.clusterId),
  );

  routes.get(
    '/api/bill/practice/answers',
    {
      summary: 'The answers to a practice question: each line explained, and what the sandbox changed in the bill',
      description: 'The same parameters as /api/bill/practice. CSV: the explanations, as /api/bill/explain writes them.',
      errors: [409, 501],
      csv: { fileName: 'bill-practice-answers', table: (b) => explanationsTable(b.explanations) },
    },
    (q, c) => practice.answers(q, c.clusterId),
  );

  routes.get(
    '/api/bill/cur/lines',
    {
      summary: "A UTC day of the Cost and Usage Report's resource lines (instances, volumes, …): one row per resource, in `metric`",
      description:
        'Default: the newest day with CUR lines (`days` lists them all). Each resource names its NodePool and NodeClaim (tag, or our NodeClaim by instance id), line item types and whether a Savings Plan or reservation covered it. CSV: the resources.',
      csv: { fileName: 'bill-cur-lines', table: (b) => b.resources },
    },
    (q, c) => billCur.lines(q, c.clusterId),
  );

  routes.get(
    '/api/bill/cur/explain',
    {
      summary:
        "A CUR resource-day (or a whole day, or a NodePool's day) explained: usage × rate, the line item type, the commitment ARN that covered it, amortized vs unblended, and the NodeClaim behind it",
      description:
        '`resource` (i-…, vol-…): that resource with the NodeClaim we collected for its instance id (hours, our estimate, why Karpenter launched it). Without it: every resource of the day (of `nodepool`), the largest 200. CSV: one line per CUR line.',
      csv: {
        fileName: 'bill-cur-explain',
        table: (b) =>
          b.explanations.flatMap((e) =>
            e.lines.map((l) => ({
              day: l.day,
              resourceId: l.resourceId,
              nodePool: l.nodePool,
              nodeClaim: l.nodeClaim,
              lineItemType: l.lineItemType,
              usageType: l.usageType,
              commitmentArn: l.commitment?.arn ?? null,
              usageAmount: l.usageAmount,
              unblendedUsd: l.unblendedUsd,
              amortizedUsd: l.amortizedUsd,
              billUsd: l.billUsd,
              text: l.text,
            })),
          ),
      },
    },
    (q, c) => billCur.explain(q, c.clusterId),
  );
}
