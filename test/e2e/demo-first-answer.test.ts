import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { StatusResponse } from '../../server/schemas/status.js';
import { startCli, waitForOutput, type RunningCli } from '../reliability/fixtures/cli.js';

/*
 * `npm start` on a fresh clone (issue 24 item 5): the demo's dashboard answers before its database is filled, and the
 * banner's status says how far the fill is. The week4 demo, as `npm start` runs it, stopped part way (its 4,032
 * snapshots take minutes; this file waits for the first few).
 */
const dir = mkdtempSync(join(tmpdir(), 'ledger-demo-first-'));
let demo: RunningCli | null = null;
afterAll(async () => {
  if (demo !== null && demo.child.exitCode === null) demo.child.kill('SIGKILL');
  await demo?.exited;
  rmSync(dir, { recursive: true, force: true });
});

const status = async (url: string): Promise<StatusResponse> => (await (await fetch(`${url}/api/status`)).json()) as StatusResponse;

describe('npm start on a fresh database', () => {
  it('serves the dashboard before the fill is done, and the status reports the fill as it goes', async () => {
    demo = startCli(['demo', '--db', join(dir, 'demo.db'), '--port', '0']);
    const running = demo;
    await waitForOutput(running, (o) => /dashboard: http:\/\/127\.0\.0\.1:\d+/.test(o.stdout), 90_000);
    const url = /dashboard: (http:\/\/127\.0\.0\.1:\d+)/.exec(running.output().stdout)?.[1] ?? '';
    // Nothing is collected yet when the dashboard first answers (the seeding's summary line comes at its end).
    const first = await status(url);
    expect(first.fill).not.toBeNull();
    expect(first.fill?.finishedAt).toBeNull();
    expect(running.output().stderr).not.toContain('collected ');
    expect((await fetch(`${url}/`)).status).toBe(200);

    // Then the snapshots arrive; the banner's count is what the file holds. week4: 14 days of 5-minute snapshots,
    // 14 x 24 x 12 = 4,032 (sandbox/scenarios/week4.json "days": 14).
    let s = first;
    const deadline = Date.now() + 120_000;
    while (!(s.fill?.stage === 'snapshots' && s.fill.snapshotsDone >= 1)) {
      if (Date.now() > deadline || running.child.exitCode !== null) throw new Error(`no progress: ${JSON.stringify(s.fill)}`);
      await new Promise((r) => setTimeout(r, 200));
      s = await status(url);
    }
    expect(s.fill?.snapshotsTotal).toBe(4032);
    expect(s.fill?.snapshotsDone).toBeLessThan(4032);
    expect(s.counts.snapshots).toBe(s.fill?.snapshotsDone);
    expect(s.range.firstSnapshotAt).toBe('2026-11-01T00:00:00.000Z');
    // A page's data answers meanwhile, over what is written so far.
    expect((await fetch(`${url}/api/cost/nodepools/daily`)).status).toBe(200);

    running.child.kill('SIGTERM');
    expect((await running.exited).code).toBe(0);
  }, 240_000);
});
