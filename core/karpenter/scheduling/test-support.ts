import type { CatalogueEntry, CatalogueOffering } from './catalogue.js';
import type { KubeNode, KubeNodePool, KubePod, KubePodSpec } from './kube-types.js';
import type { SelectorRequirement } from './requirements.js';
import { parseQuantity } from './resources.js';

/**
 * Builders for the engine's tests (imported by *.test.ts only): Karpenter's fake cloud provider
 * (kubernetes-sigs/karpenter@v1.14.1 pkg/cloudprovider/fake/instancetype.go, cloudprovider.go) and small
 * Kubernetes objects, so cases transcribed from Karpenter's suites read like the originals.
 */

/** fake.PriceFromResources: 0.1 per CPU, 0.1 per GB (10^9 bytes) of memory, 1.0 per fake GPU resource. */
export function fakePrice(resources: Record<string, string>): number {
  let price = 0;
  for (const [k, v] of Object.entries(resources)) {
    if (k === 'cpu') price += (0.1 * parseQuantity('cpu', v)) / 1000;
    else if (k === 'memory') price += (0.1 * parseQuantity('memory', v)) / 1e9;
    else if (k === 'fake.com/vendor-a' || k === 'fake.com/vendor-b') price += 1.0;
  }
  return price;
}

export interface FakeTypeOptions {
  resources?: Record<string, string>;
  arch?: string;
  labels?: Record<string, string>;
  offerings?: CatalogueOffering[];
}

/**
 * fake.NewInstanceType: 4 CPU, 4Gi, 5 pods unless given; overhead 100m CPU and 10Mi memory (kube-reserved);
 * offered spot in test-zone-1/2 and on-demand in test-zone-1/2/3 at the resource price.
 */
export function fakeType(name: string, opts: FakeTypeOptions = {}): CatalogueEntry {
  const resources: Record<string, string> = { cpu: '4', memory: '4Gi', pods: '5', ...(opts.resources ?? {}) };
  const price = fakePrice(resources);
  const offerings: CatalogueOffering[] = opts.offerings ?? [
    { zone: 'test-zone-1', capacityType: 'spot', priceUsdPerHour: price, available: true },
    { zone: 'test-zone-2', capacityType: 'spot', priceUsdPerHour: price, available: true },
    { zone: 'test-zone-1', capacityType: 'on-demand', priceUsdPerHour: price, available: true },
    { zone: 'test-zone-2', capacityType: 'on-demand', priceUsdPerHour: price, available: true },
    { zone: 'test-zone-3', capacityType: 'on-demand', priceUsdPerHour: price, available: true },
  ];
  const big = parseQuantity('cpu', resources.cpu) > 4000 && parseQuantity('memory', resources.memory) > 8 * 2 ** 30;
  return {
    name,
    capacity: resources,
    overhead: { cpu: '100m', memory: '10Mi' },
    labels: {
      'kubernetes.io/arch': opts.arch ?? 'amd64',
      'kubernetes.io/os': 'linux',
      'karpenter.k8s.aws/instance-size': big ? 'large' : 'small',
      ...(opts.labels ?? {}),
    },
    offerings,
  };
}

/** fake.CloudProvider's default instance types (cloudprovider.go GetInstanceTypes). */
export const fakeDefaultCatalogue = (): CatalogueEntry[] => [
  fakeType('default-instance-type'),
  fakeType('small-instance-type', { resources: { cpu: '2', memory: '2Gi' } }),
  fakeType('gpu-vendor-instance-type', { resources: { 'fake.com/vendor-a': '2' } }),
  fakeType('gpu-vendor-b-instance-type', { resources: { 'fake.com/vendor-b': '2' } }),
  fakeType('arm-instance-type', { arch: 'arm64', resources: { cpu: '16', memory: '128Gi' } }),
  fakeType('single-pod-instance-type', { resources: { pods: '1' } }),
];

/** fake.InstanceTypes(n): fake-it-i with i+1 CPU, 2(i+1) Gi, 10(i+1) pods. */
export const fakeInstanceTypes = (n: number): CatalogueEntry[] =>
  Array.from({ length: n }, (_, i) =>
    fakeType(`fake-it-${i}`, { resources: { cpu: `${i + 1}`, memory: `${(i + 1) * 2}Gi`, pods: `${(i + 1) * 10}` } }),
  );

/** An on-demand-only offering list in one zone at one price. */
export const onDemand = (priceUsdPerHour: number, zone = 'test-zone-1a'): CatalogueOffering[] => [
  { zone, capacityType: 'on-demand', priceUsdPerHour, available: true },
];

export interface PodOptions {
  namespace?: string;
  requests?: Record<string, string>;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  nodeSelector?: Record<string, string>;
  nodeName?: string;
  spec?: Partial<KubePodSpec>;
  ownerKind?: string;
  ownerName?: string;
  createdAt?: string;
  phase?: string;
}

let podCounter = 0;

