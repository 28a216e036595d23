import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { benchCache, isEntryOf, RUN_CACHE_ENV } from './cache.js';

const KEY = 'a'.repeat(24);

describe('isEntryOf', () => {
  it.each([
    ['store', `store-${KEY}`, true],
    // The store-year bench's entry begins with "store-" too: a miss of the store bench must leave it alone.
    ['store', `store-year-${KEY}`, false],
    ['store-year', `store-year-${KEY}`, true],
    ['envelope-ledger-500', `envelope-ledger-5000-${KEY}`, false],
    ['store', `store-${KEY}.tmp`, false],
    ['store', `store-${'A'.repeat(24)}`, false],
  ])('%s owns %s: %s', (bench, name, owns) => {
    expect(isEntryOf(bench, name)).toBe(owns);
  });
});

describe('benchCache with the cache off', () => {
  const saved = { cache: process.env.LEDGER_BENCH_CACHE, run: process.env[RUN_CACHE_ENV] };
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'bench-cache-'));
    process.env.LEDGER_BENCH_CACHE = 'off';
    process.env[RUN_CACHE_ENV] = join(dir, 'prepared');
  });
  afterEach(() => {
    for (const [k, v] of [
      ['LEDGER_BENCH_CACHE', saved.cache],
      [RUN_CACHE_ENV, saved.run],
    ] as const)
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps an entry in the run folder for the rest of the run', () => {
    const first = benchCache<{ n: number }>('store-year', { nodes: 20 }, []);
    expect(first?.kept).toBeNull();
    expect(first?.dir.startsWith(join(dir, 'prepared'))).toBe(true);
    first?.keep({ n: 1 });
    expect(benchCache<{ n: number }>('store-year', { nodes: 20 }, [])?.kept?.n).toBe(1);
  });

  it('keeps nothing without a run folder', () => {
    delete process.env[RUN_CACHE_ENV];
    expect(benchCache('store', { nodes: 40 }, [])).toBeNull();
  });

  it("a miss of one bench leaves another bench's entry whose name extends it", () => {
    const year = benchCache<{ n: number }>('store-year', { nodes: 20 }, []);
    year?.keep({ n: 2 });
    const store = benchCache('store', { nodes: 40 }, []);
    expect(store?.kept).toBeNull();
    expect(existsSync(join(year?.dir ?? '', 'kept.json'))).toBe(true);
    expect(benchCache<{ n: number }>('store-year', { nodes: 20 }, [])?.kept?.n).toBe(2);
  });
});
