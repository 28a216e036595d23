import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDb } from '../db/open-db.js';
import { createBudgetRepository } from '../db/repositories/budget-repository.js';
import { budgetLedger } from '../test/fixtures/budget-ledger.js';
import { main } from './main.js';

/*
 * --budgets FILE through main() itself (in process, stopped before anything listens): a file that cannot be read, or
 * whose entries are wrong, stops the command with exit code 2 and each bad entry named; nothing is stored.
 */
let dir: string;
let dbPath: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'budgets-flag-'));
  dbPath = join(dir, 'ledger.db');
  budgetLedger(dbPath).close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

async function run(argv: string[]): Promise<{ code: number; err: string }> {
  const err: string[] = [];
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => {
    err.push(a.join(' '));
  });
  vi.spyOn(console, 'log').mockImplementation(() => {});
  const code = await main(argv);
  return { code, err: err.join('\n') };
}

describe('--budgets FILE', () => {
  it('serve: each bad entry named, exit 2, nothing stored', async () => {
    const file = join(dir, 'budgets.yaml');
    writeFileSync(
      file,
      [
        'budgets:',
        '  - { name: fine, scope: { kind: nodepool, name: general }, period: monthly, amount: 100 }',
        '  - { name: typo, scope: { kind: nodepool, name: genral }, period: monthly, amount: 100 }',
        '  - { name: yen, scope: { kind: cluster }, period: weekly, amount: 100, currency: CNY }',
        '  - { name: minus, scope: { kind: team, name: payments }, period: weekly, amount: -1 }',
        '',
      ].join('\n'),
    );
    const r = await run(['serve', '--db', dbPath, '--port', '0', '--budgets', file]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`--budgets ${file}: 3 problems:`);
    expect(r.err).toContain('budgets[1] (typo): scope.name: unknown nodepool "genral" (the ledger knows general)');
    expect(r.err).toContain('budgets[2] (yen): currency: "CNY" is not the data\'s currency (USD)');
    expect(r.err).toContain('budgets[3] (minus): amount: Expected number to be greater than 0');
    const db = openDb({ path: dbPath, readonly: true });
    expect(createBudgetRepository(db).list()).toEqual([]);
    db.close();
  });

  it.each([
    [['serve', '--db', 'DB', '--budgets', 'MISSING']],
    [['collect', '--cluster', 'c', '--db', 'DB', '--budgets', 'MISSING']],
    [['demo', '--db', 'DB', '--budgets', 'MISSING']],
  ])('%j: a file that cannot be read is a usage error naming it', async (argv) => {
    const missing = join(dir, 'nope.yaml');
    const r = await run(argv.map((a) => (a === 'DB' ? dbPath : a === 'MISSING' ? missing : a)));
    expect(r.code).toBe(2);
    expect(r.err).toContain(`--budgets ${missing}: cannot read it (ENOENT)`);
  });
});
