/**
 * The /docs page: the OpenAPI document rendered as plain HTML on the server (no script, no inline style,
 * so the app's Content-Security-Policy holds). Pure: document in, HTML out.
 *
 * Hand-written rather than @fastify/swagger-ui: that serves Swagger UI, a script application (about 1 MB) that
 * needs its own CSP exceptions, for a page that only has to list routes, parameters and fields.
 */

const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A JSON schema in a few words: "string (pattern …)", "integer 1..5000", "one of a | b". */
function typeOf(schema: unknown): string {
  if (!isRecord(schema)) return '';
  const anyOf = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : null;
  if (anyOf !== null) {
    const consts = anyOf.map((s) =>
      isRecord(s) && s.const !== undefined
        ? JSON.stringify(s.const)
        : isRecord(s) && Array.isArray(s.enum)
          ? s.enum.map((e) => JSON.stringify(e)).join(' | ')
          : typeOf(s),
    );
    return `one of ${consts.join(' | ')}`;
  }
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((e) => JSON.stringify(e)).join(' | ')}`;
  const bounds =
    schema.minimum !== undefined || schema.maximum !== undefined ? ` ${String(schema.minimum ?? '')}..${String(schema.maximum ?? '')}` : '';
  return `${str(schema.type) || 'value'}${bounds}`;
}

function parametersTable(params: unknown): string {
  if (!Array.isArray(params) || params.length === 0) return '<p>No parameters.</p>';
  const rows = params.filter(isRecord).map((p) => {
    const schema = isRecord(p.schema) ? p.schema : {};
    const description = str(p.description) || str(schema.description);
    return (
      `<tr><td><code>${escapeHtml(str(p.name))}</code></td><td>${escapeHtml(str(p.in))}</td><td>${p.required === true ? 'yes' : 'no'}</td>` +
      `<td>${escapeHtml(typeOf(schema))}</td><td>${escapeHtml(description)}</td></tr>`
    );
  });
  return `<table><thead><tr><th>parameter</th><th>in</th><th>required</th><th>type</th><th>meaning</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function responseFields(responses: unknown): string {
  if (!isRecord(responses)) return '';
  const ok = responses['200'];
  const content = isRecord(ok) && isRecord(ok.content) ? ok.content : {};
  const json = isRecord(content['application/json']) ? content['application/json'] : {};
  const schema = isRecord(json.schema) ? json.schema : {};
  const props = isRecord(schema.properties) ? Object.entries(schema.properties) : [];
  if (props.length === 0) return '';
  const items = props.map(
    ([name, s]) =>
      `<li><code>${escapeHtml(name)}</code> ${escapeHtml(typeOf(s))}${isRecord(s) && str(s.description) ? ` — ${escapeHtml(str(s.description))}` : ''}</li>`,
  );
  const types = Object.keys(content).map(escapeHtml).join(', ');
  return `<p>200 (${types}):</p><ul>${items.join('')}</ul>`;
}

/** The document as one HTML page: every path and method with its parameters and top-level response fields. */
export function docsHtml(doc: unknown, jsonPath = '/docs/json'): string {
  const d = isRecord(doc) ? doc : {};
  const info = isRecord(d.info) ? d.info : {};
  const paths = isRecord(d.paths) ? Object.entries(d.paths).sort(([a], [b]) => a.localeCompare(b)) : [];
  const sections = paths.flatMap(([path, ops]) =>
    (isRecord(ops) ? Object.entries(ops) : [])
      .filter(([, op]) => isRecord(op))
      .map(([method, op]) => {
        const o = op as Record<string, unknown>;
        return (
          `<section><h2><code>${escapeHtml(method.toUpperCase())} ${escapeHtml(path)}</code></h2>` +
          (str(o.summary) ? `<p>${escapeHtml(str(o.summary))}</p>` : '') +
          parametersTable(o.parameters) +
          responseFields(o.responses) +
          '</section>'
        );
      }),
  );
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(str(info.title) || 'API')} — API</title></head><body>` +
    `<h1>${escapeHtml(str(info.title) || 'API')} ${escapeHtml(str(info.version))}</h1>` +
    (str(info.description) ? `<p>${escapeHtml(str(info.description))}</p>` : '') +
    `<p>OpenAPI document: <a href="${escapeHtml(jsonPath)}">${escapeHtml(jsonPath)}</a>. Table routes answer CSV with <code>?format=csv</code> or <code>Accept: text/csv</code>.</p>` +
    sections.join('') +
    '</body></html>'
  );
}
