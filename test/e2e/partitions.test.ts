import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runDoctor } from '../../cli/doctor.js';
import { openDb } from '../../db/open-db.js';
import type { Scenario } from '../../sandbox/scenario/types.js';
import { buildApp } from '../../server/app.js';
import type { NodesResponse } from '../../server/schemas/efficiency.js';
import type { StatusResponse } from '../../server/schemas/status.js';
import {
  type AccountOptions,
  type CollectedAccount,
  collectAccount,
  PARTITION_AT as AT,
  MANAGED_NODE as MANAGED,
  scenarioIn as inRegion,
  SPOT_NODE as SPOT,
} from '../fixtures/partition-account.js';

/**
 * `collect` as a user runs it, for a cluster in each partition, against a simulated account that answers as AWS does
 * (aws-account.ts: a Pricing endpoint only in us-east-1, eu-central-1, ap-south-1 and cn-northwest-1; credentials
 * valid in their own partition only; a GovCloud bill only in the associated standard account), then read through the
 * API. The sandbox logs the region each request was signed for: the endpoint a real client would have called.
 *
 * The tiny scenario moved to the region, collected at 11-03 06:00: on the nodes then, the managed m5.xlarge (on-demand)
 * and the spot c5.xlarge in zone b (spot 0.08 from 04:30, × the partition's scale).
 */

interface Run extends CollectedAccount {
  app: FastifyInstance;
  node(name: string): Promise<NodesResponse['rows'][number] | undefined>;
  status(): Promise<StatusResponse>;
}

