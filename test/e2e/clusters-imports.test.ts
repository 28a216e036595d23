import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../db/open-db.js';
import { createClustersRepository } from '../../db/repositories/clusters-repository.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { buildSnapshotRows } from '../../core/rollup.js';
import { joinSnapshotUsage } from '../../core/usage-snapshot.js';
import type { KubeSnapshot } from '../../core/model.js';
import type { SnapshotUsage } from '../../core/usage.js';
import type { StatusResponse } from '../../server/schemas/status.js';
import { buildApp } from '../../server/app.js';
import type { BillLinesResponse } from '../../server/schemas/bill.js';
import type { BudgetsResponse } from '../../server/schemas/budgets.js';
import { applyBudgetFile, BudgetFileError } from '../../server/services/budget-file.js';
import { evaluateAlerts } from '../../server/services/alert-evaluation.js';
import type { AlertWebhookPayload, SlackPayload } from '../../server/services/alert-payload.js';
import { clusterDeclaration } from '../fixtures/cluster-declaration.js';

/*
 * What lands in a ledger holding two clusters, alpha and beta (issue 25): an imported Cost Explorer CSV and the
 * budgets of a --budgets file, each under the cluster named (?cluster= / a budget's `cluster:`), never cluster 1 by
 * default. Figures by hand:
 *   - the CSV (DAILY, 2026-11-01 and 11-02): general 3.00 + 4.50, untagged 0.25 + 0.25 -> 8.00, imported as beta's:
 *     beta's lines are its 4 lines (8.00); alpha has no csv:ops source.
 *   - Cost Explorer's DAILY lines of 2026-11-01 (final): alpha general 9.50, beta general 7.25. A monthly cluster
 *     budget with `cluster: beta` has spent beta's 7.25 of November by 11-03 (no snapshots: no estimate for the days
 *     after); one without `cluster` the whole ledger's 9.50 + 7.25 = 16.75.
 *   - alerts: the bill-estimate gap (default threshold 10 %, at least 1.00) fires per cluster, each cluster's newest
 *     final day 11-01 billed (alpha 9.50, beta 7.25) and estimated 0.00 (no snapshots): 100 % apart. Each delivery
 *     names its cluster; a one-cluster ledger's (its cluster `default`, a line of 5.00) names it too, its Slack text
 *     and link as before.
 *   - /api/status: one snapshot each, alpha's metrics-server available (checked 11-03 00:00), beta's forbidden
 *     (checked 11-03 00:05): the top level says forbidden (the worst), names beta with its message, checked at 00:05,
 *     over 1 + 1 = 2 snapshots, 1 with usage (alpha's); each cluster's own status under clusters[].usage.
 */

const DAY_MS = 86_400_000;
const NOV1 = Date.parse('2026-11-01T00:00:00Z');
const dir = mkdtempSync(join(tmpdir(), 'ledger-clusters-imports-'));
let db: Db;
let app: FastifyInstance;
let one: { db: Db; app: FastifyInstance };

const cluster = (name: string) => clusterDeclaration(name);

const CSV = [
  '"karpenter.sh/nodepool","general($)","No tag key: karpenter.sh/nodepool($)","Total costs($)"',
  '"karpenter.sh/nodepool total","7.5","0.5","8"',
  '"2026-11-01","3","0.25","3.25"',
  '"2026-11-02","4.5","0.25","4.75"',
].join('\n');

const upload = (a: FastifyInstance, query: string) =>
  a.inject({ method: 'POST', url: `/api/bill/import?name=ops${query}`, headers: { 'content-type': 'text/csv' }, payload: CSV });

beforeAll(async () => {
  db = openDb({ path: join(dir, 'two.db') });
  const [alpha, beta] = createClustersRepository(db).declare([cluster('alpha'), cluster('beta')], NOV1);
  const line = db.prepare(`INSERT INTO cost_lines (source, granularity, period_start, period_start_ms, group_by, nodepool,
      dimension_value, unblended_usd, amortized_usd, estimated, fetched_at, cluster_id)
    VALUES ('cost-explorer', 'DAILY', '2026-11-01', ?, 'PURCHASE_TYPE', 'general', 'On Demand Instances', ?, ?, 0, ?, ?)`);
  line.run(NOV1, 9.5, 9.5, NOV1 + DAY_MS, alpha.id);
  line.run(NOV1, 7.25, 7.25, NOV1 + DAY_MS, beta.id);
  app = buildApp({ db, webRoot: join(dir, 'no-web'), now: () => NOV1 + 2 * DAY_MS + 3_600_000, cacheResponses: false });
  await app.ready();
  const oneDb = openDb({ path: join(dir, 'one.db') });
  one = { db: oneDb, app: buildApp({ db: oneDb, webRoot: join(dir, 'no-web'), now: () => NOV1 + 3 * DAY_MS, cacheResponses: false }) };
});
afterAll(async () => {
  await app?.close();
  await one?.app.close();
  db?.close();
  one?.db.close();
  rmSync(dir, { recursive: true, force: true });
});

