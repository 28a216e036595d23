import {
  CostExplorerClient, type Expression, GetCostAndUsageCommand, type GetCostAndUsageCommandOutput,
  GetCostAndUsageWithResourcesCommand, ListCostAllocationTagsCommand,
} from '@aws-sdk/client-cost-explorer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newContext, serveHandlers, type ServedHandlers, useDummyAwsCredentials } from '../../test/fixtures/serve-handlers';
import { T, TINY_END, tinyScenario } from '../../test/fixtures/tiny-scenario';
import { createCostExplorerHandler } from './cost-explorer';

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
      GroupBy: [{ Type: 'TAG', Key: 'karpenter.sh/nodepool' }, { Type: 'DIMENSION', Key: 'PURCHASE_TYPE' }],
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
    expect(day2[0].Metrics?.AmortizedCost).toEqual({ Amount: '4.608', Unit: 'USD' });
    const day3 = results.filter((r) => r.TimePeriod?.Start === '2026-11-03').flatMap((r) => r.Groups ?? []);
    expect(day3.find((g) => g.Keys?.[0] === 'karpenter.sh/nodepool$spot-batch')).toMatchObject({
      Keys: ['karpenter.sh/nodepool$spot-batch', 'Spot Instances'],
      Metrics: { UnblendedCost: { Amount: '0.87', Unit: 'USD' } },
    });
    expect(results.every((r) => JSON.stringify(r.Total) === '{}')).toBe(true);
    const estimated = (day: string): boolean | undefined => results.find((r) => r.TimePeriod?.Start === day)?.Estimated;
    expect([estimated('2026-11-12'), estimated('2026-11-13'), estimated('2026-11-14')]).toEqual([false, true, true]);
    expect(pages[0].GroupDefinitions).toEqual([{ Type: 'TAG', Key: 'karpenter.sh/nodepool' }, { Type: 'DIMENSION', Key: 'PURCHASE_TYPE' }]);
  });

  it('filters untagged usage with ABSENT and returns Total when ungrouped', async () => {
    const out = await ce.send(new GetCostAndUsageCommand({
      TimePeriod: { Start: '2026-11-01', End: '2026-11-03' },
      Granularity: 'DAILY',
      Metrics: ['UnblendedCost'],
      Filter: { Tags: { Key: 'karpenter.sh/nodepool', MatchOptions: ['ABSENT'] } },
    }));
    expect(out.ResultsByTime?.map((r) => [r.TimePeriod?.Start, r.Total?.UnblendedCost?.Amount, r.Groups])).toEqual([
      ['2026-11-01', '4.608', []],
      ['2026-11-02', '4.608', []],
    ]);
  });

  it('answers HOURLY with date-time periods for the last 14 days and refuses older ones', async () => {
    const out = await ce.send(new GetCostAndUsageCommand({
      TimePeriod: { Start: '2026-11-03T04:00:00Z', End: '2026-11-03T06:00:00Z' },
      Granularity: 'HOURLY',
      Metrics: ['UnblendedCost'],
      Filter: { Tags: { Key: 'karpenter.sh/nodepool', Values: ['spot-batch'] } },
    }));
    expect(out.ResultsByTime?.map((r) => [r.TimePeriod?.Start, r.TimePeriod?.End, r.Total?.UnblendedCost?.Amount])).toEqual([
      ['2026-11-03T04:00:00Z', '2026-11-03T05:00:00Z', '0.075'],
      ['2026-11-03T05:00:00Z', '2026-11-03T06:00:00Z', '0.08'],
    ]);
    await expect(ce.send(new GetCostAndUsageCommand({
      TimePeriod: { Start: '2026-10-20T00:00:00Z', End: '2026-10-21T00:00:00Z' }, Granularity: 'HOURLY', Metrics: ['UnblendedCost'],
    }))).rejects.toMatchObject({ name: 'ValidationException', $metadata: { httpStatusCode: 400 } });
  });

  it.each([
    ['three GroupBy', { GroupBy: [{ Type: 'DIMENSION', Key: 'AZ' }, { Type: 'DIMENSION', Key: 'INSTANCE_TYPE' }, { Type: 'DIMENSION', Key: 'PURCHASE_TYPE' }] }],
    ['a bad date', { TimePeriod: { Start: '2026-11-31', End: '2026-12-02' } }],
    ['End before Start', { TimePeriod: { Start: '2026-11-05', End: '2026-11-04' } }],
    ['a one-operand And', { Filter: { And: [{ Dimensions: { Key: 'SERVICE', Values: ['x'] } }] } }],
    ['RESOURCE_ID without resources', { GroupBy: [{ Type: 'DIMENSION', Key: 'RESOURCE_ID' }] }],
  ] as const)('answers ValidationException for %s', async (_name, change) => {
    await expect(ce.send(new GetCostAndUsageCommand({
      TimePeriod: { Start: '2026-11-01', End: '2026-11-02' }, Granularity: 'DAILY', Metrics: ['UnblendedCost'], ...change,
    } as ConstructorParameters<typeof GetCostAndUsageCommand>[0]))).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('gives per-instance lines with resources, only with the EC2 compute filter and within 14 days', async () => {
    const out = await ce.send(new GetCostAndUsageWithResourcesCommand({
      TimePeriod: { Start: '2026-11-03', End: '2026-11-04' },
      Granularity: 'DAILY',
      Metrics: ['UnblendedCost'],
      Filter: CLUSTER_AND_COMPUTE,
      GroupBy: [{ Type: 'DIMENSION', Key: 'RESOURCE_ID' }],
    }));
    expect(out.ResultsByTime?.[0].Groups?.map((g) => [g.Keys?.[0], g.Metrics?.UnblendedCost?.Amount])).toEqual([
      ['i-0000000000000000b', '0.87'],
      ['i-0000000000000000c', '4.608'],
    ]);
    await expect(ce.send(new GetCostAndUsageWithResourcesCommand({
      TimePeriod: { Start: '2026-11-03', End: '2026-11-04' }, Granularity: 'DAILY', Metrics: ['UnblendedCost'],
      Filter: { Tags: { Key: 'eks:eks-cluster-name', Values: ['tiny-cluster'] } }, GroupBy: [{ Type: 'DIMENSION', Key: 'RESOURCE_ID' }],
    }))).rejects.toMatchObject({ name: 'ValidationException' });
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
    served.ctx.faults.push({ match: 'GetCostAndUsage', status: 400, remaining: 1 }, { match: 'ListCostAllocationTags', status: 503, remaining: 1 });
    const input = { TimePeriod: { Start: '2026-11-01', End: '2026-11-02' }, Granularity: 'DAILY' as const, Metrics: ['UnblendedCost'] };
    await expect(ce.send(new GetCostAndUsageCommand(input))).rejects.toMatchObject({ name: 'ThrottlingException', $metadata: { httpStatusCode: 400 } });
    await expect(ce.send(new ListCostAllocationTagsCommand({}))).rejects.toMatchObject({ $metadata: { httpStatusCode: 503 } });
    // The default client retries a throttled call by itself.
    served.ctx.faults.push({ match: 'GetCostAndUsage', status: 400, remaining: 1 });
    const retrying = new CostExplorerClient({ region: 'us-east-1', endpoint: served.url });
    await expect(retrying.send(new GetCostAndUsageCommand(input))).resolves.toBeDefined();
    retrying.destroy();
    expect(served.ctx.requestLog.slice(before).map((r) => r.operation)).toEqual([
      'ce:GetCostAndUsage', 'ce:ListCostAllocationTags', 'ce:GetCostAndUsage', 'ce:GetCostAndUsage',
    ]);
    expect(served.ctx.requestLog.at(-1)?.at).toBe(T('2026-11-15T00:00:00Z'));
  });
});
