import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import type { Db } from '../../db/open-db.js';
import { createRunsRepository } from '../../db/repositories/runs-repository.js';
import { sandboxPracticeBills } from '../../sandbox/practice-bills.js';
import { buildApp } from '../../server/app.js';
import { DEMO_SEEDED_SETTING } from '../../server/services/bill-practice.js';
import { seededDb } from '../fixtures/seeded-api.js';
import { workerChromium, workerState } from './worker-chromium.js';

export { CHROMIUM, CHROMIUM_ARGS, launchChromium, workerChromium } from './worker-chromium.js';

/*
 * What the browser tests run against: the server `npm start` runs (buildApp over a database seeded from the
 * real sandbox through the real collectors, serving the built dist/web), and Debian's Chromium.
 */

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const WEB_ROOT = join(ROOT, 'dist', 'web');
export const SCREENSHOTS = join(ROOT, 'test', 'screenshots');

const { shared, spare } = workerState;

export interface ServedDashboard {
  baseUrl: string;
  browser: Browser;
  /** Closes the server (not the database) and what the file opened in Chromium; the worker's Chromium stays. */
  close: () => Promise<void>;
}

/** A served dashboard over a seeded database; `close` also closes the database and removes the files. */
export interface Dashboard extends ServedDashboard {
  db: Db;
  /** The seeded scenario's EKS cluster name. */
  clusterName: string;
  /** First and last (exclusive) instant seeded, epoch ms. */
  startMs: number;
  endMs: number;
}

/**
 * What a file leaves in the worker's Chromium (test/browser/worker-chromium.ts) when it ends: every context it opened
 * is closed (an isolated one a test did not close, hostile-dashboard's CSP-bypassing one) but the shared one, whose
 * pages are closed but one: that one, its listeners and routes taken off, waits on about:blank for the next file's
 * first test. Not left on this file's page: the dashboard asks /api/status and /api/alerts again every minute, and
 * such a request to this file's closed server would fail into the next test's record of errors.
 */
export async function endOfFile(browser: Browser): Promise<void> {
  const keep = shared.get(browser);
  for (const context of browser.contexts()) if (context !== keep) await context.close();
  if (keep === undefined) return;
  const [page, ...rest] = keep.pages();
  for (const p of rest) await p.close();
  spare.set(keep, []);
  if (page === undefined) return;
  page.removeAllListeners();
  await page.unrouteAll({ behavior: 'ignoreErrors' });
  // A page that cannot go there (crashed, say) is closed instead: the next file opens a new one.
  const blank = await page.goto('about:blank').then(
    () => true,
    () => false,
  );
  if (blank) spare.set(keep, [page]);
  else await page.close();
}

/**
 * The server `npm start` runs (buildApp over `db`, serving the built dist/web, with the clock at `nowMs`) on a free
 * loopback port, in the worker's Chromium. Builds the web first when dist/web is missing; says so when Chromium is
 * missing. `simulator: false` serves it as `serve` does, without the sandbox's practice bills. `browser`: a Chromium
 * the file already has (a second server of the file), used as it is and left as it is by `close`.
 */
