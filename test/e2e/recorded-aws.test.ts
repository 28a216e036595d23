import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PriceCollector } from '../../cli/price-collector.js';
import { checkCostAllocationTags, chooseClusterTag } from '../../collectors/cost-explorer/allocation-tags.js';
import { createCostExplorerClient } from '../../collectors/cost-explorer/client.js';
import { collectCostExplorer } from '../../collectors/cost-explorer/collect.js';
import { createPricingClient } from '../../collectors/pricing/client.js';
import { collectOnDemandPrices } from '../../collectors/pricing/collect.js';
import { createEc2Client } from '../../collectors/spot/client.js';
import type { NodeRecord } from '../../core/model.js';
import { ec2OtherUsage } from '../../core/ec2-other.js';
import { type Db, openDb } from '../../db/open-db.js';
import { createCostLinesRepository } from '../../db/repositories/cost-lines-repository.js';
import { createPricesRepository } from '../../db/repositories/prices-repository.js';
import {
  awsFixture,
  jsonAnswer,
  type RecordedEndpoint,
  type RecordedRequest,
  serveRecorded,
  xmlAnswer,
} from '../fixtures/recorded-endpoint.js';
import { useDummyAwsCredentials } from '../fixtures/serve-handlers.js';

/**
 * Every AWS API the collectors read, answered with recorded responses (test/fixtures/aws/, origin in each file)
 * through the real SDK clients and the collectors, on a loopback endpoint. What the recordings show that the sandbox
 * did not serve (an empty <nextToken/> ending a spot listing, rows of every product when none is asked for, metal
 * under dedicated tenancy) the sandbox now serves too.
 */

useDummyAwsCredentials();

let dir: string;
let db: Db;
let endpoint: RecordedEndpoint | undefined;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recorded-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
  db?.close();
});
const freshDb = (name: string): Db => (db = openDb({ path: join(dir, `${name}.db`) }));

describe('Pricing GetProducts (recorded: AWS CLI example page, then an m5.large item of 2021 with Reserved terms)', () => {
  const fixture = JSON.parse(awsFixture('pricing-get-products.json')) as {
    computeInstance: { NextToken?: string }[];
    bareMetal: unknown[];
  };
  const family = (r: RecordedRequest): string =>
    ((r.json?.Filters ?? []) as { Field: string; Value: string }[]).find((f) => f.Field === 'productFamily')?.Value ?? '';

  it('prices m5.large from the item though it has no regionCode, skips the Storage item and the Reserved terms, follows NextToken', async () => {
    endpoint = await serveRecorded((r) => {
      if (family(r) === 'Compute Instance (bare metal)') return jsonAnswer(fixture.bareMetal[0]);
      return jsonAnswer(
        r.json?.NextToken === fixture.computeInstance[0].NextToken ? fixture.computeInstance[1] : fixture.computeInstance[0],
      );
    });
    const pricing = createPricingClient({ endpoint: endpoint.url });
    const result = await collectOnDemandPrices({ db: freshDb('pricing'), pricing, region: 'us-east-1', now: 1 });
    pricing.destroy();
    // Two pages of compute instances (the token sent back as received), one of bare metal.
    expect(endpoint.requests.map((r) => [family(r), r.json?.NextToken ?? null])).toEqual([
      ['Compute Instance', null],
      ['Compute Instance', fixture.computeInstance[0].NextToken],
      ['Compute Instance (bare metal)', null],
    ]);
    expect(result).toMatchObject({ requests: 3, products: 2, prices: 1 });
    // 0.096 on demand; not the Reserved 0.06, 0.034 or 0.0 beside it.
    expect(createPricesRepository(db).onDemandPrice('us-east-1', 'm5.large')).toMatchObject({
      pricePerHour: 0.096,
      currency: 'USD',
      source: 'pricing-api',
    });
    // Karpenter's filters, bare metal under dedicated tenancy (aws/karpenter-provider-aws@v1.14.1 pkg/providers/pricing/pricing.go:230).
    const metal = endpoint.requests[2].json?.Filters as { Field: string; Value: string }[];
    expect(metal).toContainEqual({ Type: 'TERM_MATCH', Field: 'tenancy', Value: 'Dedicated' });
  });
});

