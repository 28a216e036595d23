import type { Worker } from 'node:worker_threads';
import { moduleWorker } from '../module-worker.js';
import { EngineBusyError, EngineCancelledError, rebuiltError } from './engine-errors.js';
import type { EngineCall } from './engine-services.js';
import { keptAnswers } from './engine-answers.js';
import { engineCallKey, type SnapshotLookup } from './engine-call-key.js';
import type { EngineRunner, EngineStats } from './engine-runner.js';
import type { AnswerMessage, CallMessage } from './worker.js';

/**
 * The engine off the API's thread: a small pool of worker threads (plain node:worker_threads: no dependency, the
 * same on Node 20 and 24; what a pool package would add — a queue, a time bound, terminating a stuck worker — is
 * the few lines below), each opening the database read-only itself and keeping its own prepared worlds.
 *
 * - Calls are named service methods with plain JSON arguments (engine-services.ts), queued first in, first out.
 * - Once per snapshot and parameters: calls simulating the same under one data version (SQLite's data_version, as the
 *   response cache keys on it; the same snapshot and parameters however the request named them, engine-call-key.ts)
 *   share one task while it runs, and its answer is kept (the last `cacheEntries`) while the data does not change.
 *   Four identical requests at once make one simulation; so do `?cluster=NAME` and "All clusters" asking it.
 * - A time bound per request: a request still waiting after `timeoutMs` (queued or running) is answered 503 with
 *   Retry-After; the task goes on, so asking again finds it running or answered, up to `hardLimitMs`, past which its
 *   worker is terminated and replaced (a synchronous engine loop cannot be interrupted otherwise).
 * - Cancellation: when every request waiting on a task went away (the client closed the connection) and none was
 *   answered 503 (those may come back for it), the task is dropped from the queue, or its worker is terminated and
 *   replaced, freeing the slot at once.
 */

export interface EnginePoolOptions {
  /** The SQLite file each worker opens read-only. */
  dbPath: string;
  /** Worker threads (at least 1). */
  size: number;
  /** Per request: queued plus running, before a 503. */
  timeoutMs: number;
  /** A task running longer is stopped (its worker terminated); default the larger of 10 minutes and 4 × timeoutMs. */
  hardLimitMs?: number;
  /** The database's data version: answers are kept per version. */
  version: () => string;
  /** Answers kept (least recently used out first). */
  cacheEntries?: number;
  /**
   * The snapshot a what-if simulates (engine-call-key.ts): answers and running tasks keyed by what is simulated, not by
   * how it was asked. Absent: by the call with `cluster` and `format` left out.
   */
  snapshots?: SnapshotLookup;
}

export interface EnginePoolStats extends EngineStats {
  size: number;
  /** Worker threads alive now. */
  workers: number;
  busy: number;
  queued: number;
  /** Tasks queued or running. */
  tasks: number;
  /** Worker threads started, replacements included, and stopped on purpose (a cancelled or overdue task). */
  started: number;
  terminated: number;
}

interface Waiter {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
  detach: () => void;
}

interface Task {
  id: number;
  key: string;
  version: string;
  call: EngineCall;
  affinity: string;
  waiters: Set<Waiter>;
  /** A waiter was answered 503: keep computing for its retry. */
  kept: boolean;
  slot: Slot | null;
  startedAt: number | null;
  hardTimer: NodeJS.Timeout | null;
}

interface Slot {
  worker: Worker | null;
  task: Task | null;
  affinity: string | null;
}

/** The worker's entry: the compiled JavaScript beside this file, or the TypeScript source through tsx (a checkout). */
function startWorker(dbPath: string): Worker {
  return moduleWorker(import.meta.url, 'worker', { workerData: { dbPath } });
}

export interface EnginePool extends EngineRunner {
  stats(): EnginePoolStats;
}