const dir = mkdtempSync(join(tmpdir(), 'ledger-partitions-'));
const runs: Run[] = [];
afterAll(async () => {
  for (const r of runs) {
    await r.app.close();
    await r.served.close();
  }
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => vi.unstubAllEnvs());

async function collectIn(scenario: Scenario, opts: AccountOptions = {}): Promise<Run> {
  const collected = await collectAccount(scenario, dir, `${scenario.region}-${runs.length}`, (k, v) => vi.stubEnv(k, v), opts);
  const app = buildApp({ db: openDb({ path: collected.dbPath, readonly: true }), webRoot: join(dir, 'no-web'), now: () => AT });
  const get = async <R>(url: string): Promise<R> => {
    const res = await app.inject({ method: 'GET', url });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<R>();
  };
  const run: Run = {
    ...collected,
    app,
    node: async (n) => (await get<NodesResponse>(`/api/nodes?at=${new Date(AT).toISOString()}`)).rows.find((i) => i.name === n),
    status: () => get<StatusResponse>('/api/status'),
  };
  runs.push(run);
  return run;
}

describe.each([
  // region, on-demand prices of the region (public list prices; cn-north-1 and GovCloud from Karpenter's tables), spot scale,
  // Pricing endpoint, Cost Explorer endpoint, currency, m5.xlarge price
  ['us-east-1', { 'm5.large': 0.096, 'm5.xlarge': 0.192, 'c5.xlarge': 0.17 }, 1, ['us-east-1'], ['us-east-1'], 'USD', 0.192],
  ['eu-west-1', { 'm5.large': 0.107, 'm5.xlarge': 0.214, 'c5.xlarge': 0.192 }, 1, ['eu-central-1'], ['us-east-1'], 'USD', 0.214],
  ['ap-southeast-2', { 'm5.large': 0.12, 'm5.xlarge': 0.24, 'c5.xlarge': 0.222 }, 1, ['ap-south-1'], ['us-east-1'], 'USD', 0.24],
  ['cn-north-1', { 'm5.large': 1.013, 'm5.xlarge': 2.026, 'c5.xlarge': 1.479 }, 7.2, ['cn-northwest-1'], ['cn-northwest-1'], 'CNY', 2.026],
] as const)('a cluster in %s', (region, prices, spotScale, pricingAt, ceAt, currency, m5xlarge) => {
  let run: Run;
  beforeAll(async () => {
    run = await collectIn(inRegion(region, { ...prices }, spotScale));
  }, 120_000);

  it('asks each service where the partition answers, and the run succeeds', () => {
    expect(run.summary.failures).toEqual([]);
    expect(run.regions('pricing')).toEqual(pricingAt);
    expect(run.regions('ce')).toEqual(ceAt);
    expect(run.regions('ec2')).toEqual([region]);
  });

  it(`prices on-demand from the Pricing API and spot from the history, in ${currency}`, async () => {
    expect(await run.node(MANAGED)).toMatchObject({ usdPerHour: m5xlarge, priceSource: 'pricing-api', currency });
    expect(await run.node(SPOT)).toMatchObject({
      usdPerHour: Number((0.08 * spotScale).toFixed(6)),
      priceSource: 'spot-history',
      currency,
    });
  });

  it(`says ${currency} in the status, and reads the bill in it`, async () => {
    const status = await run.status();
    expect(status.pricing).toMatchObject({ currency, region, pricingEndpoint: pricingAt[0], pricingSkipped: null });
    expect(status.counts.costLines).toBeGreaterThan(0);
    const lines = await run.app.inject({ method: 'GET', url: '/api/bill/lines?from=2026-11-02&to=2026-11-03' });
    expect(lines.statusCode).toBe(200);
    const items = (lines.json() as { lines: { currency: string }[] }).lines;
    expect(items.length).toBeGreaterThan(0);
    expect(new Set(items.map((l) => l.currency))).toEqual(new Set([currency]));
  });
});

describe('a cluster in AWS GovCloud (us-gov-west-1)', () => {
  const gov = (): Scenario => inRegion('us-gov-west-1', { 'm5.large': 0.121, 'm5.xlarge': 0.242, 'c5.xlarge': 0.204 });
  let run: Run;
  beforeAll(async () => {
    run = await collectIn(gov());
  }, 120_000);

  it('makes no Pricing call, reads no bill without the standard account, and exits 0 (no failure)', () => {
    expect(run.summary.ok).toBe(true);
    expect(run.summary.failures).toEqual([]);
    expect(run.regions('pricing')).toEqual([]);
    expect(run.regions('ce')).toEqual([]);
    expect(run.regions('ec2')).toEqual(['us-gov-west-1']);
    expect(run.err.join('\n')).toMatch(/no Pricing API call in us-gov-west-1: AWS GovCloud \(US\) has no Pricing API/);
    expect(run.err.join('\n')).toMatch(/--billing-profile/);
  });

  it("prices on-demand nodes from Karpenter's GovCloud table, and says so", async () => {
    expect(await run.node(MANAGED)).toMatchObject({ usdPerHour: 0.242, priceSource: 'static-table (us-gov-west-1)', currency: 'USD' });
    expect(await run.node(SPOT)).toMatchObject({ usdPerHour: 0.08, priceSource: 'spot-history' });
    expect((await run.status()).pricing).toMatchObject({
      partition: 'aws-us-gov',
      pricingEndpoint: null,
      pricingSkipped: expect.stringMatching(/GovCloud/),
      staticTable: 'us-gov-west-1',
    });
  });

  it("reads the bill in the standard account's Cost Explorer (us-east-1) with --billing-profile", async () => {
    const profiles = join(dir, 'credentials');
    writeFileSync(profiles, '[standard]\naws_access_key_id = AKIDSTANDARDACCOUNT\naws_secret_access_key = standard-secret\n');
    writeFileSync(join(dir, 'config'), '[profile standard]\nregion = us-east-1\n');
    vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', profiles);
    vi.stubEnv('AWS_CONFIG_FILE', join(dir, 'config'));
    const billed = await collectIn(gov(), { billingProfile: 'standard', credentialPartitions: { AKIDSTANDARDACCOUNT: 'aws' } });
    expect(billed.summary.failures).toEqual([]);
    expect(billed.regions('ce')).toEqual(['us-east-1']);
    expect((await billed.status()).counts.costLines).toBeGreaterThan(0);
  }, 120_000);

  it('doctor says why no Pricing call is made, and where the bill is', async () => {
    vi.stubEnv('AWS_ENDPOINT_URL_EC2', run.served.url);
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDCLUSTERACCOUNT');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'partition-test-secret');
    const lines: string[] = [];
    await runDoctor(
      { cluster: 'tiny-cluster', region: 'us-gov-west-1', kubeconfig: join(dir, 'none') },
      { out: (l) => lines.push(l), now: () => AT },
    );
    const text = lines.join('\n');
    expect(text).toContain('partition aws-us-gov');
    expect(text).toMatch(
      /no Pricing API call in us-gov-west-1, so pricing:GetProducts is not needed: AWS GovCloud \(US\) has no Pricing API/,
    );
    expect(text).toMatch(/static table \(us-gov-west-1, USD\)/);
    expect(text).toMatch(/Cost Explorer not checked: a GovCloud account is billed through its associated standard AWS account/);
    expect(text).toMatch(/ec2:DescribeSpotPriceHistory allowed \(dry run in us-gov-west-1\)/);
  });
});

describe('issue 12 item 4: a price the Pricing API does not give comes from a static table, named', () => {
  const eu = (): Scenario => inRegion('eu-west-1', { 'm5.large': 0.107, 'm5.xlarge': 0.214, 'c5.xlarge': 0.192 });

  it("an instance type missing from the answer: the region has no table, so us-east-1's (as Karpenter)", async () => {
    const run = await collectIn(eu(), { pricing: { unlistedTypes: ['m5.xlarge'] } });
    expect(run.summary.failures).toEqual([]);
    expect(await run.node(MANAGED)).toMatchObject({ usdPerHour: 0.192, priceSource: 'static-table (us-east-1)', currency: 'USD' });
    // Explain this bill prices the node's hours on the untagged on-demand line the same way, and says so.
    const explained = await run.app.inject({
      method: 'GET',
      url: '/api/bill/explain?period=2026-11-02&nodepool=&dimension=On%20Demand%20Instances',
    });
    expect(explained.statusCode, explained.body).toBe(200);
    const claims = (explained.json() as { nodeClaims: { nodeName: string; priceSource: string; unitPriceUsdPerHour: number }[] })
      .nodeClaims;
    const managed = claims.find((c) => c.nodeName === MANAGED);
    expect(managed?.priceSource).toBe('static-table (us-east-1)');
    expect(managed?.unitPriceUsdPerHour).toBeCloseTo(0.192, 12);
  }, 120_000);

  it('Pricing denied: every on-demand node from the static table, the failure reported, the snapshot kept', async () => {
    const run = await collectIn(eu(), { faults: [{ match: 'GetProducts', status: 403, remaining: 10 }] });
    expect(run.summary.failures.join('\n')).toMatch(/prices .*AccessDeniedException/);
    expect(run.summary.snapshots).toBe(1);
    expect(await run.node(MANAGED)).toMatchObject({ usdPerHour: 0.192, priceSource: 'static-table (us-east-1)' });
    // A spot node's market is still priced by its own history.
    expect(await run.node(SPOT)).toMatchObject({ usdPerHour: 0.08, priceSource: 'spot-history' });
  }, 120_000);
});

describe('issue 12 item 6: markets EC2 files under Linux/UNIX (Amazon VPC)', () => {
  it('get their spot price, not the on-demand one', async () => {
    // An account from the EC2-Classic era: zone b's markets are filed under the VPC name.
    const run = await collectIn(inRegion('us-east-1', { 'm5.large': 0.096, 'm5.xlarge': 0.192, 'c5.xlarge': 0.17 }), {
      ec2: { amazonVpcZones: ['us-east-1b'] },
    });
    expect(await run.node(SPOT)).toMatchObject({ usdPerHour: 0.08, priceSource: 'spot-history' });
  }, 120_000);
});
