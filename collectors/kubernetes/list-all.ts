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
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_SOCKET']);
const networkCode = (err: unknown): string | undefined => {
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  for (const v of [e?.code, e?.cause?.code]) if (typeof v === 'string' && NETWORK_CODES.has(v)) return v;
  return undefined;
};

export class KubeListError extends Error {
  constructor(message: string, readonly status: number | undefined) {
    super(message);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Lists every item, `limit` at a time. A 410 Gone (expired continue token) restarts the list from the first
 * page, as the API asks; 429, 5xx and dropped or refused connections are retried with backoff (the page asked
 * for again, its continue token still good). Gives up after a bounded number of tries.
 */
export async function listAll<T>(what: string, fetchPage: (cont: string | undefined) => Promise<Page<T>>, stats: ListStats = { requests: 0, restarts: 0 }, maxRestarts = 3, maxRetries = 5): Promise<T[]> {
  return listMapped(what, fetchPage, (item) => item, stats, maxRestarts, maxRetries);
}

/**
 * listAll, mapping each page as it arrives: only the mapped records outlive their page, so a list of 150,000
 * pods never holds 150,000 API objects (about 12 KB each) at once. A restart drops what was mapped so far.
 */
export async function listMapped<T, R>(what: string, fetchPage: (cont: string | undefined) => Promise<Page<T>>, map: (item: T) => R, stats: ListStats = { requests: 0, restarts: 0 }, maxRestarts = 3, maxRetries = 5): Promise<R[]> {
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
        await sleep(Math.min(2000, 50 * 2 ** retries));
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
