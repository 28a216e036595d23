import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * What a bench prepares but does not measure (a generated CUR month, a month of snapshots written into a store), kept
 * between runs under node_modules/.cache/nodepool-ledger/bench/, so `npm run bench -- --quick` spends its minutes on
 * what it measures. The key covers the bench's options, Node's version and every source that can change what is
 * prepared (the folders named, data/ and the lockfile): any change to them prepares afresh. One entry per bench is
 * kept (a new one replaces the old). `LEDGER_BENCH_CACHE=off` (or `--no-cache`) prepares everything every time.
 */

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

export interface BenchCacheEntry<T> {
  /** The entry's folder: the bench writes what it prepared here (before `keep`), or reads it after a hit. */
  dir: string;
  /** What was kept with it (the preparation's own figures), or null on a miss. */
  kept: (T & { keptAt: string }) | null;
  /** Marks the folder complete, with `meta`; until then a later run sees a miss. */
  keep(meta: T): void;
}

/**
 * The cache entry of `bench` for `options`, its key also covering `sources` (paths from the repository root). Null
 * when the cache is off.
 */
export function benchCache<T>(bench: string, options: unknown, sources: readonly string[]): BenchCacheEntry<T> | null {
  if (process.env.LEDGER_BENCH_CACHE === 'off') return null;
  const hash = createHash('sha256').update(process.version).update(JSON.stringify(options));
  for (const s of [...sources, 'data', 'package-lock.json']) hashTree(hash, join(ROOT, s));
  const key = hash.digest('hex').slice(0, 24);
  const dir = join(CACHE, `${bench}-${key}`);
  const metaFile = join(dir, 'kept.json');
  let kept: (T & { keptAt: string }) | null = null;
  if (existsSync(metaFile)) kept = JSON.parse(readFileSync(metaFile, 'utf8')) as T & { keptAt: string };
  else {
    // A half-written entry (a run stopped) or an older key of the same bench: prepared again from scratch.
    if (existsSync(CACHE))
      for (const name of readdirSync(CACHE)) if (name.startsWith(`${bench}-`)) rmSync(join(CACHE, name), { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  }
  return {
    dir,
    kept,
    keep: (meta) => {
      const tmp = `${metaFile}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ ...meta, keptAt: new Date().toISOString() }));
      renameSync(tmp, metaFile);
    },
  };
}
