import { describe, expect, it } from 'vitest';
import { createCurRepository } from '../../db/repositories/cur-repository.js';
import type { PracticeQuestion } from '../../server/schemas/bill.js';
import type { TeamCostResponse } from '../../server/schemas/teams.js';
import { dashboardPerFile, openPage, screenshot, serveDashboard } from './harness.js';

/*
 * Explain this bill in headless Chromium over three simulated days of the sandbox: a line expands into its
 * NodeClaims and their reasons; a wrong file, dropped or picked, says what is wrong and what to export; a
 * Cost Explorer CSV imports and becomes the bill shown; practice mode hides the answers until asked.
 */

// The browser files' one ledger (three days with metrics-server usage), seeded once a run and copied.
const d = dashboardPerFile({ days: 3, usage: true });

const LINES = '[data-testid="bill-lines"] tbody tr:not(.detail-row)';

describe('your bill', () => {
  it('shows a day of the synced bill; a line expands into its NodeClaims and reasons, kept in the URL', async () => {
    const { page, errors, close } = await openPage(d.browser);
    await page.goto(`${d.baseUrl}/bill`);
    await page.locator(LINES).first().waitFor();
    await expect(page.getByLabel('Day (UTC)').inputValue()).resolves.toBe('2026-11-03'); // the newest day
    const general = page.locator(LINES).filter({ hasText: 'general' }).filter({ hasText: 'On Demand' }).first();
    await general.getByRole('button', { name: /^Explain/ }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('line')).toMatch(/^\d+$/);
    const explanation = page.getByTestId('explanation');
    await explanation.waitFor();
    await expect(explanation.locator('.nodeclaims tbody tr').count()).resolves.toBeGreaterThan(0);
    await expect(general.getByRole('button', { name: /^Hide/ }).getAttribute('aria-expanded')).resolves.toBe('true');
    await explanation.locator('.reasons summary').first().click();
    await expect(explanation.locator('.reasons[open]').innerText()).resolves.toMatch(
      /Instance type[\s\S]*Size[\s\S]*Capacity type[\s\S]*Launched[\s\S]*Removed/i,
    );
    await screenshot(page, 'bill');

    // Another day: the expansion is cleared and the lines are that day's.
    await page.getByRole('button', { name: 'Previous day' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('day')).toBe('2026-11-02');
    await expect(page.getByTestId('explanation').count()).resolves.toBe(0);
    expect(errors).toEqual([]);
    await close();
  });

  it('says what is wrong with a malformed CSV dropped on the page, and what to export instead', async () => {
    const { page, close } = await openPage(d.browser);
    await page.goto(`${d.baseUrl}/bill`);
    await page.locator(LINES).first().waitFor();
    // A real drop: a DataTransfer holding a File, dispatched on the drop zone.
    const transfer = await page.evaluateHandle(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['Name,Amount\nfoo,12\nbar,oops\n'], 'expenses.csv', { type: 'text/csv' }));
      return dt;
    });
    await page.getByTestId('import-drop').dispatchEvent('dragover', { dataTransfer: transfer });
    await page.getByTestId('import-drop').dispatchEvent('drop', { dataTransfer: transfer });
    const error = page.getByTestId('import-error');
    await error.waitFor();
    await expect(error.getAttribute('role')).resolves.toBe('alert');
    await expect(error.innerText()).resolves.toMatch(/expenses\.csv could not be imported[\s\S]*karpenter\.sh\/nodepool/i);
    // Nothing was stored: the picker still lists only the synced bill.
    await expect(page.getByLabel('Bill', { exact: true }).locator('option').allTextContents()).resolves.toEqual(['Cost Explorer (synced)']);
    await screenshot(page, 'bill-import-error');
    await close();
  });

  it('refuses a file that is not a CSV before uploading it', async () => {
    const { page, close } = await openPage(d.browser);
    const uploads: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST') uploads.push(r.url());
    });
    await page.goto(`${d.baseUrl}/bill`);
    await page.locator(LINES).first().waitFor();
    await page
      .getByLabel('Cost Explorer CSV file')
      .setInputFiles({ name: 'chart.png', mimeType: 'image/png', buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47]) });
    await expect(page.getByTestId('import-error').innerText()).resolves.toContain('chart.png is not a CSV file');
    expect(uploads).toEqual([]);
    await close();
  });

  it('imports a Cost Explorer CSV picked with the file picker and shows it', async () => {
    // The sandbox's practice bill comes as the console's CSV download: a real-shaped export to import.
    const res = await fetch(`${d.baseUrl}/api/bill/practice?seed=2`);
    const q = (await res.json()) as PracticeQuestion;
    const { page, errors, close } = await openPage(d.browser);
    await page.goto(`${d.baseUrl}/bill`);
    await page.locator(LINES).first().waitFor();
    await page
      .getByLabel('Cost Explorer CSV file')
      .setInputFiles({ name: 'costs-nov.csv', mimeType: 'text/csv', buffer: Buffer.from(q.csv) });
    await expect(page.getByRole('status').filter({ hasText: 'Imported' }).innerText()).resolves.toContain('costs-nov.csv');
    await expect.poll(() => new URL(page.url()).searchParams.get('source')).toBe('csv:costs-nov');
    await expect.poll(() => page.getByLabel('Day (UTC)').inputValue()).toBe(q.day);
    await expect.poll(() => page.locator(LINES).count()).toBe(q.lines.length);
    expect(errors).toEqual([]);
    await close();
  });
});

