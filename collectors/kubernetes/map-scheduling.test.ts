import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';
import {
  createSpecTable,
  finishedAtOf,
  honoursDoNotDisrupt,
  karpenterFeatureGatesOf,
  karpenterVersionOf,
  karpenterVersionOfImage,
  podRequests,
  podSchedulingSpec,
} from './map-scheduling.js';
import type { PodRecord } from '../../core/model.js';

const pod = (spec: Partial<NonNullable<V1Pod['spec']>>, meta: V1Pod['metadata'] = { name: 'p', namespace: 'ns' }): V1Pod => ({
  metadata: meta,
  spec: { containers: [{ name: 'app', resources: { requests: { cpu: '250m', memory: '512Mi' } } }], ...spec },
});

describe('podRequests: effective requests as Kubernetes computes them (resourcehelper.PodRequests)', () => {
  it.each([
    // [case, spec, expected] — worked by hand below each.
    ['one container', {}, { cpu: '250m', memory: String(512 * 2 ** 20) }],
    [
      // Σ app = 250m + 500m = 750m, 512Mi + 1Gi = 1536Mi; init 1 (cpu 1000m) runs alone: max(750m, 1000m) = 1000m.
      'an init container asking more than the apps',
      {
        containers: [
          { name: 'a', resources: { requests: { cpu: '250m', memory: '512Mi' } } },
          { name: 'b', resources: { requests: { cpu: '500m', memory: '1Gi' } } },
        ],
        initContainers: [{ name: 'init', resources: { requests: { cpu: '1', memory: '128Mi' } } }],
      },
      { cpu: '1000m', memory: String(1536 * 2 ** 20) },
    ],
    [
      // Pod-level requests replace cpu and memory (Kubernetes 1.32+, Karpenter v1.8.0+); ephemeral-storage is still
      // the containers'; overhead (RuntimeClass) is added after: 2000m + 250m, 4Gi + 120Mi.
      'pod-level resources and overhead',
      {
        containers: [{ name: 'a', resources: { requests: { cpu: '250m', memory: '512Mi', 'ephemeral-storage': '1Gi' } } }],
        resources: { requests: { cpu: '2', memory: '4Gi' } },
        overhead: { cpu: '250m', memory: '120Mi' },
      },
      { cpu: '2250m', 'ephemeral-storage': String(2 ** 30), memory: String(4 * 2 ** 30 + 120 * 2 ** 20) },
    ],
    [
      // A sidecar (restartPolicy Always) is summed with the apps: 250m + 100m.
      'a restartable sidecar',
      { initContainers: [{ name: 'proxy', restartPolicy: 'Always', resources: { requests: { cpu: '100m', memory: '64Mi' } } }] },
      { cpu: '350m', memory: String(576 * 2 ** 20) },
    ],
  ] as [string, Partial<NonNullable<V1Pod['spec']>>, Record<string, string>][])('%s', (_name, spec, expected) => {
    expect(podRequests(pod(spec))).toEqual(expected);
  });
});

describe('the scheduling spec and its dedup (as the kube-scheduler groups pods into equivalence classes)', () => {
  const spread = {
    maxSkew: 1,
    topologyKey: 'topology.kubernetes.io/zone',
    whenUnsatisfiable: 'DoNotSchedule',
    labelSelector: { matchLabels: { app: 'web' } },
  };
  const replica = (name: string, nodeName: string) =>
    pod(
      {
        nodeName,
        topologySpreadConstraints: [spread],
        tolerations: [{ key: 'workload', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
      },
      { name, namespace: 'shop', uid: name, labels: { app: 'web', 'pod-template-hash': 'abc' }, annotations: { note: name } },
    );

  it('three replicas on three nodes share one spec (names, uids, nodes, labels and annotations are not part of it)', () => {
    const table = createSpecTable();
    const refs = ['web-1', 'web-2', 'web-3'].map((n, i) => table(podSchedulingSpec(replica(n, `node-${i}`))));
    expect(new Set(refs.map((r) => r.hash)).size).toBe(1);
    // One object for all: the pod records of a snapshot share it.
    expect(refs[1]).toBe(refs[0]);
    expect(JSON.parse(refs[0].json ?? '')).toEqual({
      requests: { cpu: '250m', memory: String(512 * 2 ** 20) },
      tolerations: [{ effect: 'NoSchedule', key: 'workload', operator: 'Equal', value: 'web' }],
      topologySpreadConstraints: [spread],
    });
  });

  it("the same spec with its keys in another order (a list gives the client's field order, a watch the API server's) is one spec", () => {
    const table = createSpecTable();
    const fromList = table(
      podSchedulingSpec(pod({ tolerations: [{ effect: 'NoSchedule', key: 'workload', operator: 'Equal', value: 'web' }] })),
    );
    const fromWatch = table(
      podSchedulingSpec(pod({ tolerations: [{ key: 'workload', operator: 'Equal', value: 'web', effect: 'NoSchedule' }] })),
    );
    expect(fromWatch.hash).toBe(fromList.hash);
  });

  it('a pod with one more toleration, or another request, is another spec', () => {
    const table = createSpecTable();
    const a = table(podSchedulingSpec(pod({ nodeSelector: { a: '1', b: '2' } })));
    const b = table(podSchedulingSpec(pod({ nodeSelector: { a: '1', b: '2' }, tolerations: [{ operator: 'Exists' }] })));
    const c = table(
      podSchedulingSpec(pod({ nodeSelector: { a: '1', b: '2' }, containers: [{ name: 'app', resources: { requests: { cpu: '1' } } }] })),
    );
    expect(new Set([a.hash, b.hash, c.hash]).size).toBe(3);
  });

  it("a DaemonSet's pods share one spec: the controller's own-node term is stored without the node", () => {
    const dsPod = (node: string) =>
      pod({
        nodeName: node,
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }],
            },
          },
        },
        containers: [{ name: 'x', ports: [{ containerPort: 9100, hostPort: 9100 }], resources: { requests: { cpu: '100m' } } }],
      });
    const table = createSpecTable();
    const [a, b] = [table(podSchedulingSpec(dsPod('node-a'))), table(podSchedulingSpec(dsPod('node-b')))];
    expect(b.hash).toBe(a.hash);
    expect(JSON.parse(a.json ?? '')).toEqual({
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{}] } } },
      hostPorts: [{ hostPort: 9100, protocol: 'TCP' }],
      ownNodeAffinity: true,
      requests: { cpu: '100m' },
    });
    // A term naming another node is not the controller's: kept as written.
    const moved = dsPod('node-a');
    if (moved.spec) moved.spec.nodeName = 'node-b';
    expect(podSchedulingSpec(moved).ownNodeAffinity).toBeUndefined();
  });
});

