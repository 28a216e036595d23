import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { acquireCollectorLock, COLLECTOR_LOCK } from '../db/lock.js';
import { openDb } from '../db/open-db.js';
import { createLockRepository } from '../db/repositories/lock-repository.js';
import { createReportsRepository } from '../db/repositories/reports-repository.js';
import { type RunningSandbox, startSandbox } from '../sandbox/index.js';
import { collectKubeSnapshot } from '../collectors/kubernetes/collect.js';
import { createKubeClients } from '../collectors/kubernetes/client.js';
import { runCollect } from './collect.js';
import { DAY_MS, MINUTE_MS } from '../core/time.js';

/** `collect --watch` against the running sandbox (Kubernetes watches need its streaming server). */
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-collect-watch-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());

async function until(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('collect --watch', () => {
  let sb: RunningSandbox;
  beforeAll(async () => {
    sb = await startSandbox({});
  });
  afterAll(async () => sb.close());

  it('writes one snapshot per interval from the watch cache, the bill once, and stops cleanly when signalled', async () => {
    const t0 = sb.scenario.start + 5 * DAY_MS + 20 * 60 * MINUTE_MS;
    sb.ctx.clock.set(t0);
    for (const [k, v] of Object.entries(sb.awsEnv)) vi.stubEnv(k, v);
    const dbPath = join(dir, 'watch.db');
    const stop = new AbortController();
    const out: string[] = [];
    const running = runCollect(
      {
        cluster: sb.scenario.clusterName,
        sinceMs: 2 * DAY_MS,
        watch: true,
        intervalMs: 20,
        kubeconfig: sb.kubeconfigPath,
        dbPath,
        quiet: true,
      },
      { now: () => sb.ctx.clock.now(), out: (l) => out.push(l), err: () => {}, signal: stop.signal },
    );
    const reader = openDb({ path: dbPath });
    const reports = createReportsRepository(reader);
    // The simulated clock moves 5 minutes after each snapshot; the collector takes one per new clock time.
    for (let i = 1; i <= 3; i++) {
      await until(`snapshot ${i}`, () => reports.dataRange().snapshotCount === i);
      if (i < 3) sb.ctx.clock.set(t0 + i * 5 * MINUTE_MS);
    }
    stop.abort();
    const summary = await running;
    expect(summary.ok).toBe(true);
    expect(summary.snapshots).toBe(3);
    // The watch cache drops a spec's JSON once a snapshot stored it (spec-refs.ts): every pod of the last snapshot
    // still reads back the spec a fresh list gives it, the what-if's input, pods new since the first snapshot too.
    const listed = await collectKubeSnapshot(createKubeClients({ kubeconfig: sb.kubeconfigPath }), t0 + 10 * MINUTE_MS);
    const stored = new Map(
      (
        reader
          // Listed by the last snapshot: seen from first_seen to last_seen (open while the newest snapshot lists it).
          .prepare(
            'SELECT p.uid, s.spec_json FROM pods p LEFT JOIN pod_specs s ON s.hash = p.spec_hash WHERE p.first_seen <= @at AND p.last_seen >= @at',
          )
          .all({ at: t0 + 10 * MINUTE_MS }) as { uid: string; spec_json: string | null }[]
      ).map((r) => [r.uid, r.spec_json]),
    );
    expect(listed.pods.filter((p) => p.scheduling !== undefined).length).toBeGreaterThan(100);
    expect(stored.size).toBe(listed.pods.length);
    for (const p of listed.pods) expect(stored.get(p.uid)).toBe(p.scheduling?.json ?? null);
    expect(reports.dataRange()).toMatchObject({ snapshotCount: 3, firstSnapshotMs: t0, lastSnapshotMs: t0 + 10 * MINUTE_MS });
    // The bill was read once (the next refresh is 8 h away): one tag check.
    expect(summary.costRuns).toHaveLength(1);
    expect(summary.awsRequests['ce:ListCostAllocationTags']).toBe(1);
    expect(out[1]).toMatch(/^rows written: 3 snapshots \(\d+ node rows\), \d+ Cost Explorer lines, \d+ price rows$/);
    expect(reports.lastRunPerKind().find((r) => r.kind === 'kubernetes')).toMatchObject({
      status: 'ok',
      rowsWritten: 3,
      source: 'sandbox',
    });
    reader.close();
  });

  it('stops at once, failed with a line saying why, when another collector takes its database over', async () => {
    const t0 = sb.scenario.start + 6 * DAY_MS;
    sb.ctx.clock.set(t0);
    for (const [k, v] of Object.entries(sb.awsEnv)) vi.stubEnv(k, v);
    const dbPath = join(dir, 'taken-over.db');
    const err: string[] = [];
    const out: string[] = [];
    // No signal: only the takeover can end it. The clock moves on every poll, so it would write a snapshot every 20 ms.
    const running = runCollect(
      {
        cluster: sb.scenario.clusterName,
        sinceMs: 2 * DAY_MS,
        watch: true,
        intervalMs: 20,
        kubeconfig: sb.kubeconfigPath,
        dbPath,
        quiet: true,
      },
      { now: () => sb.ctx.clock.now(), out: (l) => out.push(l), err: (l) => err.push(l) },
    );
    const db = openDb({ path: dbPath });
    const reports = createReportsRepository(db);
    await until('a snapshot', () => reports.dataRange().snapshotCount === 1);
    const ticking = setInterval(() => sb.ctx.clock.set(sb.ctx.clock.now() + 5 * MINUTE_MS), 10);
    try {
      // Another collector takes over, as it would from a process silent past the stale limit (here: told its pid is gone).
      const other = acquireCollectorLock(db, { command: 'collect', dbPath, isPidAlive: () => false });
      const atTakeover = reports.dataRange().snapshotCount;
      const summary = await running;
      expect(summary.ok).toBe(false);
      const why = `collector lock: taken over by "collect" (pid ${process.pid} on ${other.holder.hostname}); stopping so that one collector writes ${dbPath}`;
      expect(summary.failures).toHaveLength(1);
      expect(summary.failures[0].startsWith(why)).toBe(true);
      expect(err).toContain(`✗ ${summary.failures[0]}`);
      expect(out[0]).toMatch(/^collected with failures into /);
      // The loop checks the lock before each write: at most the snapshot in hand was finished.
      expect(reports.dataRange().snapshotCount).toBeLessThanOrEqual(atTakeover + 1);
      expect(createLockRepository(db).holder(COLLECTOR_LOCK)?.owner).toBe(other.holder.owner);
      // Its run (closed as abandoned by the takeover) ends up failed, saying why.
      expect(reports.lastRunPerKind().find((r) => r.kind === 'kubernetes')).toMatchObject({
        status: 'failed',
        message: expect.stringContaining(why),
      });
      other.release();
    } finally {
      clearInterval(ticking);
      db.close();
    }
  });
});
