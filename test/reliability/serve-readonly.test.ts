import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireCollectorLock } from '../../db/lock.js';
import { openDb } from '../../db/open-db.js';
import { createRunsRepository } from '../../db/repositories/runs-repository.js';
import { sandboxPracticeBills } from '../../sandbox/practice-bills.js';
import { buildApp } from '../../server/app.js';
import { lockingWriter } from '../../server/database-writer.js';
import { getEveryRoute } from '../fixtures/every-get-route.js';
import { type SeededDb, seededDb } from '../fixtures/seeded-api.js';
import { startCli, type RunningCli } from './fixtures/cli.js';

/*
 * Reads never write. A day of the sandbox through the real collectors (usage too), then the server over it: every GET route
 * answers while another process holds the database's write lock (so none needs it), the file is byte for byte the
 * same afterwards and no lock row was taken; `serve` on a file chmod 444 answers every GET route too. The one user
 * action that writes, a bill CSV import, takes the collector lock: refused (409, naming the holder) while a collector
 * holds it, refused (503) when the file cannot be written, stored otherwise.
 */

let s: SeededDb;
let path: string;
const sha = (p: string): string => createHash('sha256').update(readFileSync(p)).digest('hex');
const walBytes = (p: string): number => (existsSync(`${p}-wal`) ? statSync(`${p}-wal`).size : 0);
const CSV = '"karpenter.sh/nodepool","general($)","Total costs($)"\n"2026-11-01","1.5","1.5"\n';
const postCsv = (base: string, name: string) =>
  fetch(`${base}/api/bill/import?name=${name}`, { method: 'POST', headers: { 'content-type': 'text/csv' }, body: CSV });

beforeAll(async () => {
  // A copy of the day that other files seed too (test/e2e/table-routes-csv.test.ts): seeded once per run, through the
  // sandbox and the real collectors, usage included. The config's hook timeout: a cold run may seed it here.
  s = await seededDb({ prefix: 'ledger-serve-ro-', days: 1, usage: true });
  // As `demo` records it, so that practice bills answer too (where the app is given the sandbox's, as demo gives it).
  createRunsRepository(s.db).setSetting('demo.seeded', `${s.scenario.name}|${s.scenario.seed}|v1`);
  s.db.pragma('wal_checkpoint(TRUNCATE)');
  path = s.db.name;
});
afterAll(async () => s?.close());

