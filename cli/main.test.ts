import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from './main.js';

/**
 * The command line's refusals, through main() itself: each command takes only its own flags, so a flag of another
 * command (or a typo) stops it with exit code 2 and the command's usage, before anything starts.
 */

function run(argv: string[]): Promise<{ code: number; err: string; out: string }> {
  const err: string[] = [];
  const out: string[] = [];
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => {
    err.push(a.join(' '));
  });
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => {
    out.push(a.join(' '));
  });
  return main(argv).then((code) => ({ code, err: err.join('\n'), out: out.join('\n') }));
}

afterEach(() => vi.restoreAllMocks());

describe('command-line flags', () => {
  it.each([
    [['serve', '--db', 'x.db', '--scenario', 'week4'], "'--scenario'", 'Usage: nodepool-ledger serve'],
    [['serve', '--db', 'x.db', '--no-auth'], "'--no-auth'", 'Usage: nodepool-ledger serve'],
    [['demo', '--no-auth'], "'--no-auth'", 'Usage: nodepool-ledger demo'],
    [['demo', '--dir', '/tmp'], "'--dir'", 'Usage: nodepool-ledger demo'],
    [['sandbox', '--fresh'], "'--fresh'", 'Usage: nodepool-ledger sandbox'],
    [['sandbox', '--token', 'abcdefghijklmnopqrstu'], "'--token'", 'Usage: nodepool-ledger sandbox'],
    [['sandbox', '--db', 'x.db'], "'--db'", 'Usage: nodepool-ledger sandbox'],
    [['collect', '--scenario', 'week4'], "'--scenario'", 'Usage: nodepool-ledger collect'],
  ])('%j is refused, naming the flag, with the usage', async (argv, flag, usage) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`Unknown option ${flag}`);
    expect(r.err).toContain(usage);
  });

  it("still takes each command's own flags (--help answers before anything starts)", async () => {
    for (const argv of [
      ['serve', '--db', 'x.db', '--port', '0', '--help'],
      ['demo', '--scenario', 'week4', '--fresh', '--help'],
      ['sandbox', '--no-auth', '--dir', '/tmp', '--help'],
    ]) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(0);
      expect(r.out).toContain(`Usage: nodepool-ledger ${argv[0]}`);
    }
  });

  it.each([
    [
      ['demo', '--karpenter-version', '0.37.0'],
      'the sandbox imitates Karpenter v1 releases (1.0.0 and later)',
      'Usage: nodepool-ledger demo',
    ],
    [['sandbox', '--karpenter-version', 'latest'], 'is not a release number like 1.14.1', 'Usage: nodepool-ledger sandbox'],
    [['demo', '--scenario', 'no-such-scenario'], 'cannot read scenario', 'Usage: nodepool-ledger demo'],
    [
      ['collect', '--cluster', 'c', '--karpenter-version', 'latest'],
      '--karpenter-version must be a Karpenter release like 1.14.1, got "latest"',
      'Usage: nodepool-ledger collect',
    ],
  ])('%j is refused before anything starts, saying why', async (argv, why, usage) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.err).toContain(why);
    expect(r.err).toContain(usage);
  });

  it('refuses serve without a database, and an unknown command', async () => {
    const noDb = await run(['serve']);
    expect(noDb.code).toBe(2);
    expect(noDb.err).toContain('serve needs --db PATH');
    const unknown = await run(['serv']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('unknown command "serv"');
  });
});