describe('karpenter.sh/do-not-disrupt as Karpenter honours it (pkg/utils/pod/scheduling.go@v1.14.1 IsDoNotDisruptActive)', () => {
  it.each([
    ['true', true],
    ['30m', true], // a duration, v1.12.0+: protected until the pod has run 30 minutes
    ['1h30m', true],
    ['false', false],
    ['0s', false], // "must be positive"
    ['-5m', false],
    ['soon', false], // invalid: as if absent (Karpenter emits an event)
    [null, false],
  ] as [string | null, boolean][])('%j -> %s', (value, honoured) => {
    expect(honoursDoNotDisrupt(value)).toBe(honoured);
  });
});

describe("Karpenter's version from its controller image", () => {
  it.each([
    ['public.ecr.aws/karpenter/controller:1.14.1@sha256:7c3b9d8e2f1a0b4c6d5e8f7a9b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c', '1.14.1'],
    ['public.ecr.aws/karpenter/controller:0.37.0', '0.37.0'],
    ['123456789012.dkr.ecr.us-west-2.amazonaws.com/mirror/karpenter/controller:v1.8.0', '1.8.0'],
    ['public.ecr.aws/karpenter/controller@sha256:7c3b9d8e2f1a0b4c6d5e8f7a9b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c', null],
    ['public.ecr.aws/karpenter/karpenter-webhook:0.31.0', null],
    ['quay.io/prometheus/node-exporter:v1.8.2', null],
  ] as [string, string | null][])('%s -> %s', (image, version) => {
    expect(karpenterVersionOfImage(image)).toBe(version);
  });

  it('the newest running controller during a rolling upgrade; pods not running do not count', () => {
    const p = (image: string, phase: string) => ({ karpenterImage: image, phase }) as PodRecord;
    expect(
      karpenterVersionOf([
        p('public.ecr.aws/karpenter/controller:1.13.0', 'Running'),
        p('public.ecr.aws/karpenter/controller:1.14.1', 'Running'),
        p('public.ecr.aws/karpenter/controller:1.15.0', 'Pending'),
      ]),
    ).toEqual({ version: '1.14.1', source: 'image', image: 'public.ecr.aws/karpenter/controller:1.14.1' });
    expect(karpenterVersionOf([])).toBeUndefined();
  });
});

describe("Karpenter's FEATURE_GATES and a finished pod's time", () => {
  const GATES = 'ReservedCapacity=true,SpotToSpotConsolidation=true,NodeRepair=false';
  it('FEATURE_GATES is read off the container running the controller image, not a sidecar', () => {
    const p = pod({
      containers: [
        { name: 'sidecar', image: 'quay.io/x/y:1', env: [{ name: 'FEATURE_GATES', value: 'NodeOverlay=true' }] },
        { name: 'controller', image: 'public.ecr.aws/karpenter/controller:1.14.1', env: [{ name: 'FEATURE_GATES', value: GATES }] },
      ],
    });
    expect(karpenterFeatureGatesOf(p)).toBe(GATES);
    expect(
      karpenterFeatureGatesOf(pod({ containers: [{ name: 'c', image: 'public.ecr.aws/karpenter/controller:1.14.1' }] })),
    ).toBeUndefined();
    const rec = {
      karpenterImage: 'public.ecr.aws/karpenter/controller:1.14.1',
      karpenterFeatureGates: GATES,
      phase: 'Running',
    } as PodRecord;
    expect(karpenterVersionOf([rec])?.featureGates).toBe(GATES);
  });
  it("a Succeeded pod finished at its containers' latest state.terminated.finishedAt; a running one has none", () => {
    const p: V1Pod = {
      ...pod({}),
      status: {
        phase: 'Succeeded',
        containerStatuses: [
          {
            name: 'a',
            image: 'x',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 0, finishedAt: new Date('2026-01-05T20:20:30Z') } },
          },
          {
            name: 'b',
            image: 'x',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 0, finishedAt: new Date('2026-01-05T20:21:00Z') } },
          },
        ],
      },
    };
    expect(finishedAtOf(p)).toBe(Date.parse('2026-01-05T20:21:00Z'));
    expect(finishedAtOf({ ...p, status: { ...p.status, phase: 'Running' } })).toBeNull();
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every level, drops undefined, keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: undefined, e: 'x' } })).toBe('{"a":{"d":[2,1],"e":"x"},"b":1}');
    expect(canonicalJson(new Date(Date.UTC(2026, 10, 3)))).toBe('"2026-11-03T00:00:00.000Z"');
  });
});
