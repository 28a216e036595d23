import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
});
