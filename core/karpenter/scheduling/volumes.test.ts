import { describe, expect, it } from 'vitest';
import type { EngineInput } from './engine.js';
import type {
  KubeCSINode,
  KubeNodeSelectorTerm,
  KubePersistentVolume,
  KubePersistentVolumeClaim,
  KubePod,
  KubeStorageClass,
} from './kube-types.js';
import { simulate } from './simulate.js';
import { fakeDefaultCatalogue, fakeInstanceTypes, fakeType, node, nodePool, pod } from './test-support.js';

/**
 * Volume topology and attach limits (issue 21). "provisioning/suite_test.go:N" and "scheduling/suite_test.go:N" cite
 * kubernetes-sigs/karpenter@v1.14.1 pkg/controllers/provisioning/suite_test.go ("Volume Topology Requirements") and
 * pkg/controllers/provisioning/scheduling/suite_test.go ("VolumeUsage", volume alternatives).
 */

const NOW = Date.parse('2026-08-01T00:00:00Z');
const ZONE = 'topology.kubernetes.io/zone';
// provisioning/suite_test.go:1989: the suite's StorageClass, WaitForFirstConsumer in test-zone-2 and test-zone-3
const storageClass = (name = 'sc', zones = ['test-zone-2', 'test-zone-3'], provisioner = 'ebs.csi.aws.com'): KubeStorageClass => ({
  metadata: { name },
  provisioner,
  volumeBindingMode: 'WaitForFirstConsumer',
  allowedTopologies: zones.length ? [{ matchLabelExpressions: [{ key: ZONE, values: zones }] }] : [],
});
const claim = (name: string, o: { storageClassName?: string; volumeName?: string } = {}): KubePersistentVolumeClaim => ({
  metadata: { name, namespace: 'default' },
  spec: { ...(o.storageClassName ? { storageClassName: o.storageClassName } : {}), ...(o.volumeName ? { volumeName: o.volumeName } : {}) },
});
const volume = (
  name: string,
  terms: KubeNodeSelectorTerm[],
  o: Partial<NonNullable<KubePersistentVolume['spec']>> = {},
): KubePersistentVolume => ({
  metadata: { name },
  spec: { csi: { driver: 'ebs.csi.aws.com' }, nodeAffinity: { required: { nodeSelectorTerms: terms } }, ...o },
});
const inZones = (...zones: string[]): KubeNodeSelectorTerm[] => [{ matchExpressions: [{ key: ZONE, operator: 'In', values: zones }] }];
const withClaims = (name: string, claims: string[], o: Parameters<typeof pod>[1] = {}): KubePod => {
  const p = pod(name, o);
  return { ...p, spec: { ...p.spec, volumes: claims.map((c, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName: c } })) } };
};
const ephemeral = (name: string, storageClassName: string, o: Parameters<typeof pod>[1] = {}): KubePod => {
  const p = pod(name, o);
  return { ...p, spec: { ...p.spec, volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: { storageClassName } } } }] } };
};
const zoneIn = (...zones: string[]) => ({
  affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: inZones(...zones) } } },
});

function run(o: Partial<EngineInput> & { pods: KubePod[] }) {
  return simulate({
    nodePools: [nodePool('default')],
    catalogue: fakeDefaultCatalogue(),
    now: NOW,
    storageClasses: [storageClass()],
    ...o,
  });
}
const zoneOf = (r: ReturnType<typeof run>) => r.provisioning.nodeClaims.map((nc) => nc.zone);

