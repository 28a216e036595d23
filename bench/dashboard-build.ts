import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchCache } from './cache.js';
import { measure } from './child.js';
import type { BenchContext } from './context.js';

/**
 * The dashboard built (`vite build`) into a folder of the run, dist/web in use left alone: what the first-render bench
 * serves and the bundle bench weighs. Built once per run (both ask for the same promise), and --quick keeps it
 * (bench/cache.ts) while web/, the build's config and the API's schemas are unchanged.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface DashboardBuild {
  /** The folder holding index.html and assets/. */
  dir: string;
  /** The build's wall time, s; null when a kept build was read. */
  buildSeconds: number | null;
}

const built = new Map<string, Promise<DashboardBuild>>();

export function dashboardBuild(ctx: BenchContext): Promise<DashboardBuild> {
  let b = built.get(ctx.tmp);
  if (b === undefined) {
    b = build(ctx);
    built.set(ctx.tmp, b);
    b.catch(() => built.delete(ctx.tmp));
  }
  return b;
}

async function build(ctx: BenchContext): Promise<DashboardBuild> {
  const cache = ctx.quick ? benchCache<{ built: true }>('first-render-web', {}, ['web', 'vite.config.ts', 'server/schemas']) : null;
  if (cache?.kept) return { dir: join(cache.dir, 'web'), buildSeconds: null };
  const outDir = join(cache?.dir ?? ctx.tmp, 'web');
  const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const made = await measure(process.execPath, [vite, 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'], {
    timeoutMs: 300_000,
  });
  if (made.code !== 0) throw new Error(`vite build failed (${made.code}): ${made.stderr.slice(-800)}`);
  cache?.keep({ built: true });
  return { dir: outDir, buildSeconds: made.wallMs / 1000 };
}
