import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COLLECTOR_LOCK } from '../../db/lock.js';
import { openDb } from '../../db/open-db.js';
import { createLockRepository } from '../../db/repositories/lock-repository.js';
import { runCli, startCli, type RunningCli } from './fixtures/cli.js';

/*
 * Two collectors on one database, through the real command line: the second is refused and told which process
 * holds it, and the first carries on.
 */
const dir = mkdtempSync(join(tmpdir(), 'ledger-cli-guards-'));
const running: RunningCli[] = [];
afterAll(async () => {
  for (const r of running) if (r.child.exitCode === null) r.child.kill('SIGKILL');
  await Promise.all(running.map((r) => r.exited));
});

describe('two collectors on one database', () => {
  it('refuses the second (a collect, and a demo --fresh, started together) with a message naming the first, which carries on', async () => {
    const path = join(dir, 'shared.db');
    const demo = startCli(['demo', '--db', path, '--port', '0']);
    running.push(demo);
    // Wait for the demo to take the lock (it then simulates and seeds for a while).
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (existsSync(path)) {
        // While the demo is still migrating the new file, a read-only open refuses its older schema: try again.
        const holder = (() => {
          try {
            const db = openDb({ path, readonly: true });
            try {
              return createLockRepository(db).holder(COLLECTOR_LOCK);
            } finally {
              db.close();
            }
          } catch {
            return null;
          }
        })();
        if (holder !== null) break;
      }
      if (Date.now() > deadline || demo.child.exitCode !== null)
        throw new Error(`demo did not take the lock: ${JSON.stringify(demo.output())}`);
      await new Promise((r) => setTimeout(r, 50));
    }

    // Both at once: a collect, and a demo that would rebuild the file (--fresh).
    const [collect, second] = await Promise.all([
      runCli(['collect', '--cluster', 'ledger-demo', '--db', path, '--quiet']),
      runCli(['demo', '--db', path, '--port', '0', '--fresh']),
    ]);
    expect(collect.code).toBe(1);
    expect(collect.stderr.trim()).toMatch(
      new RegExp(
        `^${path.replaceAll('/', '\\/')} is in use by another collector: "demo" \\(pid ${demo.child.pid} on [^,]+, started [^,]+, last alive \\d+ s ago\\)\\. Wait for it to finish or stop it`,
      ),
    );
    expect(collect.stderr).not.toContain('    at '); // a message, not a stack trace

    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`is in use by another collector: "demo" (pid ${demo.child.pid}`);
    expect(demo.child.exitCode, JSON.stringify(demo.output())).toBeNull(); // the first one is untouched
    demo.child.kill('SIGKILL');
  }, 90_000);
});
