import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDb, type Db } from '../../db/open-db.js';
import { openPage, serveDashboard, type ServedDashboard } from './harness.js';

/*
 * The worker's Chromium at work (test/browser/worker-chromium.ts: one per Vitest worker, the browser files running one
 * after another in it). Two twin files (worker-chromium-a/-b.test.ts) each check what a file finds there, then leave
 * behind what a careless file would: an isolated context and a page of the shared context left open, the latter with
 * a listener and a request route of its own, on its server's page. Whichever runs after another browser file in a
 * worker fails without the harness's end of file (endOfFile): it must find only the shared context, one page on
 * about:blank with none of the last file's listeners or routes; and after its twin, the same Chromium, still running.
 */
const last = globalThis as { __ledgerTwinChromium?: { file: string; browser: Browser; heard: string[] } };

export function workerChromiumTwin(file: string): void {
  let dir: string;
  let db: Db;
  let served: ServedDashboard;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), `ledger-worker-chromium-${file}-`));
    db = openDb({ path: join(dir, 'ledger.db') });
    served = await serveDashboard(db, Date.parse('2026-11-03T00:00:00Z'));
  });
  afterAll(async () => {
    await served?.close();
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds the worker’s Chromium as the last file left it, emptied of that file’s pages, then leaves its own', async () => {
    const { browser, baseUrl } = served;
    const twin = last.__ledgerTwinChromium;
    // After its twin in this worker: the same Chromium, not one launched for this file.
    if (twin !== undefined && twin.file !== file) expect(browser).toBe(twin.browser);
    expect(browser.isConnected()).toBe(true);
    // Nothing of an earlier file but the shared context, and in it at most one page, idle on about:blank.
    const contexts = browser.contexts();
    expect(contexts.length).toBeLessThanOrEqual(1);
    const pages = contexts.flatMap((c) => c.pages());
    expect(pages.length).toBeLessThanOrEqual(1);
    expect(pages.map((p) => p.url())).toEqual(pages.length === 0 ? [] : ['about:blank']);

    // The kept page (or a new one) has only this test's listeners, and no route of the last file holds its requests.
    const { page, errors, close } = await openPage(browser);
    const res = await page.goto(`${baseUrl}/api/status`);
    expect(res?.status()).toBe(200);
    await page.evaluate(() => console.error('twin check'));
    await expect.poll(() => errors.length).toBe(1);
    expect(twin?.heard ?? []).not.toContain('twin check');
    await close();

    // What a careless file leaves: an isolated context and a shared page, open, with a listener and a route that
    // fails every API request.
    await openPage(browser, { isolated: true });
    const left = await openPage(browser);
    const heard: string[] = [];
    left.page.on('console', (m) => heard.push(m.text()));
    await left.page.route('**/api/**', (route) => route.abort());
    await left.page.goto(`${baseUrl}/nodes`);
    last.__ledgerTwinChromium = { file, browser, heard };
  });
}
