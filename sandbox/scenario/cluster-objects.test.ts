import { describe, expect, it } from 'vitest';
import { loadInstanceCatalog } from '../../core/instance-catalog.js';
import { pdbStatus } from './pdb-status.js';
import { ebsAttachLimit, ebsVolumeLimit } from './storage.js';

const catalog = loadInstanceCatalog();
const info = (name: string) => {
  const t = catalog.types.get(name);
  if (!t) throw new Error(name);
  return { labels: t.labels, vcpu: t.vcpu };
};

describe('the EBS CSI driver attach limit of a node (kubernetes-sigs/aws-ebs-csi-driver v1.64.0)', () => {
  // Rows of pkg/cloud/limits/volume_limits_table.go, and GetVolumeLimits' default (volume_limits.go:92, 27 shared).
  it.each([
    ['c6id.large', 26, true, 'volume_limits_table.go:125 {26, "shared"}: one NVMe instance-store volume'],
    ['m6id.4xlarge', 26, true, 'volume_limits_table.go:532 {26, "shared"}'],
    ['c7gd.xlarge', 26, true, 'volume_limits_table.go:150 {26, "shared"}'],
    ['c7i.large', 32, false, 'volume_limits_table.go:166 {32, "dedicated"}'],
    ['c7i-flex.large', 32, false, 'volume_limits_table.go:157 {32, "dedicated"}'],
    ['c8a.medium', 32, false, 'volume_limits_table.go:178 {32, "dedicated"}'],
    ['m8g.xlarge', 32, false, 'volume_limits_table.go:620 {32, "dedicated"}'],
    ['r7i.2xlarge', 32, false, 'volume_limits_table.go:875 {32, "dedicated"}'],
    ['m6i.large', 27, true, 'not in the table: volume_limits.go:92 default 27 shared'],
    ['c7g.large', 27, true, 'not in the table: volume_limits.go:92 default 27 shared'],
    ['m5.large', 27, true, 'not in the table: volume_limits.go:92 default 27 shared'],
  ])('%s: limit %i, shared %s (%s)', (type, limit, shared) => {
    expect(ebsVolumeLimit(info(type))).toEqual({ limit, shared });
  });

  // node.go getVolumesLimit: − (block device mappings + 1 for the root volume) (node.go:828), and on a shared limit
  // − (ENIs − 1) (node.go:837); two ENIs when the driver starts (the VPC CNI's warm ENI).
  it.each([
    ['m6i.large', 27 - 1 - 1],
    ['c6id.large', 26 - 1 - 1],
    ['c7i.large', 32 - 1],
  ])('%s reports allocatable.count %i on its CSINode', (type, count) => {
    expect(ebsAttachLimit(info(type))).toBe(count);
  });
});

describe("a PodDisruptionBudget's status as the disruption controller computes it (worked by hand)", () => {
  it.each([
    // minAvailable 2 over 2 healthy pods: nothing may go (payments-api at night)
    [{ minAvailable: 2 }, 2, 2, 2, { expectedPods: 2, desiredHealthy: 2, currentHealthy: 2, disruptionsAllowed: 0 }],
    // the same budget at the day's peak of 8 replicas: 6 may go
    [{ minAvailable: 2 }, 8, 8, 8, { expectedPods: 8, desiredHealthy: 2, currentHealthy: 8, disruptionsAllowed: 6 }],
    // maxUnavailable 1 of a controller scaled to 2 (coredns, karpenter): one may go, none once one is down
    [{ maxUnavailable: 1 }, 2, 2, 2, { expectedPods: 2, desiredHealthy: 1, currentHealthy: 2, disruptionsAllowed: 1 }],
    [{ maxUnavailable: 1 }, 1, 1, 2, { expectedPods: 2, desiredHealthy: 1, currentHealthy: 1, disruptionsAllowed: 0 }],
    // percentages are of the controller's scale, rounded up: 50% of 3 is 2
    [{ maxUnavailable: '50%' }, 3, 3, 3, { expectedPods: 3, desiredHealthy: 1, currentHealthy: 3, disruptionsAllowed: 2 }],
    [{ minAvailable: '50%' }, 3, 3, 3, { expectedPods: 3, desiredHealthy: 2, currentHealthy: 3, disruptionsAllowed: 1 }],
    // nothing expected: nothing allowed
    [{ maxUnavailable: 1 }, 0, 0, 0, { expectedPods: 0, desiredHealthy: 0, currentHealthy: 0, disruptionsAllowed: 0 }],
  ])('%o, %i healthy of %i selected, scale %i', (spec, healthy, selected, scale, expected) => {
    expect(pdbStatus(spec, healthy, selected, scale)).toEqual(expected);
  });
});
