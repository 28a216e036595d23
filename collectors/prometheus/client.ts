import { retryDelayMs, parseRetryAfterMs } from '../kubernetes/list-all.js';

/**
 * A small client for a Prometheus-compatible HTTP API (Prometheus, Thanos, Mimir, VictoriaMetrics, or any route
 * prefix in front of them): `/api/v1/query_range` and `/api/v1/query`, POSTed form-encoded as Prometheus accepts
 * (long queries fit), answers read as Prometheus documents them (`{status, data: {resultType, result}}` or
 * `{status: "error", errorType, error}`). Throttling (429), 5xx and dropped connections are retried with backoff,
 * after the server's Retry-After when longer; every attempt is counted and reported through `onRequest`.
 * Credentials in the URL (user:password@) are sent as basic auth and never printed.
 */

export interface PrometheusSeries {
  metric: Record<string, string>;
  /** [unix seconds, value as Prometheus prints it]. */
  values: [number, string][];
}

export class PrometheusError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly errorType: string | undefined,
  ) {
    super(message);
  }
}

export interface PrometheusClientOptions {
  /** The API's base URL: what precedes /api/v1 (e.g. http://prometheus.monitoring:9090 or https://host/prefix). */
  url: string;
  /** Called once per HTTP attempt (retries included), for request counting. */
  onRequest?: (endpoint: string) => void;
  maxRetries?: number;
  /** Per-attempt timeout. */
  timeoutMs?: number;
}

/** The URL without credentials, query or trailing slash: what may be printed and stored. */
export function displayUrl(url: string): string {
  const u = new URL(url);
  u.username = '';
  u.password = '';
  u.search = '';
  u.hash = '';
  return u.toString().replace(/\/$/, '');
}

/** A Prometheus API answer: success with data, or an error with its type. */
interface PrometheusBody {
  status?: string;
  errorType?: string;
  error?: string;
  data?: { resultType?: string; result?: unknown } | unknown[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const RETRIED_STATUS = (s: number) => s === 429 || s >= 500;

export function createPrometheusClient(o: PrometheusClientOptions) {
  const parsed = new URL(o.url);
  const auth =
    parsed.username !== ''
      ? `Basic ${Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`).toString('base64')}`
      : null;
  parsed.username = '';
  parsed.password = '';
  const base = parsed.toString().replace(/\/$/, '');
  const shown = displayUrl(o.url);
  const maxRetries = o.maxRetries ?? 5;
  let attempts = 0;

  /** POSTs the form (queries), or GETs with it as the query string (label values: GET only in Prometheus). */
  async function call(
    endpoint: string,
    form: Record<string, string> | URLSearchParams,
    method: 'POST' | 'GET' = 'POST',
  ): Promise<{ resultType: string; result: unknown[] }> {
    const params = new URLSearchParams(form).toString();
    for (let attempt = 0; ; attempt++) {
      attempts += 1;
      o.onRequest?.(endpoint);
      let res: Response;
      try {
        res = await fetch(method === 'GET' ? `${base}${endpoint}?${params}` : `${base}${endpoint}`, {
          method,
          headers: {
            ...(method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
            accept: 'application/json',
            ...(auth ? { authorization: auth } : {}),
          },
          ...(method === 'POST' ? { body: params } : {}),
          signal: AbortSignal.timeout(o.timeoutMs ?? 120_000),
        });
      } catch (err) {
        if (attempt < maxRetries) {
          await sleep(retryDelayMs(attempt + 1, undefined));
          continue;
        }
        throw new PrometheusError(`${shown}${endpoint}: ${(err as Error).message}`, undefined, undefined);
      }
      const text = await res.text();
      // An answer that is not JSON (a proxy's HTML error page) reads as no body: its text goes into the message.
      let body: PrometheusBody | null;
      try {
        body = JSON.parse(text) as PrometheusBody;
      } catch {
        body = null;
      }
      const data = body?.data;
      // The label values API answers `data` as the list itself.
      if (res.ok && body?.status === 'success' && Array.isArray(data)) return { resultType: 'labels', result: data };
      if (res.ok && body?.status === 'success' && data && !Array.isArray(data) && Array.isArray(data.result)) {
        return { resultType: data.resultType ?? '', result: data.result };
      }
      if (RETRIED_STATUS(res.status) && attempt < maxRetries) {
        await sleep(retryDelayMs(attempt + 1, parseRetryAfterMs(res.headers.get('retry-after') ?? undefined, Date.now())));
        continue;
      }
      const why = body?.error ?? (text.slice(0, 200) || res.statusText);
      throw new PrometheusError(
        `${shown}${endpoint} answered HTTP ${res.status}${body?.errorType ? ` (${body.errorType})` : ''}: ${why}`,
        res.status,
        body?.errorType,
      );
    }
  }

  return {
    url: shown,
    /** HTTP requests sent so far, retries included. */
    attempts: (): number => attempts,
    /** A range query: one series per label set, values at start, start + step, … ≤ end. */
    async queryRange(query: string, startMs: number, endMs: number, stepMs: number): Promise<PrometheusSeries[]> {
      const data = await call('/api/v1/query_range', {
        query,
        start: String(startMs / 1000),
        end: String(endMs / 1000),
        step: String(stepMs / 1000),
      });
      if (data.resultType !== 'matrix')
        throw new PrometheusError(`${shown}: query_range answered a ${data.resultType}, not a matrix`, 200, undefined);
      return data.result as PrometheusSeries[];
    },
    /**
     * The values a label takes on the series `match` selects over [startMs, endMs] (`/api/v1/label/<name>/values`);
     * null when the API does not offer it (404: some Prometheus-compatible stores).
     */
    async labelValues(label: string, match: string, startMs: number, endMs: number): Promise<string[] | null> {
      const q = new URLSearchParams({ 'match[]': match, start: String(startMs / 1000), end: String(endMs / 1000) });
      try {
        const data = await call(`/api/v1/label/${encodeURIComponent(label)}/values`, q, 'GET');
        return data.result.filter((v): v is string => typeof v === 'string');
      } catch (err) {
        if (err instanceof PrometheusError && err.status === 404) return null;
        throw err;
      }
    },
    /** An instant query (a vector): one value per label set. */
    async query(query: string, atMs: number): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
      const data = await call('/api/v1/query', { query, time: String(atMs / 1000) });
      if (data.resultType !== 'vector')
        throw new PrometheusError(`${shown}: query answered a ${data.resultType}, not a vector`, 200, undefined);
      return data.result as { metric: Record<string, string>; value: [number, string] }[];
    },
  };
}

export type PrometheusClient = ReturnType<typeof createPrometheusClient>;