export function pod(name: string | null, o: PodOptions = {}): KubePod {
  const n = name ?? `pod-${String(++podCounter).padStart(5, '0')}`;
  return {
    metadata: {
      name: n,
      namespace: o.namespace ?? 'default',
      uid: `uid-${o.namespace ?? 'default'}-${n}`,
      labels: o.labels ?? {},
      annotations: o.annotations ?? {},
      creationTimestamp: o.createdAt ?? '2026-01-01T00:00:00Z',
      ...(o.ownerKind
        ? {
            ownerReferences: [
              { apiVersion: o.ownerKind === 'Node' ? 'v1' : 'apps/v1', kind: o.ownerKind, name: o.ownerName ?? 'owner', controller: true },
            ],
          }
        : {}),
    },
    spec: {
      containers: [{ name: 'app', resources: { requests: o.requests ?? {} } }],
      ...(o.nodeSelector ? { nodeSelector: o.nodeSelector } : {}),
      ...(o.nodeName ? { nodeName: o.nodeName } : {}),
      ...(o.spec ?? {}),
    },
    status: {
      phase: o.phase ?? (o.nodeName ? 'Running' : 'Pending'),
      ...(o.nodeName ? { startTime: o.createdAt ?? '2026-01-01T00:00:00Z' } : {}),
    },
  };
}

export const pods = (count: number, prefix: string, o: PodOptions = {}): KubePod[] =>
  Array.from({ length: count }, (_, i) => pod(`${prefix}-${String(i).padStart(3, '0')}`, o));

export interface NodePoolOptions {
  requirements?: SelectorRequirement[];
  labels?: Record<string, string>;
  taints?: { key: string; value?: string; effect: string }[];
  weight?: number;
  limits?: Record<string, string | number>;
  consolidationPolicy?: string;
  consolidateAfter?: string;
  budgets?: { nodes: string; reasons?: string[]; schedule?: string; duration?: string }[];
  expireAfter?: string;
}

export function nodePool(name: string, o: NodePoolOptions = {}): KubeNodePool {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name },
    spec: {
      ...(o.weight !== undefined ? { weight: o.weight } : {}),
      ...(o.limits ? { limits: o.limits } : {}),
      template: {
        metadata: { labels: o.labels ?? {} },
        spec: {
          requirements: o.requirements ?? [],
          ...(o.taints ? { taints: o.taints } : {}),
          ...(o.expireAfter ? { expireAfter: o.expireAfter } : {}),
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
        },
      },
      disruption: {
        consolidationPolicy: o.consolidationPolicy ?? 'WhenEmptyOrUnderutilized',
        consolidateAfter: o.consolidateAfter ?? '0s',
        ...(o.budgets ? { budgets: o.budgets } : {}),
      },
    },
  };
}

export interface NodeOptions {
  nodePool?: string;
  instanceType: string;
  capacityType?: string;
  zone?: string;
  allocatable: Record<string, string>;
  capacity?: Record<string, string>;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  taints?: { key: string; value?: string; effect: string }[];
  createdAt?: string;
}

export function node(name: string, o: NodeOptions): KubeNode {
  return {
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'node.kubernetes.io/instance-type': o.instanceType,
        'karpenter.sh/capacity-type': o.capacityType ?? 'on-demand',
        'topology.kubernetes.io/zone': o.zone ?? 'test-zone-1',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/os': 'linux',
        ...(o.nodePool ? { 'karpenter.sh/nodepool': o.nodePool, 'karpenter.sh/initialized': 'true' } : {}),
        ...(o.labels ?? {}),
      },
      annotations: o.annotations ?? {},
      creationTimestamp: o.createdAt ?? '2026-01-01T00:00:00Z',
    },
    spec: { taints: o.taints ?? [] },
    status: { allocatable: o.allocatable, capacity: o.capacity ?? o.allocatable, conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

/**
 * fake.InstanceTypesAssorted (instancetype.go): every CPU (1…64) × memory (1…128 Gi) × zone (test-zone-1…3) ×
 * capacity type × OS × arch, one offering each, named like Karpenter's ("4-cpu-8-mem-amd64-linux-test-zone-1-spot").
 */
export function fakeAssorted(): CatalogueEntry[] {
  const out: CatalogueEntry[] = [];
  for (const cpu of [1, 2, 4, 8, 16, 32, 64]) {
    for (const mem of [1, 2, 4, 8, 16, 32, 64, 128]) {
      for (const zone of ['test-zone-1', 'test-zone-2', 'test-zone-3']) {
        for (const ct of ['spot', 'on-demand']) {
          for (const os of ['linux', 'windows']) {
            for (const arch of ['amd64', 'arm64']) {
              const resources = { cpu: String(cpu), memory: `${mem}Gi` };
              const e = fakeType(`${cpu}-cpu-${mem}-mem-${arch}-${os}-${zone}-${ct}`, {
                arch,
                resources,
                offerings: [{ zone, capacityType: ct, priceUsdPerHour: fakePrice(resources), available: true }],
              });
              e.labels['kubernetes.io/os'] = os;
              out.push(e);
            }
          }
        }
      }
    }
  }
  return out;
}
