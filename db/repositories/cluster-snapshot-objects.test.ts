import { describe, expect, it } from 'vitest';
import type { NodePoolRecord, PodSchedulingSpec } from '../../core/model.js';
import { clusterObjectsFromRows, type ClusterSnapshotRows, type SnapshotNodeRow, type SnapshotPodRow } from './cluster-snapshot-objects.js';

/*
 * Rows of a stored snapshot -> ClusterObjects, by hand: one NodePool `default` tainted workload=web:NoSchedule, two
 * nodes of it, a web pod bound to node-a, a pod pending then, and a DaemonSet. First as rows written before
 * migration 0019 (no kinds, no specs), then as rows of today.
 */

const T = Date.parse('2026-11-03T10:00:00Z');
const GI = 2 ** 30;

const POOL: NodePoolRecord = {
  name: 'default',
  weight: 10,
  consolidationPolicy: 'WhenEmptyOrUnderutilized',
  consolidateAfter: '1m',
  capacityTypes: ['on-demand'],
  requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
  limits: { cpu: '1000' },
  budgets: [{ nodes: '10%' }],
  nodeClass: 'default',
  expireAfter: '720h',
  taints: [{ key: 'workload', value: 'web', effect: 'NoSchedule' }],
};

const node = (name: string, zone: string): SnapshotNodeRow => ({
  name,
  nodePool: 'default',
  instanceType: 'm5.large',
  capacityType: 'on-demand',
  zone,
  instanceId: name === 'node-a' ? 'i-0a1b2c3d4e5f60001' : null,
  createdAt: T - 3_600_000,
  allocCpuMillicores: 1930,
  allocMemoryBytes: 7 * GI,
  allocPods: 29,
  allocGpu: 0,
  capacity: null,
  labels: { 'kubernetes.io/arch': 'amd64', 'node.kubernetes.io/instance-type': 'stale-label' },
});

const pod = (name: string, nodeName: string | null, extra: Partial<SnapshotPodRow> = {}): SnapshotPodRow => ({
  uid: `uid-${name}`,
  namespace: 'shop',
  name,
  nodeName,
  ownerKind: 'ReplicaSet',
  ownerName: 'web-abc',
  cpuMillicores: 250,
  memoryBytes: 512 * 2 ** 20,
  gpu: 0,
  doNotDisrupt: false,
  createdAt: T - 600_000,
  labels: { app: 'web' },
  doNotDisruptValue: null,
  deletionCost: null,
  startedAt: null,
  volumes: null,
  spec: null,
  finished: null,
  ...extra,
});

const rows = (over: Partial<ClusterSnapshotRows>): ClusterSnapshotRows => ({
  takenAt: T,
  kinds: null,
  nodes: [node('node-a', 'us-west-2a'), node('node-b', 'us-west-2b')],
  nodeSpecs: new Map(),
  pods: [pod('web-1', 'node-a', { doNotDisrupt: true })],
  nodePools: null,
  latestNodePools: [POOL],
  namespaces: [{ name: 'shop', labels: {} }],
  objects: {},
  ...over,
});

