import type { Page, Request, Route } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { dashboardPerFile, openPage } from './harness.js';

/*
 * Issue 24 item 4, first render: what a first visit waits for runs side by side, not one after the other. A page
 * asks for the data's range (/api/status) and the clusters before its own code, for its first screen's charts' code
 * together with its own code (not once that code has run), and for its charts' code before its data has arrived; a
 * chart whose code is here when its data arrives is drawn without a loading step.
 */

// The same seeded days as the other browser files (test/fixtures' seeded database is shared, not seeded again).
const d = dashboardPerFile({ days: 3, usage: true });

/** How long a held request waits for the one it is waiting on before it goes anyway. */
const HOLD_MS = 4_000;

/** A request whose path starts with `prefix` has been asked for (once asked, it stays so). */
function watchAsked(page: Page, prefix: string): { seen: () => boolean; next: () => Promise<boolean> } {
  let seen = false;
  const waiters: (() => void)[] = [];
  page.on('request', (r: Request) => {
    if (new URL(r.url()).pathname.startsWith(prefix)) {
      seen = true;
      waiters.splice(0).forEach((w) => w());
    }
  });
  return {
    seen: () => seen,
    next: () =>
      seen
        ? Promise.resolve(true)
        : new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(false), HOLD_MS);
            waiters.push(() => {
              clearTimeout(timer);
              resolve(true);
            });
          }),
  };
}

/** Holds requests to paths starting with `prefix` until `until` settles, then lets them go; says what it saw. */
async function holdUntil(page: Page, prefix: string, until: () => Promise<boolean>): Promise<{ held: number; metWhileHeld: boolean[] }> {
  const out = { held: 0, metWhileHeld: [] as boolean[] };
  await page.route(
    (url) => url.pathname.startsWith(prefix),
    async (route: Route) => {
      out.held += 1;
      out.metWhileHeld.push(await until());
      await route.continue();
    },
  );
  return out;
}