const cents = (usd: number): number => Math.round(usd * 100);

describe('an imported CSV bill is of the cluster named (POST /api/bill/import?cluster=)', () => {
  it('several clusters and none named: a 400 naming the parameter and the clusters; nothing stored', async () => {
    const r = await upload(app, '');
    expect(r.statusCode).toBe(400);
    expect((r.json() as { message: string }).message).toContain(
      'Query parameter "cluster": this ledger holds 2 clusters ("alpha", "beta"); name the one the bill is of',
    );
    const lines = (await app.inject({ url: '/api/bill/lines?source=csv:ops' })).json() as BillLinesResponse;
    expect(lines.sources.map((s) => s.source)).not.toContain('csv:ops');
  });

  it("?cluster=beta: the lines are beta's (its 8.00), alpha has none", async () => {
    const r = await upload(app, '&cluster=beta');
    expect(r.statusCode, r.body).toBe(201);
    const beta = (
      await app.inject({ url: '/api/bill/lines?source=csv:ops&cluster=beta&from=2026-11-01T00:00:00Z' })
    ).json() as BillLinesResponse;
    expect(beta.lines.map((l) => [l.periodStart.slice(0, 10), l.nodePool, cents(l.unblendedUsd)])).toEqual([
      ['2026-11-01', '', 25],
      ['2026-11-01', 'general', 300],
      ['2026-11-02', '', 25],
      ['2026-11-02', 'general', 450],
    ]);
    expect(cents(beta.totals.unblendedUsd)).toBe(800);
    const alpha = (await app.inject({ url: '/api/bill/lines?cluster=alpha' })).json() as BillLinesResponse;
    expect(alpha.sources.map((s) => s.source)).toEqual(['cost-explorer']);
    // Every cluster: the lines name their cluster.
    const all = (await app.inject({ url: '/api/bill/lines?source=csv:ops&from=2026-11-01T00:00:00Z' })).json() as BillLinesResponse;
    expect(new Set(all.lines.map((l) => l.cluster))).toEqual(new Set(['beta']));
  });

  it("a one-cluster ledger: no cluster needed, the bill is its only cluster's", async () => {
    const r = await upload(one.app, '');
    expect(r.statusCode, r.body).toBe(201);
    const lines = (await one.app.inject({ url: '/api/bill/lines?source=csv:ops&from=2026-11-01T00:00:00Z' })).json() as BillLinesResponse;
    expect(cents(lines.totals.unblendedUsd)).toBe(800);
  });
});

