import type {
  ApiGetPath,
  ApiPath,
  ApiPostPath,
  ApiQuery,
  ApiResponse,
  ApiWriteBody,
  ApiWriteKey,
  ApiWriteParams,
  ApiWriteResponse,
} from '@schemas/api-routes';
import { currentCluster, withCluster } from './cluster';

/**
 * Calls to the ledger's API, typed by path from the route map in server/schemas/api-routes.ts (type-only import):
 * the query a path takes and the JSON it answers, so a renamed parameter or field is a compile error here
 * (web/src/lib/api-contract.test-d.ts proves it).
 */

/** A failed API call. `status` is the HTTP status, or 0 when the server could not be reached. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The server is not answering at all (stopped, or the network is down). */
  get unreachable(): boolean {
    return this.status === 0;
  }
}

/** The query of `path` as the server declares it (numbers as numbers); a parameter left undefined is left out. */
export type ApiParams<P extends ApiPath> = Readonly<NoneIfEmpty<ApiQuery<P>>>;
/** What getJson takes: the query without `format` (it always asks for JSON). */
export type JsonParams<P extends ApiGetPath> = Readonly<NoneIfEmpty<Omit<ApiQuery<P>, 'format'>>>;
/** A route without parameters takes none (an empty object type would take anything). */
type NoneIfEmpty<Q> = [keyof Q] extends [never] ? Record<string, never> : Q;

/**
 * The URL of `path` with its query: for fetches, and for CSV download links (`format: 'csv'`). The page's cluster
 * (`?cluster=` of its URL) is asked too unless the query names one (lib/cluster.ts).
 */
export function apiUrl<P extends ApiPath>(path: P, params?: NoInfer<ApiParams<P>>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(withCluster(path, params) ?? {}) as [string, unknown][]) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') search.set(k, String(v));
  }
  const qs = search.toString();
  return qs === '' ? path : `${path}?${qs}`;
}

const messageOf = (body: unknown): string | null =>
  typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string' ? body.message : null;

/** GET `path` and return its JSON, typed by the route map (the server validates and serializes with the same schemas). */
export async function getJson<P extends ApiGetPath>(
  path: P,
  params?: NoInfer<JsonParams<P>>,
  signal?: AbortSignal,
): Promise<ApiResponse<P>> {
  const url = apiUrl(path, params as ApiParams<P> | undefined);
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: 'application/json' }, signal });
  } catch (err) {
    if (signal?.aborted === true) throw err;
    throw new ApiError(0, 'The NodePool Ledger server did not answer.', path);
  }
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, messageOf(body) ?? `HTTP ${res.status}`, path);
  return body as ApiResponse<P>;
}

/** POST a file as multipart/form-data (field "file") and return the JSON answer. */
export async function postFile<P extends ApiPostPath>(
  path: P,
  params: ApiParams<P>,
  file: Blob,
  fileName: string,
): Promise<ApiResponse<P>> {
  const form = new FormData();
  form.append('file', file, fileName);
  let res: Response;
  try {
    res = await fetch(apiUrl(path, params), { method: 'POST', body: form, headers: { accept: 'application/json' } });
  } catch {
    throw new ApiError(0, 'The NodePool Ledger server did not answer.', path);
  }
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, messageOf(body) ?? `HTTP ${res.status}`, path);
  return body as ApiResponse<P>;
}

/** POST text (YAML, say) as the body and return the JSON answer. */
export async function postText<P extends ApiPostPath>(
  path: P,
  params: ApiParams<P>,
  text: string,
  contentType: string,
): Promise<ApiResponse<P>> {
  let res: Response;
  try {
    res = await fetch(apiUrl(path, params), {
      method: 'POST',
      body: text,
      headers: { accept: 'application/json', 'content-type': contentType },
    });
  } catch {
    throw new ApiError(0, 'The NodePool Ledger server did not answer.', path);
  }
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, messageOf(body) ?? `HTTP ${res.status}`, path);
  return body as ApiResponse<P>;
}

/**
 * A write route of the map (`'PUT /api/budgets/{name}'`): its path parameters filled in, its JSON body sent, its JSON
 * answer returned, all typed by the map's entry.
 */
export async function sendJson<K extends ApiWriteKey>(
  key: K,
  params: ApiWriteParams<K>,
  body: ApiWriteBody<K>,
): Promise<ApiWriteResponse<K>> {
  const [method = 'POST', template = ''] = key.split(' ');
  // The page's cluster goes along: a budget made while a cluster is picked is that cluster's.
  const cluster = currentCluster();
  const path =
    template.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(String((params as Record<string, unknown>)[name] ?? ''))) +
    (cluster === undefined ? '' : `?cluster=${encodeURIComponent(cluster)}`);
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: { accept: 'application/json', ...(body === null ? {} : { 'content-type': 'application/json' }) },
      ...(body === null ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError(0, 'The NodePool Ledger server did not answer.', path);
  }
  const answer: unknown = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, messageOf(answer) ?? `HTTP ${res.status}`, path);
  return answer as ApiWriteResponse<K>;
}

/** What the user can do about an error, in one sentence. */
export function whatToDo(err: unknown): string {
  if (!(err instanceof ApiError))
    return 'Something went wrong in the page. Reload it; if it persists, report it with the browser console output.';
  if (err.unreachable) return 'Cannot reach the NodePool Ledger server. Check that it is still running (npm start), then retry.';
  if (err.status === 401 || err.status === 403)
    return 'This server needs its access token: open the link with ?token= that it printed when it started.';
  if (err.status === 409) return `${err.message}`;
  if (err.status === 400) return `The server rejected the request: ${err.message} Pick another range or NodePool.`;
  if (err.status === 404) {
    return err.message.startsWith('No route')
      ? 'This server does not know that API route. Is the page newer than the server? Restart the server.'
      : `${err.message} It may have been replaced: reload the list.`;
  }
  return 'The server failed to answer (its log has the cause). Retry; if it keeps failing, restart the server.';
}
