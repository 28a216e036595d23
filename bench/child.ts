import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, openSync, closeSync } from 'node:fs';

/** Child processes for the benches: each bounded in time, measured from outside (wall time, peak RSS). */

export const TIME_BIN = '/usr/bin/time';
export const hasTimeBin = (): boolean => existsSync(TIME_BIN);

export interface Measured {
  /** Wall time from spawn to exit, measured here. */
  wallMs: number;
  /** Peak RSS of the process (GNU time's "Maximum resident set size"), or null without /usr/bin/time. */
  maxRssBytes: number | null;
  stdout: string;
  stderr: string;
  code: number | null;
}

export class ChildTimeout extends Error {}

/** Processes started here and still running: ended with the bench, even when it is interrupted. */
const live = new Map<number, 'group' | 'process'>();
process.once('exit', () => {
  for (const [pid, kind] of live) {
    try {
      process.kill(kind === 'group' ? -pid : pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

/**
 * Runs a command to completion under `timeoutMs` (killed past it), through GNU time -v when present so its
 * peak RSS is known. stdout goes to `stdoutFile` when given (kubectl's 1+ GB of JSON is not kept in memory).
 */
export function measure(
  cmd: string,
  args: string[],
  opts: { timeoutMs: number; env?: NodeJS.ProcessEnv; stdoutFile?: string },
): Promise<Measured> {
  const timed = hasTimeBin();
  const argv = timed ? ['-v', cmd, ...args] : args;
  const out = opts.stdoutFile ? openSync(opts.stdoutFile, 'w') : 'pipe';
  const started = performance.now();
  // Its own process group, so a timeout ends the command GNU time started too, not only time itself.
  const child = spawn(timed ? TIME_BIN : cmd, argv, { stdio: ['ignore', out, 'pipe'], env: opts.env ?? process.env, detached: true });
  if (typeof out === 'number') closeSync(out);
  if (child.pid !== undefined) live.set(child.pid, 'group');
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      reject(new ChildTimeout(`${cmd} ${args.join(' ')} did not finish within ${Math.round(opts.timeoutMs / 1000)} s`));
    }, opts.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (child.pid !== undefined) live.delete(child.pid);
      const wallMs = performance.now() - started;
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      resolve({ wallMs, maxRssBytes: rss ? Number(rss[1]) * 1024 : null, stdout, stderr, code });
    });
  });
}

/** A long-running helper (the scale sandbox): started, its first stdout line parsed as JSON, stopped later. */
export async function startHelper<T>(cmd: string, args: string[], timeoutMs: number): Promise<{ info: T; stop: () => Promise<void> }> {
  const child: ChildProcess = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  if (child.pid !== undefined) live.set(child.pid, 'process');
  child.once('close', () => {
    if (child.pid !== undefined) live.delete(child.pid);
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr = (stderr + d).slice(-4000);
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('close', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    });
  const info = await new Promise<T>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => {
      void stop();
      reject(new ChildTimeout(`${args.join(' ')} was not ready within ${Math.round(timeoutMs / 1000)} s`));
    }, timeoutMs);
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      buffered += d;
      const nl = buffered.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      try {
        resolve(JSON.parse(buffered.slice(0, nl)) as T);
      } catch (err) {
        reject(err);
      }
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited (${code}) before it was ready: ${stderr}`));
    });
  });
  return { info, stop };
}

/** The last JSON line a measured child printed (its own figures). */
export function lastJsonLine<T>(stdout: string): T {
  const line = stdout
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .at(-1);
  if (!line) throw new Error(`no JSON result in the child's output: ${stdout.slice(-500)}`);
  return JSON.parse(line) as T;
}