describe('volume topology (volumetopology.go)', () => {
  it("provisioning/suite_test.go:2103 an unbound claim: the StorageClass zones (2, 3) and the pod's (1, 3) leave test-zone-3", () => {
    const r = run({
      pods: [withClaims('p', ['c'], { spec: zoneIn('test-zone-1', 'test-zone-3') })],
      persistentVolumeClaims: [claim('c', { storageClassName: 'sc' })],
    });
    expect(zoneOf(r)).toEqual(['test-zone-3']);
  });
  it('provisioning/suite_test.go:2116 the same through an ephemeral volume (its claim is <pod>-<volume>)', () => {
    const r = run({
      pods: [ephemeral('p', 'sc', { spec: zoneIn('test-zone-1', 'test-zone-3') })],
      persistentVolumeClaims: [claim('p-scratch', { storageClassName: 'sc' })],
    });
    expect(zoneOf(r)).toEqual(['test-zone-3']);
  });
  it('provisioning/suite_test.go:2138 the pod asks for test-zone-1, the StorageClass allows 2 and 3: not scheduled', () => {
    const r = run({
      pods: [withClaims('p', ['c'], { spec: zoneIn('test-zone-1') })],
      persistentVolumeClaims: [claim('c', { storageClassName: 'sc' })],
    });
    expect(r.provisioning.nodeClaims).toEqual([]);
    expect(r.provisioning.unschedulable.map((u) => u.pod)).toEqual(['default/p']);
  });
  it('provisioning/suite_test.go:2171 a claim bound to a volume in test-zone-3 pins the pod there', () => {
    const r = run({
      pods: [withClaims('p', ['c'])],
      persistentVolumeClaims: [claim('c', { storageClassName: 'sc', volumeName: 'pv' })],
      persistentVolumes: [volume('pv', inZones('test-zone-3'))],
    });
    expect(zoneOf(r)).toEqual(['test-zone-3']);
  });
  it('provisioning/suite_test.go:2317 the bound volume is in test-zone-3, the pod asks for test-zone-1: not scheduled', () => {
    const r = run({
      pods: [withClaims('p', ['c'], { spec: zoneIn('test-zone-1') })],
      persistentVolumeClaims: [claim('c', { storageClassName: 'sc', volumeName: 'pv' })],
      persistentVolumes: [volume('pv', inZones('test-zone-3'))],
    });
    expect(r.provisioning.nodeClaims).toEqual([]);
  });
  it.each([
    ['local', { local: { path: '/mnt' } }],
    ['hostPath', { hostPath: { path: '/mnt' } }],
  ])("provisioning/suite_test.go:2203 a %s volume's hostname pin is ignored (the pod can move)", (_name, kind) => {
    const r = run({
      pods: [withClaims('p', ['c'])],
      persistentVolumeClaims: [claim('c', { storageClassName: 'local-path', volumeName: 'pv' })],
      persistentVolumes: [
        volume('pv', [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['gone'] }] }], kind),
      ],
      storageClasses: [storageClass('local-path', [], 'kubernetes.io/no-provisioner')],
    });
    expect(r.provisioning.nodeClaims).toHaveLength(1);
  });
  it("provisioning/suite_test.go:2290 a CSI volume's hostname pin is kept: no new node can satisfy it", () => {
    const r = run({
      pods: [withClaims('p', ['c'])],
      persistentVolumeClaims: [claim('c', { storageClassName: 'sc', volumeName: 'pv' })],
      persistentVolumes: [volume('pv', [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['gone'] }] }])],
    });
    expect(r.provisioning.nodeClaims).toEqual([]);
  });
  it("provisioning/suite_test.go:2353 the volume zone is not relaxed away with the pod's first affinity term", () => {
    const p = withClaims('p', ['c']);
    p.spec.affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: 'example.com/label', operator: 'In', values: ['unsupported'] }] },
            { matchExpressions: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }] },
          ],
        },
      },
    };
    const r = run({
      pods: [p],
      persistentVolumeClaims: [claim('c', { storageClassName: 'sc', volumeName: 'pv' })],
      persistentVolumes: [volume('pv', inZones('test-zone-3'))],
    });
    expect(r.provisioning.nodeClaims.map((nc) => [nc.zone, nc.capacityType])).toEqual([['test-zone-3', 'on-demand']]);
  });
  it('provisioning/suite_test.go:1995 a claim that does not exist: the pod is not provisioned for, said with the claim named', () => {
    const r = run({ pods: [withClaims('p', ['invalid'])], persistentVolumeClaims: [claim('other', { storageClassName: 'sc' })] });
    expect(r.provisioning.unschedulable).toEqual([
      {
        pod: 'default/p',
        reason: 'getting persistent volume claim, persistentvolumeclaims "invalid" not found (PersistentVolumeClaim=invalid)',
      },
    ]);
  });
  it('scheduling/suite_test.go:3165 two volumes\' alternatives: the compatible pairs kept, the first that can launch wins (size stands in for the fake "special" label)', () => {
    const size = 'karpenter.k8s.aws/instance-size';
    const term = (exprs: { key: string; values: string[] }[]) => ({ matchLabelExpressions: exprs });
    const r = simulate({
      nodePools: [nodePool('default')],
      // fake-it-4 (5 CPU, 10Gi) is the only "large" type
      catalogue: fakeInstanceTypes(5),
      now: NOW,
      pods: [withClaims('p', ['a', 'b'])],
      persistentVolumeClaims: [claim('a', { storageClassName: 'sc-a' }), claim('b', { storageClassName: 'sc-b' })],
      storageClasses: [
        {
          metadata: { name: 'sc-a' },
          provisioner: 'ebs.csi.aws.com',
          allowedTopologies: [term([{ key: size, values: ['metal'] }]), term([{ key: size, values: ['large'] }])],
        },
        {
          metadata: { name: 'sc-b' },
          provisioner: 'ebs.csi.aws.com',
          allowedTopologies: [
            term([
              { key: ZONE, values: ['test-zone-1'] },
              { key: size, values: ['large'] },
            ]),
            term([
              { key: ZONE, values: ['test-zone-2'] },
              { key: size, values: ['metal'] },
            ]),
          ],
        },
      ],
    });
    expect(r.provisioning.nodeClaims.map((nc) => [nc.instanceType, nc.zone])).toEqual([['fake-it-4', 'test-zone-1']]);
  });
});

