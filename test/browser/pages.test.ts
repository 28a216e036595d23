import { describe, expect, it } from 'vitest';
import { PAGES } from './dashboard-pages.js';
import { dashboardPerFile, horizontalOverflow, openPage, screenshot } from './harness.js';

/*
 * Every page of the dashboard in headless Chromium, over the server `npm start` runs and three simulated days
 * of the sandbox collected through the real collectors: each page shows sandbox data without a console error,
 * in light and dark, at 1280 px without sideways scrolling. Screenshots go to test/screenshots/ (git-ignored) for review.
 */

const d = dashboardPerFile({ days: 3 });

describe('every page with sandbox data', () => {
  it.each(PAGES)('$name loads, shows its data, logs no error', async ({ name, path, ready }) => {
    const { page, errors, close } = await openPage(d.browser);
    await page.goto(`${d.baseUrl}${path}`);
    // Lines can be flat (no height): "attached" rather than "visible".
    for (const selector of ready) await page.locator(selector).first().waitFor({ state: 'attached', timeout: 30_000 });
    await expect(page.getByTestId('data-source-banner').innerText()).resolves.toMatch(
      /sandbox[\s\S]*Snapshots Nov 1 00:00 – Nov 3 23:55 UTC/i,
    );
    await expect(page.locator('h1').innerText()).resolves.not.toBe('');
    await expect(page.locator('[aria-current="page"]').innerText()).resolves.not.toBe('');
    if (name === 'nodepools') {
      // A card per sandbox NodePool.
      await expect(page.getByTestId('nodepool-card').locator('h3').allInnerTexts()).resolves.toEqual(
        expect.arrayContaining(['general', 'spot-batch', 'system']),
      );
      // week4's system NodePool is limited to 16 vCPU: its card has a CPU usage bar against that limit.
      const system = page.getByTestId('nodepool-card').filter({ has: page.getByRole('heading', { name: 'system', exact: true }) });
      await expect(system.getByRole('meter', { name: 'CPU against the NodePool limit' }).getAttribute('aria-valuetext')).resolves.toMatch(
        /^\d+(\.\d+)?( vCPU|m) of 16 vCPU \(\d+\.\d %\)/,
      );
    }
    if (name === 'nodes') {
      // Every node with its two packing bars.
      const rows = await page.getByTestId('nodes-table').locator('tbody tr').count();
      expect(rows).toBeGreaterThan(0);
      await expect(page.getByTestId('nodes-table').getByRole('meter').count()).resolves.toBe(2 * rows);
    }
    await page.locator('.spinner').first().waitFor({ state: 'detached', timeout: 20_000 });
    // 1280 px wide (wider screens, a 1366 px laptop included, have more room): nothing spills sideways.
    await expect(horizontalOverflow(page)).resolves.toBe(0);
    await screenshot(page, name);
    expect(errors).toEqual([]);
    await close();
  });
});

describe('dark theme', () => {
  it.each(['overview', 'teams'] as const)('%s renders dark', async (name) => {
    const page0 = PAGES.find((p) => p.name === name);
    if (page0 === undefined) throw new Error(name);
    const { page, errors, close } = await openPage(d.browser, { colorScheme: 'dark' });
    await page.goto(`${d.baseUrl}${page0.path}`);
    for (const selector of page0.ready) await page.locator(selector).first().waitFor({ state: 'attached', timeout: 30_000 });
    // The system's dark scheme reaches the page: a dark background.
    const bg = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    expect(bg).toBe('rgb(18, 22, 29)');
    await page.locator('.spinner').first().waitFor({ state: 'detached', timeout: 20_000 });
    await screenshot(page, `${name}-dark`);
    expect(errors).toEqual([]);
    await close();
  });

  it('the theme toggle overrides the system and survives a reload', async () => {
    const { page, close } = await openPage(d.browser, { colorScheme: 'light', isolated: true });
    await page.goto(`${d.baseUrl}/nodes`);
    await page.getByRole('radio', { name: 'Dark' }).click();
    await expect.poll(() => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe('rgb(18, 22, 29)');
    await page.reload();
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await close();
  });
});
