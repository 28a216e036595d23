import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { releaseFileLock, tryFileLock } from '../file-lock.js';
import type { Scenario } from './types.js';

/**
 * A simulated history kept on disk between processes, for the test suite: every test file runs in its own worker,
 * and each one that starts the week4 sandbox would otherwise simulate the same 14 days again (seconds of CPU each).
 * Used only when `LEDGER_SCENARIO_CACHE` names a folder (vite.config.ts sets it for the tests; the product never
 * does). The key covers the scenario file, the seed, the Karpenter release and every source the simulation can read
 * (core/, sandbox/scenario/, data/), so a change to any of them simulates afresh. A history read back is the same
 * value (JSON round-trips a Scenario exactly: plain objects, finite numbers, strings, null).
 */

export const SCENARIO_CACHE_ENV = 'LEDGER_SCENARIO_CACHE';
/**
 * The checkout whose sources the key covers, for the compiled command line the tests start
 * (test/runner/compiled-cli.ts): its JavaScript is compiled from that checkout's TypeScript, so it simulates what the
 * sources simulate and shares their kept histories (else it would hash its own .js files, miss every one and
 * simulate afresh). Test-only, like the cache; default: the folder this file is in.
 */
export const SCENARIO_SOURCES_ENV = 'LEDGER_SCENARIO_SOURCES';

const ROOT = process.env[SCENARIO_SOURCES_ENV] ?? resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Folders whose files can change what `simulate` returns. */
const SOURCES = ['core', 'sandbox/scenario', 'sandbox/scenarios', 'data'];

let fingerprint: string | null = null;

function hashTree(hash: ReturnType<typeof createHash>, dir: string): void {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) hashTree(hash, path);
    else if (!name.includes('.test.')) {
      hash.update(path.slice(ROOT.length));
      hash.update(readFileSync(path));
    }
  }
}

/** One hash of every source the simulation reads (computed once per process, ~20 ms). */
function sourceFingerprint(): string {
  if (fingerprint === null) {
    const hash = createHash('sha256');
    for (const s of SOURCES) hashTree(hash, join(ROOT, s));
    fingerprint = hash.digest('hex');
  }
  return fingerprint;
}

/** How long a caller waits for another process's simulation of the same history before simulating it itself. */
const LOCK_WAIT_MS = 300_000;

/** Blocks the thread for `ms` (the simulation is synchronous, and so is waiting for another process's). */
const sleepSync = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

/** The history kept at `path`, or null when there is none or it is unreadable (another worker left it so). */
function readKept(path: string): Scenario | null {
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Scenario;
  } catch {
    return null;
  }
}

/** `compute()`'s history, kept at `path` for the next caller. */
function simulateAndKeep(dir: string, path: string, compute: () => Scenario): Scenario {
  const scenario = compute();
  try {
    mkdirSync(dir, { recursive: true });
    // Written aside and renamed: a worker reading at the same time sees the whole file or none.
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(scenario));
    renameSync(tmp, path);
  } catch {
    // The cache only saves time: a read-only or full disk leaves the result as computed.
  }
  return scenario;
}

/**
 * `compute()`'s history, read from the cache folder when the same inputs were simulated before.
 * The simulation runs holding `<key>.json.lock` (the holder's pid in it): the suite runs two files side by side, and
 * the first files of a tier often start the same sandbox at once, so the second waits for the first's file instead
 * of simulating the same history beside it (13 s of CPU for week4). A lock whose process is gone, or held longer
 * than LOCK_WAIT_MS, is not waited for; a folder that takes no lock only costs the sharing.
 */
export function cachedSimulation(inputs: unknown, compute: () => Scenario, dir = process.env[SCENARIO_CACHE_ENV]): Scenario {
  if (!dir) return compute();
  const key = createHash('sha256').update(JSON.stringify(inputs)).update(sourceFingerprint()).digest('hex').slice(0, 32);
  const path = join(dir, `${key}.json`);
  const lock = `${path}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    const kept = readKept(path);
    if (kept !== null) return kept;
    const lockTry = tryFileLock(lock, deadline);
    if (lockTry === 'none') return simulateAndKeep(dir, path, compute);
    if (lockTry === 'wait') sleepSync(100);
    if (lockTry !== 'held') continue;
    try {
      // Kept by another process between the read above and the lock.
      return readKept(path) ?? simulateAndKeep(dir, path, compute);
    } finally {
      releaseFileLock(lock);
    }
  }
}