describe('practice mode', () => {
  it('shows a hypothetical bill, hides the answers until revealed, and hides them again', async () => {
    const { page, errors, close } = await openPage(d.browser, { colorScheme: 'dark' });
    const asked: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/bill/practice')) asked.push(new URL(r.url()).pathname);
    });
    await page.goto(`${d.baseUrl}/bill?mode=practice&seed=1`);
    const question = page.getByTestId('practice-question');
    await question.waitFor();
    await expect(question.innerText()).resolves.toMatch(/Question 1[\s\S]*2026-11-0\d/);
    await expect(page.locator(LINES).count()).resolves.toBeGreaterThan(0);
    await expect(page.locator(`${LINES}.is-focus`).count()).resolves.toBe(1);

    const answers = page.getByTestId('practice-answers');
    await expect(answers.isHidden()).resolves.toBe(true);
    // Expanding a line before revealing shows no explanation either.
    await page.locator(LINES).first().getByRole('button').click();
    await expect(page.locator('.hidden-answer').count()).resolves.toBe(1);
    await expect(page.getByTestId('explanation').count()).resolves.toBe(0);
    expect(asked).toEqual(['/api/bill/practice']); // the answers were never fetched

    const reveal = page.getByRole('button', { name: 'Reveal the answers' });
    await expect(reveal.getAttribute('aria-expanded')).resolves.toBe('false');
    await reveal.click();
    // The answers are fetched on reveal: wait for them (on a loaded machine they take a moment).
    await answers.getByRole('heading', { name: 'What the sandbox changed' }).waitFor({ state: 'visible', timeout: 20_000 });
    // The line in question opens with its explanation.
    await page.locator(`${LINES}.is-focus`).getByRole('button', { name: /^Hide/ }).waitFor();
    await expect.poll(() => page.getByTestId('explanation').count()).toBeGreaterThanOrEqual(1);
    await expect(page.getByRole('button', { name: 'Hide the answers' }).getAttribute('aria-expanded')).resolves.toBe('true');
    expect(asked).toContain('/api/bill/practice/answers');
    await page.locator('.spinner').first().waitFor({ state: 'detached', timeout: 20_000 });
    await screenshot(page, 'bill-practice-dark');

    await page.getByRole('button', { name: 'Hide the answers' }).click();
    await expect(answers.isHidden()).resolves.toBe(true);
    await expect(page.getByTestId('explanation').count()).resolves.toBe(0);
    await expect(page.locator('.hidden-answer').count()).resolves.toBeGreaterThanOrEqual(1);

    // The next question starts hidden again.
    await page.getByRole('button', { name: 'Next question' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('seed')).toBe('2');
    await page.getByRole('button', { name: 'Reveal the answers' }).waitFor();
    await expect(page.getByTestId('practice-question').innerText()).resolves.toContain('Question 2');
    expect(errors).toEqual([]);
    await close();
  });
});