describe('a --budgets file names the cluster a budget watches (`cluster:`)', () => {
  const file = join(dir, 'budgets.yaml');
  const yaml = (betaCluster: string) =>
    [
      'budgets:',
      '  - name: whole-ledger',
      '    scope: { kind: cluster }',
      '    period: monthly',
      '    amount: 100',
      '  - name: beta-only',
      '    scope: { kind: cluster }',
      '    period: monthly',
      '    amount: 100',
      `    cluster: ${betaCluster}`,
    ].join('\n');

  it('an unknown cluster is an error naming it, the entry, the file and its line; nothing stored', () => {
    let caught: unknown = null;
    try {
      applyBudgetFile(db, file, yaml('gamma'), NOV1 + 2 * DAY_MS);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(BudgetFileError);
    expect(db.prepare('SELECT COUNT(*) FROM budgets').pluck().get()).toBe(0);
    expect((caught as Error).message).toBe(
      `${file}: budgets[1] (beta-only): line 10: cluster: unknown cluster "gamma"; this ledger holds "alpha", "beta"`,
    );
  });

  it("`cluster: beta` is stored as beta's budget and spends beta's bill only; without it, the whole ledger's", async () => {
    expect(applyBudgetFile(db, file, yaml('beta'), NOV1 + 2 * DAY_MS)).toEqual({ written: 2, removed: [] });
    const all = (await app.inject({ url: '/api/budgets' })).json() as BudgetsResponse;
    const byName = Object.fromEntries(all.items.map((b) => [b.budget.name, [b.budget.cluster, b.budget.source, cents(b.spent)]]));
    expect(byName).toEqual({ 'whole-ledger': [null, 'file', 1675], 'beta-only': ['beta', 'file', 725] });
    // ?cluster=alpha lists the whole ledger's budgets and alpha's: not beta's.
    const alpha = (await app.inject({ url: '/api/budgets?cluster=alpha' })).json() as BudgetsResponse;
    expect(alpha.items.map((b) => b.budget.name)).toEqual(['whole-ledger']);
  });
});

describe("alert deliveries name the alert's cluster", () => {
  const HOOK = 'http://127.0.0.1:9/hook';
  const SLACK = 'http://127.0.0.1:9/slack';
  const targets = [
    { url: HOOK, format: 'json' as const },
    { url: SLACK, format: 'slack' as const },
  ];
  const payloads = (d: Db, url: string): string[] =>
    d.prepare('SELECT payload_json FROM alert_deliveries WHERE target_url = ? ORDER BY id').pluck().all(url) as string[];

  it("two clusters: each cluster's alert names it in the webhook body, the Slack text and the link", () => {
    evaluateAlerts(db, { atMs: NOV1 + 2 * DAY_MS + 3_600_000, targets });
    const hooks = payloads(db, HOOK).map((p) => JSON.parse(p) as AlertWebhookPayload);
    expect(hooks.map((h) => [h.rule, h.cluster, h.subject, h.figures.bill, h.link.href])).toEqual([
      ['bill-estimate-gap', 'alpha', 'cluster', 9.5, '/bill?from=2026-11-01&to=2026-11-01&cluster=alpha'],
      ['bill-estimate-gap', 'beta', 'cluster', 7.25, '/bill?from=2026-11-01&to=2026-11-01&cluster=beta'],
    ]);
    const slack = payloads(db, SLACK).map((p) => JSON.parse(p) as SlackPayload);
    expect(slack.map((m) => m.text.split(',')[0])).toEqual(['[FIRING] alpha: On 2026-11-01', '[FIRING] beta: On 2026-11-01']);
    expect(JSON.stringify(slack[1]?.blocks[1])).toContain(
      'beta · bill-estimate-gap · cluster · The bill of 2026-11-01: /bill?from=2026-11-01&to=2026-11-01&cluster=beta',
    );
  });

  it('one cluster: the body gains `cluster`, the Slack text and the link are as before', () => {
    one.db
      .prepare(
        `INSERT INTO cost_lines (source, granularity, period_start, period_start_ms, group_by, nodepool, dimension_value,
          unblended_usd, amortized_usd, estimated, fetched_at) VALUES ('cost-explorer', 'DAILY', '2026-11-01', ?, 'PURCHASE_TYPE',
          'general', 'On Demand Instances', 5, 5, 0, ?)`,
      )
      .run(NOV1, NOV1 + DAY_MS);
    evaluateAlerts(one.db, { atMs: NOV1 + 2 * DAY_MS, targets });
    const [hook] = payloads(one.db, HOOK).map((p) => JSON.parse(p) as AlertWebhookPayload);
    expect([hook?.rule, hook?.cluster, hook?.link.href]).toEqual(['bill-estimate-gap', 'default', '/bill?from=2026-11-01&to=2026-11-01']);
    const [slack] = payloads(one.db, SLACK).map((p) => JSON.parse(p) as SlackPayload);
    expect(slack?.text.startsWith('[FIRING] On 2026-11-01')).toBe(true);
  });
});

describe("/api/status's top-level usage sums up every cluster's", () => {
  const T = NOV1 + 2 * DAY_MS;
  const FORBIDDEN = 'metrics.k8s.io is forbidden: grant the ledger get on pods.metrics.k8s.io.';
  beforeAll(() => {
    const [alpha, beta] = createClustersRepository(db).list();
    const kube = createKubeRepository(db);
    const write = (clusterId: number, takenAt: number, status: SnapshotUsage['status']) => {
      const s: KubeSnapshot = { takenAt, nodePools: [], namespaces: [], nodes: [], nodeClaims: [], pods: [], events: [] };
      const u: SnapshotUsage = { status, pods: [], nodes: [] };
      const built = buildSnapshotRows(s, () => ({ pricePerHour: 0, currency: 'USD', source: 'pricing-api' }));
      kube.writeSnapshot({
        snapshot: s,
        ...built,
        runId: null,
        clusterId,
        usage: { rows: joinSnapshotUsage(s, u), status: u.status, retentionMs: DAY_MS },
      });
    };
    write(alpha.id, T, { state: 'available', message: 'metrics-server answered', checkedAt: T });
    write(beta.id, T + 300_000, { state: 'forbidden', message: FORBIDDEN, checkedAt: T + 300_000 });
  });

  it('the worst state, naming the cluster that fails; each cluster its own under clusters[]', async () => {
    const status = (await app.inject({ url: '/api/status' })).json() as StatusResponse;
    expect(status.usage.metricsServer).toEqual({
      state: 'forbidden',
      message: `beta: ${FORBIDDEN}`,
      checkedAt: new Date(T + 300_000).toISOString(),
    });
    expect([status.usage.failing, status.usage.snapshots, status.usage.snapshotsWithUsage]).toEqual([['beta'], 2, 1]);
    expect(status.clusters.map((c) => [c.name, c.usage?.metricsServer?.state, c.usage?.snapshots])).toEqual([
      ['alpha', 'available', 1],
      ['beta', 'forbidden', 1],
    ]);
  });
});
