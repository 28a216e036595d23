import { describe, expect, it } from 'vitest';
import { COST_BARS, PAGES, TIMELINE_LINES } from './dashboard-pages.js';
import { dashboardPerFile, openPage, screenshot } from './harness.js';

/*
 * What a user does on the dashboard, in headless Chromium over the server `npm start` runs and three simulated
 * days of the sandbox: a filter changes the charts and the URL (a shared link opens the same view, back undoes
 * it), picks and sorts land in the URL, the keyboard reaches everything, and a laptop's first screen shows the filters.
 */

// The browser files' one ledger (three days with metrics-server usage), seeded once a run and copied.
const d = dashboardPerFile({ days: 3, usage: true });

describe('the cost metric switch', () => {
  it('chooses the metric of every bill figure, is kept in the URL, and the gap is split by cause', async () => {
    const { page, errors, close } = await openPage(d.browser);
    await page.goto(`${d.baseUrl}/`);
    await page.locator(COST_BARS).first().waitFor();
    // The sandbox account has a Savings Plan: the default is amortized, and the switch says so.
    const metric = page.getByLabel('Cost metric');
    await expect.poll(async () => (await metric.locator('option').first().textContent()) ?? '').toBe('Default (Amortized)');
    const amortized = await page.getByTestId('bill-total').innerText();
    const amortizedPeriod = await page.getByTestId('figure-billUsd').locator('.figure-value').innerText();
    // Every NodePool's volumes and data transfer are a band of the daily chart.
    expect(
      await page.locator('[data-testid="cost-chart"] .recharts-legend-item-text', { hasText: 'storage and network' }).count(),
    ).toBeGreaterThan(0);
    await expect
      .poll(async () => Number((await page.locator('tr[data-cause="commitments"] td.num').innerText()).replace(/[^0-9.-]/g, '')))
      .toBeLessThan(0);
    await expect
      .poll(async () => Number((await page.locator('tr[data-cause="volumes"] td.num').innerText()).replace(/[^0-9.-]/g, '')))
      .toBeGreaterThan(0);

    await metric.selectOption('unblended');
    await expect.poll(() => new URL(page.url()).searchParams.get('metric')).toBe('unblended');
    // Unblended has no Savings Plan discount: the bill is higher, in the cost panel and the period figures alike.
    await expect.poll(() => page.getByTestId('bill-total').innerText()).not.toBe(amortized);
    await expect.poll(() => page.getByTestId('figure-billUsd').locator('.figure-value').innerText()).not.toBe(amortizedPeriod);
    await expect
      .poll(async () => (await page.locator('tr[data-cause="commitments"] td.num').innerText()).replace(/[^0-9.-]/g, ''))
      .toBe('0.00');
    const parse = (t: string): number => Number(t.replace(/[^0-9.]/g, ''));
    expect(parse(await page.getByTestId('bill-total').innerText())).toBeGreaterThan(parse(amortized));

    // The link keeps it, and the other pages' links carry it.
    await page.reload();
    await expect.poll(() => page.getByLabel('Cost metric').inputValue()).toBe('unblended');
    await expect(
      page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Teams' }).getAttribute('href'),
    ).resolves.toContain('metric=unblended');
    await screenshot(page, 'overview-metric-unblended');
    expect(errors).toEqual([]);
    await close();
  });
});

