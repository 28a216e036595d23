import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { csiNodeObject, nodeSpecObject, podDisruptionBudgetObject } from './map-objects.js';

/*
 * A version is kept per body that means something different to Karpenter: what changes without meaning (resource
 * versions, managed fields, timestamps, a CSI driver's node id) must not start a new version; what does must.
 */

const pdb = (disruptionsAllowed: number, resourceVersion: string) => ({
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  metadata: { name: 'web', namespace: 'shop', resourceVersion, generation: 3, managedFields: [{ manager: 'kubectl' }] },
  spec: { maxUnavailable: '10%', selector: { matchLabels: { app: 'web' } } },
  status: { disruptionsAllowed, currentHealthy: 10, desiredHealthy: 9, expectedPods: 10, observedGeneration: 3 },
});

describe('versioned bodies', () => {
  it('a PDB: the same body across resource versions; a new one when disruptionsAllowed moves', () => {
    const a = podDisruptionBudgetObject(pdb(1, '100'));
    const b = podDisruptionBudgetObject(pdb(1, '200'));
    const c = podDisruptionBudgetObject(pdb(0, '300'));
    expect(b?.hash).toBe(a?.hash);
    expect(c?.hash).not.toBe(a?.hash);
    expect(JSON.parse(a?.json ?? '')).toEqual({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      // Name and namespace are the version's key, not the body's (put back on read).
      spec: { maxUnavailable: '10%', selector: { matchLabels: { app: 'web' } } },
      status: { currentHealthy: 10, desiredHealthy: 9, disruptionsAllowed: 1, expectedPods: 10 },
    });
    expect([a?.kind, a?.namespace, a?.name]).toEqual(['PodDisruptionBudget', 'shop', 'web']);
  });

  it("CSINodes of two nodes of one type share a body (the driver's node id left out)", () => {
    const csi = (node: string, id: string) => ({
      metadata: { name: node },
      spec: {
        drivers: [{ name: 'ebs.csi.aws.com', nodeID: id, topologyKeys: ['topology.ebs.csi.aws.com/zone'], allocatable: { count: 25 } }],
      },
    });
    expect(csiNodeObject(csi('node-a', 'i-01'))?.hash).toBe(csiNodeObject(csi('node-b', 'i-02'))?.hash);
  });

  it('a Node: its taints (without timeAdded), cordon and allocatable; a heartbeat changes nothing', () => {
    const node = (heartbeat: string, disrupted: boolean): V1Node => ({
      metadata: { name: 'n1', resourceVersion: heartbeat },
      spec: {
        providerID: 'aws:///us-west-2a/i-01',
        ...(disrupted
          ? { taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule', timeAdded: new Date(heartbeat) }], unschedulable: true }
          : {}),
      },
      status: {
        allocatable: { cpu: '1930m', memory: '7Gi', pods: '29' },
        conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: new Date(heartbeat) }],
      },
    });
    const calm = nodeSpecObject(node('2026-11-03T10:00:00Z', false));
    expect(nodeSpecObject(node('2026-11-03T10:05:00Z', false))?.hash).toBe(calm?.hash);
    const disrupted = nodeSpecObject(node('2026-11-03T10:08:00Z', true));
    expect(JSON.parse(disrupted?.json ?? '')).toEqual({
      spec: { taints: [{ effect: 'NoSchedule', key: 'karpenter.sh/disrupted' }], unschedulable: true },
      status: { allocatable: { cpu: '1930m', memory: '7Gi', pods: '29' } },
    });
  });
});
