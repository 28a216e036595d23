import { Agent, request } from 'node:http';

/** What one load run measured. Latencies in milliseconds, from request sent to body fully read. */
export interface LoadReport {
  clients: number;
  seconds: number;
  requests: number;
  requestsPerSecond: number;
  /** Non-2xx answers and failed requests (connection errors, timeouts), with a few examples. */
  errors: number;
  errorExamples: string[];
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  /** Per path (query left out), for the slowest. */
  byPath: { path: string; requests: number; p50: number; p99: number; max: number }[];
}

export interface LoadOptions {
  /** http://127.0.0.1:PORT */
  baseUrl: string;
  /** Paths (with query) the clients cycle through. */
  paths: string[];
  clients: number;
  seconds: number;
  /** One request taking longer than this counts as an error (and is abandoned). */
  timeoutMs?: number;
  headers?: Record<string, string>;
}

/** The q-th quantile of sorted values (nearest rank). */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

const round = (ms: number): number => Math.round(ms * 10) / 10;

/**
 * `clients` concurrent clients, each on its own keep-alive connection, sending one request after another (each
 * client starting at a different path) until `seconds` have passed: a bounded loop that stops by itself.
 */
export async function runLoad(o: LoadOptions): Promise<LoadReport> {
  const base = new URL(o.baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: o.clients });
  const timeoutMs = o.timeoutMs ?? 10_000;
  const latencies: number[] = [];
  const perPath = new Map<string, number[]>();
  const errorExamples: string[] = [];
  let errors = 0;
  const fail = (what: string): void => {
    errors += 1;
    if (errorExamples.length < 5) errorExamples.push(what);
  };

  const once = (path: string): Promise<void> =>
    new Promise((resolve) => {
      const started = process.hrtime.bigint();
      const req = request(
        { host: base.hostname, port: base.port, path, agent, headers: { accept: 'application/json', ...o.headers }, timeout: timeoutMs },
        (res) => {
          res.on('data', () => {});
          res.on('end', () => {
            const ms = Number(process.hrtime.bigint() - started) / 1e6;
            if ((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300) {
              latencies.push(ms);
              const key = path.split('?')[0];
              const list = perPath.get(key) ?? [];
              list.push(ms);
              perPath.set(key, list);
            } else {
              fail(`${path}: HTTP ${res.statusCode}`);
            }
            resolve();
          });
          res.on('error', (err) => {
            fail(`${path}: ${err.message}`);
            resolve();
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
      req.on('error', (err) => {
        fail(`${path}: ${err.message}`);
        resolve();
      });
      req.end();
    });

  const startedAt = Date.now();
  const deadline = startedAt + o.seconds * 1000;
  await Promise.all(
    Array.from({ length: o.clients }, async (_, client) => {
      for (let i = client; Date.now() < deadline; i++) await once(o.paths[i % o.paths.length]);
    }),
  );
  const elapsedS = (Date.now() - startedAt) / 1000;
  agent.destroy();

  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    clients: o.clients,
    seconds: round(elapsedS),
    requests: latencies.length + errors,
    requestsPerSecond: Math.round((latencies.length + errors) / elapsedS),
    errors,
    errorExamples,
    latencyMs: {
      p50: round(quantile(sorted, 0.5)),
      p90: round(quantile(sorted, 0.9)),
      p99: round(quantile(sorted, 0.99)),
      max: round(sorted.at(-1) ?? 0),
    },
    byPath: [...perPath]
      .map(([path, list]) => {
        const s = [...list].sort((a, b) => a - b);
        return { path, requests: s.length, p50: round(quantile(s, 0.5)), p99: round(quantile(s, 0.99)), max: round(s.at(-1) ?? 0) };
      })
      .sort((a, b) => b.p99 - a.p99),
  };
}

/** The dashboard's reads over a scenario's range: what its pages ask for, plus the page itself. */
export function dashboardPaths(from: string, to: string, nodePool: string): string[] {
  const range = `from=${from}&to=${to}`;
  return [
    '/api/status',
    '/api/nodepools',
    `/api/cost/nodepools/daily?${range}`,
    `/api/cost/nodepools/daily?${range}&nodepool=${nodePool}`,
    `/api/efficiency/nodepools?${range}`,
    `/api/efficiency/summary?${range}`,
    '/api/efficiency/nodes',
    '/api/nodes?limit=100',
    `/api/consolidation/events?${range}`,
    `/api/consolidation/timeline?${range}`,
    `/api/nodepools/compare?${range}`,
    `/api/reconciliation/daily?${range}`,
    `/api/teams/cost?${range}`,
    `/api/bill/lines?${range}`,
    '/',
  ];
}
