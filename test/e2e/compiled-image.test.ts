import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCompiledCli } from '../runner/compiled-cli.js';

/*
 * The container image (deploy/Dockerfile) runs the compiled JavaScript on Node, with production dependencies only.
 * No Docker engine runs here, so the test lays out what the image's build stage builds (`npm run build`: the
 * dashboard, and the server as scripts/build-server.mjs compiles it), a folder holding exactly what the Dockerfile's
 * runtime stage copies (node_modules pruned to the lockfile's non-dev packages, as `npm prune --omit=dev` leaves it),
 * and runs the CLI from there as the image's ENTRYPOINT does: --help, `sandbox`, `demo` and `serve`, in real
 * processes over real HTTP. The folder sits outside the checkout, so nothing it lacks can be found in the checkout's
 * node_modules or sources.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DOCKERFILE = readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8');

interface Stage {
  from: string;
  instructions: { op: string; args: string }[];
}

/** The Dockerfile's stages, instructions joined across `\` continuations, comments dropped. */
function parseStages(text: string): Stage[] {
  const stages: Stage[] = [];
  const joined = text.replace(/\\\n/g, ' ');
  for (const line of joined.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const [op, ...rest] = trimmed.split(/\s+/);
    const args = rest.join(' ');
    if (op.toUpperCase() === 'FROM') stages.push({ from: args, instructions: [] });
    else stages.at(-1)?.instructions.push({ op: op.toUpperCase(), args });
  }
  return stages;
}

const stages = parseStages(DOCKERFILE);
const build = stages[0];
const runtime = stages.at(-1) as Stage;

/** `COPY --from=build /app/X ./X` in the runtime stage: the paths (relative to /app) the image holds. */
function runtimeCopies(): string[] {
  return runtime.instructions
    .filter((i) => i.op === 'COPY')
    .map((i) => {
      const m = /^--from=build \/app\/(\S+) \.\/(\S+)$/.exec(i.args);
      if (!m || m[1] !== m[2]) throw new Error(`unexpected runtime COPY: ${i.args}`);
      return m[1];
    });
}

describe('deploy/Dockerfile', () => {
  it('builds and runs on Node 24 (bookworm-slim), running the compiled CLI with node, not tsx', () => {
    expect(stages.map((s) => s.from)).toEqual(['node:24-bookworm-slim AS build', 'node:24-bookworm-slim']);
    const entrypoint = runtime.instructions.find((i) => i.op === 'ENTRYPOINT');
    expect(JSON.parse(entrypoint?.args ?? 'null')).toEqual(['node', 'dist/cli/run.js']);
    expect(runtime.instructions.filter((i) => /tsx|\.ts\b/.test(i.args))).toEqual([]);
    const runs = build.instructions.filter((i) => i.op === 'RUN').map((i) => i.args);
    expect(runs).toContain('npm run build && npm prune --omit=dev --no-audit --no-fund');
    expect(DOCKERFILE).not.toContain('AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED');
  });

  it('copies into the image only package.json, the pruned node_modules and dist/: no test/, bench/ or sources', () => {
    expect(runtimeCopies().sort()).toEqual(['dist', 'node_modules', 'package.json']);
    // The build stage does not even see the tests and benchmarks.
    const buildCopies = build.instructions.filter((i) => i.op === 'COPY').map((i) => i.args);
    expect(buildCopies.filter((c) => /\b(test|bench)\b/.test(c) || c.startsWith('. '))).toEqual([]);
    expect(readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n')).toEqual(
      expect.arrayContaining(['node_modules', 'test', 'bench']),
    );
  });
});

/** The lockfile's top-level packages that `npm prune --omit=dev` keeps (nested ones travel inside their parent). */
function productionPackages(): string[] {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  return Object.entries(lock.packages)
    .filter(([path, p]) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(path) && p.dev !== true)
    .map(([path]) => path)
    .filter((path) => existsSync(join(ROOT, path))); // optional packages for other platforms are not installed
}

/** scripts/server-layout.json: what scripts/build-server.mjs compiles into dist/, and the files it copies beside. */
const LAYOUT = JSON.parse(readFileSync(join(ROOT, 'scripts', 'server-layout.json'), 'utf8')) as {
  compiled: string[];
  runtimeFiles: string[];
};

/**
 * `dist` as `npm run build` leaves it, in `to`: the JavaScript tsc emits over tsconfig.build.json (the compiled CLI's
 * folder `compiled`, built by the same tsc run with --noCheck: test/runner/compiled-cli.ts), the runtime files copied
 * beside it as scripts/build-server.mjs copies them (from its list), and the dashboard Vite built (dist/web).
 */
function layOutDist(compiled: string, to: string): void {
  mkdirSync(to);
  for (const dir of LAYOUT.compiled) execFileSync('cp', ['-a', join(compiled, dir), join(to, dir)]);
  for (const path of LAYOUT.runtimeFiles) {
    rmSync(join(to, path), { recursive: true, force: true }); // the compiled CLI's link to the checkout's copy
    execFileSync('cp', ['-a', join(ROOT, path), join(to, path)]);
  }
  execFileSync('cp', ['-a', join(ROOT, 'dist', 'web'), join(to, 'web')]);
}

