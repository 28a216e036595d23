import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRetentionPass } from '../../cli/retention-stage.js';
import { retentionSettings } from '../../core/retention.js';
import { openDb, type Db } from '../../db/open-db.js';
import { buildApp } from '../../server/app.js';
import { DAY_MS, HOUR_MS } from '../../core/time.js';
import { seededDb, type SeededDb } from '../fixtures/seeded-api.js';
import { integrity } from './fixtures/db-checks.js';
import { childProcessArgs } from '../runner/compiled-cli.js';

/*
 * A fold is many short transactions in the collector's process; this one is a real child process (the retention
 * stage, passes of 20 ms with pauses, as collect --watch runs it between snapshots) over a copy of three days of the
 * week4 sandbox, folding past a 2-day raw retention (the first day). Meanwhile this process reads the file through `serve`'s read-only
 * connection: every answer is a 200 and equal to the unfolded file's. Then kill -9 mid-fold: the file is sound, reads
 * the same, and the next pass finishes the fold to exactly what an uninterrupted one gives.
 */

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'retention-child.ts');
const RAW = '2d';
const KEEP = '13mo';
let seeded: SeededDb;
let unfolded: FastifyInstance;
const iso = (ms: number): string => new Date(ms).toISOString();

beforeAll(async () => {
  // The same seeding as the e2e fold test and the browser pages (one seeded-database cache entry for all three).
  seeded = await seededDb({ prefix: 'ledger-retention-kill-', days: 3, usage: true });
  unfolded = buildApp({ db: seeded.db, now: () => seeded.endMs, cacheResponses: false });
}, 240_000);

afterAll(async () => {
  await unfolded?.close();
  await seeded?.close();
});

/** Range answers whose figures folding must not move: the folded days, a range across the boundary, 60 days. */
function urls(): string[] {
  const { startMs, endMs } = seeded;
  const ranges = [
    [startMs, startMs + 2 * DAY_MS],
    [startMs + 30 * HOUR_MS, endMs],
  ];
  const out = ranges.flatMap(([from, to]) =>
    ['/api/nodepools/compare', '/api/efficiency/summary', '/api/cost/nodepools/daily', '/api/teams/cost?method=aws-split'].map(
      (p) => `${p}${p.includes('?') ? '&' : '?'}from=${iso(from)}&to=${iso(to)}`,
    ),
  );
  out.push(`/api/efficiency/nodepools?from=${iso(endMs - 60 * DAY_MS)}&to=${iso(endMs)}`);
  out.push(`/api/consolidation/timeline?from=${iso(endMs - 60 * DAY_MS)}&to=${iso(endMs)}`);
  return out;
}

async function answers(app: FastifyInstance): Promise<{ status: number[]; bodies: unknown[] }> {
  const status: number[] = [];
  const bodies: unknown[] = [];
  for (const url of urls()) {
    const res = await app.inject({ method: 'GET', url });
    status.push(res.statusCode);
    bodies.push(res.statusCode === 200 ? round(res.json()) : res.body);
  }
  return { status, bodies };
}

/** Numbers to 9 significant digits: equal to float noise. */
function round(v: unknown): unknown {
  if (typeof v === 'number') return Number(v.toPrecision(9));
  if (Array.isArray(v)) return v.map(round);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, round(x)]));
  return v;
}

/** What a fold wrote, row for row (ids left out: they depend on insertion order, not on the data). */
function foldedRows(db: Db): unknown {
  const all = (sql: string) => db.prepare(sql).all();
  return round({
    snapshots: all('SELECT taken_at, node_count, pod_count, fold_ms, fold_snapshots FROM snapshots ORDER BY taken_at'),
    nodes: all(
      `SELECT s.taken_at, n.node_name, n.req_cpu_m, n.req_memory_b, n.usd_per_hour, n.fold_ms FROM snapshot_nodes n JOIN snapshots s ON s.id = n.snapshot_id ORDER BY 1, 2`,
    ),
    pools: all('SELECT taken_at, nodepool, capacity_type, nodes, req_cpu_m, usd_per_hour FROM snapshot_nodepools ORDER BY 1, 2, 3'),
    namespaces: all(
      'SELECT taken_at, namespace, nodepool, team, usd_per_hour, opencost_usd_per_hour FROM snapshot_namespaces ORDER BY 1, 2, 3',
    ),
    usage: all('SELECT taken_at, nodepool, pod_usage_cpu_m, alloc_cpu_m, fold_snapshots FROM usage_nodepools ORDER BY 1, 2'),
  });
}

describe('kill -9 of the collector mid-fold, with readers reading', () => {
  it('serves every answer unchanged during the fold, leaves a sound file, and the next pass finishes it', async () => {
    const expected = await answers(unfolded);
    expect(expected.status.every((s) => s === 200)).toBe(true);

    const path = join(seeded.dir, 'killed.db');
    const straightPath = join(seeded.dir, 'straight.db');
    await seeded.db.backup(path);
    await seeded.db.backup(straightPath);
    const child = spawn(
      process.execPath,
      [...childProcessArgs(CHILD), JSON.stringify({ dbPath: path, nowMs: seeded.endMs, raw: RAW, keep: KEEP, budgetMs: 20, pauseMs: 30 })],
      { stdio: ['ignore', 'pipe', 'pipe'], env: process.env },
    );
    let folded = 0;
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      for (const line of c
        .toString()
        .split('\n')
        .filter((l) => l.trim() !== ''))
        folded += (JSON.parse(line) as { folded: number }).folded;
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));

    // serve's connection: read-only, never waiting for the writer (WAL).
    const reader = openDb({ path, readonly: true });
    const served = buildApp({ db: reader, now: () => seeded.endMs, cacheResponses: false });
    let reads = 0;
    try {
      const deadline = Date.now() + 120_000;
      while (folded < 60) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the fold did not get going (${folded} folded): ${stderr}`);
        const got = await answers(served);
        expect(got.status).toEqual(expected.status);
        expect(got.bodies).toEqual(expected.bodies);
        reads += 1;
        // inject answers through promises alone: let the event loop reach the child's output.
        await new Promise((r) => setTimeout(r, 5));
      }
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      expect(reads).toBeGreaterThan(0);
      // Read again after the kill, before any writer opens the file.
      expect((await answers(served)).bodies).toEqual(expected.bodies);
    } finally {
      await served.close();
      reader.close();
      if (child.exitCode === null) child.kill('SIGKILL');
    }

    const db = openDb({ path });
    const straight = openDb({ path: straightPath });
    try {
      expect(integrity(db)).toEqual({ integrity: ['ok'], foreignKeys: [] });
      const settings = retentionSettings(RAW, KEEP);
      // Killed part way: some 5-minute snapshots of the folded days are left, and the next pass folds them.
      const next = await runRetentionPass(db, settings, { now: seeded.endMs, budgetMs: Number.POSITIVE_INFINITY });
      expect(next.folded).toBeGreaterThan(0);
      expect(next).toMatchObject({ pending: 0, error: null });
      await runRetentionPass(straight, settings, { now: seeded.endMs, budgetMs: Number.POSITIVE_INFINITY });
      expect(foldedRows(db)).toEqual(foldedRows(straight));
      const app = buildApp({ db, now: () => seeded.endMs, cacheResponses: false });
      try {
        expect((await answers(app)).bodies).toEqual(expected.bodies);
      } finally {
        await app.close();
      }
    } finally {
      db.close();
      straight.close();
    }
  }, 240_000);
});
