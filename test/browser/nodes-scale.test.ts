import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../db/open-db.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { GiB, snapshotWrite, type NodeSpec } from '../fixtures/snapshots.js';
import { horizontalOverflow, openPage, screenshot, serveDashboard, type ServedDashboard } from './harness.js';

/*
 * The Nodes page at 500 nodes (more than the sandbox runs at once, more than a chunk of 100 rows): one snapshot written
 * straight into the store, served by the real server, read in Chromium. One scrolling table over every node that draws
 * only the rows in view (the page at the envelope's 5,000 nodes is the first-render bench's), fetches the rows a chunk
 * at a time as they come into view, sorts and filters on the server, and does not scroll sideways.
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

/** The node rows in the DOM (not the room kept for the rows not drawn). */
const drawnRows = (page: Page) => page.getByTestId('nodes-table').locator('tbody tr.node-row');
const rangeText = (page: Page) => page.getByTestId('nodes-range').innerText();

describe('the Nodes page at 500 nodes', () => {
  it('draws a window of the 500 rows, worst packed first, in a table 500 rows tall', async () => {
    const { page, errors, close } = await openPage(browser, { width: 1366, height: 768 });
    await page.goto(`${baseUrl}/nodes`);
    const rows = drawnRows(page);
    await rows.first().locator('[role="meter"]').first().waitFor();
    await expect(page.getByTestId('nodes-table').getAttribute('aria-rowcount')).resolves.toBe('501');
    const drawn = await rows.count();
    // A 768 px screen shows about a dozen 50 px rows; with 12 either side, far fewer than 500 and fewer than a chunk.
    expect(drawn).toBeGreaterThan(5);
    expect(drawn).toBeLessThan(60);
    await expect(rangeText(page)).resolves.toBe(`500 nodes · rows 1–${drawn} drawn`);
    // 25 nodes at each packing step: the first rows hold the 5 % nodes.
    await expect(rows.first().getByRole('meter', { name: 'CPU requested' }).getAttribute('aria-valuenow')).resolves.toBe('5');
    // The rows not drawn keep their room: the box scrolls the height of 500 rows.
    const heights = await page
      .locator('.nodes-scroll')
      .evaluate((el) => ({ scroll: el.scrollHeight, row: el.querySelector('tr.node-row')?.getBoundingClientRect().height ?? 0 }));
    expect(heights.scroll).toBeGreaterThan(500 * heights.row);
    await expect(horizontalOverflow(page)).resolves.toBe(0);
    await screenshot(page, 'nodes-500');
    expect(errors).toEqual([]);
    await close();
  });

  it('scrolls to any node by the keyboard or the scroll bar, each chunk asked for as it comes into view', async () => {
    const { page, errors, close } = await openPage(browser);
    // Every request for a chunk, by its offset+limit, as it starts (a cancelled one counts: it was asked).
    const asked: string[] = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname === '/api/nodes') asked.push(`${u.searchParams.get('offset')}+${u.searchParams.get('limit')}`);
    });
    const times = (chunk: string) => asked.filter((a) => a === chunk).length;
    await page.goto(`${baseUrl}/nodes?sort=name&order=asc`);
    const rows = drawnRows(page);
    await rows.first().waitFor();
    // Only the first chunk so far.
    expect(asked).toEqual(['0+100']);
    // Names by character: every ip-10-1-0-* (i < 250) before every ip-10-1-1-*; within each, "0." first and "99." last.
    await expect(rows.first().getAttribute('data-node')).resolves.toBe('ip-10-1-0-0.ec2.internal');
    await page.locator('.nodes-scroll').focus();
    await page.keyboard.press('End');
    const last = page.locator('tr[data-node][aria-rowindex="501"]');
    await last.waitFor();
    await expect(last.getAttribute('data-node')).resolves.toBe('ip-10-1-1-99.ec2.internal');
    expect(await rows.count()).toBeLessThan(60);
    // Half way down by the scroll bar: row 251 (index 250) is the first ip-10-1-1-* node.
    await page.locator('.nodes-scroll').evaluate((el) => {
      const row = el.querySelector('tr.node-row')?.getBoundingClientRect().height ?? 0;
      el.scrollTop = 250 * row;
    });
    const middle = page.locator('tr[data-node][aria-rowindex="252"]');
    await middle.waitFor();
    await expect(middle.getAttribute('data-node')).resolves.toBe('ip-10-1-1-0.ec2.internal');
    expect(await rows.count()).toBeLessThan(60);
    // 100 rows at a time, only the chunks of rows drawn: 0, 4 (rows 400-499), 2 (200-299); the keyboard's smooth scroll
    // may draw the rows between on its way, and a chunk scrolled past before its answer was read is cancelled and asked
    // again when it comes back into view (the reason these are not each counted once here).
    expect(asked).toEqual(expect.arrayContaining(['0+100', '200+100', '400+100']));
    expect(asked.every((a) => /^([1-4]00|0)\+100$/.test(a))).toBe(true);
    // A chunk once drawn is kept: back to the end and to the top, neither the last chunk nor the first is asked again
    // (a query refetched on coming back into view would ask as it is drawn, before the rows' wait below ends).
    const before = { first: times('0+100'), last: times('400+100') };
    expect(before).toEqual({ first: 1, last: 1 });
    await page.keyboard.press('End');
    await last.waitFor();
    await page.keyboard.press('Home');
    await expect.poll(() => rows.first().getAttribute('aria-rowindex')).toBe('2');
    await expect(rows.first().getAttribute('data-node')).resolves.toBe('ip-10-1-0-0.ec2.internal');
    expect({ first: times('0+100'), last: times('400+100') }).toEqual(before);
    expect(errors).toEqual([]);
    await close();
  });

  it('finds a node by search, and Esc brings back all 500', async () => {
    const { page, errors, close } = await openPage(browser);
    await page.goto(`${baseUrl}/nodes`);
    const rows = drawnRows(page);
    await rows.first().waitFor();
    const box = page.getByRole('searchbox', { name: 'Search' });
    await box.click();
    // i = 349: name ip-10-1-1-99 (349 = 250 + 99); nothing else contains "1-1-99.".
    await page.keyboard.type('1-1-99.');
    await expect.poll(() => rangeText(page)).toBe('1 node');
    await expect(rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-node')))).resolves.toEqual(['ip-10-1-1-99.ec2.internal']);
    await box.press('Escape');
    await expect.poll(() => rangeText(page)).toMatch(/^500 nodes · rows 1–\d+ drawn$/);
    expect(await rows.count()).toBeLessThan(60);
    expect(errors).toEqual([]);
    await close();
  });

  it('re-sorts on the server from the top of the table', async () => {
    const { page, errors, close } = await openPage(browser);
    await page.goto(`${baseUrl}/nodes`);
    const rows = drawnRows(page);
    await rows.first().waitFor();
    await page.locator('.nodes-scroll').evaluate((el) => (el.scrollTop = 5000));
    await expect.poll(async () => Number(await rows.first().getAttribute('aria-rowindex'))).toBeGreaterThan(50);
    await page.getByTestId('nodes-table').getByRole('button', { name: /^USD/ }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('sort')).toBe('usdPerHour');
    await page.locator('.panel-body.is-refreshing').waitFor({ state: 'detached' });
    // Back at the top, priciest first: the on-demand and reserved m6i.xlarge at $0.192.
    await expect.poll(() => rows.first().getAttribute('aria-rowindex')).toBe('2');
    await expect(rows.first().locator('td').nth(5).innerText()).resolves.toMatch(/^\$0\.1920/);
    expect(errors).toEqual([]);
    await close();
  });

  it('filters by NodePool and capacity type on the server', async () => {
    const { page, close } = await openPage(browser);
    await page.goto(`${baseUrl}/nodes`);
    await drawnRows(page).first().waitFor();
    await page.getByRole('radio', { name: 'Spot' }).click();
    // i % 4 == 0: 125 spot nodes.
    await expect.poll(() => rangeText(page)).toMatch(/^125 nodes · rows 1–\d+ drawn$/);
    await page.getByLabel('NodePool', { exact: true }).selectOption('general');
    // i % 3 == 0 and i % 4 == 0: i % 12 == 0, i < 500 -> 42 nodes: one chunk, drawn whole.
    await expect.poll(() => rangeText(page)).toBe('42 nodes');
    await expect(drawnRows(page).count()).resolves.toBe(42);
    await expect.poll(() => new URL(page.url()).search).toBe('?capacity=spot&nodepool=general');
    await close();
  });

  it('filters capacity reservations (reserved) and marks them apart from on-demand and spot', async () => {
    const { page, errors, close } = await openPage(browser);
    await page.goto(`${baseUrl}/nodes`);
    await drawnRows(page).first().waitFor();
    await page.getByRole('radio', { name: 'Reserved' }).click();
    // i % 5 == 0 but not i % 4 == 0, i < 500: 100 - 25 = 75 nodes.
    await expect.poll(() => rangeText(page)).toBe('75 nodes');
    await expect.poll(() => new URL(page.url()).search).toBe('?capacity=reserved');
    const badge = drawnRows(page).first().locator('.capacity');
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