describe('practice mode on a server without the sandbox (serve)', () => {
  it('explains that practice bills need the demo instead of failing, and asks only once', async () => {
    const served = await serveDashboard(d.db, d.endMs, { simulator: false, browser: d.browser });
    try {
      const { page, close } = await openPage(served.browser);
      const asked: number[] = [];
      page.on('response', (r) => {
        if (r.url().includes('/api/bill/practice')) asked.push(r.status());
      });
      await page.goto(`${served.baseUrl}/bill?mode=practice&seed=1`);
      const state = page.locator('.state-empty');
      await state.waitFor();
      await expect(state.innerText()).resolves.toMatch(/Practice bills need the demo[\s\S]*only the demo loads[\s\S]*npm start/);
      await expect(page.getByRole('button', { name: 'Retry' }).count()).resolves.toBe(0);
      await expect(page.getByTestId('practice-question').count()).resolves.toBe(0);
      expect(asked).toEqual([501]); // not retried: the answer will not change
      await screenshot(page, 'bill-practice-without-sandbox');
      await close();
    } finally {
      await served.close();
    }
  });
});

/*
 * The CUR views over the same server: a billing period written through the CUR repository as the import writes it,
 * for 2026-11-02 of the seeded sandbox. Split lines per namespace from our own request-share figures (AWS at 80 %
 * of them, unused 10 %), so the Teams page has a difference to show; three of the day's instances by their real ids,
 * the first under a Savings Plan, so Explain this bill has a NodeClaim and a commitment to name.
 */
