import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Db, openDb } from '../../db/open-db.js';
import { type CollectedAccount, collectAccount, PARTITION_AT, scenarioIn } from '../fixtures/partition-account.js';
import { openPage, screenshot, serveDashboard, type ServedDashboard } from './harness.js';

/*
 * The dashboard over what `collect` stored for a China cluster (prices in CNY) and for a eu-west-1 cluster whose
 * m5.xlarge the Pricing API does not list (priced from Karpenter's us-east-1 table): the Nodes page says the currency
 * and, under each price, which source priced it; the banner says the partition and where prices come from.
 */

const dir = mkdtempSync(join(tmpdir(), 'ledger-browser-partitions-'));
const opened: { db: Db; served: ServedDashboard; account: CollectedAccount }[] = [];
afterAll(async () => {
  for (const o of opened) {
    await o.served.close();
    o.db.close();
    await o.account.served.close();
  }
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

async function dashboardFor(region: string, prices: Record<string, number>, spotScale: number, unlistedTypes: string[] = []) {
  const account = await collectAccount(scenarioIn(region, prices, spotScale), dir, region, (k, v) => vi.stubEnv(k, v), {
    pricing: { unlistedTypes },
  });
  expect(account.summary.failures).toEqual([]);
  const db = openDb({ path: account.dbPath, readonly: true });
  // One Chromium for the file: the second cluster's server is opened in the first one's.
  const served = await serveDashboard(db, PARTITION_AT, { browser: opened[0]?.served.browser });
  opened.push({ db, served, account });
  return served;
}

describe('a China cluster', () => {
  let served: ServedDashboard;
  beforeAll(async () => {
    served = await dashboardFor('cn-north-1', { 'm5.large': 1.013, 'm5.xlarge': 2.026, 'c5.xlarge': 1.479 }, 7.2);
  }, 150_000);

  it('shows CNY everywhere on the Nodes page, never $', async () => {
    const { page, errors, close } = await openPage(served.browser);
    await page.goto(`${served.baseUrl}/nodes`);
    const table = page.getByTestId('nodes-table');
    await table.locator('tbody tr').first().waitFor();
    await expect(table.locator('thead').innerText()).resolves.toContain('CNY / h');
    const managed = table.locator('tbody tr', { hasText: 'ip-10-0-3-30' });
    await expect(managed.innerText()).resolves.toMatch(/CN¥2\.03[\s\S]*pricing-api/);
    const spot = table.locator('tbody tr', { hasText: 'ip-10-0-2-20' });
    await expect(spot.innerText()).resolves.toMatch(/CN¥0\.5760[\s\S]*spot-history/);
    await expect(page.locator('main').innerText()).resolves.not.toContain('$');
    await expect(page.getByTestId('banner-pricing').innerText()).resolves.toBe(
      'Prices in CNY · cn-north-1 (aws-cn) · on-demand from the Pricing API (cn-northwest-1)',
    );
    await screenshot(page, 'nodes-cn-north-1');
    expect(errors).toEqual([]);
    await close();
  });
});

describe('a eu-west-1 cluster whose type the Pricing API does not list', () => {
  let served: ServedDashboard;
  beforeAll(async () => {
    served = await dashboardFor('eu-west-1', { 'm5.large': 0.107, 'm5.xlarge': 0.214, 'c5.xlarge': 0.192 }, 1, ['m5.xlarge']);
  }, 150_000);

  it("says the node was priced from Karpenter's us-east-1 table", async () => {
    const { page, errors, close } = await openPage(served.browser);
    await page.goto(`${served.baseUrl}/nodes`);
    const table = page.getByTestId('nodes-table');
    await table.locator('tbody tr').first().waitFor();
    await expect(table.locator('thead').innerText()).resolves.toContain('USD / h');
    const managed = table.locator('tbody tr', { hasText: 'ip-10-0-3-30' });
    await expect(managed.getByTestId('price-source').innerText()).resolves.toBe('static-table (us-east-1)');
    await expect(managed.innerText()).resolves.toContain('$0.1920');
    await screenshot(page, 'nodes-eu-west-1-static-table');
    expect(errors).toEqual([]);
    await close();
  });
});
