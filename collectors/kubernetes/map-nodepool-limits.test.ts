import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { mapNode, mapNodePool } from './map.js';

/** What NodePool limits need from the API objects: each node's status.capacity and the NodePool's expireAfter. */
describe.each([
  {
    name: 'karpenter.sh/v1: spec.template.spec.expireAfter',
    spec: { template: { spec: { expireAfter: '720h' } }, disruption: {} },
    expireAfter: '720h',
  },
  { name: 'v1 "Never"', spec: { template: { spec: { expireAfter: 'Never' } } }, expireAfter: 'Never' },
  {
    name: 'v1beta1: spec.disruption.expireAfter',
    spec: { template: { spec: {} }, disruption: { expireAfter: '168h' } },
    expireAfter: '168h',
  },
  { name: 'unset', spec: { template: { spec: {} } }, expireAfter: null },
  { name: 'not a string', spec: { template: { spec: { expireAfter: 720 } } }, expireAfter: null },
])('mapNodePool expireAfter, $name', ({ spec, expireAfter }) => {
  it(`is ${String(expireAfter)}`, () => {
    expect(mapNodePool({ metadata: { name: 'general' }, spec: { ...spec, limits: { cpu: '1000', memory: '1000Gi' } } })).toMatchObject({
      name: 'general',
      expireAfter,
      limits: { cpu: '1000', memory: '1000Gi' },
    });
  });
});

describe('mapNode capacity', () => {
  const node = (status: V1Node['status']): V1Node => ({ metadata: { name: 'ip-10-0-1-2.ec2.internal' }, status });
  it('keeps status.capacity as given, every resource, beside the parsed allocatable', () => {
    const n = mapNode(
      node({
        capacity: { cpu: '4', memory: '16092956Ki', pods: '58', 'ephemeral-storage': '20959212Ki' },
        allocatable: { cpu: '3920m', memory: '15208220Ki', pods: '58' },
      }),
    );
    expect(n.capacity).toEqual({ cpu: '4', memory: '16092956Ki', pods: '58', 'ephemeral-storage': '20959212Ki' });
    expect(n.allocatable).toEqual({ cpuMillicores: 3920, memoryBytes: 15_208_220 * 1024, pods: 58, gpu: 0 });
  });
  it('leaves capacity unknown when the node reports none', () => {
    expect(mapNode(node({ allocatable: { cpu: '2' } })).capacity).toBeUndefined();
    expect(mapNode(node(undefined)).capacity).toBeUndefined();
  });
});