describe('EC2 DescribeSpotPriceHistory (recorded XML)', () => {
  const spotNode = (name: string, instanceType: string, zone: string): NodeRecord => ({
    name,
    nodeClaim: null,
    nodePool: 'spot-batch',
    instanceType,
    capacityType: 'spot',
    zone,
    instanceId: null,
    createdAt: 0,
    allocatable: { cpuMillicores: 2000, memoryBytes: 4 * 2 ** 30, pods: 29, gpu: 0 },
    labels: {},
  });
  /** `collect`'s own path: PriceCollector fetches the markets of the spot nodes and quotes them. */
  async function quote(region: string, pages: string[], nodes: NodeRecord[], at: number) {
    let page = 0;
    endpoint = await serveRecorded(() => xmlAnswer(pages[Math.min(page++, pages.length - 1)]));
    const ec2 = createEc2Client({ region, endpoint: endpoint.url });
    const prices = new PriceCollector(freshDb(`spot-${region}`), region, null, { ec2 });
    await prices.ensureSpotMarkets({ nodes, nodePools: [] }, at);
    ec2.destroy();
    return nodes.map((n) => prices.quote(n, at));
  }

  it('asks for both Linux names, follows nextToken to the empty <nextToken/>, and never prices a Linux node at the Windows row (boto)', async () => {
    const at = Date.parse('2013-12-28T13:00:00Z');
    const [linux, windowsOnly] = await quote(
      'us-west-2',
      [awsFixture('ec2-spot-price-history-boto.xml'), awsFixture('ec2-spot-price-history-last-page.xml')],
      [spotNode('c', 'c3.large', 'us-west-2c'), spotNode('b', 'c3.large', 'us-west-2b')],
      at,
    );
    const req = endpoint?.requests ?? [];
    // The new market's day of history: two pages, each naming the type and the nodes' zones; no refresh right after.
    expect(
      req.map((r) => [
        r.form?.get('ProductDescription.1'),
        r.form?.get('ProductDescription.2'),
        r.form?.get('InstanceType.1'),
        r.form?.get('Filter.1.Name'),
        r.form?.getAll('Filter.1.Value.1').concat(r.form?.getAll('Filter.1.Value.2') ?? []),
        r.form?.get('MaxResults'),
        r.form?.get('NextToken'),
      ]),
    ).toEqual([
      ['Linux/UNIX', 'Linux/UNIX (Amazon VPC)', 'c3.large', 'availability-zone', ['us-west-2b', 'us-west-2c'], '2000', null],
      [
        'Linux/UNIX',
        'Linux/UNIX (Amazon VPC)',
        'c3.large',
        'availability-zone',
        ['us-west-2b', 'us-west-2c'],
        '2000',
        'q5GwEl5bMGjKq6YmhpDLJ7hEwyWU54jJC2GQ93n61vZV4s1+fzZ674xzvUlTihrl',
      ],
    ]);
    expect(linux).toEqual({ pricePerHour: 0.032, currency: 'USD', source: 'spot-history' });
    // Only a Windows (Amazon VPC) row in us-west-2b: the node is priced on demand (Karpenter's us-east-1 table), not 0.104.
    expect(windowsOnly).toEqual({ pricePerHour: 0.105, currency: 'USD', source: 'static-table (us-east-1)' });
  });

  it('prices from the Linux/UNIX (Amazon VPC) rows and lets no later SUSE row win (AWS CLI example)', async () => {
    const at = Date.parse('2014-01-06T07:30:00Z');
    const [c, a, b] = await quote(
      'us-west-1',
      [awsFixture('ec2-spot-price-history-cli.xml')],
      [spotNode('c', 'm1.xlarge', 'us-west-1c'), spotNode('a', 'm1.xlarge', 'us-west-1a'), spotNode('b', 'm1.xlarge', 'us-west-1b')],
      at,
    );
    // us-west-1c: Linux (Amazon VPC) 0.080 since 01-05 11:28, a SUSE Linux row 0.087 at 01-06 07:10 after it.
    expect(c).toMatchObject({ pricePerHour: 0.08, source: 'spot-history' });
    expect(a).toMatchObject({ pricePerHour: 0.08, source: 'spot-history' });
    // us-west-1b: SUSE only, so no spot price for a Linux node: on demand instead.
    expect(b.source).not.toBe('spot-history');
  });
});

