/** One page of a Kubernetes list: its items and the continue token, if more remain. */
export interface Page<T> {
  items: T[];
  continueToken: string | undefined;
}

export interface ListStats {
  requests: number;
  restarts: number;
}

const statusCode = (err: unknown): number | undefined => {
  const e = err as { code?: unknown; statusCode?: unknown; response?: { status?: unknown } };
  for (const v of [e?.code, e?.statusCode, e?.response?.status]) if (typeof v === 'number') return v;
  return undefined;
};

/** Connection-level failures (the API server restarting, a load balancer dropping the connection): worth a retry. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
]);
const networkCode = (err: unknown): string | undefined => {
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  for (const v of [e?.code, e?.cause?.code]) if (typeof v === 'string' && NETWORK_CODES.has(v)) return v;
  return undefined;
};

export class KubeListError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
  ) {
    super(message);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A server may ask for a long pause (an overloaded API server's priority and fairness); past this we retry anyway. */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * A Retry-After header value (RFC 9110: delay-seconds or an HTTP-date) as milliseconds from `nowMs`; undefined when
 * absent or unreadable. A date in the past means "now" (0).
 */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Only an HTTP-date (IMF-fixdate or RFC 850) starts with a weekday and ends in GMT; Date.parse alone would also
  // take "1.5" or "2026" as dates.
  if (!/^[A-Za-z]{3,9}, .* GMT$/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** The Retry-After of a failed request's response, from the client's ApiException (header names are lower-case there). */
function retryAfterOf(err: unknown, nowMs: number): number | undefined {
  const headers = (err as { headers?: unknown })?.headers;
  if (typeof headers !== 'object' || headers === null) return undefined;
  const entry = Object.entries(headers).find(([k]) => k.toLowerCase() === 'retry-after');
  return typeof entry?.[1] === 'string' ? parseRetryAfterMs(entry[1], nowMs) : undefined;
}

/**
 * How long to wait before retry number `retry` (1-based): exponential backoff (100 ms, 200 ms, … up to 2 s), or the
 * server's Retry-After when it asks for longer, capped at MAX_RETRY_AFTER_MS. Never less than the backoff: a
 * Retry-After of 0 from a struggling server must not turn the retries into a tight loop.
 */
export function retryDelayMs(retry: number, retryAfterMs: number | undefined): number {
  const backoffMs = Math.min(2000, 50 * 2 ** retry);
  return Math.max(backoffMs, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
}

/**
 * Lists every item, `limit` at a time. A 410 Gone (expired continue token) restarts the list from the first
 * page, as the API asks; 429, 5xx and dropped or refused connections are retried with backoff, or after the
 * server's Retry-After when longer (the page asked for again, its continue token still good). Gives up after a
 * bounded number of tries.
 */
export async function listAll<T>(
  what: string,
  fetchPage: (cont: string | undefined) => Promise<Page<T>>,
  stats: ListStats = { requests: 0, restarts: 0 },
  maxRestarts = 3,
  maxRetries = 5,
): Promise<T[]> {
  return listMapped(what, fetchPage, (item) => item, stats, maxRestarts, maxRetries);
}

/**
 * listAll, mapping each page as it arrives: only the mapped records outlive their page, so a list of 150,000
 * pods never holds 150,000 API objects (about 12 KB each) at once. A restart drops what was mapped so far.
 */
export async function listMapped<T, R>(
  what: string,
  fetchPage: (cont: string | undefined) => Promise<Page<T>>,
  map: (item: T) => R,
  stats: ListStats = { requests: 0, restarts: 0 },
  maxRestarts = 3,
  maxRetries = 5,
): Promise<R[]> {
  let items: R[] = [];
  let cont: string | undefined;
  let retries = 0;
  for (;;) {
    let page: Page<T>;
    try {
      stats.requests += 1;
      page = await fetchPage(cont);
    } catch (err) {
      const code = statusCode(err);
      if (code === 410 && stats.restarts < maxRestarts) {
        stats.restarts += 1;
        items = [];
        cont = undefined;
        continue;
      }
      if ((code === 429 || (code !== undefined && code >= 500) || networkCode(err) !== undefined) && retries < maxRetries) {
        retries += 1;
        await sleep(retryDelayMs(retries, retryAfterOf(err, Date.now())));
        continue;
      }
      throw new KubeListError(`listing ${what} failed${code ? ` with HTTP ${code}` : ''}: ${(err as Error).message}`, code);
    }
    // A loop, not push(...items): spreading a large page can overflow the call stack.
    for (const item of page.items) items.push(map(item));
    if (!page.continueToken) return items;
    cont = page.continueToken;
  }
}