describe('the CUR in the dashboard', () => {
  const DAY = '2026-11-02';
  const SP = 'arn:aws:savingsplans::123456789012:savingsplan/5e1c2a90-3b7d-4c1e-8f2a-6d9b0c4e7a13';

  it('Teams shows AWS split (CUR) beside our methods with the difference; Bill explains a CUR line', async () => {
    const dayMs = Date.parse(`${DAY}T00:00:00Z`);
    const ns = (await (
      await fetch(`${d.baseUrl}/api/teams/cost?from=${DAY}T00:00:00Z&to=2026-11-03T00:00:00Z&groupBy=namespace`)
    ).json()) as TeamCostResponse;
    const cur = createCurRepository(d.db);
    const claims = [...cur.knownNodeClaims().values()].slice(0, 3);
    expect(claims.length).toBe(3);
    const m = (unblended: number, amortized: number) => ({
      unblendedUsd: unblended,
      amortizedUsd: amortized,
      netUnblendedUsd: unblended,
      netAmortizedUsd: amortized,
    });
    const line = (c: (typeof claims)[number], lineItemType: string, unblended: number, amortized: number, arn = '') => ({
      day: DAY,
      dayMs,
      resourceId: c.instanceId,
      lineItemType,
      usageType: 'USW2-BoxUsage:m5.large',
      productCode: 'AmazonEC2',
      operation: 'RunInstances',
      category: 'instances' as const,
      cluster: d.clusterName,
      nodePool: c.nodePool,
      nodeClaim: c.nodeClaim,
      attributedBy: 'tag' as const,
      commitmentArn: arn,
      usageAmount: 24,
      publicOnDemandUsd: Math.max(unblended, 0),
      lineCount: 1,
      ...m(unblended, amortized),
    });
    cur.replacePeriod({
      summary: {
        source: 's3://ledger-cur/exports/ledger',
        billingPeriod: '2026-11',
        periodStartMs: Date.parse('2026-11-01T00:00:00Z'),
        importedAt: Date.now(),
        curRows: 100,
        unblendedUsd: 0,
        amortizedUsd: 0,
        unattributedLines: 0,
        unattributedUsd: 0,
        nodeClaimFilledLines: 0,
        splitLines: 10,
        manifestExecutionId: null,
      },
      files: [],
      nodePoolDays: [
        {
          day: DAY,
          dayMs,
          cluster: '',
          nodePool: claims[0].nodePool,
          category: 'instances',
          attributedBy: 'tag',
          usageAmount: 72,
          publicOnDemandUsd: 6.912,
          lineCount: 4,
          ...m(4.608, 3.744),
        },
      ],
      namespaceDays: ns.teams
        .filter((t) => t.kind === 'team' && t.team !== null)
        .map((t) => ({
          day: DAY,
          dayMs,
          cluster: '',
          nodePool: claims[0].nodePool,
          namespace: t.team ?? '',
          splitCostUsd: t.costUsd * 0.8,
          unusedCostUsd: t.costUsd * 0.1,
          netSplitCostUsd: t.costUsd * 0.8,
          netUnusedCostUsd: t.costUsd * 0.1,
          publicOnDemandSplitCostUsd: t.costUsd,
          publicOnDemandUnusedCostUsd: 0,
          vcpuHours: 1,
          memoryGbHours: 1,
          podCount: 1,
          lineCount: 2,
        })),
      resourceDays: [
        line(claims[0], 'SavingsPlanCoveredUsage', 2.304, 1.44, SP),
        line(claims[0], 'SavingsPlanNegation', -2.304, 0, SP),
        line(claims[1], 'Usage', 2.304, 2.304),
        line(claims[2], 'Usage', 2.304, 2.304),
      ],
    });

    const { page, errors, close } = await openPage(d.browser);
    await page.goto(`${d.baseUrl}/teams?from=${DAY}&to=2026-11-03`);
    const table = page.getByTestId('team-cur-table');
    await table.waitFor();
    await expect(page.getByRole('heading', { name: /AWS split \(CUR\) beside our estimate/ }).count()).resolves.toBe(1);
    await expect(table.locator('thead').innerText()).resolves.toMatch(
      /AWS split \(CUR\)[\s\S]*Request share[\s\S]*AWS split[\s\S]*OpenCost/,
    );
    // AWS's figure is 80 % of our request share per team, plus its unused cost as idle: the differences are not zero.
    const diffs = await page.getByTestId('team-cur-difference').allInnerTexts();
    expect(diffs.length).toBeGreaterThan(1);
    expect(diffs.some((t) => t.startsWith('-'))).toBe(true);
    await page.getByTestId('team-cur-chart').locator('.recharts-bar-rectangle').first().waitFor();
    await screenshot(page, 'teams-cur');
    // AWS's split at public on-demand prices (written as our request share itself, no unused cost): kept in the URL.
    const billedTotal = await page.getByTestId('team-cur-total').innerText();
    await page.getByRole('radio', { name: 'Public on-demand prices' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('basis')).toBe('public-on-demand');
    await expect.poll(() => page.getByTestId('team-cur-total').innerText()).not.toBe(billedTotal);

    await page.goto(`${d.baseUrl}/bill?mode=cur`);
    const rows = page.locator('[data-testid="cur-resources"] tbody tr:not(.detail-row)');
    await rows.first().waitFor();
    await expect(rows.count()).resolves.toBe(3);
    await page.getByRole('button', { name: `Explain ${claims[0].instanceId}` }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('resource')).toBe(claims[0].instanceId);
    const explanation = page.getByTestId('cur-explanation');
    await explanation.waitFor();
    const text = await explanation.innerText();
    expect(text).toContain(`NodeClaim ${claims[0].nodeClaim} of NodePool ${claims[0].nodePool}`);
    expect(text).toContain('SavingsPlanCoveredUsage');
    expect(text).toContain(SP);
    expect(text).toMatch(/24 instance-hours × \$0\.096 on-demand = \$2\.30 unblended/);
    await screenshot(page, 'bill-cur');

    // The NodePool's card says its bill from the CUR, by category; the overview shows the bill three ways.
    await page.goto(`${d.baseUrl}/nodepools?from=${DAY}&to=2026-11-03&nodepool=${claims[0].nodePool}`);
    await expect(page.getByTestId('card-cur').innerText()).resolves.toMatch(
      /Bill from the CUR[\s\S]*\$3\.74[\s\S]*instances \$3\.74 · volumes \$0\.00/,
    );
    await page.goto(`${d.baseUrl}/?from=${DAY}&to=2026-11-03`);
    await expect(page.getByTestId('cur-check-total').innerText()).resolves.toBe('$3.74');
    expect(errors).toEqual([]);
    await close();
  });
});
