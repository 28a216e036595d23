import {
  type EngineArgs,
  type EngineMethodName,
  type EngineResult,
  type EngineServiceName,
  type EngineServices,
  runEngineCall,
} from './engine-services.js';
import { keptAnswers } from './engine-answers.js';
import { engineCallKey, type SnapshotLookup } from './engine-call-key.js';

/** What the API asks of the engine: a named service method with plain JSON arguments, cancelled by `signal`. */
export interface EngineRunner {
  run<S extends EngineServiceName, M extends EngineMethodName<S>>(
    service: S,
    method: M,
    args: EngineArgs<S, M>,
    opts?: { signal?: AbortSignal },
  ): Promise<EngineResult<S, M>>;
  close(): Promise<void>;
  /** `inline`: on the API's thread; `pool`: in worker threads (server/engine-pool/pool.ts). */
  readonly kind: 'inline' | 'pool';
  stats(): EngineStats;
}

/** What the engine did: the calls it ran to an answer, and the answers it keeps for the current data. */
export interface EngineStats {
  /** Calls run to an answer (each one a simulation; an answer read from those kept is not counted). */
  completed: number;
  /** Answers kept. */
  cached: number;
}

export interface InlineEngineOptions {
  /** The database's data version (data-version-repository.ts): answers are kept while it does not move. */
  version: () => string;
  /** Answers kept (least recently used out first). */
  cacheEntries?: number;
  /**
   * The snapshot a what-if simulates (engine-call-key.ts): answers kept by what is simulated, not by how it was asked.
   * Absent: by the call with `cluster` and `format` left out.
   */
  snapshots?: SnapshotLookup;
}

/**
 * The engine on the API's own thread, as before the pool: for a database without a file (in memory: a worker cannot
 * open it), for `LEDGER_ENGINE_WORKERS=0`, and for tests that look at answers, not at concurrency. While it runs,
 * every other request waits.
 *
 * Once per snapshot and parameters, as in the pool: an answer is kept while the data version does not move, and
 * calls simulating the same (engine-call-key.ts: the same snapshot and parameters, however the request named them)
 * share it (a call still running included: its promise is what is kept). Every request used to run
 * the simulation again: on the store bench's 1,000-node month, GET /api/whatif/headroom took p50 61 ms, p99 255 ms,
 * each request a re-pack and its garbage, where a kept answer is only serialised. A commit (a new snapshot, a fold)
 * moves the version, and the next request computes on the new data; the answers of the old data are let go.
 */
export function inlineEngine(services: EngineServices, o: InlineEngineOptions): EngineRunner {
  const kept = keptAnswers<Promise<unknown>>(o.cacheEntries ?? 32);
  let keptFor: string | null = null;
  let completed = 0;
  return {
    kind: 'inline',
    run: (service, method, args) => {
      const version = o.version();
      if (version !== keptFor) {
        kept.clear();
        keptFor = version;
      }
      const key = JSON.stringify([version, engineCallKey({ service, method, args: args as unknown[] }, o.snapshots).key]);
      const hit = kept.get(key);
      if (hit !== undefined) return hit as never;
      const answer = Promise.resolve().then(() => {
        const result = runEngineCall(services, { service, method, args });
        completed += 1;
        return result;
      });
      kept.set(key, answer);
      // An error is not kept (the next request tries again), nor an answer computed while another connection committed
      // (it could have read either side).
      answer.then(
        () => {
          if (o.version() !== version) kept.delete(key);
        },
        () => kept.delete(key),
      );
      return answer as never;
    },
    close: async () => kept.clear(),
    stats: () => ({ completed, cached: kept.size }),
  };
}
