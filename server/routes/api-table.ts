import { API_GROUPS } from './api-route.js';

/**
 * The README's API table, made from the OpenAPI document (pure: document in, Markdown out), so the README cannot
 * drift from the routes: `npm run docs:api` writes it between the markers, and test/contract/readme-api-table.test.ts
 * fails when the README's table is not what the document gives (a route added without its summary, or without
 * running the script).
 */

export const API_TABLE_START = '<!-- api-table:start (npm run docs:api writes this table from /docs/json) -->';
export const API_TABLE_END = '<!-- api-table:end -->';

/** The query parameters every range route takes: shown as one word. */
const RANGE = ['from', 'to', 'nodepool'];

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { name: string; in: string }[];
  responses?: Record<string, { content?: Record<string, unknown> }>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

/** Every /api operation of the document: method, path and what it says of itself. */
export function apiOperations(doc: unknown): { method: string; path: string; op: Operation }[] {
  const paths = isRecord(doc) && isRecord(doc.paths) ? doc.paths : {};
  return Object.entries(paths).flatMap(([path, ops]) =>
    path.startsWith('/api/') && isRecord(ops)
      ? Object.entries(ops).flatMap(([method, op]) => (isRecord(op) ? [{ method: method.toUpperCase(), path, op: op as Operation }] : []))
      : [],
  );
}

function parameters(op: Operation): string {
  const names = (op.parameters ?? []).filter((p) => p.in === 'query' && p.name !== 'format').map((p) => p.name);
  const range = RANGE.every((n) => names.includes(n));
  const rest = names.filter((n) => !range || !RANGE.includes(n)).map((n) => `\`${n}\``);
  return [...(range ? ['range'] : []), ...rest].join(', ');
}

function answersAs(op: Operation): string {
  const ok = op.responses?.['200'] ?? op.responses?.['201'];
  const types = Object.keys(ok?.content ?? {});
  return types.map((t) => (t === 'application/json' ? 'JSON' : t === 'text/csv' ? 'CSV' : t)).join(', ');
}

/** Operations without a summary or outside the known groups: each one a line saying what to add. */
export function undocumentedOperations(doc: unknown): string[] {
  return apiOperations(doc).flatMap(({ method, path, op }) => [
    ...((op.summary ?? '').trim() === '' ? [`${method} ${path}: no summary`] : []),
    ...((op.tags ?? []).some((t) => (API_GROUPS as readonly string[]).includes(t))
      ? []
      : [`${method} ${path}: no group tag (one of ${API_GROUPS.join(', ')})`]),
  ]);
}

/** The table: one row per operation, grouped as API_GROUPS lists them, in the document's order within a group. */
export function apiTableMarkdown(doc: unknown): string {
  const ops = apiOperations(doc);
  const groupOf = (op: Operation): number => {
    const i = API_GROUPS.findIndex((g) => op.tags?.includes(g));
    return i < 0 ? API_GROUPS.length : i;
  };
  const sorted = ops.map((o, i) => ({ ...o, i })).sort((a, b) => groupOf(a.op) - groupOf(b.op) || a.i - b.i);
  const rows = sorted.map(({ method, path, op }) => {
    const what = [op.summary ?? '', op.description ?? ''].filter((t) => t.trim() !== '').map((t) => t.trim().replace(/\.?$/, '.'));
    return `| \`${method} ${path}\` | ${cell(parameters(op))} | ${cell(what.join(' '))} | ${answersAs(op)} |`;
  });
  return ['| route | parameters | what it answers | as |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** `readme` with the text between the markers replaced by `table`; throws when the markers are missing. */
export function withApiTable(readme: string, table: string): string {
  const start = readme.indexOf(API_TABLE_START);
  const end = readme.indexOf(API_TABLE_END);
  if (start < 0 || end < start) throw new Error(`docs/api.md has no "${API_TABLE_START}" ... "${API_TABLE_END}" markers`);
  return `${readme.slice(0, start + API_TABLE_START.length)}\n\n${table}\n\n${readme.slice(end)}`;
}
