import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { envelopeLedgerFile } from './envelope-ledger-file.js';
import type { BenchContext, BenchResult } from './context.js';
import { figure } from './report.js';

/**
 * The API while the engine works (issue 21 item 6): `serve` over a ledger holding one snapshot at the envelope
 * (5,000 nodes, 150,000 pods; --quick 500 / 15,000), in its own process with its default engine pool. Clients ask
 * the cheap routes (status, NodePools, the efficiency summary, a page of nodes) over and over, first alone (idle),
 * then while four what-ifs run at once (headroom, why-not-consolidated, two NodePool edits): the p99 of the cheap
 * routes under load beside the same p99 idle. On the API's thread every cheap request would wait for the
 * simulations (seconds); in the pool they share the cores with them.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLIENTS = 4;
const WHAT_IFS = [
  '/api/whatif/headroom',
  '/api/whatif/why-not',
  '/api/whatif/nodepool-edit?nodepool=general&capacityTypes=spot',
  '/api/whatif/nodepool-edit?nodepool=general&families=m6i,m6a',
];

const percentile = (xs: readonly number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};

function startServe(db: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'cli', 'run.ts'), 'serve', '--db', db, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    // Long enough for four envelope what-ifs queued on the pool to finish rather than answer 503.
    env: { ...process.env, LEDGER_ENGINE_TIMEOUT: '900' },
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('close', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /dashboard: (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve({ url: m[1], stop });
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.once('close', (code) => reject(new Error(`serve exited (${code}) before listening: ${out.slice(-800)}`)));
  });
}

/** CLIENTS clients asking the cheap routes in turn until `done()`: every latency, in ms. */
async function cheapLoad(url: string, done: () => boolean): Promise<number[]> {
  const paths = (i: number) => ['/api/status', '/api/nodepools', '/api/efficiency/summary', `/api/nodes?limit=50&offset=${(i % 40) * 50}`];
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = c; !done(); i++) {
        const list = paths(i);
        const t0 = performance.now();
        const res = await fetch(`${url}${list[i % list.length]}`);
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`${list[i % list.length]}: HTTP ${res.status}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return latencies;
}

export async function enginePoolBench(ctx: BenchContext): Promise<BenchResult> {
  const nodes = ctx.quick ? 500 : 5000;
  const db = join(ctx.tmp, 'envelope-ledger.db');
  // Kept between runs and shared with any bench serving the same ledger (bench/envelope-ledger-file.ts).
  const ledger = await envelopeLedgerFile(nodes, db);
  ctx.log(
    `api-engine: ledger of ${ledger.nodes} nodes, ${ledger.pods} pods ${ledger.keptAt === null ? `written in ${(ledger.ms / 1000).toFixed(1)} s` : `kept from ${ledger.keptAt}`}`,
  );

  const server = await startServe(db);
  try {
    // Warm: every cheap route once (the first answers fill the response cache).
    await cheapLoad(
      server.url,
      (() => {
        let n = 0;
        return () => n++ >= CLIENTS * 8;
      })(),
    );
    const idleMs = ctx.quick ? 5_000 : 15_000;
    const idleEnd = Date.now() + idleMs;
    const idle = await cheapLoad(server.url, () => Date.now() >= idleEnd);

    const started = performance.now();
    let running = WHAT_IFS.length;
    const whatIfs = await Promise.all([
      cheapLoad(server.url, () => running === 0),
      ...WHAT_IFS.map(async (path) => {
        const t0 = performance.now();
        const res = await fetch(`${server.url}${path}`);
        await res.arrayBuffer();
        running -= 1;
        return { path, status: res.status, seconds: (performance.now() - t0) / 1000 };
      }),
    ]);
    const loaded = whatIfs[0] as number[];
    const answers = whatIfs.slice(1) as { path: string; status: number; seconds: number }[];
    const loadedSeconds = (performance.now() - started) / 1000;
    const details = {
      nodes: ledger.nodes,
      pods: ledger.pods,
      clients: CLIENTS,
      idle: { requests: idle.length, p50Ms: percentile(idle, 50), p99Ms: percentile(idle, 99), maxMs: Math.max(...idle) },
      loaded: {
        requests: loaded.length,
        seconds: loadedSeconds,
        p50Ms: percentile(loaded, 50),
        p99Ms: percentile(loaded, 99),
        maxMs: Math.max(...loaded),
      },
      whatIfs: answers,
    };
    ctx.log(
      `api-engine: cheap routes idle p99 ${details.idle.p99Ms.toFixed(1)} ms (${idle.length} requests); while 4 what-ifs ran (${loadedSeconds.toFixed(1)} s: ${answers.map((a) => `${a.status} in ${a.seconds.toFixed(1)} s`).join(', ')}) p99 ${details.loaded.p99Ms.toFixed(1)} ms (${loaded.length} requests)`,
    );
    const scale = `${ledger.nodes.toLocaleString('en-US')} nodes, ${ledger.pods.toLocaleString('en-US')} pods`;
    return {
      rows: [
        figure({
          bench: 'api-engine',
          figure: `GET p99 of the cheap routes while 4 what-ifs run (${scale})`,
          unit: 'ms',
          ours: details.loaded.p99Ms,
          peerLabel: 'the same p99 idle',
          peer: details.idle.p99Ms,
          target: { kind: 'info' },
          note: `${loaded.length} requests over ${loadedSeconds.toFixed(0)} s (p50 ${details.loaded.p50Ms.toFixed(1)} ms); what-ifs ${answers.map((a) => `${a.status} ${a.seconds.toFixed(0)} s`).join(', ')}`,
        }),
        figure({
          bench: 'api-engine',
          figure: `GET p99 of the cheap routes while 4 what-ifs run (${scale}), against the API bound`,
          unit: 'ms',
          ours: details.loaded.p99Ms,
          peerLabel: 'bound',
          peer: 100,
          target: { kind: 'at-most', max: 1 },
        }),
      ],
      details,
    };
  } finally {
    await server.stop();
  }
}