describe('Cost Explorer (recorded shapes: grouped by tag and purchase type, paged, estimated; with resources; tags)', () => {
  const fixture = JSON.parse(awsFixture('cost-explorer.json')) as Record<string, { NextPageToken?: string }[]> & {
    listCostAllocationTags: unknown;
  };
  const NOW = Date.parse('2026-11-13T06:00:00Z');

  it('stores every line with its NodePool (untagged as ""), estimate flag and currency, pages merged', async () => {
    endpoint = await serveRecorded((r) => {
      if (r.operation === 'ListCostAllocationTags') return jsonAnswer(fixture.listCostAllocationTags);
      const groupBy = ((r.json?.GroupBy ?? []) as { Key: string }[])[1]?.Key;
      if (r.operation === 'GetCostAndUsageWithResources') return jsonAnswer(fixture.withResources[0]);
      if (groupBy === 'INSTANCE_TYPE') return jsonAnswer(fixture.instanceType[0]);
      if (groupBy === 'USAGE_TYPE') return jsonAnswer(fixture.ec2OtherUsageType[0]);
      const pages = fixture.purchaseType;
      return jsonAnswer(r.json?.NextPageToken === pages[0].NextPageToken ? pages[1] : pages[0]);
    });
    const ce = createCostExplorerClient({ endpoint: endpoint.url });
    const tags = await checkCostAllocationTags(ce, 'tiny-cluster');
    const choice = chooseClusterTag('tiny-cluster', tags);
    expect(choice).toMatchObject({ tag: { key: 'eks:eks-cluster-name', value: 'tiny-cluster' }, active: true });
    const result = await collectCostExplorer(
      { db: freshDb('ce'), ce, clusterName: 'tiny-cluster', now: NOW, clusterTag: choice.tag, resources: true, currency: 'USD' },
      { startMs: Date.parse('2026-11-12T00:00:00Z'), endMs: NOW },
    );
    ce.destroy();
    expect(result.queries.map((q) => [q.groupBy, q.requests])).toEqual([
      ['PURCHASE_TYPE', 2],
      ['INSTANCE_TYPE', 1],
      ['USAGE_TYPE', 1],
      ['RESOURCE_ID', 1],
    ]);
    // The EC2 - Other request: filtered to the service, grouped by the NodePool tag and usage type, all four cost metrics.
    const otherRequest = endpoint.requests.find((r) => ((r.json?.GroupBy ?? []) as { Key: string }[])[1]?.Key === 'USAGE_TYPE');
    expect(otherRequest?.json).toMatchObject({
      Metrics: ['UnblendedCost', 'AmortizedCost', 'NetUnblendedCost', 'NetAmortizedCost', 'UsageQuantity'],
      Filter: { And: [{ Tags: { Key: 'eks:eks-cluster-name' } }, { Dimensions: { Key: 'SERVICE', Values: ['EC2 - Other'] } }] },
    });
    const other = createCostLinesRepository(db).listCostLines({
      source: 'cost-explorer',
      granularity: 'DAILY',
      groupBy: 'USAGE_TYPE',
      fromMs: 0,
      toMs: NOW + 86_400_000,
    });
    expect(
      other.map((l) => [
        l.periodStart,
        l.nodePool,
        ec2OtherUsage(l.dimensionValue).group,
        l.unblendedUsd,
        l.netUnblendedUsd,
        l.usageUnit,
        l.estimated,
      ]),
    ).toEqual([
      ['2026-11-12', '', 'EC2: EBS - SSD(gp3)', 0.0533333333, 0.0506666667, 'GB-Mo', false],
      ['2026-11-12', 'general', 'EC2: Data Transfer - Inter AZ', 0.0061, 0.005795, 'GB', false],
      ['2026-11-12', 'general', 'EC2: EBS - Snapshots', 0.0016666667, 0.0015833333, 'GB-Mo', false],
      ['2026-11-12', 'general', 'EC2: EBS - SSD(gp3)', 0.0222222222, 0.0211111111, 'GB-Mo', false],
      ['2026-11-13', '', 'EC2: EBS - SSD(gp3)', 0.0533333333, 0.0506666667, 'GB-Mo', true],
    ]);
    const lines = createCostLinesRepository(db).listCostLines({
      source: 'cost-explorer',
      granularity: 'DAILY',
      groupBy: 'PURCHASE_TYPE',
      fromMs: 0,
      toMs: NOW + 86_400_000,
    });
    expect(lines.map((l) => [l.periodStart, l.nodePool, l.dimensionValue, l.unblendedUsd, l.estimated, l.currency])).toEqual([
      ['2026-11-12', '', 'On Demand Instances', 4.608, false, 'USD'],
      ['2026-11-12', 'general', 'On Demand Instances', 0.96, false, 'USD'],
      ['2026-11-13', '', 'On Demand Instances', 4.608, true, 'USD'],
      ['2026-11-13', 'spot-batch', 'Spot Instances', 0.87, true, 'USD'],
    ]);
    const perInstance = createCostLinesRepository(db).listCostLines({
      source: 'cost-explorer',
      granularity: 'DAILY',
      groupBy: 'RESOURCE_ID',
      fromMs: 0,
      toMs: NOW + 86_400_000,
    });
    expect(perInstance.map((l) => [l.nodePool, l.dimensionValue])).toEqual([
      ['', 'i-0000000000000000c'],
      ['general', 'i-0000000000000000a'],
    ]);
  });

  it('refuses a bill in another currency than the cluster is priced in, storing nothing', async () => {
    endpoint = await serveRecorded((r) => {
      const groupBy = ((r.json?.GroupBy ?? []) as { Key: string }[])[1]?.Key;
      return jsonAnswer(groupBy === 'INSTANCE_TYPE' ? fixture.instanceType[0] : fixture.purchaseType[1]);
    });
    const ce = createCostExplorerClient({ endpoint: endpoint.url });
    await expect(
      collectCostExplorer(
        { db: freshDb('ce-cny'), ce, clusterName: 'tiny-cluster', now: NOW, currency: 'CNY' },
        { startMs: Date.parse('2026-11-13T00:00:00Z'), endMs: NOW },
      ),
    ).rejects.toThrow("Cost Explorer answered in USD, but the cluster's prices are in CNY");
    ce.destroy();
    expect(createPricesRepository(db).storedCurrencies()).toEqual([]);
  });
});
