import { describe, expect, it } from 'vitest';
import { loadInstanceCatalog } from '../../core/instance-catalog.js';
import type { NodeSelectorRequirement } from '../../core/karpenter/requirements.js';
import { spotMarketsWanted } from './markets.js';

const req = (key: string, operator: string, values: string[]): NodeSelectorRequirement => ({ key, operator, values });
const catalog = loadInstanceCatalog();

describe('spotMarketsWanted: every type a NodePool admits, in every zone the cluster names', () => {
  it('an on-demand-only NodePool of c6i in large/xlarge wants spot prices for c6i.large and c6i.xlarge (capacity type is not a type label)', () => {
    const m = spotMarketsWanted(
      {
        region: 'us-east-1',
        nodePools: [
          {
            requirements: [
              req('karpenter.sh/capacity-type', 'In', ['on-demand']),
              req('karpenter.k8s.aws/instance-family', 'In', ['c6i']),
              req('karpenter.k8s.aws/instance-size', 'In', ['large', 'xlarge']),
            ],
          },
        ],
        nodes: [{ instanceType: 'c6i.large', capacityType: 'on-demand', zone: 'us-east-1a' }],
      },
      catalog,
    );
    expect(m).toEqual({ instanceTypes: ['c6i.large', 'c6i.xlarge'], zones: ['us-east-1a'], runningSpot: [] });
  });

  it('adds the zones a NodePool names (In), the subnets’ zones and a spot node’s type even when no NodePool admits it', () => {
    const m = spotMarketsWanted(
      {
        region: 'us-east-1',
        nodePools: [
          {
            requirements: [
              req('node.kubernetes.io/instance-type', 'In', ['m5.large']),
              req('topology.kubernetes.io/zone', 'In', ['us-east-1b', 'us-east-1c']),
            ],
          },
        ],
        nodes: [{ instanceType: 'r5.2xlarge', capacityType: 'spot', zone: 'us-east-1d' }],
        subnetZones: ['us-east-1f'],
      },
      catalog,
    );
    expect(m).toEqual({
      instanceTypes: ['m5.large', 'r5.2xlarge'],
      zones: ['us-east-1b', 'us-east-1c', 'us-east-1d', 'us-east-1f'],
      runningSpot: ['r5.2xlarge'],
    });
  });

  it('leaves out types without a price in the region; with no zone anywhere, the region’s a, b and c (as the what-if catalogue)', () => {
    const m = spotMarketsWanted(
      { region: 'eu-west-1', nodePools: [{ requirements: [req('karpenter.k8s.aws/instance-family', 'In', ['c6i', 'c7i'])] }], nodes: [] },
      catalog,
      (t) => t.startsWith('c7i.'),
    );
    expect(m.instanceTypes.every((t) => t.startsWith('c7i.'))).toBe(true);
    expect(m.instanceTypes).toContain('c7i.large');
    expect(m.zones).toEqual(['eu-west-1a', 'eu-west-1b', 'eu-west-1c']);
  });
});
