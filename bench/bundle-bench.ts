import { measureInitialJs } from '../test/browser/initial-js.js';
import type { BenchContext, BenchResult } from './context.js';
import { dashboardBuild } from './dashboard-build.js';
import { figure } from './report.js';

/**
 * Bundle: the dashboard built (`vite build`, into this run's scratch folder so dist/web in use is left alone; the
 * same build the first-render bench serves, bench/dashboard-build.ts), and the JavaScript a first visit downloads —
 * index.html's entry script and the chunks it preloads — gzipped (level 9, test/browser/initial-js.ts). Target <= 250 KB.
 */

const BOUND_KB = 250;

export async function bundleBench(ctx: BenchContext): Promise<BenchResult> {
  ctx.log('bundle: vite build…');
  const build = await dashboardBuild(ctx);
  const js = measureInitialJs(build.dir);
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
    details: { buildSeconds: build.buildSeconds, files: js.files, bytes: js.bytes, gzipBytes: js.gzipBytes },
  };
}
