/** Typed GETs against the ledger's API. Response types come from server/schemas (type-only imports). */

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

export type QueryParams = Readonly<Record<string, string | undefined>>;

export function apiUrl(path: string, params: QueryParams = {}): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) search.set(k, v);
  const qs = search.toString();
  return qs === '' ? path : `${path}?${qs}`;
}

const messageOf = (body: unknown): string | null =>
  typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string' ? body.message : null;

/** GET `path` and return its JSON as `T` (the server validates and serializes with the same schema). */
export async function getJson<T>(path: string, params?: QueryParams, signal?: AbortSignal): Promise<T> {
  const url = apiUrl(path, params);
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: 'application/json' }, signal });
  } catch (err) {
    if (signal?.aborted === true) throw err;
    throw new ApiError(0, 'The NodePool Ledger server did not answer.', path);
  }
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, messageOf(body) ?? `HTTP ${res.status}`, path);
  return body as T;
}

/** POST a file as multipart/form-data (field "file") and return the JSON answer as `T`. */
export async function postFile<T>(path: string, params: QueryParams, file: Blob, fileName: string): Promise<T> {
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
  return body as T;
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
