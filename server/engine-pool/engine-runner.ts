import {
  type EngineArgs,
  type EngineMethodName,
  type EngineResult,
  type EngineServiceName,
  type EngineServices,
  runEngineCall,
} from './engine-services.js';

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
}

/**
 * The engine on the API's own thread, as before the pool: for a database without a file (in memory: a worker cannot
 * open it), for `LEDGER_ENGINE_WORKERS=0`, and for tests that look at answers, not at concurrency. While it runs,
 * every other request waits.
 */
export function inlineEngine(services: EngineServices): EngineRunner {
  return {
    kind: 'inline',
    run: (service, method, args) => Promise.resolve().then(() => runEngineCall(services, { service, method, args }) as never),
    close: async () => undefined,
  };
}