describe('filters live in the URL', () => {
  it('a NodePool and a range change the charts and the URL; back restores them', async () => {
    const { page, errors, close } = await openPage(d.browser);
    await page.goto(`${d.baseUrl}/`);
    await page.locator(COST_BARS).first().waitFor();
    // The packing timeline is below the fold, drawn once scrolled near; it stays drawn as the filters change.
    await page.locator('[aria-label="Cluster packing over time"] [data-in-view]').scrollIntoViewIfNeeded();
    await page.locator(TIMELINE_LINES).first().waitFor({ state: 'attached' });
    const allBars = await page.locator(COST_BARS).count();
    const allLine = await page.locator(TIMELINE_LINES).first().getAttribute('d');
    const allBill = await page.getByTestId('figure-billUsd').locator('.figure-value').innerText();
    // Each disruption mark says what it is on hover (an SVG title): reason, NodePool, time.
    const marks = page.locator('[data-testid="timeline-chart"] line.timeline-mark title');
    expect(await marks.count()).toBeGreaterThan(0);
    expect(await marks.first().textContent()).toMatch(/^(\d+ disruptions: )?[A-Z][A-Za-z]+(\/[A-Z][a-z]+)? in [a-z0-9-]+(,| at) .*UTC$/);

    await page.getByLabel('NodePool', { exact: true }).selectOption('spot-batch');
    await expect.poll(() => new URL(page.url()).searchParams.get('nodepool')).toBe('spot-batch');
    await expect.poll(() => page.locator(TIMELINE_LINES).first().getAttribute('d')).not.toBe(allLine);
    await expect.poll(() => page.getByTestId('figure-billUsd').locator('.figure-value').innerText()).not.toBe(allBill);
    await expect.poll(() => page.locator(COST_BARS).count()).toBeLessThan(allBars);
    await expect(page.getByRole('heading', { name: 'Packing of spot-batch over time' }).count()).resolves.toBe(1);

    await page.getByRole('radio', { name: '24 h' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('range')).toBe('1d');
    await expect(page.getByRole('heading', { name: 'This period vs the previous 24 hours' }).count()).resolves.toBe(1);
    // 24 hours come in buckets finer than the 5-minute snapshots: the lines must still join up (not a dot per snapshot).
    const joined = async () => {
      const d = (await page.locator(TIMELINE_LINES).first().getAttribute('d')) ?? '';
      return { segments: d.split('M').length - 1, joins: d.split('L').length - 1 };
    };
    await expect
      .poll(async () => {
        const j = await joined();
        return j.joins > 2 * j.segments;
      })
      .toBe(true);

    // A shared link opens the same view.
    const shared = page.url();
    const other = await openPage(d.browser);
    await other.page.goto(shared);
    await expect.poll(() => other.page.getByLabel('NodePool', { exact: true }).inputValue()).toBe('spot-batch');
    await expect(other.page.getByRole('radio', { name: '24 h' }).getAttribute('aria-checked')).resolves.toBe('true');
    await other.close();

    // The links to other pages carry the filters.
    await expect(page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Teams' }).getAttribute('href')).resolves.toBe(
      '/teams?range=1d&nodepool=spot-batch',
    );

    await page.goBack();
    await page.goBack();
    await expect.poll(() => page.url()).toBe(`${d.baseUrl}/`);
    await expect(page.getByLabel('NodePool', { exact: true }).inputValue()).resolves.toBe('');
    await expect.poll(() => page.locator(TIMELINE_LINES).first().getAttribute('d')).toBe(allLine);
    expect(errors).toEqual([]);
    await close();
  });

  it('a custom range of days goes into the URL', async () => {
    const { page, close } = await openPage(d.browser);
    await page.goto(`${d.baseUrl}/teams`);
    await page.getByTestId('team-table').waitFor();
    await page.getByRole('radio', { name: 'Custom' }).click();
    await page.getByLabel('From').fill('2026-11-02');
    await page.getByLabel('to', { exact: true }).fill('2026-11-03');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.url()).toBe(`${d.baseUrl}/teams?from=2026-11-02&to=2026-11-03`);
    // Two days: two bars per band.
    await expect.poll(() => page.getByTestId('team-chart').locator('.recharts-bar-rectangle').count()).toBeGreaterThan(0);
    const days = await page
      .getByTestId('team-chart')
      .locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value')
      .allTextContents();
    expect(days).toEqual(['Nov 2', 'Nov 3']);
    await close();
  });

  it('a disruption picked on the Consolidation page is compared before and after, and kept in the URL', async () => {
    const { page, errors, close } = await openPage(d.browser);
    await page.goto(`${d.baseUrl}/consolidation?range=1d`);
    const first = page.getByTestId('events-table').locator('tbody tr').first();
    await first.waitFor();
    const nodeClaim = await first.locator('.node-name').innerText();
    await first.getByRole('button', { name: 'Compare' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('event')).toMatch(/^\d+-/);
    await page.getByTestId('before-after').locator('.recharts-bar-rectangle path').first().waitFor();
    await expect(page.getByTestId('compare-what').innerText()).resolves.toContain(nodeClaim);
    await expect(page.getByTestId('nodes-removed').innerText()).resolves.toContain(nodeClaim);
    await page.getByRole('radio', { name: '30m' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('window')).toBe('30m');
    await page.locator('.spinner').first().waitFor({ state: 'detached', timeout: 20_000 });
    await screenshot(page, 'consolidation-compare');

    // A typed time does what a click on the timeline does.
    await page.getByLabel('Around (UTC)').fill('2026-11-03T12:00');
    await page.getByRole('region', { name: 'Before and after' }).getByRole('button', { name: 'Compare', exact: true }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('at')).toBe('2026-11-03T12:00:00.000Z');
    expect(new URL(page.url()).searchParams.get('event')).toBeNull();
    await expect.poll(() => page.getByTestId('compare-what').innerText()).toContain('Around 2026-11-03 12:00 UTC');
    expect(errors).toEqual([]);
    await close();
  });

  it('the disruptions pager moves to the next page by keyboard, keeps it in the URL, and the counts stay totals', async () => {
    const { page, errors, close } = await openPage(d.browser);
    await page.goto(`${d.baseUrl}/consolidation?size=25`);
    const table = page.getByTestId('events-table');
    const claims = () => table.locator('tbody .node-name').allInnerTexts();
    await table.locator('tbody tr').first().waitFor();
    const range = page.locator('.pager-range');
    const total = Number(/^Disruptions 1–25 of ([\d,]+)$/.exec(await range.innerText())?.[1]?.replace(/,/g, '') ?? NaN);
    expect(total).toBeGreaterThan(25); // three simulated days hold about a hundred
    const counts = page.getByTestId('events-counts');
    const countsText = await counts.innerText();
    const perReason = [...countsText.matchAll(/: ([\d,]+)/g)].map((m) => Number(m[1]?.replace(/,/g, '')));
    expect(perReason.reduce((s, n) => s + n, 0)).toBe(total);
    const first = await claims();
    expect(first).toHaveLength(25);

    await page.getByRole('navigation', { name: 'Pages of disruptions' }).getByRole('button', { name: 'Next →' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).searchParams.get('page')).toBe('2');
    await expect.poll(() => range.innerText()).toBe(`Disruptions 26–${Math.min(50, total)} of ${total.toLocaleString('en-US')}`);
    await expect.poll(async () => (await claims())[0]).not.toBe(first[0]);
    const second = await claims();
    expect(second).toHaveLength(Math.min(25, total - 25));
    expect(second.filter((c) => first.includes(c))).toEqual([]);
    await expect(counts.innerText()).resolves.toBe(countsText);
    expect(errors).toEqual([]);
    await close();
  });

  it('the team table sorts, and downloads as CSV with the same filters', async () => {
    const { page, close } = await openPage(d.browser);
    await page.goto(`${d.baseUrl}/teams?range=1d&by=namespace`);
    const table = page.getByTestId('team-table');
    await table.locator('tbody tr').first().waitFor();
    await table.getByRole('button', { name: /^Namespace/ }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('sort')).toBe('team');
    const names = await table.locator('tbody th').allInnerTexts();
    const named = names.filter((n) => !n.startsWith('Idle'));
    // A to Z, idle rows after the namespaces.
    expect(names).toEqual([...[...named].sort((a, b) => a.localeCompare(b)), ...names.filter((n) => n.startsWith('Idle'))]);

    const href = await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href');
    expect(href).toMatch(/^\/api\/teams\/cost\?.*groupBy=namespace.*format=csv/);
    const res = await page.request.get(`${d.baseUrl}${href ?? ''}`);
    expect(res.headers()['content-type']).toContain('text/csv');
    const lines = (await res.text()).trim().split('\n');
    expect(lines.length).toBe(names.length + 1); // a header, then the rows on the page
    await close();
  });

  it('the Teams method switch offers three methods, each named with the source of its definition; idle stays shown', async () => {
    const { page, errors, close } = await openPage(d.browser);
    await page.goto(`${d.baseUrl}/teams?range=1d`);
    const note = page.getByTestId('team-method-note');
    const table = page.getByTestId('team-table');
    await expect.poll(() => note.innerText()).toMatch(/^Request share\./);
    await expect(note.innerText()).resolves.toContain('Definition: NodePool Ledger');
    await expect(page.getByTestId('team-method-feed').count()).resolves.toBe(0);
    const switchTo = async (label: string, param: string) => {
      await page.getByRole('radiogroup', { name: 'Split method' }).getByRole('radio', { name: label }).click();
      await expect.poll(() => new URL(page.url()).searchParams.get('method')).toBe(param);
    };

    await switchTo('AWS split', 'aws-split');
    await expect.poll(() => note.innerText()).toMatch(/^AWS split cost allocation\./);
    const aws = note.getByRole('link', { name: /AWS Data Exports User Guide/ });
    await expect(aws.getAttribute('href')).resolves.toBe(
      'https://docs.aws.amazon.com/cur/latest/userguide/example-split-cost-allocation-data.html',
    );
    // Usage was collected with every snapshot of the three days: max(request, usage) fed every pod (the requests-only
    // wording over a ledger without usage: clusters.test.ts).
    await expect(page.getByTestId('team-method-feed').innerText()).resolves.toContain('Fed by max(request, usage) for every pod.');
    await expect(page.locator('.method-feed.is-requests-only').count()).resolves.toBe(0);
    await expect.poll(() => table.locator('tbody th', { hasText: 'Idle (unused capacity)' }).count()).toBeGreaterThan(0);

    await switchTo('OpenCost', 'opencost');
    await expect.poll(() => note.innerText()).toMatch(/^OpenCost\./);
    await expect(note.getByRole('link', { name: /OpenCost Specification/ }).getAttribute('href')).resolves.toMatch(
      /^https:\/\/github\.com\/opencost\/opencost\/.*spec/,
    );
    await expect(page.getByTestId('team-method-feed').innerText()).resolves.toContain('Fed by max(request, usage) for every pod.');
    await expect.poll(() => table.locator('tbody th', { hasText: 'Idle (charged to no pod)' }).count()).toBeGreaterThan(0);
    await page.locator('[data-testid="team-chart"] .recharts-bar-rectangle path').first().waitFor();
    await expect.poll(() => page.getByTestId('team-chart').getByText('Idle (charged to no pod)').count()).toBe(1);
    await screenshot(page, 'teams-opencost');
    expect(errors).toEqual([]);
    await close();
  });

  it('the Teams chart asks for all its days in one series request', async () => {
    const { page, close } = await openPage(d.browser);
    const asked: string[] = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname.startsWith('/api/teams/')) asked.push(u.pathname);
    });
    await page.goto(`${d.baseUrl}/teams?range=7d`);
    await page.locator('[data-testid="team-chart"] .recharts-bar-rectangle path').first().waitFor();
    await page.getByTestId('team-table').locator('tbody tr').first().waitFor();
    // Seven day buckets: one request for the chart (it used to be one per day), one for the table and team list.
    expect(asked.filter((p) => p === '/api/teams/cost/series')).toHaveLength(1);
    expect(asked.filter((p) => p === '/api/teams/cost')).toHaveLength(1);
    await close();
  });

  it('typing in the node search filters the rows (debounced, kept in the URL) and Esc clears it', async () => {
    const { page, close } = await openPage(d.browser);
    const searched: string[] = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname === '/api/nodes' && u.searchParams.has('q')) searched.push(u.searchParams.get('q') ?? '');
    });
    await page.goto(`${d.baseUrl}/nodes?size=500`);
    const table = page.getByTestId('nodes-table');
    await table.locator('tbody tr').first().waitFor();
    // name, NodePool, instance type and zone as shown, per row.
    const rowTexts = async (): Promise<string[]> =>
      table.locator('tbody tr').evaluateAll((trs) =>
        trs.map((tr) =>
          [tr.querySelector('th'), ...[0, 1, 3].map((i) => tr.querySelectorAll('td')[i])]
            .map((c) => c?.textContent ?? '')
            .join(' | ')
            .toLowerCase(),
        ),
      );
    const all = await rowTexts();
    // The zone of the first node, typed in capitals: some nodes but not all are in it.
    const zone = (await table.locator('tbody tr').first().locator('td').nth(3).innerText()).trim();
    const term = zone.toUpperCase();
    const want = all.filter((t) => t.includes(zone.toLowerCase()));
    expect(want.length).toBeGreaterThan(0);
    expect(want.length).toBeLessThan(all.length);

    const box = page.getByRole('searchbox', { name: 'Search' });
    await box.click();
    await page.keyboard.type(term);
    await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe(term);
    await expect.poll(() => table.locator('tbody tr').count()).toBe(want.length);
    expect((await rowTexts()).sort()).toEqual([...want].sort());
    // Debounced: the server was asked for the whole term, not once per key.
    expect(searched.at(-1)).toBe(term);
    expect(searched.length).toBeLessThan(term.length);

    await box.press('Escape');
    await expect.poll(() => new URL(page.url()).searchParams.has('q')).toBe(false);
    await expect.poll(() => table.locator('tbody tr').count()).toBe(all.length);
    await expect(box.inputValue()).resolves.toBe('');
    await close();
  });

  it('the node table sorts by a column header and says so', async () => {
    const { page, close } = await openPage(d.browser);
    await page.goto(`${d.baseUrl}/nodes`);
    const table = page.getByTestId('nodes-table');
    await table.locator('tbody tr').first().waitFor();
    await table
      .getByRole('button', { name: /USD \/ h/ })
      .first()
      .click();
    await expect.poll(() => page.url()).toBe(`${d.baseUrl}/nodes?sort=usdPerHour&order=desc`);
    await expect(table.locator('th[aria-sort="descending"]').innerText()).resolves.toContain('USD / h');
    const prices = (await table.locator('tbody tr td:nth-child(7)').allInnerTexts()).map((t) => Number(t.replace('$', '')));
    expect(prices).toEqual([...prices].sort((a, b) => b - a));
    await close();
  });
});