/** The image's /app: each runtime COPY, node_modules as pruned; hard links, so it takes a second, not a gigabyte. */
function layOutImage(app: string, compiled: string): void {
  for (const path of runtimeCopies()) {
    if (path === 'node_modules') {
      for (const pkg of productionPackages()) {
        mkdirSync(dirname(join(app, pkg)), { recursive: true });
        execFileSync('cp', ['-al', join(ROOT, pkg), join(app, pkg)]);
      }
    } else if (path === 'dist') {
      layOutDist(compiled, join(app, path));
    } else {
      execFileSync('cp', ['-a', join(ROOT, path), join(app, path)]);
    }
  }
}

interface Proc {
  child: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
}

let work: string;
let app: string;
/**
 * The days the image's week4.json is cut to (beforeAll), and the demo's scenario: one day shows every NodePool, a bill
 * day to explain and a snapshot to simulate on, at two thirds of two days' CPU (demo 34 CPU s against 49).
 */
const IMAGE_WEEK4_DAYS = 1;
const running: ChildProcess[] = [];

/** `node dist/cli/run.js <args>` in the image folder, with nothing of this test run's environment but PATH. */
function run(args: string[], env: Record<string, string> = {}): Proc {
  const child = spawn(process.execPath, ['dist/cli/run.js', ...args], {
    cwd: app,
    env: { PATH: process.env.PATH, HOME: work, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  return { child, out: () => out, exited: new Promise((done) => child.on('exit', (code) => done(code))) };
}

async function waitFor(p: Proc, pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = pattern.exec(p.out());
    if (m) return m;
    if (Date.now() > deadline || p.child.exitCode !== null) throw new Error(`no ${pattern} in time; output:\n${p.out()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

async function stop(p: Proc): Promise<void> {
  p.child.kill('SIGTERM');
  await p.exited;
}

beforeAll(async () => {
  // What the image's build stage runs: `npm run build` (the dashboard, unless `npm test` just built it, and the server).
  // The server is the integration run's compiled CLI (its setup builds it in the background; waited for here, or
  // built when missing): tsc over tsconfig.build.json without the type check (`--noCheck`: the same JavaScript, half
  // the CPU), which `npm test` runs over the same sources beside the tests (`npm run check`): not a second checking tsc run.
  if (!existsSync(join(ROOT, 'dist', 'web', 'index.html'))) execFileSync('npm', ['run', 'build:web'], { cwd: ROOT, stdio: 'inherit' });
  const compiled = await builtCompiledCli();
  work = mkdtempSync(join(tmpdir(), 'ledger-image-'));
  app = join(work, 'app');
  mkdirSync(app);
  layOutImage(app, compiled);
  // The image's week4 cut to its first day (its own copy: `cp -a`, not a link to the checkout's dist/). The
  // `sandbox` command simulates the whole scenario before it serves, 14 days of CPU in a process the scenario cache
  // does not reach; one day runs the same compiled simulation, and the clock's end tells this file from the
  // checkout's 14-day one.
  const imageWeek4 = join(app, 'dist', 'sandbox', 'scenarios', 'week4.json');
  const cut = JSON.stringify({ ...(JSON.parse(readFileSync(imageWeek4, 'utf8')) as object), days: IMAGE_WEEK4_DAYS });
  // Never written through a link: were the layout ever to leave one to the checkout on this path (the no-link test
  // below says so), writing would cut the checkout's own scenario.
  if (realpathSync(imageWeek4) !== join(realpathSync(app), 'dist', 'sandbox', 'scenarios', 'week4.json'))
    throw new Error(`${imageWeek4} leads to ${realpathSync(imageWeek4)}, not a copy of its own`);
  writeFileSync(imageWeek4, cut);
}, 300_000);

afterAll(() => {
  for (const c of running) if (c.exitCode === null) c.kill('SIGKILL');
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the compiled CLI, from a folder holding only what the image holds', () => {
  it('holds no tests, benchmarks, TypeScript or tsx', () => {
    const files = readdirSync(join(app, 'dist'), { recursive: true }).map(String);
    expect(files.filter((f) => /(^|\/)(test|bench)\//.test(f) || /\.test\.js$|\.tsx?$/.test(f))).toEqual([]);
    expect(readdirSync(app).sort()).toEqual(['dist', 'node_modules', 'package.json']);
    for (const dev of ['tsx', 'typescript', 'vite', 'vitest', 'react', 'playwright-core'])
      expect(existsSync(join(app, 'node_modules', dev)), dev).toBe(false);
    expect(existsSync(join(app, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'))).toBe(true);
    // Files, as the image's COPY leaves them: no link back into the checkout (the compiled CLI's folder links its
    // runtime files there) through which the folder could read what the image would not hold.
    expect(files.filter((f) => lstatSync(join(app, 'dist', f)).isSymbolicLink())).toEqual([]);
  });

  it('--help: the usage, exit code 0', async () => {
    const p = run(['--help']);
    expect(await p.exited).toBe(0);
    expect(p.out()).toContain('Usage: nodepool-ledger <command> [options]');
  });

  it('sandbox: simulates the default scenario from dist/sandbox/scenarios and serves the Kubernetes API', async () => {
    const p = run(['sandbox', '--port', '0', '--dir', work]);
    const [, url] = await waitFor(p, /on (https?:\/\/127\.0\.0\.1:\d+)/, 120_000);
    await waitFor(p, /export AWS_REGION=/, 5_000);
    const clock = (await (await fetch(`${url.replace('https:', 'http:')}/_sandbox/clock`)).json()) as {
      scenario: string;
      start: string;
      end: string;
    };
    expect(clock.scenario).toBe('week4');
    // The default scenario is the image's dist/sandbox/scenarios/week4.json (cut to one day above).
    expect(Date.parse(clock.end) - Date.parse(clock.start)).toBe(IMAGE_WEEK4_DAYS * 86_400_000);
    await stop(p);
  }, 150_000);

  it('demo, then serve: seeds through the collectors, serves the dashboard and the API, explains a bill line', async () => {
    // One day of week4 (the catalogue, prices and migrations come from dist/; the scenario from this file).
    const scenario = JSON.parse(readFileSync(join(ROOT, 'sandbox', 'scenarios', 'week4.json'), 'utf8')) as { days: number };
    scenario.days = IMAGE_WEEK4_DAYS;
    const scenarioPath = join(work, 'short.json');
    writeFileSync(scenarioPath, JSON.stringify(scenario));
    const db = join(work, 'demo.db');

    // The port from $PORT, as a container platform (or `PORT=8080 npm start`) gives it.
    const port = await freePort();
    const demo = run(['demo', '--db', db, '--scenario', scenarioPath], { PORT: String(port) });
    const [, demoUrl] = await waitFor(demo, /dashboard: (http:\/\/127\.0\.0\.1:\d+)/, 240_000);
    expect(demoUrl).toBe(`http://127.0.0.1:${port}`);
    // The dashboard answers first and the demo fills it in behind (issue 24): the rest reads the filled file.
    await waitFor(demo, /filled in [\d.]+ s/, 240_000);
    const page = await fetch(`${demoUrl}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<script type="module" crossorigin src="\/assets\//); // Vite's build, not web/index.html
    // The engine runs in a worker thread loaded from dist/server/engine-pool/worker.js (no tsx in the image).
    const demoWhyNot = await fetch(`${demoUrl}/api/whatif/why-not`);
    expect(demoWhyNot.status).toBe(200);
    expect(((await demoWhyNot.json()) as { simulation: boolean }).simulation).toBe(true);
    await stop(demo);

    const serve = run(['serve', '--db', db, '--port', '0']);
    const [, url] = await waitFor(serve, /dashboard: (http:\/\/127\.0\.0\.1:\d+)/, 60_000);
    const html = await (await fetch(`${url}/`)).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect((await fetch(`${url}${script}`)).status).toBe(200);
    // The demo's two sandbox clusters (issue 25): week4's NodePools under its own cluster, staging's beside them.
    const clusters = (await (await fetch(`${url}/api/clusters`)).json()) as { clusters: { name: string }[] };
    expect(clusters.clusters.map((c) => c.name)).toEqual(['ledger-demo', 'staging']);
    const pools = (await (await fetch(`${url}/api/nodepools?cluster=ledger-demo`)).json()) as { items: { name: string }[] };
    expect(pools.items.map((n) => n.name).sort()).toEqual(['dedicated', 'general', 'load-test', 'spot-batch', 'steady', 'system']);
    const staging = (await (await fetch(`${url}/api/nodepools?cluster=staging`)).json()) as { items: { name: string }[] };
    expect(staging.items.map((n) => n.name).sort()).toEqual(['general', 'staging-batch']);
    const lines = (await (await fetch(`${url}/api/bill/lines?from=2026-11-01&to=2026-11-02`)).json()) as {
      lines: { id: number | null; nodePool: string }[];
    };
    const line = lines.lines.find((l) => l.nodePool === 'general' && l.id !== null);
    expect(line).toBeDefined();
    const explained = await fetch(`${url}/api/bill/explain?lineId=${line?.id}`);
    expect(explained.status).toBe(200);
    const body = (await explained.json()) as { nodeClaims: unknown[] };
    expect(body.nodeClaims.length).toBeGreaterThan(0);
    const headroom = await fetch(`${url}/api/whatif/headroom`);
    expect(headroom.status).toBe(200);
    expect(((await headroom.json()) as { rows: unknown[] }).rows.length).toBeGreaterThan(0);
    await stop(serve);
  }, 300_000);
});
