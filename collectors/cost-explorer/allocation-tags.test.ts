import { afterEach, describe, expect, it } from 'vitest';
import { createCostExplorerHandler } from '../../sandbox/serve/cost-explorer.js';
import { newContext, serveHandlers, type ServedHandlers, useDummyAwsCredentials } from '../../test/fixtures/serve-handlers.js';
import { TINY_END, tinyScenario } from '../../test/fixtures/tiny-scenario.js';
import { checkCostAllocationTags } from './allocation-tags.js';
import { createCostExplorerClient } from './client.js';

useDummyAwsCredentials();

describe('checkCostAllocationTags against the sandbox', () => {
  let served: ServedHandlers | null = null;
  afterEach(async () => {
    await served?.close();
    served = null;
  });

  it.each([
    [
      [],
      [
        'karpenter.sh/nodepool',
        'karpenter.sh/nodeclaim',
        'karpenter.k8s.aws/ec2nodeclass',
        'eks:eks-cluster-name',
        'kubernetes.io/cluster/tiny-cluster',
      ],
      [],
    ],
    [
      ['karpenter.sh/nodepool'],
      ['karpenter.sh/nodeclaim', 'karpenter.k8s.aws/ec2nodeclass', 'eks:eks-cluster-name', 'kubernetes.io/cluster/tiny-cluster'],
      ['karpenter.sh/nodepool'],
    ],
  ])('with %j not activated', async (inactiveTags, active, inactive) => {
    served = await serveHandlers([createCostExplorerHandler({ inactiveTags })], newContext(tinyScenario(), TINY_END));
    const ce = createCostExplorerClient({ endpoint: served.url });
    expect(await checkCostAllocationTags(ce, 'tiny-cluster')).toEqual({ active, inactive, unknown: [] });
    ce.destroy();
  });
});
