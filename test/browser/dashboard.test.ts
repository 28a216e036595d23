import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { openDb, type Db } from '../../db/open-db';
import { buildApp } from '../../server/app';
import { fillSynthetic } from '../fixtures/synthetic';

/*
 * The overview page in headless Chromium over a real server and a temp database of synthetic data.
 * Expects the web build in dist/web (`npx vite build` before the tests); builds it once if missing.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const WEB_ROOT = join(ROOT, 'dist', 'web');
const SCREENSHOTS = join(ROOT, 'test', 'screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--no-first-run', '--disable-sync', '--disable-quic',
];

let dir: string;
let db: Db;
let app: FastifyInstance;
let browser: Browser;
let baseUrl: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM_PATH`);
  if (!existsSync(join(WEB_ROOT, 'index.html'))) execFileSync('npx', ['vite', 'build'], { cwd: ROOT, stdio: 'inherit' });
  mkdirSync(SCREENSHOTS, { recursive: true });

  dir = mkdtempSync(join(tmpdir(), 'ledger-browser-'));
  db = openDb({ path: join(dir, 'ledger.db') });
  fillSynthetic(db, { startDay: '2026-11-01', days: 7 });
  app = buildApp({ db, webRoot: WEB_ROOT });
  await app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  db?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** A page that records console errors and uncaught exceptions. */
async function openPage(colorScheme: 'light' | 'dark' = 'light'): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  return { page, errors };
}

const COST_BARS = '[data-testid="cost-chart"] .recharts-bar-rectangle path';
const EFFICIENCY_LINES = '[data-testid="efficiency-chart"] .recharts-line-curve';

describe('overview page', () => {
  it('renders the banner and both charts without console errors', async () => {
    const { page, errors } = await openPage();
    await page.goto(baseUrl);
    await page.waitForSelector(COST_BARS);
    await page.waitForSelector(EFFICIENCY_LINES, { state: 'attached' }); // a flat line has no height: not "visible"

    await expect(page.getByTestId('data-source-banner').innerText()).resolves.toMatch(/sandbox[\s\S]*Snapshots Nov 1 00:00 – Nov 7 23:45 UTC/i);
    // 7 days x 4 stacked segments (batch, general, system, untagged) where each has cost.
    expect(await page.locator(COST_BARS).count()).toBeGreaterThanOrEqual(7 * 3);
    // 3 NodePools x cpu + memory.
    expect(await page.locator(EFFICIENCY_LINES).count()).toBe(6);
    const lineD = await page.locator(EFFICIENCY_LINES).first().getAttribute('d');
    expect(lineD?.length ?? 0).toBeGreaterThan(100);
    await expect(page.locator('.averages tbody tr').count()).resolves.toBe(3);

    await page.screenshot({ path: join(SCREENSHOTS, 'overview.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows bill and estimate side by side, and filters by NodePool', async () => {
    const { page, errors } = await openPage('dark');
    await page.goto(baseUrl);
    await page.waitForSelector(COST_BARS);
    const billOnly = await page.locator(COST_BARS).count();
    await page.getByRole('radio', { name: 'Both' }).click();
    await expect.poll(() => page.locator(COST_BARS).count()).toBeGreaterThan(billOnly);

    await page.getByLabel('NodePool', { exact: true }).selectOption('batch');
    await expect.poll(() => page.locator(EFFICIENCY_LINES).count()).toBe(2);
    await page.screenshot({ path: join(SCREENSHOTS, 'overview-dark-batch.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('says what to do when the API fails', async () => {
    const { page } = await openPage();
    await page.route('**/api/cost/nodepools/daily**', (route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ statusCode: 500, error: 'Internal Server Error', message: 'x' }) }));
    await page.goto(baseUrl);
    const alert = page.getByRole('alert').filter({ hasText: 'Could not load the daily cost.' });
    await alert.waitFor({ timeout: 20_000 });
    await expect(alert.innerText()).resolves.toContain('Retry');
    await page.waitForSelector(EFFICIENCY_LINES, { state: 'attached' }); // the other panel still works
    await page.context().close();
  });
});
