import {
  CostExplorerClient,
  type Expression,
  GetCostAndUsageCommand,
  type GetCostAndUsageCommandOutput,
  GetCostAndUsageWithResourcesCommand,
  ListCostAllocationTagsCommand,
} from '@aws-sdk/client-cost-explorer';
import { DescribeSpotPriceHistoryCommand, EC2Client } from '@aws-sdk/client-ec2';
import { DescribeServicesCommand, type Filter, GetProductsCommand, PricingClient } from '@aws-sdk/client-pricing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newContext, serveHandlers, type ServedHandlers, useDummyAwsCredentials } from '../../test/fixtures/serve-handlers.js';
import { T, TINY_END, tinyScenario } from '../../test/fixtures/tiny-scenario.js';
import { createCostExplorerHandler } from './cost-explorer.js';
import { ec2Handler } from './ec2.js';
import { pricingHandler } from './pricing.js';

useDummyAwsCredentials();

const CLUSTER_AND_COMPUTE: Expression = {
  And: [
    { Tags: { Key: 'eks:eks-cluster-name', Values: ['tiny-cluster'] } },
    { Dimensions: { Key: 'SERVICE', Values: ['Amazon Elastic Compute Cloud - Compute'] } },
  ],
};

describe('Cost Explorer adapter through the real SDK', () => {
  let served: ServedHandlers;
  let ce: CostExplorerClient;

  beforeAll(async () => {
    served = await serveHandlers([createCostExplorerHandler({ pageSize: 5 })], newContext(tinyScenario(), TINY_END));
    ce = new CostExplorerClient({ region: 'us-east-1', endpoint: served.url, maxAttempts: 1 });
  });
  afterAll(async () => {
    ce.destroy();
    await served.close();
  });

  const allPages = async (input: ConstructorParameters<typeof GetCostAndUsageCommand>[0]): Promise<GetCostAndUsageCommandOutput[]> => {
    const pages: GetCostAndUsageCommandOutput[] = [];
    let token: string | undefined;
    do {
      const page = await ce.send(new GetCostAndUsageCommand({ ...input, NextPageToken: token }));
      pages.push(page);
      token = page.NextPageToken;
    } while (token);
    return pages;
  };

  it('groups by NodePool tag x purchase type with key$value keys, the untagged key, Estimated, and pages', async () => {
    const pages = await allPages({
      TimePeriod: { Start: '2026-11-01', End: '2026-11-15' },
      Granularity: 'DAILY',
      Metrics: ['UnblendedCost', 'AmortizedCost', 'UsageQuantity'],
      Filter: CLUSTER_AND_COMPUTE,
      GroupBy: [
        { Type: 'TAG', Key: 'karpenter.sh/nodepool' },
        { Type: 'DIMENSION', Key: 'PURCHASE_TYPE' },
      ],
    });
    // 14 days of the untagged node + general on 11-02 + spot-batch on 11-03 = 16 slots, 5 per page.
    expect(pages).toHaveLength(4);
    const results = pages.flatMap((p) => p.ResultsByTime ?? []);
    const day2 = results.filter((r) => r.TimePeriod?.Start === '2026-11-02').flatMap((r) => r.Groups ?? []);
    expect(day2.map((g) => g.Keys)).toEqual([
      ['karpenter.sh/nodepool$', 'On Demand Instances'],
      ['karpenter.sh/nodepool$general', 'On Demand Instances'],
    ]);
    expect(day2[1].Metrics?.UnblendedCost).toEqual({ Amount: '0.96', Unit: 'USD' });
    expect(day2[1].Metrics?.UsageQuantity).toEqual({ Amount: '10', Unit: 'Hrs' });
    // The Compute Savings Plan (USD 0.10/h at 28 % off: volumes-savings-plan.ts) covers the hour's on-demand usage in
    // instance-id order. general's m5.large (0.096/h, 06:30-16:30) comes first: fully covered, amortized 0.96 x 0.72.
    // The untagged m5.xlarge (0.192/h) gets the rest: 13 h alone (0.10 of commitment), 9 h beside a whole general hour
    // (0.10 - 0.06912), 2 half hours beside half a general hour (0.10 - 0.03456); savings = commitment used / 0.72 x 0.28.
    const saved = ((13 * 0.1 + 9 * (0.1 - 0.06912) + 2 * (0.1 - 0.03456)) / 0.72) * 0.28;
    expect(Number(day2[0].Metrics?.AmortizedCost?.Amount)).toBeCloseTo(4.608 - saved, 9);
    expect(Number(day2[1].Metrics?.AmortizedCost?.Amount)).toBeCloseTo(0.96 * 0.72, 9);
    const day3 = results.filter((r) => r.TimePeriod?.Start === '2026-11-03').flatMap((r) => r.Groups ?? []);
    expect(day3.find((g) => g.Keys?.[0] === 'karpenter.sh/nodepool$spot-batch')).toMatchObject({
      Keys: ['karpenter.sh/nodepool$spot-batch', 'Spot Instances'],
      Metrics: { UnblendedCost: { Amount: '0.87', Unit: 'USD' } },
    });
    expect(results.every((r) => JSON.stringify(r.Total) === '{}')).toBe(true);
    const estimated = (day: string): boolean | undefined => results.find((r) => r.TimePeriod?.Start === day)?.Estimated;
    expect([estimated('2026-11-12'), estimated('2026-11-13'), estimated('2026-11-14')]).toEqual([false, true, true]);
    expect(pages[0].GroupDefinitions).toEqual([
      { Type: 'TAG', Key: 'karpenter.sh/nodepool' },
      { Type: 'DIMENSION', Key: 'PURCHASE_TYPE' },
    ]);
  });

  it('filters untagged usage with ABSENT and returns Total when ungrouped', async () => {
    const out = await ce.send(
      new GetCostAndUsageCommand({
        TimePeriod: { Start: '2026-11-01', End: '2026-11-03' },
        Granularity: 'DAILY',
        Metrics: ['UnblendedCost'],
        // Compute only: the untagged node's volume and traffic are EC2 - Other.
        Filter: {
          And: [
            { Tags: { Key: 'karpenter.sh/nodepool', MatchOptions: ['ABSENT'] } },
            { Dimensions: { Key: 'SERVICE', Values: ['Amazon Elastic Compute Cloud - Compute'] } },
          ],
        },
      }),
    );
    expect(out.ResultsByTime?.map((r) => [r.TimePeriod?.Start, r.Total?.UnblendedCost?.Amount, r.Groups])).toEqual([
      ['2026-11-01', '4.608', []],
      ['2026-11-02', '4.608', []],
    ]);
  });

  it('answers HOURLY with date-time periods for the last 14 days and refuses older ones', async () => {
    const out = await ce.send(
      new GetCostAndUsageCommand({
        TimePeriod: { Start: '2026-11-03T04:00:00Z', End: '2026-11-03T06:00:00Z' },
        Granularity: 'HOURLY',
        Metrics: ['UnblendedCost'],
        Filter: {
          And: [
            { Tags: { Key: 'karpenter.sh/nodepool', Values: ['spot-batch'] } },
            { Dimensions: { Key: 'SERVICE', Values: ['Amazon Elastic Compute Cloud - Compute'] } },
          ],
        },
      }),
    );
    expect(out.ResultsByTime?.map((r) => [r.TimePeriod?.Start, r.TimePeriod?.End, r.Total?.UnblendedCost?.Amount])).toEqual([
      ['2026-11-03T04:00:00Z', '2026-11-03T05:00:00Z', '0.075'],
      ['2026-11-03T05:00:00Z', '2026-11-03T06:00:00Z', '0.08'],
    ]);
    await expect(
      ce.send(
        new GetCostAndUsageCommand({
          TimePeriod: { Start: '2026-10-20T00:00:00Z', End: '2026-10-21T00:00:00Z' },
          Granularity: 'HOURLY',
          Metrics: ['UnblendedCost'],
        }),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException', $metadata: { httpStatusCode: 400 } });
  });

  it.each([
    [
      'three GroupBy',
      {
        GroupBy: [
          { Type: 'DIMENSION', Key: 'AZ' },
          { Type: 'DIMENSION', Key: 'INSTANCE_TYPE' },
          { Type: 'DIMENSION', Key: 'PURCHASE_TYPE' },
        ],
      },
    ],
    ['a bad date', { TimePeriod: { Start: '2026-11-31', End: '2026-12-02' } }],
    ['End before Start', { TimePeriod: { Start: '2026-11-05', End: '2026-11-04' } }],
    ['a one-operand And', { Filter: { And: [{ Dimensions: { Key: 'SERVICE', Values: ['x'] } }] } }],
    ['RESOURCE_ID without resources', { GroupBy: [{ Type: 'DIMENSION', Key: 'RESOURCE_ID' }] }],
  ] as const)('answers ValidationException for %s', async (_name, change) => {
    await expect(
      ce.send(
        new GetCostAndUsageCommand({
          TimePeriod: { Start: '2026-11-01', End: '2026-11-02' },
          Granularity: 'DAILY',
          Metrics: ['UnblendedCost'],
          ...change,
        } as ConstructorParameters<typeof GetCostAndUsageCommand>[0]),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('gives per-instance lines with resources, only with the EC2 compute filter and within 14 days', async () => {
    const out = await ce.send(
      new GetCostAndUsageWithResourcesCommand({
        TimePeriod: { Start: '2026-11-03', End: '2026-11-04' },
        Granularity: 'DAILY',
        Metrics: ['UnblendedCost'],
        Filter: CLUSTER_AND_COMPUTE,
        GroupBy: [{ Type: 'DIMENSION', Key: 'RESOURCE_ID' }],
      }),
    );
    expect(out.ResultsByTime?.[0].Groups?.map((g) => [g.Keys?.[0], g.Metrics?.UnblendedCost?.Amount])).toEqual([
      ['i-0000000000000000b', '0.87'],
      ['i-0000000000000000c', '4.608'],
    ]);
    await expect(
      ce.send(
        new GetCostAndUsageWithResourcesCommand({
          TimePeriod: { Start: '2026-11-03', End: '2026-11-04' },
          Granularity: 'DAILY',
          Metrics: ['UnblendedCost'],
          Filter: { Tags: { Key: 'eks:eks-cluster-name', Values: ['tiny-cluster'] } },
          GroupBy: [{ Type: 'DIMENSION', Key: 'RESOURCE_ID' }],
        }),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('lists the Karpenter and cluster cost allocation tags as active', async () => {
    const out = await ce.send(new ListCostAllocationTagsCommand({ Status: 'Active' }));
    expect(out.CostAllocationTags?.map((t) => [t.TagKey, t.Type, t.Status])).toEqual([
      ['karpenter.sh/nodepool', 'UserDefined', 'Active'],
      ['karpenter.sh/nodeclaim', 'UserDefined', 'Active'],
      ['karpenter.k8s.aws/ec2nodeclass', 'UserDefined', 'Active'],
      ['eks:eks-cluster-name', 'UserDefined', 'Active'],
      ['kubernetes.io/cluster/tiny-cluster', 'UserDefined', 'Active'],
    ]);
    expect(out.CostAllocationTags?.[0].LastUsedDate).toBe('2026-11-01T00:00:00Z');
  });

  it('honours injected faults in the awsJson error shape and logs every request', async () => {
    const before = served.ctx.requestLog.length;
    served.ctx.faults.push(
      { match: 'GetCostAndUsage', status: 400, remaining: 1 },
      { match: 'ListCostAllocationTags', status: 503, remaining: 1 },
    );
    const input = { TimePeriod: { Start: '2026-11-01', End: '2026-11-02' }, Granularity: 'DAILY' as const, Metrics: ['UnblendedCost'] };
    await expect(ce.send(new GetCostAndUsageCommand(input))).rejects.toMatchObject({
      name: 'ThrottlingException',
      $metadata: { httpStatusCode: 400 },
    });
    await expect(ce.send(new ListCostAllocationTagsCommand({}))).rejects.toMatchObject({ $metadata: { httpStatusCode: 503 } });
    // The default client retries a throttled call by itself.
    served.ctx.faults.push({ match: 'GetCostAndUsage', status: 400, remaining: 1 });
    const retrying = new CostExplorerClient({ region: 'us-east-1', endpoint: served.url });
    await expect(retrying.send(new GetCostAndUsageCommand(input))).resolves.toBeDefined();
    retrying.destroy();
    expect(served.ctx.requestLog.slice(before).map((r) => r.operation)).toEqual([
      'ce:GetCostAndUsage',
      'ce:ListCostAllocationTags',
      'ce:GetCostAndUsage',
      'ce:GetCostAndUsage',
    ]);
    expect(served.ctx.requestLog.at(-1)?.at).toBe(T('2026-11-15T00:00:00Z'));
  });
});

describe('Cost Explorer serving paged queries at once, each on its own (collect --clusters runs a few concurrently)', () => {
  let served: ServedHandlers;
  let ce: CostExplorerClient;
  /** Evaluations of the bill the adapter made, by the query's grouping. */
  const evaluations: Record<string, number> = {};

  beforeAll(async () => {
    const handler = createCostExplorerHandler({
      pageSize: 5,
      onEvaluate: (input) => {
        const k = JSON.stringify(input.GroupBy);
        evaluations[k] = (evaluations[k] ?? 0) + 1;
      },
    });
    served = await serveHandlers([handler], newContext(tinyScenario(), TINY_END));
    ce = new CostExplorerClient({ region: 'us-east-1', endpoint: served.url, maxAttempts: 1 });
  });
  afterAll(async () => {
    ce.destroy();
    await served.close();
  });

  const BY_POOL_AND_TYPE = [
    { Type: 'TAG' as const, Key: 'karpenter.sh/nodepool' },
    { Type: 'DIMENSION' as const, Key: 'PURCHASE_TYPE' },
  ];
  const BY_INSTANCE_TYPE = [{ Type: 'DIMENSION' as const, Key: 'INSTANCE_TYPE' }];
  const input = (groupBy: typeof BY_POOL_AND_TYPE | typeof BY_INSTANCE_TYPE, token?: string) =>
    new GetCostAndUsageCommand({
      TimePeriod: { Start: '2026-11-01', End: '2026-11-15' },
      Granularity: 'DAILY',
      Metrics: ['UnblendedCost'],
      Filter: CLUSTER_AND_COMPUTE,
      GroupBy: groupBy,
      NextPageToken: token,
    });
  /** Day, keys and amount of every group of the pages, in order. */
  const linesOf = (pages: GetCostAndUsageCommandOutput[]): string[] =>
    pages.flatMap((p) =>
      (p.ResultsByTime ?? []).flatMap((r) =>
        (r.Groups ?? []).map((g) => `${r.TimePeriod?.Start} ${(g.Keys ?? []).join('|')} ${g.Metrics?.UnblendedCost?.Amount}`),
      ),
    );
  /** Σ of the lines' amounts (each the last word) in cents, to a thousandth of a cent. */
  const cents = (lines: string[]): number => lines.reduce((s, l) => s + Math.round(Number(l.split(' ').at(-1)) * 100_000), 0) / 1000;

  it('answers two paged sequences interleaved page by page, each cut from its own evaluation, as each alone', async () => {
    const a: GetCostAndUsageCommandOutput[] = [];
    const b: GetCostAndUsageCommandOutput[] = [];
    let ta: string | undefined;
    let tb: string | undefined;
    // A1 B1 A2 B2 ...: each page asked while the other query's sequence is open.
    do {
      if (a.length === 0 || ta !== undefined) {
        const page = await ce.send(input(BY_POOL_AND_TYPE, ta));
        a.push(page);
        ta = page.NextPageToken;
      }
      if (b.length === 0 || tb !== undefined) {
        const page = await ce.send(input(BY_INSTANCE_TYPE, tb));
        b.push(page);
        tb = page.NextPageToken;
      }
    } while (ta !== undefined || tb !== undefined);
    // Each 16 slots at 5 a page: the untagged m5.xlarge 14 days, general's m5.large on 11-02, spot-batch's c5.xlarge
    // on 11-03 (a group each, whichever the grouping).
    expect([a.length, b.length]).toEqual([4, 4]);
    const la = linesOf(a);
    const lb = linesOf(b);
    expect([la.length, lb.length]).toEqual([16, 16]);
    expect(la).toContain('2026-11-02 karpenter.sh/nodepool$general|On Demand Instances 0.96');
    expect(lb).toContain('2026-11-02 m5.large 0.96');
    expect(lb).toContain('2026-11-03 c5.xlarge 0.87');
    expect(lb.filter((l) => l.includes(' m5.xlarge 4.608'))).toHaveLength(14);
    // Both the whole compute bill: 14 x 4.608 + 0.96 + 0.87 = 66.342 USD, 6634.2 cents.
    expect([cents(la), cents(lb)]).toEqual([6634.2, 6634.2]);
    // One evaluation per query: its later pages were cut from it though the other query came between them.
    expect(evaluations).toEqual({ [JSON.stringify(BY_POOL_AND_TYPE)]: 1, [JSON.stringify(BY_INSTANCE_TYPE)]: 1 });

    // The same two sequences at once (no order between their requests), then each alone: the same groups.
    const all = async (groupBy: typeof BY_POOL_AND_TYPE | typeof BY_INSTANCE_TYPE): Promise<GetCostAndUsageCommandOutput[]> => {
      const pages: GetCostAndUsageCommandOutput[] = [];
      let token: string | undefined;
      do {
        const page = await ce.send(input(groupBy, token));
        pages.push(page);
        token = page.NextPageToken;
      } while (token);
      return pages;
    };
    const [ca, cb] = await Promise.all([all(BY_POOL_AND_TYPE), all(BY_INSTANCE_TYPE)]);
    expect([linesOf(ca), linesOf(cb)]).toEqual([la, lb]);
    expect([linesOf(await all(BY_POOL_AND_TYPE)), linesOf(await all(BY_INSTANCE_TYPE))]).toEqual([la, lb]);
    // A token continues only the query that issued it.
    const first = await ce.send(input(BY_INSTANCE_TYPE));
    await expect(ce.send(input(BY_POOL_AND_TYPE, first.NextPageToken))).rejects.toMatchObject({ name: 'RequestChangedException' });
  });
});

describe('Cost Explorer with the NodePool tag not activated', () => {
  it('puts every cost under the untagged key', async () => {
    const served = await serveHandlers(
      [createCostExplorerHandler({ inactiveTags: ['karpenter.sh/nodepool'] })],
      newContext(tinyScenario(), TINY_END),
    );
    const ce = new CostExplorerClient({ region: 'us-east-1', endpoint: served.url });
    const out = await ce.send(
      new GetCostAndUsageCommand({
        TimePeriod: { Start: '2026-11-02', End: '2026-11-04' },
        Granularity: 'DAILY',
        Metrics: ['UnblendedCost'],
        Filter: CLUSTER_AND_COMPUTE,
        GroupBy: [{ Type: 'TAG', Key: 'karpenter.sh/nodepool' }],
      }),
    );
    expect(out.ResultsByTime?.map((r) => r.Groups?.map((g) => [g.Keys?.[0], g.Metrics?.UnblendedCost?.Amount]))).toEqual([
      [['karpenter.sh/nodepool$', '5.568']],
      [['karpenter.sh/nodepool$', '5.478']],
    ]);
    ce.destroy();
    await served.close();
  });
});

const KARPENTER_FILTERS: Filter[] = [
  ['regionCode', 'us-east-1'],
  ['serviceCode', 'AmazonEC2'],
  ['preInstalledSw', 'NA'],
  ['operatingSystem', 'Linux'],
  ['capacitystatus', 'Used'],
  ['marketoption', 'OnDemand'],
  ['tenancy', 'Shared'],
  ['productFamily', 'Compute Instance'],
].map(([Field, Value]) => ({ Type: 'TERM_MATCH', Field, Value }));

interface PriceDimension {
  unit: string;
  pricePerUnit: { USD: string };
}
interface ProductDoc {
  product: { sku: string; productFamily: string; attributes: Record<string, string> };
  terms: {
    OnDemand: Record<string, { offerTermCode: string; priceDimensions: Record<string, PriceDimension> }>;
    Reserved?: Record<string, unknown>;
  };
}

/** The SDK types PriceList as a list of JSON strings (boxed at run time). */
const priceList = (list: unknown): unknown[] => (Array.isArray(list) ? (list as unknown[]) : []);

describe('Pricing adapter through the real SDK', () => {
  let served: ServedHandlers;
  let pricing: PricingClient;

  beforeAll(async () => {
    served = await serveHandlers([createCostExplorerHandler(), pricingHandler], newContext(tinyScenario(), TINY_END));
    pricing = new PricingClient({ region: 'us-east-1', endpoint: served.url, maxAttempts: 1 });
  });
  afterAll(async () => {
    pricing.destroy();
    await served.close();
  });

  const products = async (filters: Filter[], maxResults?: number) => {
    const out = await pricing.send(new GetProductsCommand({ ServiceCode: 'AmazonEC2', Filters: filters, MaxResults: maxResults }));
    return { docs: priceList(out.PriceList).map((p) => JSON.parse(String(p)) as ProductDoc), next: out.NextToken };
  };

  it('answers PriceList as JSON strings shaped like the real documents', async () => {
    const { docs } = await products([...KARPENTER_FILTERS, { Type: 'TERM_MATCH', Field: 'instanceType', Value: 'm5.large' }]);
    expect(docs).toHaveLength(1);
    const [doc] = docs;
    expect(doc.product.attributes).toMatchObject({
      instanceType: 'm5.large',
      vcpu: '2',
      memory: '8 GiB',
      regionCode: 'us-east-1',
      location: 'US East (N. Virginia)',
      operatingSystem: 'Linux',
      tenancy: 'Shared',
      preInstalledSw: 'NA',
      capacitystatus: 'Used',
      marketoption: 'OnDemand',
    });
    const sku = doc.product.sku;
    expect(sku).toMatch(/^[A-Z0-9]{16}$/);
    expect(doc.terms.OnDemand[`${sku}.JRTCKXETXF`].priceDimensions[`${sku}.JRTCKXETXF.6YS6EN2CT7`]).toMatchObject({
      unit: 'Hrs',
      pricePerUnit: { USD: '0.0960000000' },
    });
  });

  it('lists Reserved terms beside OnDemand for some products, with a different hourly price', async () => {
    const { docs } = await products(KARPENTER_FILTERS, 100);
    const withReserved = docs.filter((d) => d.terms.Reserved !== undefined);
    expect(withReserved.length).toBeGreaterThan(0);
    expect(withReserved.length).toBeLessThan(docs.length);
    const doc = withReserved[0];
    const sku = doc.product.sku;
    const reserved = doc.terms.Reserved?.[`${sku}.4NA7Y494T4`] as {
      termAttributes: Record<string, string>;
      priceDimensions: Record<string, PriceDimension>;
    };
    expect(reserved.termAttributes.PurchaseOption).toBe('No Upfront');
    const reservedUsd = reserved.priceDimensions[`${sku}.4NA7Y494T4.6YS6EN2CT7`].pricePerUnit.USD;
    const onDemandUsd = doc.terms.OnDemand[`${sku}.JRTCKXETXF`].priceDimensions[`${sku}.JRTCKXETXF.6YS6EN2CT7`].pricePerUnit.USD;
    expect(Number(reservedUsd)).toBeLessThan(Number(onDemandUsd));
  });

  it('matches filter fields and TERM_MATCH values whatever their case; a loose filter catches the neighbours', async () => {
    const loose = await products([
      { Type: 'TERM_MATCH', Field: 'InstanceType', Value: 'm5.large' },
      { Type: 'TERM_MATCH', Field: 'location', Value: 'US East (N. Virginia)' },
    ]);
    expect(
      loose.docs
        .map(
          (d) =>
            `${d.product.attributes.operatingSystem}/${d.product.attributes.tenancy}/${d.product.attributes.capacitystatus}/${d.product.attributes.preInstalledSw}`,
        )
        .sort(),
    ).toEqual([
      'Linux/Dedicated/Used/NA',
      'Linux/Shared/AllocatedCapacityReservation/NA',
      'Linux/Shared/UnusedCapacityReservation/NA',
      'Linux/Shared/Used/NA',
      'Linux/Shared/Used/SQL Web',
      'Windows/Shared/Used/NA',
    ]);
    // Bare metal is listed under dedicated tenancy, as Karpenter's bare-metal query (tenancy Dedicated) expects.
    const metal = await products([
      { Type: 'TERM_MATCH', Field: 'instanceType', Value: 'm5.metal' },
      { Type: 'TERM_MATCH', Field: 'tenancy', Value: 'dedicated' },
      { Type: 'TERM_MATCH', Field: 'CapacityStatus', Value: 'used' },
      { Type: 'TERM_MATCH', Field: 'operatingSystem', Value: 'Linux' },
      { Type: 'TERM_MATCH', Field: 'preInstalledSw', Value: 'NA' },
    ]);
    expect(metal.docs.map((d) => d.product.productFamily)).toEqual(['Compute Instance (bare metal)']);
  });

  it('pages with MaxResults and NextToken, and refuses a token from another query', async () => {
    const first = await products(KARPENTER_FILTERS, 7);
    expect(first.docs).toHaveLength(7);
    expect(first.next).toBeDefined();
    const second = await pricing.send(
      new GetProductsCommand({ ServiceCode: 'AmazonEC2', Filters: KARPENTER_FILTERS, MaxResults: 7, NextToken: first.next }),
    );
    const types = (xs: unknown[]) => xs.map((p) => (JSON.parse(String(p)) as ProductDoc).product.attributes.instanceType);
    expect(types(priceList(second.PriceList))).not.toEqual(first.docs.map((d) => d.product.attributes.instanceType));
    await expect(
      pricing.send(new GetProductsCommand({ ServiceCode: 'AmazonEC2', Filters: [], NextToken: first.next })),
    ).rejects.toMatchObject({ name: 'InvalidNextTokenException' });
    await expect(pricing.send(new GetProductsCommand({ ServiceCode: 'AmazonEC2', MaxResults: 101 }))).rejects.toMatchObject({
      name: 'InvalidParameterException',
    });
  });

  it('describes the AmazonEC2 service, and leaves Cost Explorer requests to the Cost Explorer adapter', async () => {
    const out = await pricing.send(new DescribeServicesCommand({ ServiceCode: 'AmazonEC2' }));
    expect(out.Services?.[0].AttributeNames).toContain('capacitystatus');
    expect(served.ctx.requestLog.map((r) => r.operation).every((o) => o.startsWith('pricing:'))).toBe(true);
  });
});

describe('EC2 spot price history through the real SDK', () => {
  let served: ServedHandlers;
  let ec2: EC2Client;

  beforeAll(async () => {
    served = await serveHandlers([createCostExplorerHandler(), pricingHandler, ec2Handler], newContext(tinyScenario(), TINY_END));
    ec2 = new EC2Client({ region: 'us-east-1', endpoint: served.url, maxAttempts: 1 });
  });
  afterAll(async () => {
    ec2.destroy();
    await served.close();
  });

  const window = {
    InstanceTypes: ['c5.xlarge' as const],
    ProductDescriptions: ['Linux/UNIX'],
    StartTime: new Date('2026-11-03T00:00:00Z'),
    EndTime: new Date('2026-11-03T12:00:00Z'),
  };
  const row = (p: { Timestamp?: Date; AvailabilityZone?: string; SpotPrice?: string }) => [
    p.Timestamp?.toISOString(),
    p.AvailabilityZone,
    p.SpotPrice,
  ];

  it('gives, per zone, the price in effect at StartTime and the changes in the window, newest first, in pages', async () => {
    const pages: (string | undefined)[][][] = [];
    let token: string | undefined;
    do {
      const out = await ec2.send(new DescribeSpotPriceHistoryCommand({ ...window, MaxResults: 2, NextToken: token }));
      pages.push((out.SpotPriceHistory ?? []).map(row));
      token = out.NextToken;
    } while (token);
    expect(pages).toEqual([
      [
        ['2026-11-03T09:00:00.000Z', 'us-east-1b', '0.065000'],
        ['2026-11-03T04:30:00.000Z', 'us-east-1b', '0.080000'],
      ],
      [
        ['2026-11-01T00:00:00.000Z', 'us-east-1a', '0.071000'],
        ['2026-11-01T00:00:00.000Z', 'us-east-1b', '0.070000'],
      ],
      [['2026-11-01T00:00:00.000Z', 'us-east-1c', '0.069000']],
    ]);
  });

  it('shows nothing after now, filters by zone, and answers the XML shape EC2 uses', async () => {
    served.ctx.clock.set(Date.parse('2026-11-03T06:00:00Z'));
    const out = await ec2.send(new DescribeSpotPriceHistoryCommand({ ...window, AvailabilityZone: 'us-east-1b' }));
    expect((out.SpotPriceHistory ?? []).map(row)).toEqual([
      ['2026-11-03T04:30:00.000Z', 'us-east-1b', '0.080000'],
      ['2026-11-01T00:00:00.000Z', 'us-east-1b', '0.070000'],
    ]);
    expect(out.SpotPriceHistory?.[0]).toMatchObject({ InstanceType: 'c5.xlarge', ProductDescription: 'Linux/UNIX' });
    const raw = await fetch(served.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body: 'Action=DescribeSpotPriceHistory&Version=2016-11-15&InstanceType.1=c5.xlarge&ProductDescription.1=Linux%2FUNIX&AvailabilityZone=us-east-1a&StartTime=2026-11-03T00%3A00%3A00Z',
    });
    const text = await raw.text();
    expect(text).toMatch(
      /<DescribeSpotPriceHistoryResponse xmlns="http:\/\/ec2\.amazonaws\.com\/doc\/2016-11-15\/"><requestId>[0-9a-f-]{36}<\/requestId><spotPriceHistorySet><item><instanceType>c5\.xlarge<\/instanceType><productDescription>Linux\/UNIX<\/productDescription><spotPrice>0\.071000<\/spotPrice><timestamp>2026-11-01T00:00:00\.000Z<\/timestamp><availabilityZone>us-east-1a<\/availabilityZone><\/item><\/spotPriceHistorySet><nextToken\/><\/DescribeSpotPriceHistoryResponse>$/,
    );
    served.ctx.clock.set(TINY_END);
  });

  it('throttles in the EC2 XML error shape', async () => {
    served.ctx.faults.push({ match: 'DescribeSpotPriceHistory', status: 503, remaining: 1 });
    await expect(ec2.send(new DescribeSpotPriceHistoryCommand(window))).rejects.toMatchObject({
      name: 'RequestLimitExceeded',
      $metadata: { httpStatusCode: 503 },
    });
    const bad = await fetch(served.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'Action=DescribeSpotPriceHistory&Version=2016-11-15&StartTime=2026-11-05T00:00:00Z&EndTime=2026-11-04T00:00:00Z',
    });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(
      /<Response><Errors><Error><Code>InvalidParameterValue<\/Code><Message>.+<\/Message><\/Error><\/Errors><RequestID>[0-9a-f-]{36}<\/RequestID><\/Response>$/,
    );
    expect(served.ctx.requestLog.filter((r) => r.operation === 'ec2:DescribeSpotPriceHistory').length).toBe(7);
  });
});