export function createEnginePool(o: EnginePoolOptions): EnginePool {
  const size = Math.max(1, Math.floor(o.size));
  const hardLimitMs = o.hardLimitMs ?? Math.max(600_000, 4 * o.timeoutMs);
  const cacheEntries = o.cacheEntries ?? 32;
  const retryAfterSeconds = Math.max(1, Math.ceil(o.timeoutMs / 2000));
  const slots: Slot[] = Array.from({ length: size }, () => ({ worker: null, task: null, affinity: null }));
  const queue: Task[] = [];
  const tasks = new Map<string, Task>();
  const byId = new Map<number, Task>();
  const cache = keptAnswers<{ result: unknown }>(cacheEntries);
  let nextId = 1;
  let closed = false;
  const counts = { started: 0, terminated: 0, completed: 0 };

  const settle = (task: Task, outcome: { ok: true; result: unknown } | { ok: false; error: Error }): void => {
    tasks.delete(task.key);
    byId.delete(task.id);
    if (task.hardTimer !== null) clearTimeout(task.hardTimer);
    if (outcome.ok) {
      counts.completed += 1;
      // Kept only if nothing was committed while it ran (it could have read either side).
      if (o.version() === task.version) cache.set(task.key, { result: outcome.result });
    }
    for (const w of task.waiters) {
      w.detach();
      if (outcome.ok) w.resolve(outcome.result);
      else w.reject(outcome.error);
    }
    task.waiters.clear();
  };

  /** Stops the slot's worker (a stuck or cancelled task) and starts its replacement. */
  const replaceWorker = (slot: Slot): void => {
    const old = slot.worker;
    slot.worker = null;
    slot.task = null;
    slot.affinity = null;
    if (old !== null) {
      counts.terminated += 1;
      old.removeAllListeners();
      old.on('error', () => undefined);
      void old.terminate();
    }
    if (!closed) ensureWorker(slot);
  };

  const ensureWorker = (slot: Slot): Worker => {
    if (slot.worker !== null) return slot.worker;
    const worker = startWorker(o.dbPath);
    counts.started += 1;
    slot.worker = worker;
    worker.unref();
    worker.on('message', (m: AnswerMessage) => {
      const task = byId.get(m.id);
      if (slot.task === task) slot.task = null;
      if (task !== undefined) settle(task, m.ok ? { ok: true, result: m.result } : { ok: false, error: rebuiltError(m.error) });
      pump();
    });
    const lost = (why: string): void => {
      if (slot.worker !== worker) return;
      const task = slot.task;
      slot.worker = null;
      slot.task = null;
      slot.affinity = null;
      if (task !== null) settle(task, { ok: false, error: new Error(`the engine worker stopped: ${why}`) });
      pump();
    };
    worker.on('error', (err) => lost(err.message));
    worker.on('exit', (code) => lost(`exit code ${code}`));
    return worker;
  };

  const start = (slot: Slot, task: Task): void => {
    slot.task = task;
    slot.affinity = task.affinity;
    task.slot = slot;
    task.startedAt = Date.now();
    task.hardTimer = setTimeout(() => {
      if (slot.task !== task) return;
      replaceWorker(slot);
      settle(task, {
        ok: false,
        error: new EngineBusyError(`the simulation ran past ${Math.round(hardLimitMs / 1000)} s and was stopped`, retryAfterSeconds),
      });
      pump();
    }, hardLimitMs);
    task.hardTimer.unref();
    ensureWorker(slot).postMessage({ id: task.id, call: task.call } satisfies CallMessage);
  };

  /** Idle slots take queued tasks: first one that last ran on the same snapshot and data (its world is prepared). */
  const pump = (): void => {
    while (queue.length > 0) {
      const idle = slots.filter((s) => s.task === null);
      if (idle.length === 0) return;
      const task = queue.shift() as Task;
      start(idle.find((s) => s.affinity === task.affinity) ?? idle.find((s) => s.worker !== null) ?? idle[0], task);
    }
  };

  /** Nobody waits for the task and nobody will come back for it: drop it, or stop its worker. */
  const cancelIfAbandoned = (task: Task): void => {
    if (task.waiters.size > 0 || task.kept || !tasks.has(task.key)) return;
    tasks.delete(task.key);
    byId.delete(task.id);
    if (task.hardTimer !== null) clearTimeout(task.hardTimer);
    const queued = queue.indexOf(task);
    if (queued >= 0) queue.splice(queued, 1);
    else if (task.slot !== null && task.slot.task === task) replaceWorker(task.slot);
    pump();
  };

  const busyMessage = (task: Task): string => {
    const position = queue.indexOf(task);
    const where =
      task.startedAt !== null
        ? `running for ${((Date.now() - task.startedAt) / 1000).toFixed(1)} s`
        : `queued behind ${position} other simulation(s) while ${size} worker(s) are busy`;
    return `The simulation did not finish within ${(o.timeoutMs / 1000).toFixed(1)} s (${where}). It goes on and its answer is kept for this snapshot: ask again in ${retryAfterSeconds} s.`;
  };

  return {
    kind: 'pool',
    run(service, method, args, opts = {}) {
      if (closed) return Promise.reject(new EngineBusyError('the server is shutting down', retryAfterSeconds));
      const call: EngineCall = { service, method, args: args as unknown[] };
      const version = o.version();
      const what = engineCallKey(call, o.snapshots);
      const key = JSON.stringify([version, what.key]);
      const hit = cache.get(key);
      if (hit !== undefined) return Promise.resolve(hit.result as never);
      let task = tasks.get(key);
      if (task === undefined) {
        const first = (args as unknown[])[0] as { at?: unknown } | undefined;
        // The what-ifs' second argument is the cluster (null: the newest snapshot of any): another cluster is another world.
        const cluster = typeof (args as unknown[])[1] === 'number' ? (args as unknown[])[1] : null;
        // A worker that last prepared the same snapshot has its world ready.
        const affinity = what.snapshotId === null ? [version, first?.at ?? null, cluster] : [version, { snapshot: what.snapshotId }];
        task = {
          id: nextId++,
          key,
          version,
          call,
          affinity: JSON.stringify(affinity),
          waiters: new Set(),
          kept: false,
          slot: null,
          startedAt: null,
          hardTimer: null,
        };
        tasks.set(key, task);
        byId.set(task.id, task);
        queue.push(task);
      }
      const t = task;
      const signal = opts.signal;
      if (signal?.aborted === true) {
        cancelIfAbandoned(t);
        return Promise.reject(new EngineCancelledError());
      }
      const answer = new Promise((resolve, reject) => {
        const onAbort = (): void => {
          waiter.detach();
          t.waiters.delete(waiter);
          reject(new EngineCancelledError());
          cancelIfAbandoned(t);
        };
        const waiter: Waiter = {
          resolve,
          reject,
          timer: setTimeout(() => {
            waiter.detach();
            t.waiters.delete(waiter);
            t.kept = true;
            reject(new EngineBusyError(busyMessage(t), retryAfterSeconds));
          }, o.timeoutMs),
          detach: () => {
            clearTimeout(waiter.timer);
            signal?.removeEventListener('abort', onAbort);
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        t.waiters.add(waiter);
      });
      pump();
      return answer as never;
    },
    async close() {
      closed = true;
      for (const task of [...tasks.values()])
        settle(task, { ok: false, error: new EngineBusyError('the server is shutting down', retryAfterSeconds) });
      queue.length = 0;
      await Promise.all(
        slots.map(async (s) => {
          const w = s.worker;
          s.worker = null;
          s.task = null;
          if (w !== null) {
            w.removeAllListeners();
            w.on('error', () => undefined);
            await w.terminate();
          }
        }),
      );
    },
    stats() {
      return {
        size,
        workers: slots.filter((s) => s.worker !== null).length,
        busy: slots.filter((s) => s.task !== null).length,
        queued: queue.length,
        tasks: tasks.size,
        cached: cache.size,
        ...counts,
      };
    },
  };
}
