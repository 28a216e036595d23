import { afterAll, vi } from 'vitest';

/*
 * Set up for the test projects whose files share one worker process (vite.config.ts: `integration`, `browser`).
 * Vitest runs this before every file, so each file starts from the process as the first one found it and leaves
 * nothing behind for the next, whatever its own afterAll does or forgets:
 * - the environment: vi.stubEnv'd keys restored, keys set or deleted by hand put back, and `process.env = copy`
 *   (a plain object, no longer the live environment) replaced by the real one again. A child process, the AWS SDK
 *   (AWS_MAX_ATTEMPTS, AWS_ENDPOINT_URL_*, credentials) and our collectors all read it: a leaked AWS_MAX_ATTEMPTS=1
 *   made the next file's "the SDK retries throttling" tests fail at the first 429;
 * - stubbed globals, spies (console.log captured) and fake timers;
 * - the working directory;
 * - SIGINT/SIGTERM/SIGHUP listeners a file added (cli main() and demo add theirs for the run).
 * The unit tier has its own, stricter setup (unit-guard.ts: no servers, no processes).
 */
const shared = globalThis as { __ledgerLiveEnv?: NodeJS.ProcessEnv };
// The live environment object of this process: kept from the first file, before any test could replace it.
shared.__ledgerLiveEnv ??= process.env;
const liveEnv = shared.__ledgerLiveEnv;
if (process.env !== liveEnv) process.env = liveEnv;

const envAtStart = { ...liveEnv };
const cwdAtStart = process.cwd();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const listenersAtStart = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))]));

// Registered before the file's own hooks, so it runs after them (vitest runs afterAll hooks last-in, first-out).
afterAll(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  vi.useRealTimers();
  if (process.env !== liveEnv) process.env = liveEnv;
  for (const key of Object.keys(liveEnv)) if (!(key in envAtStart)) delete liveEnv[key];
  for (const [key, value] of Object.entries(envAtStart)) if (liveEnv[key] !== value) liveEnv[key] = value;
  if (process.cwd() !== cwdAtStart) process.chdir(cwdAtStart);
  for (const s of SIGNALS) {
    const before = listenersAtStart.get(s);
    for (const l of process.listeners(s)) if (!before?.has(l)) process.off(s, l);
  }
});