describe('rows written before migration 0019 read as before, and say so', () => {
  const { objects, gaps } = clusterObjectsFromRows(rows({}));

  it('the NodePool as last stored, its capacity type written out; each node carries its taints', () => {
    expect(objects.nodePools).toEqual([
      {
        apiVersion: 'karpenter.sh/v1',
        kind: 'NodePool',
        metadata: { name: 'default' },
        spec: {
          weight: 10,
          limits: { cpu: '1000' },
          template: {
            spec: {
              requirements: [
                { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
                { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
              ],
              taints: [{ key: 'workload', value: 'web', effect: 'NoSchedule' }],
              expireAfter: '720h',
              nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
            },
          },
          disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '1m', budgets: [{ nodes: '10%' }] },
        },
      },
    ]);
    expect(objects.nodes[0]).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: 'node-a',
        // The snapshot row's type wins over a stale label; hostname and zone and NodePool filled in.
        labels: {
          'kubernetes.io/arch': 'amd64',
          'node.kubernetes.io/instance-type': 'm5.large',
          'karpenter.sh/capacity-type': 'on-demand',
          'kubernetes.io/hostname': 'node-a',
          'topology.kubernetes.io/zone': 'us-west-2a',
          'karpenter.sh/nodepool': 'default',
        },
        creationTimestamp: '2026-11-03T09:00:00.000Z',
      },
      spec: { taints: [{ key: 'workload', value: 'web', effect: 'NoSchedule' }], providerID: 'aws:///us-west-2a/i-0a1b2c3d4e5f60001' },
      status: { allocatable: { cpu: '1930m', memory: String(7 * GI), pods: '29' } },
    });
  });

  it('a pod as a running pod with its cpu and memory, do-not-disrupt as "true", started when created', () => {
    expect(objects.pods).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: 'web-1',
          namespace: 'shop',
          uid: 'uid-web-1',
          labels: { app: 'web' },
          creationTimestamp: '2026-11-03T09:50:00.000Z',
          annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-abc', controller: true }],
        },
        spec: {
          nodeName: 'node-a',
          containers: [{ name: 'requests', resources: { requests: { cpu: '250m', memory: String(512 * 2 ** 20) } } }],
        },
        status: { phase: 'Running', startTime: '2026-11-03T09:50:00.000Z' },
      },
    ]);
    expect(objects.daemonSetPods).toBeUndefined();
    expect(objects.podDisruptionBudgets).toEqual([]);
  });

  it('the gaps, in words', () => {
    expect(gaps).toEqual([
      'NodePools: as last collected (this snapshot kept no version of them)',
      "Nodes: taints, cordons and allocatable beyond cpu/memory/pods/GPU not collected (each node carries its NodePool's taints)",
      'Pods: 1 of 1 without their scheduling spec (collected before migration 0019: no node selector, affinity, tolerations, spread, priority or volumes; cpu, memory and GPU requests only)',
      'PodDisruptionBudgets: not collected (the snapshot predates migration 0019)',
      'DaemonSets: not collected (the snapshot predates migration 0019)',
      'PersistentVolumeClaims: not collected (the snapshot predates migration 0019)',
      'PersistentVolumes: not collected (the snapshot predates migration 0019)',
      'StorageClasses: not collected (the snapshot predates migration 0019)',
      'CSINodes: not collected (the snapshot predates migration 0019)',
      'EC2NodeClasses: not collected (the snapshot predates migration 0019)',
      'NodeOverlays: not collected (the snapshot predates migration 0019)',
    ]);
  });
});