describe('attach limits (volumeusage.go, CSINode allocatable.count)', () => {
  const DRIVER = 'fake.csi.provider';
  const big = [fakeType('instance-type', { resources: { cpu: '1024', pods: '1024' } })];
  const n = node('n', {
    nodePool: 'default',
    instanceType: 'instance-type',
    zone: 'test-zone-1',
    allocatable: { cpu: '1000', pods: '1000', memory: '4Gi' },
  });
  const csi: KubeCSINode = {
    metadata: { name: 'n' },
    spec: { drivers: [{ name: DRIVER, nodeID: 'fake-node-id', allocatable: { count: 10 } }] },
  };
  const sc = storageClass('my-storage-class', ['test-zone-1'], DRIVER);
  it('scheduling/suite_test.go:2903 six pods with two new volumes each, a node that attaches 10: five go there, one to a new node', () => {
    const claims = Array.from({ length: 6 }, (_, i) => [
      claim(`my-claim-a-${i}`, { storageClassName: sc.metadata.name }),
      claim(`my-claim-b-${i}`, { storageClassName: sc.metadata.name }),
    ]).flat();
    const r = simulate({
      nodePools: [nodePool('default')],
      nodes: [n],
      pods: Array.from({ length: 6 }, (_, i) => withClaims(`p${i}`, [`my-claim-a-${i}`, `my-claim-b-${i}`])),
      persistentVolumeClaims: claims,
      storageClasses: [sc],
      csiNodes: [csi],
      catalogue: big,
      now: NOW,
    });
    expect(r.provisioning.nodeClaims.map((nc) => nc.pods.length)).toEqual([1]);
    expect(r.provisioning.unschedulable).toEqual([]);
  });
  it('scheduling/suite_test.go:2957 a hundred pods sharing one claim attach one volume: all on the node', () => {
    const r = simulate({
      nodePools: [nodePool('default')],
      nodes: [n],
      pods: Array.from({ length: 100 }, (_, i) => withClaims(`p${i}`, ['my-claim'])),
      persistentVolumeClaims: [claim('my-claim', { storageClassName: sc.metadata.name, volumeName: 'my-volume' })],
      persistentVolumes: [volume('my-volume', inZones('test-zone-1'), { csi: { driver: DRIVER } })],
      storageClasses: [sc],
      csiNodes: [csi],
      catalogue: big,
      now: NOW,
    });
    expect(r.provisioning.nodeClaims).toEqual([]);
  });
  it('in consolidation: the pods of a node cannot move onto a node whose CSI driver is at its limit', () => {
    const AGO = '2026-07-01T00:00:00Z';
    const nodes = ['full', 'src'].map((name) =>
      node(name, {
        nodePool: 'default',
        instanceType: 'instance-type',
        zone: 'test-zone-1',
        allocatable: { cpu: '1000', pods: '1000', memory: '4Gi' },
        createdAt: AGO,
      }),
    );
    const csiFull: KubeCSINode = { metadata: { name: 'full' }, spec: { drivers: [{ name: DRIVER, allocatable: { count: 1 } }] } };
    const input = (csiNodes: KubeCSINode[]) => ({
      nodePools: [nodePool('default', { consolidateAfter: '0s', budgets: [{ nodes: '100%' }] })],
      nodes,
      pods: [
        withClaims('on-full', ['c-full'], { nodeName: 'full', ownerKind: 'StatefulSet', createdAt: AGO }),
        withClaims('on-src', ['c-src'], { nodeName: 'src', ownerKind: 'StatefulSet', createdAt: AGO }),
      ],
      persistentVolumeClaims: [
        claim('c-full', { storageClassName: sc.metadata.name }),
        claim('c-src', { storageClassName: sc.metadata.name }),
      ],
      storageClasses: [sc],
      csiNodes,
      catalogue: big,
      now: NOW,
    });
    // without a limit, src's pod moves to full and src is deleted (or the other way round)
    expect(simulate(input([])).consolidation.decisions[0]).toMatchObject({ action: 'delete' });
    // each attaches one volume and has it; the other's pod would bring a second: neither can empty the other
    const r = simulate(input([csiFull, { ...csiFull, metadata: { name: 'src' } }]));
    expect(r.consolidation.decisions).toEqual([]);
    // the only place left for src's pod is a new node of the same type: not cheaper
    expect(r.consolidation.unconsolidatable.find((u) => u.node === 'src')?.reason).toBe("Can't replace with a cheaper node");
  });
});
