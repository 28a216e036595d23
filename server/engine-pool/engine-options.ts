import { availableParallelism } from 'node:os';
import type { Db } from '../../db/open-db.js';
import { createClusterSnapshotRepository } from '../../db/repositories/cluster-snapshot-repository.js';
import { createDataVersionRepository } from '../../db/repositories/data-version-repository.js';
import { createEngineServices } from './engine-services.js';
import { type EngineRunner, inlineEngine } from './engine-runner.js';
import { createEnginePool } from './pool.js';

/** Where the engine runs: `workers` threads (0: on the API's thread), each request bounded by `timeoutMs`. */
export interface EngineOptions {
  workers: number;
  timeoutMs?: number;
  hardLimitMs?: number;
}

/** 60 s: a consolidation round at the 5,000-node envelope takes about 16 s, four of them queued on one worker fit. */
export const DEFAULT_ENGINE_TIMEOUT_MS = 60_000;

/**
 * `serve` and `demo`: LEDGER_ENGINE_WORKERS (default: one fewer than the cores, at least 1, at most 2 — each worker
 * keeps its own prepared worlds, about 0.5 GB at the envelope; 0 runs the engine on the API's thread) and
 * LEDGER_ENGINE_TIMEOUT (seconds, default 60).
 */
export function engineOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): EngineOptions {
  const int = (name: string, fallback: number, min: number): number => {
    const v = env[name];
    if (v === undefined || v.trim() === '') return fallback;
    const n = Number(v);
    if (!Number.isFinite(n) || n < min) throw new Error(`${name}=${v}: expected a number of at least ${min}`);
    return n;
  };
  return {
    workers: Math.floor(int('LEDGER_ENGINE_WORKERS', Math.min(2, Math.max(1, availableParallelism() - 1)), 0)),
    timeoutMs: Math.round(int('LEDGER_ENGINE_TIMEOUT', DEFAULT_ENGINE_TIMEOUT_MS / 1000, 0.001) * 1000),
  };
}

/** The pool over the database's file, or the engine on this thread (no workers asked for, or no file to open). */
export function engineFor(db: Db, o: EngineOptions | undefined): EngineRunner {
  const dataVersion = createDataVersionRepository(db);
  // Answers kept by the snapshot simulated, looked up on this connection (engine-call-key.ts).
  const snapshots = createClusterSnapshotRepository(db);
  if (o === undefined || o.workers < 1 || db.memory || db.name === '' || db.name === ':memory:')
    return inlineEngine(createEngineServices(db), { version: () => dataVersion.current(), snapshots });
  return createEnginePool({
    dbPath: db.name,
    size: o.workers,
    timeoutMs: o.timeoutMs ?? DEFAULT_ENGINE_TIMEOUT_MS,
    ...(o.hardLimitMs === undefined ? {} : { hardLimitMs: o.hardLimitMs }),
    version: () => dataVersion.current(),
    snapshots,
  });
}