export async function serveDashboard(
  db: Db,
  nowMs: number,
  { simulator = true, browser: given }: { simulator?: boolean; browser?: Browser } = {},
): Promise<ServedDashboard> {
  if (!existsSync(join(WEB_ROOT, 'index.html')))
    execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
  const browser = given ?? (await workerChromium());
  const app: FastifyInstance = buildApp({
    db,
    webRoot: WEB_ROOT,
    now: () => nowMs,
    practiceBills: simulator ? sandboxPracticeBills : undefined,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    browser,
    close: async () => {
      if (given === undefined) await endOfFile(browser);
      await app.close();
    },
  };
}

/**
 * Seeds `days` simulated days of the default scenario (about 2 s a day; `usage` reads metrics.k8s.io with every
 * snapshot too, for the Workloads page), serves them, and opens Chromium. The seeded database is kept for the next
 * test file asking for the same days (seededDb), so the files seeding the same days seed them once.
 */
export async function startDashboard({ days, usage = false }: { days: number; usage?: boolean }): Promise<Dashboard> {
  const seeded = await seededDb({ prefix: 'ledger-browser-', days, usage });
  const { db, startMs, endMs, scenario: sc } = seeded;
  // As `demo` does: the database says which scenario it holds, so practice bills can be made from it.
  createRunsRepository(db).setSetting(DEMO_SEEDED_SETTING, `${sc.name}|${sc.seed}|v1`);
  const served = await serveDashboard(db, endMs);

  return {
    baseUrl: served.baseUrl,
    browser: served.browser,
    db,
    clusterName: sc.clusterName,
    startMs,
    endMs,
    close: async () => {
      await served.close();
      await seeded.close();
    },
  };
}

/**
 * startDashboard before the file's tests, closed after them. The returned object is filled in by beforeAll: read
 * its fields inside the tests.
 */
export function dashboardPerFile(options: { days: number; usage?: boolean }): Dashboard {
  const d = {} as Dashboard; // filled in by beforeAll, read only by the tests that follow it
  // A cold run seeds here, or waits for another file's seeding of the same days (three files at a time share the
  // cores): 3 days with usage took 81 s at load 10.
  beforeAll(async () => {
    Object.assign(d, await startDashboard(options));
  }, 300_000);
  afterAll(async () => {
    await d.close?.();
  });
  return d;
}

export interface OpenedPage {
  page: Page;
  /** Console errors, uncaught exceptions and failed requests, as they happen. */
  errors: string[];
  close: () => Promise<void>;
}

export interface PageOptions {
  colorScheme?: 'light' | 'dark';
  width?: number;
  height?: number;
  /**
   * A context of its own (empty cache and storage). By default pages share one context per browser (the worker's
   * Chromium's lasts from file to file; each file's server has a port, so an origin, of its own), so the chunks are
   * fetched once per test file rather than once per page, and compiled in a renderer already started.
   */
  isolated?: boolean;
}

/** A page (1280 × 900, light, unless told) that records console errors, uncaught exceptions and HTTP errors. */
export async function openPage(
  browser: Browser,
  { colorScheme = 'light', width = 1280, height = 900, isolated = false }: PageOptions = {},
): Promise<OpenedPage> {
  let context = isolated ? undefined : shared.get(browser);
  if (context === undefined) {
    // prefers-reduced-motion: Recharts (isAnimationActive 'auto') draws each chart at its final state instead of
    // animating it for 1.5 s frame by frame, and the spinner stands still: what the tests read is the same, and
    // Chromium spends 8 % less CPU over the eight pages (27.0 against 29.5 CPU s, measured with screenshots).
    context = await browser.newContext({ viewport: { width, height }, colorScheme, reducedMotion: 'reduce' });
    if (!isolated) shared.set(browser, context);
  }
  /*
   * Outside an isolated context, a page a test has closed is kept and handed to the next test: its next goto is a
   * navigation in the same renderer process. A new page costs Chromium about 1.5–3 CPU s more per test (a tab, a
   * renderer process or two started, the chunks compiled again): 16 page loads took 62.8 CPU s of Chromium in new pages
   * against 19.4 in one page kept (tmp measurement, stop 37).
   */
  const kept = isolated ? undefined : spare.get(context)?.pop();
  const page = kept ?? (await context.newPage());
  await page.setViewportSize({ width, height });
  await page.emulateMedia({ colorScheme });
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`${m.text()} ${m.location().url}`);
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('response', (r) => {
    if (r.status() >= 400) errors.push(`HTTP ${r.status()} ${r.url()}`);
  });
  const own = context;
  const close = async (): Promise<void> => {
    if (isolated) return own.close();
    // The test's listeners (and the error record above) and its request routes go with it; the page waits, idle, for
    // the next test's goto. (An init script cannot be taken off a page: a test that adds one opens an isolated page.)
    page.removeAllListeners();
    await page.unrouteAll({ behavior: 'ignoreErrors' });
    const pages = spare.get(own) ?? [];
    spare.set(own, pages);
    pages.push(page);
  };
  return { page, errors, close };
}

/**
 * With LEDGER_SCREENSHOTS=1, a screenshot under test/screenshots/ (git-ignored) for review: the whole page unless
 * `fullPage: false`. Otherwise nothing: no test reads them, and a full-page capture costs Chromium 0.1–1 CPU s.
 */
export async function screenshot(page: Page, name: string, { fullPage = true }: { fullPage?: boolean } = {}): Promise<void> {
  if (process.env.LEDGER_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage });
}

/** The horizontal overflow of the document in px (0 when nothing spills past the viewport). */
export const horizontalOverflow = (page: Page): Promise<number> =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
