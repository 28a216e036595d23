import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { envelopeLedgerFile, type EnvelopeLedger } from './envelope-ledger-file.js';
import type { BenchContext, BenchResult } from './context.js';
import { engineWarmed, type WarmAnswer } from './engine-warmed.js';
import { figure } from './report.js';

/**
 * The API while the engine works (issue 21 item 6): `serve` over a ledger holding one snapshot at the envelope
 * (5,000 nodes, 150,000 pods; --quick 500 / 15,000), in its own process with its default engine pool. Clients ask
 * the cheap routes (status, NodePools, the efficiency summary, a page of nodes) over and over, first alone (idle),
 * then while four what-ifs run at once (two NodePool edits, Balanced on a NodePool, a NodeOverlay price adjustment:
 * none of them among the warm-up's answers, so all four simulate): the p99 of the cheap
 * routes under load beside the same p99 idle. On the API's thread every cheap request would wait for the
 * simulations (seconds); in the pool they share the cores with them. The idle window starts once `serve`'s own engine
 * warm-up (server/engine-pool/engine-warm.ts: the Savings page's what-ifs and the Workloads page's re-packs, computed
 * when it is ready) has answered: before, that window was the warm-up's.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLIENTS = 4;
const WHAT_IFS = [
  // Not headroom nor why-not: the warm-up below computed those, and the pool answers them at once from what it kept.
  '/api/whatif/balanced?nodepool=general',
  '/api/whatif/overlay?priceAdjustment=-12%25',
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

type Serve = Awaited<ReturnType<typeof startServe>>;

interface Served {
  ledger: EnvelopeLedger;
  server: Serve;
  /** The engine warm-up's answers, and how long after `serve` printed its address they came. */
  warm: WarmAnswer[];
  warmMs: number;
}

/** `serve` over the envelope ledger (copied to the run's folder), once its engine warm-up has answered. */
async function served(ctx: BenchContext): Promise<Served> {
  const ledger = await envelopeLedgerFile(ctx.quick ? 500 : 5000, join(ctx.tmp, 'envelope-ledger.db'));
  const server = await startServe(join(ctx.tmp, 'envelope-ledger.db'));
  try {
    const t0 = performance.now();
    const warm = await engineWarmed(server.url, t0 + WARM_GIVE_UP_MS);
    const failed = warm.filter((w) => w.status !== 200);
    if (failed.length > 0) throw new Error(`serve's engine warm-up answered ${failed.map((w) => `${w.path} ${w.status}`).join(', ')}`);
    return { ledger, server, warm, warmMs: performance.now() - t0 };
  } catch (err) {
    await server.stop();
    throw err;
  }
}

/** How long the bench waits for `serve`'s engine warm-up (the envelope's takes about 20 s on a quiet machine). */
const WARM_GIVE_UP_MS = 900_000;

/** `serve` started by the run's preparation (bench/prepare.ts), taken by the bench. */
let startedAhead: Promise<Served> | null = null;

/**
 * --quick's preparation, once the envelope ledger is kept: `serve` started and its engine warm-up answered while nothing
 * is measured (its CPU, in `serve`'s process, is the preparation's); the bench stops it.
 */
export async function prepareEnginePool(ctx: BenchContext): Promise<void> {
  if (!ctx.quick) return;
  startedAhead = served(ctx);
  await startedAhead;
}

export async function enginePoolBench(ctx: BenchContext): Promise<BenchResult> {
  const ahead = startedAhead === null ? null : await startedAhead.catch(() => null);
  startedAhead = null;
  // The ledger kept between runs and shared with any bench serving the same one (bench/envelope-ledger-file.ts).
  const { ledger, server, warm, warmMs } = ahead ?? (await served(ctx));
  ctx.log(
    `api-engine: ledger of ${ledger.nodes} nodes, ${ledger.pods} pods ${ledger.keptAt === null ? `written in ${(ledger.ms / 1000).toFixed(1)} s` : `kept from ${ledger.keptAt}`}; serve's engine warm-up answered ${(warmMs / 1000).toFixed(1)} s after it listened${ahead === null ? '' : ", during the run's preparation"} (${warm.map((w) => `${w.path}${w.asked > 1 ? ` asked ${w.asked} times` : ''}`).join(', ')})`,
  );

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
    // A what-if refused at once (a NodePool the ledger lacks, a bad query) would leave the cheap routes unloaded.
    const refused = answers.filter((a) => a.status !== 200);
    if (refused.length > 0) throw new Error(`api-engine: what-ifs not answered: ${refused.map((a) => `${a.path} ${a.status}`).join(', ')}`);
    const loadedSeconds = (performance.now() - started) / 1000;
    const details = {
      nodes: ledger.nodes,
      pods: ledger.pods,
      clients: CLIENTS,
      engineWarmUp: { ms: warmMs, duringPreparation: ahead !== null, answers: warm },
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
