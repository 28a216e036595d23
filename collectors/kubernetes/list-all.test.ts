import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { onSandboxRequest } from '../../test/reliability/fixtures/request-hook.js';
import { createKubeClients, type KubeClients } from './client.js';
import { listAll, MAX_RETRY_AFTER_MS, parseRetryAfterMs, retryDelayMs, type ListStats } from './list-all.js';

const NOW = Date.UTC(2026, 11, 2, 16, 0, 0); // Wed, 02 Dec 2026 16:00:00 GMT

describe('parseRetryAfterMs', () => {
  it.each([
    // [header value, ms from NOW]
    ['1', 1_000],
    ['0', 0],
    [' 120 ', 120_000],
    ['Wed, 02 Dec 2026 16:00:05 GMT', 5_000], // IMF-fixdate 5 s ahead
    ['Wednesday, 02-Dec-26 16:00:30 GMT', 30_000], // RFC 850 (obsolete, still allowed)
    ['Wed, 02 Dec 2026 15:59:00 GMT', 0], // already past: retry now (the backoff still applies)
  ])('%j -> %d ms', (value, ms) => {
    expect(parseRetryAfterMs(value, NOW)).toBe(ms);
  });

  it.each([[undefined], [''], ['1.5'], ['-1'], ['soon'], ['2026-12-02T16:00:05Z'], ['Wed, 32 Foo 2026 16:00:05 GMT']])(
    '%j is not a Retry-After (undefined)',
    (value) => {
      expect(parseRetryAfterMs(value, NOW)).toBeUndefined();
    },
  );
});

describe('retryDelayMs', () => {
  it.each([
    // [retry, Retry-After ms, wait ms]
    [1, undefined, 100], // 50 x 2^1
    [3, undefined, 400], // 50 x 2^3
    [6, undefined, 2_000], // 50 x 2^6 = 3200, capped at 2 s
    [1, 1_000, 1_000], // the server asks for longer than the backoff: honoured
    [1, 0, 100], // "now" never undercuts the backoff
    [5, 1_000, 1_600], // the backoff (50 x 2^5) is already longer
    [1, 3_600_000, MAX_RETRY_AFTER_MS], // an hour is capped at 60 s
  ])('retry %d with Retry-After %s ms waits %d ms', (retry, retryAfterMs, waitMs) => {
    expect(retryDelayMs(retry, retryAfterMs)).toBe(waitMs);
  });
});

/** The real client against the sandbox, which answers a page with 429 and a Retry-After header. */
describe('listAll against a throttling API server', () => {
  let sb: RunningSandbox;
  let k: KubeClients;
  beforeAll(async () => {
    sb = await startSandbox({});
    k = createKubeClients({ kubeconfig: sb.kubeconfigPath });
  });
  afterAll(async () => sb?.close());
  beforeEach(() => {
    sb.ctx.faults.length = 0;
  });

  /** Lists the nodes 3 a page with a 429 (with `retryAfter`) on page 2; returns the names and when each request arrived. */
  async function listThrottled(retryAfter: string): Promise<{ names: string[]; arrivals: number[]; stats: ListStats }> {
    const arrivals: number[] = [];
    const unhook = onSandboxRequest(sb.ctx, (op) => {
      if (op !== 'kube:GET /api/v1/nodes') return;
      arrivals.push(Date.now());
      if (arrivals.length === 2) sb.ctx.faults.push({ match: '/api/v1/nodes', status: 429, remaining: 1, retryAfter });
    });
    const stats: ListStats = { requests: 0, restarts: 0 };
    try {
      const nodes = await listAll(
        'nodes',
        (cont) => k.core.listNode({ limit: 2, _continue: cont }).then((r) => ({ items: r.items, continueToken: r.metadata?._continue })),
        stats,
      );
      return { names: nodes.map((n) => n.metadata?.name ?? ''), arrivals, stats };
    } finally {
      unhook();
    }
  }

  it('waits the Retry-After (1 s) before asking for the page again, and loses nothing', async () => {
    const calm = (await k.core.listNode()).items.map((n) => n.metadata?.name ?? '');
    expect(calm.length).toBeGreaterThan(4); // at least three pages of 2

    const { names, arrivals, stats } = await listThrottled('1');
    expect(names).toEqual(calm);
    expect(stats.requests).toBe(Math.ceil(calm.length / 2) + 1); // the throttled page asked twice
    const waitedMs = arrivals[2] - arrivals[1];
    expect(waitedMs).toBeGreaterThanOrEqual(1_000); // not the 100 ms backoff
    expect(waitedMs).toBeLessThan(2_500); // nor anything near the 60 s cap (slack for a loaded machine)
  });

  it('keeps the backoff when Retry-After asks for less (0)', async () => {
    const { arrivals } = await listThrottled('0');
    expect(arrivals[2] - arrivals[1]).toBeGreaterThanOrEqual(100);
  });
});
