import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../db/open-db.js';
import { createBudgetRepository, type StoredBudget } from '../../db/repositories/budget-repository.js';
import { budgetLedger, BUDGET_LEDGER_AT_MS } from '../../test/fixtures/budget-ledger.js';
import { applyBudgetFile, BudgetFileError } from './budget-file.js';
import { budgetStatusesAt } from './budget-service.js';

/*
 * Budgets over a real SQLite file small enough to work by hand (test/fixtures/budget-ledger.ts): general costs 1.00/h
 * by our estimate (24.00 a whole day), its bill is final on Nov 1 and 2 at 30.00 (amortized 20.00), Nov 3 is still
 * estimated on the bill; team payments holds 0.25/h of it. Looked at from 2026-11-05 12:00 UTC.
 */
let dir: string;
let db: Db;

const budget = (b: Partial<StoredBudget> & Pick<StoredBudget, 'name' | 'scope'>): StoredBudget => ({
  period: 'monthly',
  amount: 1500,
  currency: 'USD',
  costMetric: 'unblended',
  thresholds: [0.8, 1],
  dollarLimit: false,
  source: 'api',
  sourceFile: null,
  clusterId: null,
  cluster: null,
  ...b,
});

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'budgets-'));
  db = budgetLedger(join(dir, 'ledger.db'));
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('budgetStatusesAt (worked by hand)', () => {
  it('a NodePool dollar limit: spent, forecast, spread and nodes before the limit', () => {
    const repo = createBudgetRepository(db);
    repo.save(budget({ name: 'general-monthly', scope: { kind: 'nodepool', name: 'general' }, dollarLimit: true }), 0);
    repo.save(budget({ name: 'general-amortized', scope: { kind: 'nodepool', name: 'general' }, costMetric: 'amortized' }), 0);
    repo.save(budget({ name: 'general-weekly', scope: { kind: 'nodepool', name: 'general' }, period: 'weekly', amount: 150 }), 0);
    repo.save(budget({ name: 'payments', scope: { kind: 'team', name: 'payments' }, amount: 200 }), 0);
    repo.save(budget({ name: 'shop', scope: { kind: 'namespace', name: 'shop' }, amount: 200 }), 0);
    const statuses = budgetStatusesAt(db, BUDGET_LEDGER_AT_MS);
    for (const s of statuses) repo.remove(s.budget.name);
    const byName = new Map(statuses.map((s) => [s.budget.name, s]));

    const g = byName.get('general-monthly');
    // Nov 1, 2 final at 30 (the bill); Nov 3 estimated on the bill, so our 24; Nov 4 24; the 5th until noon 12.
    expect(g?.spentFinal).toBeCloseTo(60, 6);
    expect(g?.spentEstimated).toBeCloseTo(60, 6);
    expect(g?.spent).toBeCloseTo(120, 6);
    expect([g?.finalDays, g?.estimatedDays]).toEqual([2, 2]);
    // 120 + 12 h × 1.00/h (run-rate over 09:00–12:00) + 25 days (Nov 6–30) × 30 (average of the 2 final days) = 882.
    expect(g?.forecast).toBeCloseTo(882, 6);
    // Both days 30: low takes the lower of 1.00/h and 30/24 for the rest of today (882), high the higher (120 + 15 + 750).
    expect(g?.forecastLow).toBeCloseTo(882, 6);
    expect(g?.forecastHigh).toBeCloseTo(885, 6);
    expect(g?.spentShare).toBeCloseTo(120 / 1500, 9);
    expect(g?.forecastShare).toBeCloseTo(882 / 1500, 9);
    // 612 h left (25.5 days); the 2 running nodes cost 612 more; each node more 0.50 × 612 = 306;
    // room 1500 − 120 − 612 = 768 → 2 nodes.
    expect(g?.nodesBeforeLimit).toBe(2);

    // Amortized: final days 20 each: 40 + 60 = 100; 100 + 12 + 25 × 20 = 612.
    expect(byName.get('general-amortized')?.spent).toBeCloseTo(100, 6);
    expect(byName.get('general-amortized')?.forecast).toBeCloseTo(612, 6);
    expect(byName.get('general-amortized')?.nodesBeforeLimit).toBeNull();

    // Week of Monday Nov 2: 30 (final) + 24 + 24 + 12 = 90; + 12 + 3 days (Nov 6–8) × 30 = 192.
    const w = byName.get('general-weekly');
    expect(w?.periodStartMs).toBe(Date.parse('2026-11-02T00:00:00Z'));
    expect(w?.spent).toBeCloseTo(90, 6);
    expect(w?.forecast).toBeCloseTo(192, 6);

    // Team payments: 6.00 a day of general's estimate; on final days 6 × 30/24 = 7.50 of the bill.
    // 7.5 + 7.5 + 6 + 6 + 3 = 30; + 12 h × 0.25 + 25 × 7.5 = 220.5; high: 12 × 7.5/24 = 3.75 for today's rest.
    for (const name of ['payments', 'shop']) {
      const t = byName.get(name);
      expect(t?.spent, name).toBeCloseTo(30, 6);
      expect(t?.spentFinal, name).toBeCloseTo(15, 6);
      expect(t?.forecast, name).toBeCloseTo(220.5, 6);
      expect(t?.forecastHigh, name).toBeCloseTo(221.25, 6);
    }
  });
});

