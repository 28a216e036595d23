import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/open-db.js';
import { buildApp } from '../../server/app.js';
import { applyBudgetFile } from '../../server/services/budget-file.js';
import { budgetLedger, BUDGET_LEDGER_AT_MS } from '../fixtures/budget-ledger.js';

/*
 * The budgets API through app.inject over a real SQLite file (test/fixtures/budget-ledger.ts: general costs 1.00/h,
 * its bill final on Nov 1–2 at 30.00; looked at from 2026-11-05 12:00 UTC): create, list with statuses, edit, delete;
 * a bad field is a 400 naming it; a budget declared in a file is read-only (409 naming the file).
 */
let dir: string;
let db: Db;
let app: FastifyInstance;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'budgets-api-'));
  db = budgetLedger(join(dir, 'ledger.db'));
  applyBudgetFile(
    db,
    'gitops/budgets.yaml',
    'budgets:\n  - { name: from-file, scope: { kind: cluster }, period: monthly, amount: 1000 }\n',
    0,
  );
  app = buildApp({ db, now: () => BUDGET_LEDGER_AT_MS, cacheResponses: true });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const body = (res: { body: string }) => JSON.parse(res.body) as Record<string, unknown>;

describe('/api/budgets', () => {
  it('creates, lists with statuses, edits and deletes a budget', async () => {
    const created = await app.inject({
      method: 'POST',
      url: '/api/budgets',
      payload: { name: 'general', scope: { kind: 'nodepool', name: 'general' }, period: 'monthly', amount: 1500, dollarLimit: true },
    });
    expect(created.statusCode, created.body).toBe(201);
    // Worked in server/services/budget-service.test.ts: spent 120 (60 final, 60 estimated), forecast 882, 2 nodes fit.
    expect(body(created)).toMatchObject({ spent: 120, spentFinal: 60, spentEstimated: 60, forecast: 882, nodesBeforeLimit: 2 });

    const list = body(await app.inject({ method: 'GET', url: '/api/budgets' }));
    expect(list.at).toBe('2026-11-05T12:00:00.000Z');
    expect((list.items as { budget: { name: string; source: string; sourceFile: string | null } }[]).map((i) => i.budget)).toEqual([
      expect.objectContaining({ name: 'from-file', source: 'file', sourceFile: 'gitops/budgets.yaml' }),
      expect.objectContaining({ name: 'general', source: 'api', sourceFile: null }),
    ]);

    const edited = await app.inject({
      method: 'PUT',
      url: '/api/budgets/general',
      payload: { scope: { kind: 'nodepool', name: 'general' }, period: 'weekly', amount: 150, thresholds: [0.5, 1] },
    });
    expect(edited.statusCode, edited.body).toBe(200);
    // The week of Monday Nov 2: 30 + 24 + 24 + 12 = 90 spent, 192 forecast (worked in the service test).
    expect(body(edited)).toMatchObject({ spent: 90, forecast: 192, nodesBeforeLimit: null, spentShare: 0.6 });
    // The list moved with the edit (the response cache dropped its answer).
    const again = body(await app.inject({ method: 'GET', url: '/api/budgets' }));
    expect((again.items as { budget: { name: string; period: string } }[]).find((i) => i.budget.name === 'general')?.budget.period).toBe(
      'weekly',
    );

    // /metrics: the same standing as ratios (90 / 150 spent, 192 / 150 forecast), labelled by budget and scope.
    const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    const sample = (name: string) =>
      Number(
        new RegExp(`^${name}\\{budget="general",scope_kind="nodepool",scope="general",period="weekly"\\} (\\S+)$`, 'm').exec(metrics)?.[1],
      );
    expect(sample('nodepool_ledger_budget_spent_ratio')).toBeCloseTo(0.6, 9);
    expect(sample('nodepool_ledger_budget_forecast_ratio')).toBeCloseTo(1.28, 9);
    expect(sample('nodepool_ledger_budget_amount')).toBe(150);

    expect(body(await app.inject({ method: 'DELETE', url: '/api/budgets/general' }))).toEqual({ deleted: 'general' });
    expect((await app.inject({ method: 'DELETE', url: '/api/budgets/general' })).statusCode).toBe(404);
  });

  it.each([
    [
      { name: 'x', scope: { kind: 'nodepool', name: 'general' }, period: 'monthly', amount: -1 },
      'Invalid body field "amount": must be a positive number, in the data currency (got -1)',
    ],
    [{ name: 'x', scope: { kind: 'nodepol', name: 'general' }, period: 'monthly', amount: 1 }, 'Invalid body field "scope.kind"'],
    [
      { name: 'x', scope: { kind: 'nodepool', name: 'general' }, period: 'yearly', amount: 1 },
      'Invalid body field "period": must be "monthly" or "weekly" (got "yearly")',
    ],
    [{ name: 'x', scope: { kind: 'nodepool', name: 'general' }, period: 'monthly' }, 'Invalid body field "amount": is required'],
    [{ name: 'x', scope: { kind: 'nodepool', name: 'genral' }, period: 'monthly', amount: 1 }, 'scope.name: unknown nodepool "genral"'],
    [
      { name: 'x', scope: { kind: 'team', name: 'payments' }, period: 'monthly', amount: 1, currency: 'EUR' },
      'currency: "EUR" is not the data\'s currency (USD)',
    ],
    [
      { name: 'x', scope: { kind: 'cluster' }, period: 'monthly', amount: 1, colour: 'red' },
      'Invalid body field "colour": not a field of this request',
    ],
  ])('400 naming the field: %o', async (payload, message) => {
    const res = await app.inject({ method: 'POST', url: '/api/budgets', payload });
    expect(res.statusCode).toBe(400);
    expect(body(res).message).toContain(message);
    expect(body(await app.inject({ method: 'GET', url: '/api/budgets' })).items).toHaveLength(1);
  });

  it('a budget declared in a file is read-only: 409 naming the file', async () => {
    const edit = await app.inject({
      method: 'PUT',
      url: '/api/budgets/from-file',
      payload: { scope: { kind: 'cluster' }, period: 'monthly', amount: 5 },
    });
    expect(edit.statusCode).toBe(409);
    expect(body(edit).message).toContain('budget "from-file" is declared in gitops/budgets.yaml');
    expect((await app.inject({ method: 'DELETE', url: '/api/budgets/from-file' })).statusCode).toBe(409);
    const create = await app.inject({
      method: 'POST',
      url: '/api/budgets',
      payload: { name: 'from-file', scope: { kind: 'cluster' }, period: 'weekly', amount: 5 },
    });
    expect(create.statusCode).toBe(409);
    expect(body(create).message).toContain('gitops/budgets.yaml');
  });
});
