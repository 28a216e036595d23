import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureInitialJs } from '../test/browser/initial-js.js';
import { measure } from './child.js';
import type { BenchContext, BenchResult } from './context.js';
import { figure } from './report.js';

/**
 * Bundle: the dashboard built (`vite build`, into this run's scratch folder so dist/web in use is left alone), and
 * the JavaScript a first visit downloads — index.html's entry script and the chunks it preloads — gzipped (level
 * 9, test/browser/initial-js.ts). Target <= 250 KB.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BOUND_KB = 250;

export async function bundleBench(ctx: BenchContext): Promise<BenchResult> {
  const outDir = join(ctx.tmp, 'web');
  ctx.log('bundle: vite build…');
  const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const build = await measure(process.execPath, [vite, 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'], {
    timeoutMs: 300_000,
  });
  if (build.code !== 0) throw new Error(`vite build failed (${build.code}): ${build.stderr.slice(-800)}`);
  const js = measureInitialJs(outDir);
  const kb = js.gzipBytes / 1024;
  ctx.log(`bundle: initial JS ${js.files.length} files, ${(js.bytes / 1024).toFixed(0)} KB, ${kb.toFixed(1)} KB gzip`);
  return {
    rows: [
      figure({
        bench: 'bundle',
        figure: 'dashboard initial JS (gzip)',
        unit: 'KB',
        ours: kb,
        peerLabel: 'bound',
        peer: BOUND_KB,
        target: { kind: 'at-most', max: 1 },
        note: `${js.files.length} files (entry + modulepreload), ${(js.bytes / 1024).toFixed(0)} KB before gzip; pages and charts load later`,
      }),
    ],
    details: { buildSeconds: build.wallMs / 1000, files: js.files, bytes: js.bytes, gzipBytes: js.gzipBytes },
  };
}
