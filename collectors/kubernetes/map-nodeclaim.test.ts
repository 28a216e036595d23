import { describe, expect, it } from 'vitest';
import { nodeClaim } from '../../test/fixtures/karpenter-objects.js';
import { mapNodeClaim } from './map.js';

/* A NodeClaim as the API serves it (test/fixtures/karpenter-objects.ts: the AWS provider docs' sample) to a record. */

const base = {
  name: 'default-x9wxq',
  nodeName: 'ip-10-0-71-87.us-west-2.compute.internal',
  instanceId: 'i-01234567890123',
  instanceType: 'c5a.2xlarge',
  capacityType: 'spot' as const,
  zone: 'us-west-2c',
  created: '2024-08-07T05:37:30Z',
};

describe('mapNodeClaim', () => {
  it('reads the docs’ NodeClaim: its pool, type, capacity, instance, expireAfter; no disruption recorded', () => {
    expect(mapNodeClaim(nodeClaim(base))).toMatchObject({
      name: 'default-x9wxq',
      nodePool: 'default',
      nodeName: 'ip-10-0-71-87.us-west-2.compute.internal',
      instanceType: 'c5a.2xlarge',
      capacityType: 'spot',
      zone: 'us-west-2c',
      instanceId: 'i-01234567890123',
      createdAt: Date.parse('2024-08-07T05:37:30Z'),
      disruptionReason: null,
      disruptionAt: null,
      expireAfter: '720h0m0s',
    });
  });

  it.each([
    ['pkg/controllers/disruption/queue.go@v1.14.1 markDisrupted', 'v1.14.1'],
    ['pkg/controllers/disruption/controller.go@v1.2.0 MarkDisrupted (reason "DisruptionReason", the reason in the message)', 'v1.2.0'],
  ] as const)('the DisruptionReason condition as %s sets it: the reason and when it was decided', (_origin, style) => {
    const c = mapNodeClaim(nodeClaim({ ...base, disruption: { reason: 'Underutilized', at: '2024-08-07T06:01:10Z', style } }));
    expect([c.disruptionReason, c.disruptionAt]).toEqual(['Underutilized', Date.parse('2024-08-07T06:01:10Z')]);
  });
});