describe('a first visit', () => {
  it("asks for the data's range and the clusters before the page's own code", async () => {
    const { page, errors, close } = await openPage(d.browser, { isolated: true });
    try {
      // Every page's data waits on these two; asked only once the page is drawn, they follow its code instead of
      // overlapping it.
      const order: string[] = [];
      page.on('request', (r) => {
        const path = new URL(r.url()).pathname;
        if (path === '/api/status' || path === '/api/clusters' || path.startsWith('/assets/overview-'))
          order.push(path.replace(/-[^/]*$/, '-*'));
      });
      await page.goto(`${d.baseUrl}/`);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      expect(order.slice(0, 3).sort()).toEqual(['/api/clusters', '/api/status', '/assets/overview-*']);
      expect(order.indexOf('/assets/overview-*')).toBe(2);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it("asks for its first screen's chart code together with the page's own code, not after it", async () => {
    const { page, errors, close } = await openPage(d.browser, { isolated: true });
    try {
      // The Overview's code is held until the cost chart's code has been asked for. Asked only once the page's module
      // runs (which needs the held chunk), the chart's code would wait for the page's: the hold would time out.
      const asked = watchAsked(page, '/assets/cost-chart-');
      const held = await holdUntil(page, '/assets/overview-', () => asked.next());
      await page.goto(`${d.baseUrl}/`);
      await page.locator('[data-testid="cost-chart"]').waitFor({ timeout: 20_000 });
      expect(held.held).toBe(1);
      expect(held.metWhileHeld).toEqual([true]);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it("asks for the Overview's data while the page's code is still on its way, each request once", async () => {
    const { page, errors, close } = await openPage(d.browser, { isolated: true });
    try {
      // What the Overview's panels ask for over the default 7 days (from and to vary with the seeded days, so they are
      // left out here): the NodePools (the charts' colours); the period panel's daily cost and efficiency summary for
      // this week and the week before (4); the reconciliation and the CUR's days for the gap and CUR panels (2); the
      // packing timeline (1). The cost panel's daily cost is the period panel's request for this week: 1 + 4 + 2 + 1 = 8.
      const dataPaths = [
        '/api/nodepools',
        '/api/cost/nodepools/daily',
        '/api/cost/nodepools/daily',
        '/api/efficiency/summary',
        '/api/efficiency/summary',
        '/api/reconciliation/daily',
        '/api/cost/cur/daily',
        '/api/consolidation/timeline',
      ];
      const asked: string[] = [];
      let allAsked: () => void = () => undefined;
      const everyDataRequest = new Promise<void>((resolve) => (allAsked = resolve));
      page.on('request', (r) => {
        const u = new URL(r.url());
        if (!u.pathname.startsWith('/api/')) return;
        asked.push(`${u.pathname}${u.search}`);
        const paths = asked.map((a) => a.replace(/\?.*$/, ''));
        const count = (xs: readonly string[], p: string) => xs.filter((x) => x === p).length;
        if (dataPaths.every((p) => count(paths, p) >= count(dataPaths, p))) allAsked();
      });
      // The page's code is held until every one of its data requests has been asked: asked by the panels themselves
      // (once that code has run), none could be, and the hold would time out.
      const held = await holdUntil(page, '/assets/overview-', () =>
        Promise.race([everyDataRequest.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), HOLD_MS))]),
      );
      await page.goto(`${d.baseUrl}/`);
      await page.locator('[data-testid="cost-chart"]').waitFor({ timeout: 20_000 });
      await page.waitForFunction(() => document.querySelector('.state-loading, .spinner') === null, undefined, { timeout: 20_000 });
      expect(held.held).toBe(1);
      expect(held.metWhileHeld).toEqual([true]);
      // Each asked once (asked ahead with another query than the panel's, it would be asked a second time): the status,
      // the clusters and the 8 above.
      expect(new Set(asked).size).toBe(asked.length);
      expect(asked.map((a) => a.replace(/\?.*$/, '')).sort()).toEqual(['/api/clusters', '/api/status', ...dataPaths].sort());
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it("asks for a chart's code while the chart's data is still on its way, and draws it with no loading step once both are here", async () => {
    const { page, errors, close } = await openPage(d.browser, { isolated: true });
    try {
      // Every text the page ever showed, as it showed it: a loading step shown for one frame is caught too.
      await page.addInitScript(() => {
        const w = window as unknown as { shown: Set<string> };
        w.shown = new Set();
        new MutationObserver(() => {
          for (const el of document.querySelectorAll('.state-loading'))
            w.shown.add(`${el.closest('.panel')?.getAttribute('aria-label') ?? ''}: ${el.textContent ?? ''}`);
        }).observe(document, { subtree: true, childList: true, characterData: true });
      });
      const chartCode: Promise<void>[] = [];
      page.on('request', (r) => {
        if (new URL(r.url()).pathname.startsWith('/assets/timeline-chart-'))
          chartCode.push(r.response().then(async (res) => void (await res?.finished())));
      });
      const asked = watchAsked(page, '/assets/timeline-chart-');
      // The Consolidation page's timeline (in its first screen: the Overview's is below the fold, drawn once scrolled
      // to) has its data held until its chart's code was asked for and has arrived, and a moment more for the module
      // to run (its chunk's imports arrive with it).
      const held = await holdUntil(page, '/api/consolidation/timeline', async () => {
        const seen = await asked.next();
        await Promise.all(chartCode);
        await page.waitForTimeout(500);
        return seen;
      });
      await page.goto(`${d.baseUrl}/consolidation`);
      const chart = page.getByRole('region', { name: 'Timeline', exact: true }).locator('.recharts-wrapper');
      await chart.waitFor({ timeout: 20_000 });
      expect(held.held).toBeGreaterThanOrEqual(1);
      expect(held.metWhileHeld.every((m) => m)).toBe(true);
      const shown = await page.evaluate(() => [...(window as unknown as { shown: Set<string> }).shown]);
      // The panel's own "Loading the timeline…" while its data is held, but never its chart's "Loading chart…".
      const timeline = shown.filter((s) => s.startsWith('Timeline: '));
      expect(timeline).toEqual(['Timeline: Loading the timeline…']);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
});
