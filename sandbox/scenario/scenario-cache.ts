import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
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

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
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

/** `compute()`'s history, read from the cache folder when the same inputs were simulated before. */
export function cachedSimulation(inputs: unknown, compute: () => Scenario, dir = process.env[SCENARIO_CACHE_ENV]): Scenario {
  if (!dir) return compute();
  const key = createHash('sha256').update(JSON.stringify(inputs)).update(sourceFingerprint()).digest('hex').slice(0, 32);
  const path = join(dir, `${key}.json`);
  if (existsSync(path)) {
    try {
      return JSON.parse(readFileSync(path, 'utf8')) as Scenario;
    } catch {
      // A file another worker left unreadable: simulate and write it again.
    }
  }
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
