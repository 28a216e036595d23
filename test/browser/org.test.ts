import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { execFileSync } from 'node:child_process';
import type { FastifyInstance } from 'fastify';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { exportLedger } from '../../cli/export.js';
import { createAthenaClient } from '../../collectors/cur/athena-client.js';
import { createS3Client } from '../../collectors/cur/s3-client.js';
import { createAthenaOrgEngine } from '../../collectors/org/athena-org.js';
import { parseS3Destination } from '../../collectors/org/s3-layout.js';
import { DAY_MS } from '../../core/time.js';
import { createClustersRepository } from '../../db/repositories/clusters-repository.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { ORG_BUCKET, ORG_PREFIX } from '../../sandbox/serve/org-endpoints.js';
import { buildApp } from '../../server/app.js';
import { seededDb, type SeededDb } from '../fixtures/seeded-api.js';
import { COST_BARS } from './dashboard-pages.js';
import { endOfFile, openPage, ROOT, screenshot, WEB_ROOT, workerChromium } from './harness.js';

/*
 * The dashboard under `serve --org`: the Organisation page's Overview and Teams of every exported cluster, answered
 * by the sandbox's Athena over what `export` wrote to the sandbox's S3, each query's scanned bytes and price shown,
 * and a cluster's name opening that cluster in the server's own ledger. The ledger is the browser tests' seeded
 * week4 (3 days), exported twice: under its own cluster's name and as a second cluster ("copy"), so the page has two
 * clusters whose figures the ledger's own API gives (each the ledger's estimate; together twice it).
 */

const COPY = 'week4-copy';
let seeded: SeededDb;
let sb: RunningSandbox;
let app: FastifyInstance;
let browser: Browser;
let baseUrl: string;
let cluster: string;
let fromDay: string;
let toDayInclusive: string;
const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

beforeAll(async () => {
  seeded = await seededDb({ prefix: 'ledger-browser-org-', days: 3, usage: true });
  sb = await startSandbox({});
  for (const [k, v] of Object.entries(sb.awsEnv)) vi.stubEnv(k, v);
  vi.stubEnv('AWS_MAX_ATTEMPTS', '');
  cluster = createClustersRepository(seeded.db).list()[0].name;
  const destination = parseS3Destination(`s3://${ORG_BUCKET}/${ORG_PREFIX}`);
  for (const name of [cluster, COPY]) await exportLedger(seeded.db, { destination, cluster: name }, { s3: createS3Client() });
  fromDay = dayOf(seeded.startMs);
  toDayInclusive = dayOf(seeded.endMs - 1);
  const org = createAthenaOrgEngine(createAthenaClient(), {
    workGroup: 'primary',
    database: 'ledger_org',
    outputLocation: `s3://${ORG_BUCKET}/athena-results/`,
    poll: { firstMs: 20, factor: 1.5, maxMs: 250 },
  });
  if (!existsSync(join(WEB_ROOT, 'index.html')))
    execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
  app = buildApp({ db: seeded.db, org, webRoot: WEB_ROOT, now: () => seeded.endMs + 2 * DAY_MS });
  await app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  browser = await workerChromium();
  // The browser files' seeding of the ledger (or the wait for another file's), as dashboardPerFile allows it: a cold
  // run of this file alone at load 19 went over 240 s.
}, 300_000);

afterAll(async () => {
  vi.unstubAllEnvs();
  if (browser !== undefined) await endOfFile(browser);
  await app?.close();
  await sb?.close();
  await seeded?.close();
});

describe('the Organisation page under serve --org', () => {
  it("shows every cluster's cost from Athena with the query's scanned bytes and price, Teams across clusters, and drills into a cluster's ledger", async () => {
    // The ledger's own estimate over the same days: each exported cluster's, the two together twice it.
    const ledger = (
      await app.inject({
        method: 'GET',
        url: `/api/cost/nodepools/daily?from=${fromDay}T00:00:00Z&to=${dayOf(seeded.endMs - 1 + DAY_MS)}T00:00:00Z`,
      })
    ).json() as { totals: { estimateUsd: number } };
    const cents = Math.round(ledger.totals.estimateUsd * 100);
    expect(cents).toBeGreaterThan(0);

    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${baseUrl}/org?from=${fromDay}&to=${toDayInclusive}`);
      await page.locator('[data-testid="org-overview-table"] tbody tr').nth(1).waitFor({ timeout: 60_000 });
      const rows = page.locator('[data-testid="org-overview-table"] tbody tr');
      expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-cluster')))).toEqual([cluster, COPY].sort());
      for (const c of await page.getByTestId('org-cluster-cost').allInnerTexts()) expect(c).toBe(usd.format(cents / 100));
      expect(await page.getByTestId('org-total-cost').innerText()).toBe(usd.format((2 * cents) / 100));
      // The query's bill: some KB scanned, Athena's 10 MB minimum billed, USD 0.00005.
      expect(await page.getByTestId('org-overview-query-scanned').innerText()).toMatch(/^\d+(\.\d)? KB$/);
      expect(await page.getByTestId('org-overview-query-cost').innerText()).toBe('USD 0.00005');

      // Teams across the two clusters, then another method: a new query, kept in the URL.
      const teamRows = page.locator('[data-testid="org-teams-table"] tbody tr');
      await teamRows.first().waitFor();
      expect(await teamRows.count()).toBeGreaterThan(3);
      expect(await page.locator('[data-testid="org-teams-table"] thead th').allInnerTexts()).toEqual([
        'Team',
        'All clusters',
        ...[cluster, COPY].sort(),
      ]);
      expect(await page.getByTestId('org-teams-query-cost').innerText()).toBe('USD 0.00005');
      await page.getByRole('radio', { name: 'OpenCost' }).click();
      await page.waitForURL(/method=opencost/);
      await page.getByText(/by OpenCost/).waitFor();
      await screenshot(page, 'org');

      // Drill-down: the cluster's name opens its Overview in this server's ledger, over the same days.
      await page.locator(`[data-testid="org-overview-table"] tbody tr[data-cluster="${cluster}"] a`).click();
      await page.waitForURL((u) => u.pathname === '/' && u.searchParams.get('cluster') === cluster);
      expect(new URL(page.url()).searchParams.get('from')).toBe(fromDay);
      expect(new URL(page.url()).searchParams.get('to')).toBe(toDayInclusive);
      await page.locator(COST_BARS).first().waitFor({ timeout: 60_000 });
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('says how to start it where the server has no --org (the one-ledger server answers the org routes 404)', async () => {
    const plain = buildApp({ db: seeded.db, webRoot: WEB_ROOT, now: () => seeded.endMs });
    await plain.listen({ host: '127.0.0.1', port: 0 });
    const { page, close } = await openPage(browser);
    try {
      await page.goto(`http://127.0.0.1:${(plain.server.address() as AddressInfo).port}/org`);
      await page.getByText('This server answers one ledger.').waitFor();
      expect(await page.locator('[data-testid="org-overview-table"]').count()).toBe(0);
    } finally {
      await close();
      await plain.close();
    }
  });
});
