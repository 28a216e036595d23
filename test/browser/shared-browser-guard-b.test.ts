import { expect, it } from 'vitest';
import { sharedBrowser } from './harness.js';

/*
 * The shared Chromium (harness.ts, sharedBrowser) and test/runner/shared-worker-guard.ts at work: files of the browser
 * project run one after the other in a worker and share its Chromium. This file and its twin
 * (shared-browser-guard-a.test.ts) each check that no context the other left open (its pages, cookies and storage)
 * reaches them, then leave one open with a page: whichever runs second in a worker fails without the guard.
 */
it('starts with the shared Chromium but none of the contexts the other file left open, then leaves its own', async () => {
  const browser = await sharedBrowser();
  expect(browser.isConnected()).toBe(true);
  expect(browser.contexts()).toEqual([]);
  const context = await browser.newContext();
  await context.newPage();
  await context.addCookies([{ name: 'guard-check', value: 'b', url: 'http://127.0.0.1/' }]);
  expect(browser.contexts()).toHaveLength(1);
  // The same Chromium for every file of the worker.
  await expect(sharedBrowser()).resolves.toBe(browser);
});
