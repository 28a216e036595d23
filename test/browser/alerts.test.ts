import { describe, expect, it } from 'vitest';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { evaluateAlerts } from '../../server/services/alert-evaluation.js';
import { dashboardPerFile, openPage, screenshot } from './harness.js';

/*
 * The Alerts page in headless Chromium over three simulated days: the collector's evaluation, run here on the
 * seeded file, leaves one past and one open collector-stale alert (no snapshot for 20 minutes after the last one; a
 * threshold raised to 100 intervals resolves the first; back at 3 it fires again). Each row says why and links to
 * the page and range that explain it.
 */

// The browser files' one ledger (three days with metrics-server usage), seeded once a run and copied.
const d = dashboardPerFile({ days: 3, usage: true });
const MIN = 60_000;

describe('the Alerts page', () => {
  it('lists the open and the past alerts with their sentences; a link opens the page and range that explain one', async () => {
    const last = createKubeRepository(d.db).latestSnapshotAt() ?? 0;
    const stale = last + 20 * MIN;
    evaluateAlerts(d.db, { atMs: stale });
    const lenient = (s: Parameters<NonNullable<Parameters<typeof evaluateAlerts>[1]['settings']>>[0]) => ({
      ...s,
      rules: { ...s.rules, 'collector-stale': { ...s.rules['collector-stale'], threshold: 100 } },
    });
    evaluateAlerts(d.db, { atMs: stale + 5 * MIN, settings: lenient });
    evaluateAlerts(d.db, { atMs: stale + 10 * MIN });

    const { page, errors, close } = await openPage(d.browser);
    await page.goto(`${d.baseUrl}/alerts`);
    const open = page.getByTestId('alerts-open').locator('tbody tr[data-rule="collector-stale"]');
    await open.waitFor();
    await expect(open.count()).resolves.toBe(1);
    await expect(open.innerText()).resolves.toContain('30 min ago: 6 snapshot intervals of 5 min missed');
    const past = page.getByTestId('alerts-past').locator('tbody tr[data-rule="collector-stale"]');
    await expect(past.count()).resolves.toBe(1);
    await expect(past.innerText()).resolves.toContain('20 min ago: 4 snapshot intervals of 5 min missed');
    await expect(page.getByTestId('alert-rules').locator('tbody tr').count()).resolves.toBe(9);
    await screenshot(page, 'alerts');

    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    await open.getByRole('link', { name: 'Overview, collector status' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/');
    const url = new URL(page.url());
    expect([url.searchParams.get('from'), url.searchParams.get('to')]).toEqual([day(last), day(stale + 10 * MIN)]);
    await page.getByTestId('figure-billUsd').waitFor();
    expect(errors).toEqual([]);
    await close();
  });
});
