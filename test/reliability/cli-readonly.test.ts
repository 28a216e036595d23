import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../../db/open-db.js';
import { runCli, startCli, type RunningCli } from './fixtures/cli.js';
import { integrity } from './fixtures/db-checks.js';
import { canMountTmpfs } from './fixtures/sandbox.js';

/*
 * A database the user cannot write, through the real command line: a read-only file, a read-only folder, a
 * read-only mount. A collector stops at once with a message naming the file and the fix and leaves the file
 * untouched; `serve` can still show a read-only file.
 */
const dir = mkdtempSync(join(tmpdir(), 'ledger-cli-guards-'));
chmodSync(dir, 0o755); // reachable for the unprivileged user below
const running: RunningCli[] = [];
afterAll(async () => {
  for (const r of running) if (r.child.exitCode === null) r.child.kill('SIGKILL');
  await Promise.all(running.map((r) => r.exited));
});
const sha = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Runs as an unprivileged user: chmod does not stop root, so as root the CLI runs as nobody (65534). */
const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534, env: { PATH: process.env.PATH ?? '', HOME: tmpdir() } } : {};

function makeDb(path: string): void {
  const db = openDb({ path });
  db.prepare("INSERT INTO settings (key, value) VALUES ('kept', 'yes')").run();
  db.close(); // a clean close checkpoints the WAL into the file and removes it
}

describe('a database the collector cannot write', () => {
  it('a read-only file: collect stops at once with the file and the fix, changes nothing; serve still shows it', async () => {
    const folder = join(dir, 'ro-file');
    mkdirSync(folder);
    chmodSync(folder, 0o777); // SQLite may create its -shm beside the file: reading a WAL file needs it
    const path = join(folder, 'ledger.db');
    makeDb(path);
    chmodSync(path, 0o444);
    const before = sha(path);

    const collect = await runCli(['collect', '--cluster', 'c', '--db', path, '--quiet'], asUser);
    expect({ code: collect.code, stderr: collect.stderr.trim() }).toEqual({
      code: 1,
      stderr: `cannot use the database ${path}: the file or its folder is read-only for this user: fix the permissions, or pass --db with a writable path (SQLITE_READONLY: attempt to write a readonly database)`,
    });
    expect(sha(path)).toBe(before);

    const serve = startCli(['serve', '--db', path, '--port', '0'], asUser);
    running.push(serve);
    const deadline = Date.now() + 60_000;
    let url: string | undefined;
    while (url === undefined) {
      url = /dashboard: (http:\/\/127\.0\.0\.1:\d+)/.exec(serve.output().stdout)?.[1];
      if (Date.now() > deadline || serve.child.exitCode !== null) throw new Error(`serve did not start: ${JSON.stringify(serve.output())}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await fetch(`${url}/api/status`)).status).toBe(200);
    serve.child.kill('SIGTERM');
    await serve.exited;
    expect(sha(path)).toBe(before);
  }, 90_000);

  it('a read-only folder: a new database cannot be created there, and the message says so', async () => {
    const folder = join(dir, 'ro-folder');
    mkdirSync(folder);
    chmodSync(folder, 0o555);
    const collect = await runCli(['collect', '--cluster', 'c', '--db', join(folder, 'ledger.db'), '--quiet'], asUser);
    expect(collect.code).toBe(1);
    expect(collect.stderr.trim()).toBe(
      `cannot use the database ${join(folder, 'ledger.db')}: the file cannot be opened or created: check that its folder exists and is writable (SQLITE_CANTOPEN: unable to open database file)`,
    );
  }, 60_000);

  const mountable = canMountTmpfs();

  it.skipIf(!mountable)(
    'a read-only mount stops even root, and the file stays sound (needs root and tmpfs mounts)',
    async () => {
      const mnt = join(dir, 'ro-mount');
      mkdirSync(mnt);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mnt]);
      try {
        const path = join(mnt, 'ledger.db');
        makeDb(path);
        const before = sha(path);
        execFileSync('mount', ['-o', 'remount,ro', mnt]);
        const collect = await runCli(['collect', '--cluster', 'c', '--db', path, '--quiet']);
        expect(collect.code).toBe(1);
        // SQLite cannot create the -shm beside the file there: CANTOPEN (or READONLY once it exists).
        expect(collect.stderr.trim()).toMatch(
          new RegExp(
            `^cannot use the database ${path.replaceAll('/', '\\/')}: (the file or its folder is read-only for this user|the file cannot be opened or created: check that its folder exists and is writable) \\(SQLITE_(READONLY|CANTOPEN)`,
          ),
        );
        expect(sha(path)).toBe(before);
        execFileSync('mount', ['-o', 'remount,rw', mnt]);
        const db = openDb({ path });
        expect(integrity(db).integrity).toEqual(['ok']);
        expect(db.prepare("SELECT value FROM settings WHERE key = 'kept'").pluck().get()).toBe('yes');
        db.close();
      } finally {
        execFileSync('umount', ['-l', mnt]);
      }
    },
    60_000,
  );
});
