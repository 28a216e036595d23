import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../db/open-db.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { GiB, snapshotWrite, type NodeSpec } from '../fixtures/snapshots.js';
import { horizontalOverflow, openPage, screenshot, serveDashboard, type ServedDashboard } from './harness.js';

/*
 * The Nodes page at 500 nodes (more than the sandbox runs at once): one snapshot written straight into the
 * store, served by the real server, read in Chromium. It must stay readable: paged, every row with its two
 * packing bars, sorting and filtering done by the server, and no sideways scrolling.
 */

const NODES = 500;
const AT = Date.parse('2026-11-10T12:00:00Z');

let dir: string;
let db: Db;
let served: ServedDashboard;
let browser: Browser;
let baseUrl: string;

/**
 * 500 nodes: every 4th on spot, every 5th of the others in a capacity reservation (reserved, at the on-demand price),
 * cpu packing 5 %, 10 %, ..., 100 % in turn, three NodePools.
 */
function nodes(): NodeSpec[] {
  return Array.from({ length: NODES }, (_, i) => {
    const spot = i % 4 === 0;
    const reserved = !spot && i % 5 === 0;
    const cpuMillicores = 3920;
    return {
      name: `ip-10-1-${Math.floor(i / 250)}-${i % 250}.ec2.internal`,
      nodePool: ['general', 'batch', 'system'][i % 3] ?? null,
      capacityType: spot ? 'spot' : reserved ? 'reserved' : 'on-demand',
      instanceType: spot ? 'c6i.xlarge' : 'm6i.xlarge',
      zone: `us-west-2${'abc'[i % 3]}`,
      cpuMillicores,
      memoryBytes: 15 * GiB,
      requestedCpuMillicores: Math.round(cpuMillicores * (((i % 20) + 1) / 20)),
      requestedMemoryBytes: 6 * GiB,
      usdPerHour: spot ? 0.07 : 0.192,
    };
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-nodes-scale-'));
  db = openDb({ path: join(dir, 'ledger.db') });
  createKubeRepository(db).writeSnapshot(snapshotWrite(AT, nodes()));
  served = await serveDashboard(db, AT);
  ({ browser, baseUrl } = served);
}, 60_000);

afterAll(async () => {
  await served?.close();
  db?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('the Nodes page at 500 nodes', () => {
  it('pages 100 at a time, worst packed first, and walks the pages through the URL', async () => {
    const { page, errors, close } = await openPage(browser, { width: 1366, height: 768 });
    await page.goto(`${baseUrl}/nodes`);
    const rows = page.getByTestId('nodes-table').locator('tbody tr');
    await rows.first().waitFor();
    await expect(rows.count()).resolves.toBe(100);
    await expect(page.locator('.pager-range').innerText()).resolves.toBe('Nodes 1–100 of 500');
    await expect(page.locator('.pager-page').innerText()).resolves.toBe('Page 1 of 5');
    // 25 nodes at each packing step: the first page holds the 5 % to 20 % nodes.
    await expect(rows.first().getByRole('meter', { name: 'CPU requested' }).getAttribute('aria-valuenow')).resolves.toBe('5');
    await expect(rows.last().getByRole('meter', { name: 'CPU requested' }).getAttribute('aria-valuenow')).resolves.toBe('20');
    await expect(horizontalOverflow(page)).resolves.toBe(0);
    await screenshot(page, 'nodes-500');

    await page.getByRole('button', { name: 'Next →' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('page')).toBe('2');
    await expect.poll(() => page.locator('.pager-range').innerText()).toBe('Nodes 101–200 of 500');
    expect(errors).toEqual([]);
    await close();
  });

  it('shows all 500 on one page when asked, each with both bars, drawn quickly', async () => {
    const { page, errors, close } = await openPage(browser);
    await page.goto(`${baseUrl}/nodes?size=500&sort=name&order=asc`);
    const rows = page.getByTestId('nodes-table').locator('tbody tr');
    await rows.first().waitFor();
    await expect(rows.count()).resolves.toBe(500);
    await expect(page.getByTestId('nodes-table').getByRole('meter').count()).resolves.toBe(1000);
    // Re-sorting 500 rows is one request and one render.
    const started = Date.now();
    await page.getByTestId('nodes-table').getByRole('button', { name: /^Age/ }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('sort')).toBe('ageHours');
    await page.locator('.panel-body.is-refreshing').waitFor({ state: 'detached' });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(errors).toEqual([]);
    await close();
  });

  it('filters by NodePool and capacity type on the server', async () => {
    const { page, close } = await openPage(browser);
    await page.goto(`${baseUrl}/nodes`);
    await page.getByTestId('nodes-table').locator('tbody tr').first().waitFor();
    await page.getByRole('radio', { name: 'Spot' }).click();
    // i % 4 == 0: 125 spot nodes.
    await expect.poll(() => page.locator('.pager-range').innerText()).toBe('Nodes 1–100 of 125');
    await page.getByLabel('NodePool', { exact: true }).selectOption('general');
    // i % 3 == 0 and i % 4 == 0: i % 12 == 0, i < 500 -> 42 nodes.
    await expect.poll(() => page.locator('.pager-range').innerText()).toBe('Nodes 1–42 of 42');
    await expect.poll(() => new URL(page.url()).search).toBe('?capacity=spot&nodepool=general');
    await close();
  });

  it('filters capacity reservations (reserved) and marks them apart from on-demand and spot', async () => {
    const { page, errors, close } = await openPage(browser);
    await page.goto(`${baseUrl}/nodes`);
    await page.getByTestId('nodes-table').locator('tbody tr').first().waitFor();
    await page.getByRole('radio', { name: 'Reserved' }).click();
    // i % 5 == 0 but not i % 4 == 0, i < 500: 100 - 25 = 75 nodes.
    await expect.poll(() => page.locator('.pager-range').innerText()).toBe('Nodes 1–75 of 75');
    await expect.poll(() => new URL(page.url()).search).toBe('?capacity=reserved');
    const badge = page.getByTestId('nodes-table').locator('tbody tr').first().locator('.capacity');
    await expect(badge.innerText()).resolves.toBe('reserved');
    const borderStyle = (className: string) =>
      page.evaluate((c) => {
        const el = document.createElement('span');
        el.className = `capacity ${c}`;
        document.body.append(el);
        const style = getComputedStyle(el).borderTopStyle;
        el.remove();
        return style;
      }, className);
    await expect(badge.evaluate((el) => getComputedStyle(el).borderTopStyle)).resolves.toBe('dotted');
    expect([await borderStyle('capacity-on-demand'), await borderStyle('capacity-spot')]).toEqual(['solid', 'dashed']);
    expect(errors).toEqual([]);
    await close();
  });
});
