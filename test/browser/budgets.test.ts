import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../db/open-db.js';
import { applyBudgetFile } from '../../server/services/budget-file.js';
import { budgetLedger, BUDGET_LEDGER_AT_MS } from '../fixtures/budget-ledger.js';
import { openPage, screenshot, serveDashboard, type ServedDashboard } from './harness.js';

/*
 * The Budgets page in headless Chromium over the small hand-worked ledger (test/fixtures/budget-ledger.ts: general
 * costs 1.00/h, 2 nodes; its bill final on Nov 1–2 at 30.00; looked at from 2026-11-05 12:00 UTC), with one budget
 * declared in a file: create a budget in the form, edit it, and the file's one offers no edit.
 */
let dir: string;
let db: Db;
let served: ServedDashboard;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'budgets-browser-'));
  db = budgetLedger(join(dir, 'ledger.db'));
  applyBudgetFile(
    db,
    'gitops/budgets.yaml',
    'budgets:\n  - { name: from-file, scope: { kind: cluster }, period: weekly, amount: 100 }\n',
    0,
  );
  served = await serveDashboard(db, BUDGET_LEDGER_AT_MS, { simulator: false });
}, 120_000);
afterAll(async () => {
  await served?.close();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const row = (page: import('playwright-core').Page, name: string) => page.locator(`[data-testid="budget-table"] tr[data-budget="${name}"]`);

describe('the Budgets page', () => {
  it('creates a budget, edits it, and keeps the one declared in a file read-only', async () => {
    const { page, errors, close } = await openPage(served.browser);
    await page.goto(`${served.baseUrl}/budgets`);
    await expect(page.getByRole('link', { name: 'Budgets' }).getAttribute('aria-current')).resolves.toBe('page');

    // The file's budget: the week of Monday Nov 2, 30 (final) + 24 + 24 + 12 = 90 of 100; read-only, no edit.
    const fromFile = row(page, 'from-file');
    await fromFile.waitFor();
    await expect(fromFile.getByTestId('read-only').textContent()).resolves.toBe('read-only in gitops/budgets.yaml');
    await expect(fromFile.getByRole('button').count()).resolves.toBe(0);
    await expect(fromFile.innerText()).resolves.toContain('$90.00');

    // Create: a form mistake is said at once, one only the server can see (an unknown NodePool) is its 400, named.
    await page.getByRole('button', { name: 'New budget' }).click();
    const form = page.getByTestId('budget-form');
    await form.getByLabel('Name').fill('general-limit');
    await form.getByLabel('NodePool').fill('genral');
    await form.getByLabel(/^Amount/).fill('-5');
    await form.getByRole('button', { name: 'Create budget' }).click();
    await expect(form.getByRole('alert').innerText()).resolves.toBe('The amount is a positive number.');
    await form.getByLabel(/^Amount/).fill('1500');
    await form.getByRole('button', { name: 'Create budget' }).click();
    await expect
      .poll(() => form.getByRole('alert').innerText())
      .toContain('scope.name: unknown nodepool "genral" (the ledger knows general)');
    await form.getByLabel('NodePool').fill('general');
    await form.getByLabel('Dollar limit').check();
    await form.getByRole('button', { name: 'Create budget' }).click();
    // Worked by hand (server/services/budget-service.test.ts): spent 120, forecast 882, 2 more nodes fit.
    const created = row(page, 'general-limit');
    await created.waitFor();
    await expect(page.getByTestId('budget-form').count()).resolves.toBe(0);
    await expect(created.innerText()).resolves.toMatch(
      /\$1,500\.00[\s\S]*\$120\.00[\s\S]*8\.0 %[\s\S]*\$882\.00[\s\S]*58\.8 %[\s\S]*\b2\b/,
    );
    await expect(page.locator('[data-testid="budget-chart"] .recharts-bar-rectangle path').count()).resolves.toBeGreaterThanOrEqual(3);

    // Edit: 900 instead; room 900 − 120 − 612 = 168 is less than a node's 306: none fits.
    await created.getByRole('button', { name: 'Edit' }).click();
    await expect(form.getByLabel('Name').isDisabled()).resolves.toBe(true);
    await form.getByLabel(/^Amount/).fill('900');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => row(page, 'general-limit').innerText()).toMatch(/\$900\.00[\s\S]*13\.3 %[\s\S]*98\.0 %[\s\S]*\b0\b/);
    await screenshot(page, 'budgets');

    // The only request refused was the unknown NodePool's 400.
    expect(errors.filter((e) => !/\b400\b/.test(e))).toEqual([]);
    await close();
  });
});