describe('rows of today', () => {
  const ok = { state: 'ok' } as const;
  const spec: PodSchedulingSpec = {
    tolerations: [{ key: 'workload', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
    topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule' }],
    requests: { cpu: '250m', 'ephemeral-storage': String(GI), memory: String(512 * 2 ** 20) },
    hostPorts: [{ hostPort: 8080, protocol: 'TCP' }],
  };
  const dsSpec: PodSchedulingSpec = {
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{}] } } },
    ownNodeAffinity: true,
    requests: { cpu: '100m' },
  };
  const nodePool = { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'default' }, spec: { weight: 50 } };
  const daemonSet = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'exporter', namespace: 'monitoring' },
    spec: {
      template: {
        metadata: { labels: { app: 'exporter' } },
        spec: { containers: [{ name: 'x', resources: { requests: { cpu: '100m' } } }] },
      },
    },
  };
  const { objects, gaps } = clusterObjectsFromRows(
    rows({
      kinds: {
        Node: ok,
        NodePool: ok,
        PodDisruptionBudget: ok,
        DaemonSet: ok,
        PersistentVolumeClaim: ok,
        PersistentVolume: ok,
        StorageClass: ok,
        CSINode: ok,
        EC2NodeClass: {
          state: 'forbidden',
          message: 'EC2NodeClass: forbidden (403): grant list and watch on karpenter.k8s.aws ec2nodeclasses',
        },
        NodeOverlay: ok,
      },
      nodePools: [{ namespace: '', name: 'default', body: nodePool }],
      nodeSpecs: new Map([
        ['node-a', { status: { allocatable: { cpu: '1930m', memory: '7Gi', pods: '29', 'ephemeral-storage': '18Gi' } }, spec: {} }],
        [
          'node-b',
          {
            metadata: { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } },
            spec: { taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }], unschedulable: true },
            status: { allocatable: { cpu: '1930m', memory: '7Gi', pods: '29' } },
          },
        ],
      ]),
      pods: [
        pod('web-1', 'node-a', { spec, doNotDisrupt: true, doNotDisruptValue: '30m', startedAt: T - 300_000, deletionCost: '-5' }),
        pod('web-2', null, {
          spec,
          volumes: [
            { name: 'data', claimName: 'data-web-2' },
            { name: 'scratch', ephemeralStorageClass: 'gp3' },
          ],
        }),
        pod('exporter-x', 'node-b', { spec: dsSpec, ownerKind: 'DaemonSet', ownerName: 'exporter' }),
      ],
      objects: {
        PodDisruptionBudget: [
          { namespace: 'shop', name: 'web', body: { metadata: { name: 'web', namespace: 'shop' }, spec: { maxUnavailable: 1 } } },
        ],
        DaemonSet: [{ namespace: 'monitoring', name: 'exporter', body: daemonSet }],
        // Present in the rows but not read at this snapshot: left out.
        EC2NodeClass: [{ namespace: '', name: 'default', body: { metadata: { name: 'default' } } }],
      },
    }),
  );

  it('NodePools from their version; node taints, cordon, do-not-disrupt and every allocatable resource from theirs', () => {
    expect(objects.nodePools).toEqual([nodePool]);
    expect(objects.nodes[0].spec).toEqual({ providerID: 'aws:///us-west-2a/i-0a1b2c3d4e5f60001' });
    expect(objects.nodes[0].status?.allocatable).toEqual({ cpu: '1930m', memory: '7Gi', pods: '29', 'ephemeral-storage': '18Gi' });
    expect(objects.nodes[1].spec).toEqual({ taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }], unschedulable: true });
    expect(objects.nodes[1].metadata.annotations).toEqual({ 'karpenter.sh/do-not-disrupt': 'true' });
  });

  it('pods with their spec, one container of every effective request and the host ports; pending and DaemonSet pods', () => {
    const [bound, pending, ds] = objects.pods;
    expect(bound.metadata.annotations).toEqual({
      'karpenter.sh/do-not-disrupt': '30m',
      'controller.kubernetes.io/pod-deletion-cost': '-5',
    });
    expect(bound.spec).toEqual({
      nodeName: 'node-a',
      tolerations: spec.tolerations,
      topologySpreadConstraints: spec.topologySpreadConstraints,
      containers: [
        {
          name: 'requests',
          resources: { requests: { cpu: '250m', 'ephemeral-storage': String(GI), memory: String(512 * 2 ** 20) } },
          ports: [{ containerPort: 8080, hostPort: 8080, protocol: 'TCP' }],
        },
      ],
    });
    expect(bound.status).toEqual({ phase: 'Running', startTime: '2026-11-03T09:55:00.000Z' });
    expect(pending.spec.nodeName).toBeUndefined();
    expect(pending.spec.volumes).toEqual([
      { name: 'data', persistentVolumeClaim: { claimName: 'data-web-2' } },
      { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: { storageClassName: 'gp3' } } } },
    ]);
    expect(pending.status).toEqual({ phase: 'Pending' });
    expect(ds.spec.affinity).toEqual({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-b'] }] }],
        },
      },
    });
    expect(ds.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'exporter', controller: true }]);
  });

  it('DaemonSets as their pod template; a kind read is there, a kind not read is not, and says why', () => {
    expect(objects.daemonSetPods).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: 'exporter',
          namespace: 'monitoring',
          labels: { app: 'exporter' },
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'exporter', controller: true }],
        },
        spec: { containers: [{ name: 'x', resources: { requests: { cpu: '100m' } } }] },
      },
    ]);
    expect(objects.podDisruptionBudgets).toEqual([{ metadata: { name: 'web', namespace: 'shop' }, spec: { maxUnavailable: 1 } }]);
    expect(objects.nodeClasses).toEqual([]);
    expect(gaps).toEqual(['EC2NodeClasses: EC2NodeClass: forbidden (403): grant list and watch on karpenter.k8s.aws ec2nodeclasses']);
  });
});
