import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchContext, BenchResult } from './context.js';
import { figure } from './report.js';

/**
 * `npm start` on a fresh clone to the dashboard's first answer (issue 24 item 5, bound 30 s): the dashboard built
 * (dist/web removed first, as a clone has none), then the demo started on an empty database until GET / answers 200;
 * the demo is stopped there (its fill behind the dashboard is not what is measured). Same run quick or full.
 */

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const BOUND_MS = 30_000;

const freePort = (): Promise<number> =>
  new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => done(typeof a === 'object' && a !== null ? a.port : 0));
    });
  });

/** Runs `npm run build:web`; its wall time, ms. */
async function buildWeb(): Promise<number> {
  rmSync(join(ROOT, 'dist', 'web'), { recursive: true, force: true });
  const t0 = performance.now();
  const code = await new Promise<number | null>((done) =>
    spawn('npm', ['run', 'build:web'], { cwd: ROOT, stdio: 'ignore' }).on('exit', (c) => done(c)),
  );
  if (code !== 0) throw new Error(`npm run build:web failed (${code})`);
  return performance.now() - t0;
}

export async function startBench(ctx: BenchContext): Promise<BenchResult> {
  const buildMs = await buildWeb();
  const port = await freePort();
  const db = join(ctx.tmp, 'start', 'demo.db');
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'cli', 'run.ts'), 'demo', '--db', db, '--port', String(port)], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  let demoMs: number | null = null;
  let stage: string | null;
  try {
    const deadline = Date.now() + 300_000;
    while (demoMs === null) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the demo did not answer: ${stderr.slice(-800)}`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/`);
        if (res.status === 200) demoMs = performance.now() - t0;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const status = (await (await fetch(`http://127.0.0.1:${port}/api/status`)).json()) as { fill: { stage: string } | null };
    stage = status.fill?.stage ?? null;
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  ctx.log(
    `start: dashboard built in ${(buildMs / 1000).toFixed(1)} s; the demo answered ${(demoMs / 1000).toFixed(1)} s later (fill at "${stage}")`,
  );
  return {
    rows: [
      figure({
        bench: 'start',
        figure: 'npm start on a fresh clone: first answer of the dashboard',
        unit: 'ms',
        ours: buildMs + demoMs,
        peerLabel: 'bound',
        peer: BOUND_MS,
        target: { kind: 'at-most', max: 1 },
        note: `build:web ${(buildMs / 1000).toFixed(1)} s + demo to its first answer ${(demoMs / 1000).toFixed(1)} s; its fill was at "${stage}"`,
      }),
    ],
    details: { buildMs, demoMs, fillStageAtFirstAnswer: stage },
  };
}