describe('a budgets file', () => {
  const FILE = 'budgets.yaml';
  const names = () =>
    createBudgetRepository(db)
      .list()
      .map((b) => `${b.name}:${b.source}:${b.amount}`);
  const good = `budgets:
  - name: general-monthly
    scope: { kind: nodepool, name: general }
    period: monthly
    amount: 900
    dollarLimit: true
  - name: cluster-weekly
    scope: { kind: cluster }
    period: weekly
    amount: 300
    costMetric: amortized
    thresholds: [0.5, 0.9, 1]
`;

  it('is applied idempotently, wins over the API for what it declares, and drops what it no longer declares', () => {
    createBudgetRepository(db).save(budget({ name: 'general-monthly', scope: { kind: 'nodepool', name: 'general' }, amount: 5 }), 0);
    createBudgetRepository(db).save(budget({ name: 'api-only', scope: { kind: 'team', name: 'payments' }, amount: 7 }), 0);
    applyBudgetFile(db, FILE, good, 1);
    const once = createBudgetRepository(db).list();
    applyBudgetFile(db, FILE, good, 2);
    expect(createBudgetRepository(db).list()).toEqual(once);
    expect(names()).toEqual(['api-only:api:7', 'cluster-weekly:file:300', 'general-monthly:file:900']);
    expect(createBudgetRepository(db).get('cluster-weekly')).toMatchObject({
      scope: { kind: 'cluster', name: '' },
      costMetric: 'amortized',
      thresholds: [0.5, 0.9, 1],
      currency: 'USD',
      sourceFile: FILE,
    });
    applyBudgetFile(db, FILE, good.split('  - name: cluster-weekly')[0] ?? '', 3);
    expect(names()).toEqual(['api-only:api:7', 'general-monthly:file:900']);
  });

  it.each([
    ['bad YAML', 'budgets:\n  - name: [unclosed\n', /bad YAML/],
    ['not a list of budgets', 'budget: []\n', /one key, budgets/],
    [
      'a negative amount',
      good.replace('amount: 300', 'amount: -300'),
      /budgets\[1\] \(cluster-weekly\): amount: Expected number to be greater than 0/,
    ],
    [
      'an unknown NodePool',
      good.replace('name: general }', 'name: genral }'),
      /budgets\[0\] \(general-monthly\): scope\.name: unknown nodepool "genral" \(the ledger knows general\)/,
    ],
    [
      'an unknown team',
      `${good}  - name: t\n    scope: { kind: team, name: paymnts }\n    period: monthly\n    amount: 5\n`,
      /budgets\[2\] \(t\): scope\.name: unknown team "paymnts" \(the ledger knows payments\)/,
    ],
    [
      'an unknown namespace',
      `${good}  - name: n\n    scope: { kind: namespace, name: shopp }\n    period: monthly\n    amount: 5\n`,
      /budgets\[2\] \(n\): scope\.name: unknown namespace "shopp"/,
    ],
    [
      "a currency not the data's",
      good.replace('amount: 900', 'amount: 900\n    currency: CNY'),
      /budgets\[0\] \(general-monthly\): currency: "CNY" is not the data's currency \(USD\)/,
    ],
    [
      'a name twice',
      good.replace('name: cluster-weekly', 'name: general-monthly'),
      /budgets\[1\] \(general-monthly\): name: "general-monthly" is declared twice/,
    ],
    [
      'a dollar limit on the cluster',
      good.replace('costMetric: amortized', 'costMetric: amortized\n    dollarLimit: true'),
      /budgets\[1\] \(cluster-weekly\): dollarLimit: only a NodePool budget/,
    ],
  ])('%s: refused naming the entry, nothing stored', (_what, text, message) => {
    const before = names();
    let thrown: unknown;
    try {
      // general-monthly's amount moves too: a file half applied would show it.
      applyBudgetFile(db, FILE, text.replace('amount: 900', 'amount: 901'), 4);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(BudgetFileError);
    expect((thrown as Error).message).toMatch(message);
    expect((thrown as Error).message.startsWith(`${FILE}: `)).toBe(true);
    expect(names()).toEqual(before);
  });
});