describe('keyboard and screen sizes', () => {
  it('starts with a skip link, then moves through the page links with Tab and Enter', async () => {
    const { page, close } = await openPage(d.browser);
    await page.goto(`${d.baseUrl}/`);
    await page.getByTestId('data-source-banner').waitFor();
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Skip to content');
    for (let i = 0; i < 4; i++) await page.keyboard.press('Tab'); // brand, Overview, NodePools, Consolidation
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Consolidation');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement as Element).outlineStyle);
    expect(outline).toBe('solid');
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/consolidation');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('main');
    await close();
  });

  it('shows the first screen of a laptop (1366 × 768) for review', async () => {
    const { page, close } = await openPage(d.browser, { width: 1366, height: 768 });
    for (const p of PAGES.filter((x) => x.name === 'overview' || x.name === 'nodes')) {
      await page.goto(`${d.baseUrl}${p.path}`);
      for (const selector of p.ready) await page.locator(selector).first().waitFor({ state: 'attached', timeout: 30_000 });
      await page.locator('.spinner').first().waitFor({ state: 'detached', timeout: 20_000 });
      // The first screen shows the page title, the filters and the start of the data.
      await expect(page.locator('h1').boundingBox()).resolves.toMatchObject({ y: expect.any(Number) });
      const filtersBottom = (await page.getByRole('group', { name: 'Filters' }).boundingBox())?.y ?? Infinity;
      expect(filtersBottom).toBeLessThan(768 / 2);
      await screenshot(page, `${p.name}-laptop`, { fullPage: false });
    }
    await close();
  });
});