describe('reads never write', () => {
  let ro: ReturnType<typeof openDb>;
  let app: FastifyInstance;
  let base: string;
  beforeAll(async () => {
    ro = openDb({ path, readonly: true });
    app = buildApp({
      db: ro,
      webRoot: join(s.dir, 'no-web'),
      now: () => s.endMs,
      writer: lockingWriter(path),
      practiceBills: sandboxPracticeBills,
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server?.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app?.close();
    ro?.close();
  });

  it('every GET route answers while another process holds the write lock, and the file is unchanged after', async () => {
    // Even over a connection that could write, with the kept disruptions marked stale (as an older version would
    // have rebuilt them on the first GET), nothing is written.
    const rw = openDb({ path });
    rw.prepare('UPDATE disruptions_state SET dirty_from_ms = ? WHERE id = 1').run(s.startMs);
    rw.pragma('wal_checkpoint(TRUNCATE)');
    const rwApp = buildApp({ db: rw, webRoot: join(s.dir, 'no-web'), now: () => s.endMs, practiceBills: sandboxPracticeBills });
    await rwApp.listen({ host: '127.0.0.1', port: 0 });
    const rwBase = `http://127.0.0.1:${(rwApp.server?.address() as AddressInfo).port}`;
    const before = { sha: sha(path), wal: walBytes(path) };
    const writer = new Database(path);
    writer.pragma('busy_timeout = 0');
    writer.exec('BEGIN IMMEDIATE'); // the write lock, held throughout: a GET needing it would wait 15 s, then fail
    const t0 = Date.now();
    let answers: { url: string; status: number }[];
    try {
      answers = [
        ...(await getEveryRoute(base, { fromMs: s.startMs, toMs: s.endMs })),
        ...(await getEveryRoute(rwBase, { fromMs: s.startMs, toMs: s.endMs })),
      ];
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
      await rwApp.close();
    }
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(answers.length).toBeGreaterThan(36);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect({ sha: sha(path), wal: walBytes(path) }).toEqual(before);
    expect(ro.prepare('SELECT COUNT(*) FROM locks').pluck().get()).toBe(0);
    // Still stale: only a writer brings them up to date.
    expect(ro.prepare('SELECT dirty_from_ms FROM disruptions_state').pluck().get()).toBe(s.startMs);
    expect(rw.prepare('SELECT COUNT(*) FROM disruptions').pluck().get()).toBeGreaterThan(0);
    rw.close();
    const writerAgain = openDb({ path });
    expect(writerAgain.prepare('SELECT dirty_from_ms FROM disruptions_state').pluck().get()).toBeNull();
    writerAgain.close();
  }, 60_000);

  it('a bill import takes the collector lock: refused while a collector holds it, stored once it is free', async () => {
    const collector = openDb({ path });
    const lock = acquireCollectorLock(collector, { command: 'collect --watch', dbPath: path });
    try {
      const refused = await postCsv(base, 'while-collecting');
      expect(refused.status).toBe(409);
      expect(((await refused.json()) as { message: string }).message).toMatch(
        /^bill import writes to the database, and .* is in use by another collector: "collect --watch" \(pid \d+/,
      );
    } finally {
      lock.release();
      collector.close();
    }
    const stored = await postCsv(base, 'after');
    expect(stored.status).toBe(201);
    const lines = (await (await fetch(`${base}/api/bill/lines?source=csv:after&from=2026-11-01&to=2026-11-02`)).json()) as {
      lines: { nodePool: string; unblendedUsd: number }[];
    };
    expect(lines.lines.map((l) => [l.nodePool, l.unblendedUsd])).toEqual([['general', 1.5]]);
    expect(ro.prepare('SELECT COUNT(*) FROM locks').pluck().get()).toBe(0);
  }, 60_000);
});

describe('serve on a read-only file', () => {
  const running: RunningCli[] = [];
  afterAll(async () => {
    for (const r of running) if (r.child.exitCode === null) r.child.kill('SIGKILL');
    await Promise.all(running.map((r) => r.exited));
  });
  /** chmod does not stop root, so as root the CLI runs as nobody (65534). */
  const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534, env: { PATH: process.env.PATH ?? '', HOME: '/tmp' } } : {};

  it('answers every GET route of a file chmod 444, changes nothing, and says an import cannot write', async () => {
    const folder = join(s.dir, 'ro');
    mkdirSync(folder);
    chmodSync(s.dir, 0o755);
    chmodSync(folder, 0o777); // SQLite may create its -shm beside the file: reading a WAL file needs it
    const file = join(folder, 'ledger.db');
    copyFileSync(path, file);
    chmodSync(file, 0o444);
    const before = sha(file);

    const serve = startCli(['serve', '--db', file, '--port', '0'], asUser);
    running.push(serve);
    const deadline = Date.now() + 60_000;
    let url: string | undefined;
    while (url === undefined) {
      url = /dashboard: (http:\/\/127\.0\.0\.1:\d+)/.exec(serve.output().stdout)?.[1];
      if (Date.now() > deadline || serve.child.exitCode !== null) throw new Error(`serve did not start: ${JSON.stringify(serve.output())}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    // The server's clock is the wall clock: ask for the seeded day explicitly.
    const answers = await getEveryRoute(url, { fromMs: s.startMs, toMs: s.endMs });
    // serve loads no simulator, so practice bills answer 501 by design (they need the demo); every other route 200.
    const practice = (a: { url: string }) => a.url.startsWith('/api/bill/practice');
    expect(answers.filter((a) => !practice(a) && a.status !== 200)).toEqual([]);
    expect(answers.filter(practice).map((a) => a.status)).toEqual([501, 501]);
    const refused = await postCsv(url, 'read-only');
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { message: string }).message).toContain('read-only');
    serve.child.kill('SIGTERM');
    await serve.exited;
    expect(sha(file)).toBe(before);
  }, 120_000);
});
