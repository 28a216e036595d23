import type { Db } from '../../db/open-db.js';
import { createAlertRepository, type AlertDelivery, type DeliveryStatus } from '../../db/repositories/alert-repository.js';

export interface AlertDeliveryOptions {
  /** Per attempt: a receiver that takes longer is abandoned (the attempt recorded as timed out). Default 5 s. */
  timeoutMs?: number;
  /** Attempts per delivery before it is given up (status failed). Default 5. */
  maxAttempts?: number;
  /** Wait before the second attempt; doubled for each next one, up to maxBackoffMs. Default 2 s, at most 5 min. */
  backoffMs?: number;
  maxBackoffMs?: number;
  now?: () => number;
  /** Called with a line for each delivery given up or delivered after retries (the collector's log). */
  log?: (line: string) => void;
}

export interface DeliveryRound {
  attempted: number;
  delivered: number;
  failed: number;
}

/** Retry after: 5xx, 408, 429 and no answer at all (refused, reset, timed out). Other 4xx will not get better. */
const retryable = (status: number | null): boolean => status === null || status >= 500 || status === 408 || status === 429;

/**
 * Sends the queued alert deliveries (the outbox that evaluateAlerts fills) by HTTP POST, each attempt recorded with its
 * status and time, retried with exponential backoff up to a bound. Nothing on the snapshot path awaits it: `kick()`
 * starts a round in the background (one at a time; a kick during a round runs one more after it), and each request is
 * cut at `timeoutMs`, so a receiver that hangs costs a delivery round its timeout, never a snapshot.
 */
export function createAlertDelivery(db: Db, o: AlertDeliveryOptions = {}) {
  const repo = createAlertRepository(db);
  const timeoutMs = o.timeoutMs ?? 5000;
  const maxAttempts = o.maxAttempts ?? 5;
  const base = o.backoffMs ?? 2000;
  const maxBackoff = o.maxBackoffMs ?? 300_000;
  const now = o.now ?? Date.now;
  let running: Promise<DeliveryRound> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  async function attempt(d: AlertDelivery): Promise<DeliveryStatus> {
    const startedMs = Date.now();
    const atMs = now();
    let httpStatus: number | null = null;
    let error: string | null = null;
    try {
      const res = await fetch(d.targetUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'nodepool-ledger-alerts' },
        body: d.payloadJson,
        signal: AbortSignal.timeout(timeoutMs),
      });
      httpStatus = res.status;
      await res.body?.cancel().catch(() => undefined);
      if (!res.ok) error = `HTTP ${res.status}`;
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      error = e.name === 'TimeoutError' ? `no answer in ${timeoutMs} ms` : (e.cause?.code ?? e.message);
    }
    const tries = d.attempts + 1;
    const status: DeliveryStatus = error === null ? 'delivered' : retryable(httpStatus) && tries < maxAttempts ? 'pending' : 'failed';
    const next = status === 'pending' ? atMs + Math.min(maxBackoff, base * 2 ** (tries - 1)) : atMs;
    repo.recordAttempt({ deliveryId: d.id, atMs, durationMs: Date.now() - startedMs, httpStatus, error }, status, next);
    if (status === 'failed')
      o.log?.(`! alert delivery to ${d.targetUrl} given up after ${tries} attempt${tries === 1 ? '' : 's'}: ${error}`);
    return status;
  }

  async function round(): Promise<DeliveryRound> {
    const r: DeliveryRound = { attempted: 0, delivered: 0, failed: 0 };
    // Targets are independent: one hanging receiver does not hold another's deliveries.
    const due = repo.due(now());
    const byTarget = new Map<string, AlertDelivery[]>();
    for (const d of due) byTarget.set(d.targetUrl, [...(byTarget.get(d.targetUrl) ?? []), d]);
    await Promise.all(
      [...byTarget.values()].map(async (list) => {
        for (const d of list) {
          r.attempted += 1;
          const s = await attempt(d);
          if (s === 'delivered') r.delivered += 1;
          if (s === 'failed') r.failed += 1;
        }
      }),
    );
    return r;
  }

  function schedule(): void {
    if (stopped || timer !== null) return;
    // The next retry that falls due: wake for it (unref'd: never keeps the process alive on its own).
    const next = repo.due(Number.MAX_SAFE_INTEGER, 1)[0];
    if (next === undefined) return;
    timer = setTimeout(
      () => {
        timer = null;
        void kick();
      },
      Math.max(0, next.nextAttemptAtMs - now()),
    );
    timer.unref();
  }

  /** Starts a round in the background (or one more after the current); returns it for those who want to wait. */
  function kick(): Promise<DeliveryRound> {
    if (running !== null) {
      again = true;
      return running;
    }
    running = (async () => {
      let total: DeliveryRound = { attempted: 0, delivered: 0, failed: 0 };
      do {
        again = false;
        const r = await round();
        total = { attempted: total.attempted + r.attempted, delivered: total.delivered + r.delivered, failed: total.failed + r.failed };
      } while (again && !stopped);
      return total;
    })()
      .catch((err: unknown) => {
        // A delivery round never throws at the collector (a closed database at exit, say): it says so and stops.
        o.log?.(`! alert delivery stopped: ${(err as Error).message}`);
        return { attempted: 0, delivered: 0, failed: 0 };
      })
      .finally(() => {
        running = null;
        schedule();
      });
    return running;
  }

  return {
    kick,
    /** One round now, awaited (tests, and `collect` once before it exits). */
    runOnce: (): Promise<DeliveryRound> => kick(),
    /** Stops the retry timer and waits for the round in flight (each request ends within its timeout). */
    async stop(): Promise<void> {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      if (running !== null) await running.catch(() => undefined);
    },
  };
}

export type AlertDeliveryLoop = ReturnType<typeof createAlertDelivery>;
