import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { acquireCollectorLock } from '../db/lock.js';
import { openDb, type Db } from '../db/open-db.js';
import { createRunsRepository, RUN_STATUSES } from '../db/repositories/runs-repository.js';
import { buildApp } from './app.js';
import { RunStatusSchema, type StatusResponse } from './schemas/status.js';

/*
 * A run whose collector died is served by /api/status as 'abandoned' (the response schema declares it, so the
 * serializer keeps it), with when it was found and why, instead of 'running' for ever.
 */
let dir: string;
let db: Db;
let app: FastifyInstance;
let base: string;
let foundAtMs: number;
let deadPid: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-status-runs-'));
  db = openDb({ path: join(dir, 'ledger.db') });
  const runs = createRunsRepository(db);
  const gone = spawnSync(process.execPath, ['-e', '']); // a pid that ran and was reaped
  if (gone.pid === undefined) throw new Error('could not start a process');
  deadPid = gone.pid;
  // A collector (pid now gone) took the lock, finished a Cost Explorer run and was killed during a Kubernetes one.
  acquireCollectorLock(db, { command: 'collect --watch', pid: deadPid, now: () => Date.UTC(2026, 10, 3, 9, 0) });
  runs.finishRun(runs.startRun('cost-explorer', 'aws', Date.UTC(2026, 10, 3, 9, 0)), 'ok', 40, null, Date.UTC(2026, 10, 3, 9, 1));
  runs.startRun('kubernetes', 'aws', Date.UTC(2026, 10, 3, 9, 5));
  foundAtMs = Date.UTC(2026, 10, 3, 9, 30);
  acquireCollectorLock(db, { command: 'collect', now: () => foundAtMs }).release();
  app = buildApp({ db });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await app?.close();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('GET /api/status after a collector was killed', () => {
  it('serves the killed run as abandoned, finished when the next collector found it, with the reason', async () => {
    const res = await fetch(`${base}/api/status`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as StatusResponse;
    expect(body.lastRun).toEqual({
      kind: 'kubernetes',
      source: 'aws',
      status: 'abandoned',
      startedAt: '2026-11-03T09:05:00.000Z',
      finishedAt: '2026-11-03T09:30:00.000Z',
      rowsWritten: 0,
      message: `collector stopped without finishing (killed?): "collect --watch" (pid ${deadPid} on ${hostname()}) last alive 2026-11-03T09:00:00.000Z`,
    });
    expect(body.lastRunByKind.map((r) => [r.kind, r.status])).toEqual([
      ['cost-explorer', 'ok'],
      ['kubernetes', 'abandoned'],
    ]);
  });

  it('declares in the response schema exactly the statuses the collectors write', () => {
    expect(RunStatusSchema.anyOf.map((s) => s.const)).toEqual([...RUN_STATUSES]);
  });
});
