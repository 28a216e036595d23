import { describe, expect, it } from 'vitest';
import { builtInCatalogue } from './catalogue-files.js';
import type { CatalogueEntry } from './catalogue.js';
import type { EngineInput } from './engine.js';
import { simulate } from './simulate.js';
import { node, nodePool, pod, pods } from './test-support.js';

/**
 * The engine over the real catalogue (data/instance-types.json with Karpenter's AL2023 allocatable and its static
 * us-east-1 prices), with the week4 scenario's NodePools (sandbox/scenarios/week4.json). The expected types were
 * worked out independently from the data files: the cheapest priced type whose labels meet the requirements and
 * whose allocatable holds the pod.
 */

const NOW = Date.parse('2026-02-01T00:00:00Z');
const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];

const general = (capacityTypes = ['on-demand', 'spot']) =>
  nodePool('general', {
    weight: 50,
    requirements: [
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: capacityTypes },
      { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm', 'r'] },
      { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gt', values: ['5'] },
      { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lt', values: ['17'] },
      { key: 'karpenter.k8s.aws/instance-hypervisor', operator: 'In', values: ['nitro'] },
      { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
    ],
  });
const system = nodePool('system', {
  weight: 100,
  requirements: [
    { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
    { key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m6i'] },
    { key: 'karpenter.k8s.aws/instance-size', operator: 'In', values: ['large', 'xlarge'] },
    { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
  ],
  taints: [{ key: 'CriticalAddonsOnly', value: 'true', effect: 'NoSchedule' }],
});

// One catalogue per set of spot prices: entries are immutable and keep their compiled form, so tests sharing one skip
// re-compiling the 1,345 types (about half of each simulation's time).
const catalogues = new Map<string, CatalogueEntry[]>();

function run(input: Partial<EngineInput> & { spot?: [string, number][] }) {
  const { spot, ...rest } = input;
  const key = JSON.stringify(spot ?? []);
  let catalogue = catalogues.get(key);
  if (!catalogue) {
    catalogue = builtInCatalogue({ region: 'us-east-1', zones: ZONES, spotUsdPerHour: new Map(spot ?? []) });
    catalogues.set(key, catalogue);
  }
  return simulate({ nodePools: [system, general()], catalogue, now: NOW, ...rest });
}

describe("predicting the NodePool and instance type (the syllabus' week-2 check question)", () => {
  it.each([
    // c6a.large: 2 vCPU, allocatable 1930m / 3114Mi, $0.0765/h — the cheapest c/m/r gen ≥ 6 amd64 nitro that holds 1 CPU + 2Gi
    [
      '1 CPU, 2Gi',
      { cpu: '1', memory: '2Gi' },
      'c6a.large',
      0.0765,
      ['c6a.large', 'c7i-flex.large', 'c6i.large', 'm6a.large', 'c8i-flex.large'],
    ],
    // 3 CPU + 8Gi needs a 4-vCPU, 16 GiB type: m6a.xlarge at $0.1728/h
    [
      '3 CPU, 8Gi',
      { cpu: '3', memory: '8Gi' },
      'm6a.xlarge',
      0.1728,
      ['m6a.xlarge', 'm7i-flex.xlarge', 'm6i.xlarge', 'm8i-flex.xlarge', 'm7i.xlarge'],
    ],
  ])('%s → general, %s', (_name, requests, type, price, cheapest) => {
    const r = run({ nodePools: [system, general(['on-demand'])], pods: [pod('p', { requests })] });
    expect(r.provisioning.nodeClaims).toHaveLength(1);
    const nc = r.provisioning.nodeClaims[0];
    expect(nc).toMatchObject({ nodePool: 'general', instanceType: type, capacityType: 'on-demand', zone: 'us-east-1a', usdPerHour: price });
    expect(nc.instanceTypeOptions.slice(0, 5)).toEqual(cheapest);
  });
  it('a pod tolerating CriticalAddonsOnly goes to the heavier system NodePool: m6i.large at $0.096/h', () => {
    const r = run({
      pods: [
        pod('p', { requests: { cpu: '500m', memory: '1Gi' }, spec: { tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }] } }),
      ],
    });
    expect(r.provisioning.nodeClaims[0]).toMatchObject({
      nodePool: 'system',
      instanceType: 'm6i.large',
      usdPerHour: 0.096,
      instanceTypeOptions: ['m6i.large', 'm6i.xlarge'],
    });
  });
  it('spot is chosen where the NodePool allows it and a spot price is known', () => {
    const r = run({ pods: [pod('p', { requests: { cpu: '1', memory: '2Gi' } })], spot: [['c6a.large/us-east-1b', 0.031]] });
    expect(r.provisioning.nodeClaims[0]).toMatchObject({
      instanceType: 'c6a.large',
      capacityType: 'spot',
      zone: 'us-east-1b',
      usdPerHour: 0.031,
    });
  });
  it('a spot offering dearer than the cheapest on-demand one is dropped at launch (SpotOfferingFilter): on-demand it is', () => {
    const r = run({ pods: [pod('p', { requests: { cpu: '1', memory: '2Gi' } })], spot: [['c6a.large/us-east-1b', 0.09]] });
    expect(r.provisioning.nodeClaims[0]).toMatchObject({ instanceType: 'c6a.large', capacityType: 'on-demand', usdPerHour: 0.0765 });
  });
  it('twenty 1-CPU replicas with hostname anti-affinity: twenty c6a.large, $1.53/h', () => {
    const app = { app: 'web' };
    const r = run({
      nodePools: [system, general(['on-demand'])],
      pods: pods(20, 'web', {
        labels: app,
        requests: { cpu: '1', memory: '2Gi' },
        spec: {
          affinity: {
            podAntiAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: [
                { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: app } },
              ],
            },
          },
        },
      }),
    });
    expect(r.provisioning.nodeClaims).toHaveLength(20);
    expect(r.costUsdPerHour.after).toBeCloseTo(20 * 0.0765, 10);
  });
});

describe('determinism', () => {
  const input = (): Parameters<typeof run>[0] => ({
    nodes: [
      node('ip-10-0-1-1.ec2.internal', {
        nodePool: 'general',
        instanceType: 'm6i.2xlarge',
        zone: 'us-east-1a',
        allocatable: { cpu: '7910m', memory: '29317Mi', pods: '58' },
        createdAt: '2026-01-10T00:00:00Z',
      }),
      node('ip-10-0-1-2.ec2.internal', {
        nodePool: 'general',
        instanceType: 'm6i.2xlarge',
        zone: 'us-east-1b',
        allocatable: { cpu: '7910m', memory: '29317Mi', pods: '58' },
        createdAt: '2026-01-10T00:00:00Z',
      }),
    ],
    pods: [
      ...pods(6, 'api', {
        nodeName: 'ip-10-0-1-1.ec2.internal',
        requests: { cpu: '500m', memory: '1Gi' },
        ownerKind: 'ReplicaSet',
        createdAt: '2026-01-10T00:00:00Z',
      }),
      ...pods(3, 'worker', {
        nodeName: 'ip-10-0-1-2.ec2.internal',
        requests: { cpu: '250m', memory: '512Mi' },
        ownerKind: 'ReplicaSet',
        createdAt: '2026-01-10T00:00:00Z',
      }),
      ...pods(12, 'new', {
        requests: { cpu: '1500m', memory: '3Gi' },
        labels: { app: 'new' },
        spec: {
          topologySpreadConstraints: [
            {
              topologyKey: 'topology.kubernetes.io/zone',
              maxSkew: 1,
              whenUnsatisfiable: 'DoNotSchedule',
              labelSelector: { matchLabels: { app: 'new' } },
            },
          ],
        },
      }),
    ],
    spot: [
      ['c6a.large/us-east-1a', 0.03],
      ['m6a.xlarge/us-east-1c', 0.06],
    ],
  });
  it('the order objects come in does not matter', () => {
    const reversed = input();
    reversed.pods = [...(reversed.pods ?? [])].reverse();
    reversed.nodes = [...(reversed.nodes ?? [])].reverse();
    expect(JSON.stringify(run(reversed))).toBe(JSON.stringify(run(input())));
  });
});
