import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * What a bench prepares but does not measure (a generated CUR month, a month of snapshots written into a store), kept
 * between runs under node_modules/.cache/nodepool-ledger/bench/, so `npm run bench -- --quick` spends its minutes on
 * what it measures. The key covers the bench's options, Node's version and every source that can change what is
 * prepared (the folders named, data/ and the lockfile): any change to them prepares afresh. One entry per bench is
 * kept (a new one replaces the old). `LEDGER_BENCH_CACHE=off` (or `--no-cache`) prepares everything every time: the
 * entries then live in the run's own folder (`LEDGER_BENCH_RUN_CACHE`, under its scratch folder, which bench/run.ts
 * sets and removes), so what one run prepares is read by each of its benches asking for it but by no later run.
 */

/** The folder of this run's entries when the cache is off (bench/run.ts sets it); without it nothing is kept at all. */
export const RUN_CACHE_ENV = 'LEDGER_BENCH_RUN_CACHE';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = join(ROOT, 'node_modules', '.cache', 'nodepool-ledger', 'bench');

/**
 * Every file under `path` (a file or a folder, in name order, tests left out) fed to `hash` with its path from the
 * repository root: the key of a cache kept until one of its sources changes (this file's bench caches, the tests'
 * seeded ledgers and compiled CLI).
 */
export function hashTree(hash: ReturnType<typeof createHash>, path: string): void {
  if (!existsSync(path)) return;
  if (statSync(path).isDirectory()) {
    for (const name of readdirSync(path).sort()) hashTree(hash, join(path, name));
  } else if (!path.includes('.test.')) {
    hash.update(path.slice(ROOT.length));
    hash.update(readFileSync(path));
  }
}

const KEY_CHARS = 24;

/** Whether the folder `name` is an entry of `bench` (its name, a dash, a key), not of a bench whose name extends it. */
export const isEntryOf = (bench: string, name: string): boolean =>
  name.length === bench.length + 1 + KEY_CHARS && name.startsWith(`${bench}-`) && /^[0-9a-f]+$/.test(name.slice(bench.length + 1));

/** Where entries are kept: the cache, or with the cache off this run's folder (null when there is none). */
export function cacheRoot(): string | null {
  if (process.env.LEDGER_BENCH_CACHE !== 'off') return CACHE;
  return process.env[RUN_CACHE_ENV] || null;
}

export interface BenchCacheEntry<T> {
  /** The entry's folder: the bench writes what it prepared here (before `keep`), or reads it after a hit. */
  dir: string;
  /** What was kept with it (the preparation's own figures), or null on a miss. */
  kept: (T & { keptAt: string }) | null;
  /** Marks the folder complete, with `meta`; until then a later run sees a miss. What is kept, returned. */
  keep(meta: T): T & { keptAt: string };
}

/**
 * The cache entry of `bench` for `options`, its key also covering `sources` (paths from the repository root). Null
 * when the cache is off and no run folder is set.
 */
export function benchCache<T>(bench: string, options: unknown, sources: readonly string[]): BenchCacheEntry<T> | null {
  const root = cacheRoot();
  if (root === null) return null;
  const hash = createHash('sha256').update(process.version).update(JSON.stringify(options));
  for (const s of [...sources, 'data', 'package-lock.json']) hashTree(hash, join(ROOT, s));
  const key = hash.digest('hex').slice(0, KEY_CHARS);
  const dir = join(root, `${bench}-${key}`);
  const metaFile = join(dir, 'kept.json');
  let kept: (T & { keptAt: string }) | null = null;
  if (existsSync(metaFile)) kept = JSON.parse(readFileSync(metaFile, 'utf8')) as T & { keptAt: string };
  else {
    // A half-written entry (a run stopped) or an older key of the same bench: prepared again from scratch. The same
    // bench's only: `store-` followed by a key, not `store-year-` (another bench's entry, perhaps being written).
    if (existsSync(root))
      for (const name of readdirSync(root)) if (isEntryOf(bench, name)) rmSync(join(root, name), { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  }
  return {
    dir,
    kept,
    keep: (meta) => {
      const tmp = `${metaFile}.${process.pid}.tmp`;
      const made = { ...meta, keptAt: new Date().toISOString() };
      writeFileSync(tmp, JSON.stringify(made));
      renameSync(tmp, metaFile);
      return made;
    },
  };
}
