import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every level and undefined members dropped (Dates as RFC 3339 text), so two
 * objects that mean the same serialise to the same text whatever order their fields arrived in: what a content hash
 * needs. Arrays keep their order (it can matter: tolerations, terms). Works on the client's model classes too.
 */
export function canonicalJson(v: unknown): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object':
      break;
    default:
      return 'null';
  }
  if (v instanceof Date) return JSON.stringify(v.toISOString());
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out += ',';
      out += v[i] === undefined ? 'null' : canonicalJson(v[i]);
    }
    return `${out}]`;
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length > 1) keys.sort();
  let out = '{';
  let first = true;
  for (const k of keys) {
    const x = o[k];
    if (x === undefined || typeof x === 'function') continue;
    if (!first) out += ',';
    first = false;
    out += quoted(k) + canonicalJson(x);
  }
  return `${out}}`;
}

// Object keys repeat (every toleration has a key, operator and effect): each quoted once. Bounded by dropping it.
let quotedKeys = new Map<string, string>();
function quoted(k: string): string {
  let q = quotedKeys.get(k);
  if (q === undefined) {
    if (quotedKeys.size > 10_000) quotedKeys = new Map();
    q = `${JSON.stringify(k)}:`;
    quotedKeys.set(k, q);
  }
  return q;
}

/** A short content hash of a canonical JSON text (SHA-1, base64url: 27 characters, 160 bits). */
export const contentHash = (json: string): string => createHash('sha1').update(json).digest('base64url');
