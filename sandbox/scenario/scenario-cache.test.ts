import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { cachedSimulation } from './scenario-cache.js';
import type { Scenario } from './types.js';

const history = (seed: number): Scenario =>
  ({ name: 'tiny', seed, nodes: [{ name: 'n-1', deletedAt: null, price: 0.192 }], pods: [] }) as unknown as Scenario;

describe('cachedSimulation', () => {
  it('simulates once per inputs; the next caller reads the same value from disk', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scenario-cache-'));
    let runs = 0;
    const compute = (seed: number) => (): Scenario => {
      runs += 1;
      return history(seed);
    };
    const first = cachedSimulation({ file: 'tiny', seed: 1 }, compute(1), dir);
    const again = cachedSimulation({ file: 'tiny', seed: 1 }, compute(1), dir);
    expect(runs).toBe(1);
    expect(again).toEqual(first);
    expect(again).not.toBe(first);
    cachedSimulation({ file: 'tiny', seed: 2 }, compute(2), dir);
    expect(runs).toBe(2);
    expect(readdirSync(dir).filter((f) => f.endsWith('.json'))).toHaveLength(2);
  });

  it('without a folder it always simulates; an unreadable file is simulated and written again', () => {
    let runs = 0;
    const compute = (): Scenario => {
      runs += 1;
      return history(7);
    };
    cachedSimulation({ seed: 7 }, compute, '');
    cachedSimulation({ seed: 7 }, compute, '');
    expect(runs).toBe(2);
    const dir = mkdtempSync(join(tmpdir(), 'scenario-cache-'));
    cachedSimulation({ seed: 7 }, compute, dir);
    const [file] = readdirSync(dir);
    writeFileSync(join(dir, file), '{"truncated');
    expect(cachedSimulation({ seed: 7 }, compute, dir)).toEqual(history(7));
    expect(runs).toBe(4);
    expect(cachedSimulation({ seed: 7 }, compute, dir)).toEqual(history(7));
    expect(runs).toBe(4);
  });

  /*
   * Two workers asking for the same history at once: the second waits for the first's file. Here the first is a
   * worker thread holding the lock (with the pid of a live process in it, as a worker of the suite would) that writes
   * the history 300 ms later and lets go; this thread, blocked meanwhile, reads that history instead of simulating.
   */
  it('waits for a history another process is simulating and reads it; a lock left by a process that is gone is not waited for', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scenario-cache-'));
    let runs = 0;
    const compute = (): Scenario => {
      runs += 1;
      return history(3);
    };
    cachedSimulation({ seed: 3 }, compute, dir);
    const [file] = readdirSync(dir);
    const path = join(dir, file);
    rmSync(path);
    writeFileSync(`${path}.lock`, String(process.ppid));
    const theirs = { ...history(3), name: 'simulated by the other worker' };
    const other = new Worker(
      `const { renameSync, rmSync, writeFileSync } = require('node:fs');
       const { workerData: w } = require('node:worker_threads');
       setTimeout(() => { writeFileSync(w.path + '.tmp', w.json); renameSync(w.path + '.tmp', w.path); rmSync(w.path + '.lock'); }, 300);`,
      { eval: true, workerData: { path, json: JSON.stringify(theirs) } },
    );
    try {
      expect(cachedSimulation({ seed: 3 }, compute, dir)).toEqual(theirs);
      expect(runs).toBe(1);
    } finally {
      void other.terminate();
    }

    // The holder died without letting go: its pid is no process (above Linux's pid_max), so the lock is taken over.
    rmSync(path);
    writeFileSync(`${path}.lock`, String(2 ** 30));
    expect(cachedSimulation({ seed: 3 }, compute, dir)).toEqual(history(3));
    expect(runs).toBe(2);
    expect(existsSync(`${path}.lock`)).toBe(false);
    expect(existsSync(path)).toBe(true);
  });
});
