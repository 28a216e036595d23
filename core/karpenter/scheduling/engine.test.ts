import { describe, expect, it } from 'vitest';
import { type EngineInput, prepare } from './engine.js';
import { EngineInputError } from './errors.js';
import type { KubeNode, KubePod } from './kube-types.js';
import { expandReplicas } from './pods.js';
import { provision } from './provisioning.js';
import { fakeDefaultCatalogue, nodePool, pod } from './test-support.js';

const NOW = Date.parse('2026-02-01T00:00:00Z');
const base = (o: Partial<EngineInput> = {}): EngineInput => ({
  nodePools: [nodePool('default')],
  catalogue: fakeDefaultCatalogue(),
  now: NOW,
  ...o,
});

describe('bad input is refused with the object named', () => {
  it.each([
    [
      'a pod without containers',
      base({ pods: [{ metadata: { name: 'web-1', namespace: 'shop' }, spec: {} } as unknown as KubePod] }),
      'Pod shop/web-1: spec.containers is missing',
    ],
    [
      'a bad quantity',
      base({ pods: [pod('web-1', { requests: { cpu: 'lots' } })] }),
      'Pod default/web-1: not a Kubernetes quantity: "lots"',
    ],
    [
      'an unknown operator in a node affinity',
      base({
        pods: [
          pod('web-1', {
            spec: {
              affinity: {
                nodeAffinity: {
                  requiredDuringSchedulingIgnoredDuringExecution: {
                    nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'Bigger', values: ['1'] }] }],
                  },
                },
              },
            },
          }),
        ],
      }),
      'Pod default/web-1: k: unknown operator "Bigger" (expected one of In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte)',
    ],
    ['the same pod twice', base({ pods: [pod('web-1'), pod('web-1')] }), 'Pod default/web-1: appears twice'],
    [
      'a NodePool budget that is not a count or a percentage',
      base({ nodePools: [nodePool('general', { budgets: [{ nodes: 'ten' }] })] }),
      'NodePool general: spec.disruption.budgets[0].nodes "ten" must be a count or a percentage',
    ],
    [
      'an unknown consolidation policy',
      base({ nodePools: [nodePool('general', { consolidationPolicy: 'Sometimes' })] }),
      /^NodePool general: spec.disruption.consolidationPolicy "Sometimes" is not one of/,
    ],
    [
      'a bad consolidateAfter',
      base({ nodePools: [nodePool('general', { consolidateAfter: 'soon' })] }),
      /^NodePool general: not a duration: "soon"/,
    ],
    [
      'a node without allocatable',
      base({ nodes: [{ metadata: { name: 'ip-10-0-0-1' }, status: {} } as KubeNode] }),
      /^Node ip-10-0-0-1: status.allocatable is missing/,
    ],
    ['an empty catalogue', base({ catalogue: [] }), 'catalogue: holds no instance types'],
  ])('%s', (_name, input, message) => {
    expect(() => prepare(input)).toThrow(EngineInputError);
    if (typeof message === 'string') expect(() => prepare(input)).toThrow(message);
    else expect(() => prepare(input)).toThrow(message);
  });
  it('pods bound to a node that is not in the input are left out, with a warning', () => {
    const ctx = prepare(base({ pods: [pod('p', { nodeName: 'gone' })] }));
    expect(ctx.warnings).toEqual(['1 pod(s) are bound to node gone, which is not in the input; they are left out']);
  });
});

describe('predicting a workload', () => {
  it('expandReplicas makes pending replicas of a template; Karpenter packs them into one NodeClaim while any type holds them all', () => {
    const replicas = expandReplicas(pod('web', { requests: { cpu: '1500m' }, nodeName: 'was-here' }), 3);
    expect(replicas.map((p) => [p.metadata.name, p.spec.nodeName])).toEqual([
      ['web-0', undefined],
      ['web-1', undefined],
      ['web-2', undefined],
    ]);
    // 4.5 CPU fits only arm-instance-type (16 CPU): the in-flight NodeClaim narrows to it rather than a second node
    expect(provision(prepare(base({ pods: replicas }))).nodeClaims.map((nc) => [nc.launch.instanceType.name, nc.pods.length])).toEqual([
      ['arm-instance-type', 3],
    ]);
    // pinned to amd64, no type holds 4.5 CPU: two on a 4-CPU node (3.9 allocatable), the third on the cheaper 2-CPU type
    const amd64 = expandReplicas(pod('web', { requests: { cpu: '1500m' }, nodeSelector: { 'kubernetes.io/arch': 'amd64' } }), 3);
    expect(provision(prepare(base({ pods: amd64 }))).nodeClaims.map((nc) => [nc.launch.instanceType.name, nc.pods.length])).toEqual([
      ['default-instance-type', 2],
      ['small-instance-type', 1],
    ]);
  });
});
