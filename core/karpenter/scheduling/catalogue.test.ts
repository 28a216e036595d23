import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CatalogueError,
  catalogueZones,
  karpenterMemoryCapacityBytes,
  karpenterOverhead,
  kubeReservedCpuMillicores,
  parseCatalogue,
  validateCatalogue,
} from './catalogue.js';
import { builtInCatalogue, readCatalogueFile } from './catalogue-files.js';
import { compileInstanceType } from './instance-types.js';
import { parseQuantity, ResourceSpace } from './resources.js';

const MI = 2 ** 20;
const entry = (o: Record<string, unknown> = {}) => ({
  name: 'm5.large',
  capacity: { cpu: '2', memory: '7577Mi', pods: '29' },
  overhead: { cpu: '70m', memory: '674Mi' },
  labels: { 'kubernetes.io/arch': 'amd64' },
  offerings: [{ zone: 'us-east-1a', capacityType: 'on-demand', priceUsdPerHour: 0.096, available: true }],
  ...o,
});

function problems(value: unknown): string[] {
  try {
    validateCatalogue(value);
  } catch (err) {
    if (err instanceof CatalogueError) return err.problems;
    throw err;
  }
  return [];
}

describe('catalogue file: checked, every problem named by entry and field', () => {
  it.each([
    ['not an array', { name: 'x' }, ['the file must hold a JSON array of instance types at the top level']],
    ['a missing name', [entry({ name: '' })], ['instance type #1: name must be a non-empty string']],
    ['a repeated name', [entry(), entry()], ['instance type #2 "m5.large": name repeats an earlier entry']],
    [
      'a bad quantity',
      [entry({ capacity: { cpu: 'two', memory: '1Gi', pods: '29' } })],
      ['instance type #1 "m5.large": capacity.cpu is not a Kubernetes quantity: "two"'],
    ],
    [
      'a missing capacity resource',
      [entry({ capacity: { cpu: '2', memory: '1Gi' } })],
      ['instance type #1 "m5.large": capacity.pods is missing'],
    ],
    [
      'overhead above capacity',
      [entry({ overhead: { cpu: '3' } })],
      ['instance type #1 "m5.large": overhead.cpu (3) exceeds capacity.cpu (2)'],
    ],
    [
      'an unknown capacity type and a price that is not a number',
      [entry({ offerings: [{ zone: 'us-east-1a', capacityType: 'preemptible', priceUsdPerHour: '0.1', available: true }] })],
      [
        'instance type #1 "m5.large": offerings[0].capacityType must be one of on-demand, spot, reserved, got "preemptible"',
        'instance type #1 "m5.large": offerings[0].priceUsdPerHour must be a number ≥ 0 (USD per hour), got "0.1"',
      ],
    ],
    [
      'available not a boolean',
      [entry({ offerings: [{ zone: 'z', capacityType: 'spot', priceUsdPerHour: 0.1, available: 'yes' }] })],
      ['instance type #1 "m5.large": offerings[0].available must be true or false, got "yes"'],
    ],
    ['no offerings', [entry({ offerings: [] })], ['instance type #1 "m5.large": offerings must be a non-empty array']],
    [
      'a label naming another type',
      [entry({ labels: { 'node.kubernetes.io/instance-type': 'm5.xlarge' } })],
      ['instance type #1 "m5.large": labels.node.kubernetes.io/instance-type is "m5.xlarge", not the entry\'s name'],
    ],
  ])('%s', (_name, value, expected) => {
    expect(problems(value)).toEqual(expected);
  });
  it('reports JSON syntax errors and names the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'catalogue-'));
    const path = join(dir, 'types.json');
    writeFileSync(path, '[{"name": "m5.large",');
    expect(() => readCatalogueFile(path)).toThrow(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is invalid:\\n  not JSON`));
  });
  it('quantities may be numbers, and the instance-type label is added', () => {
    const [e] = parseCatalogue(JSON.stringify([entry({ capacity: { cpu: 2, memory: '7577Mi', pods: 29 } })]));
    expect(e.labels['node.kubernetes.io/instance-type']).toBe('m5.large');
  });
});

describe('allocatable = capacity − overhead', () => {
  it("m5.large as given: 2 CPU − 70m = 1930m, 7577Mi − 674Mi = 6903Mi (Karpenter's AL2023 figures)", () => {
    const [e] = validateCatalogue([entry()]);
    const it = compileInstanceType(e, 0, new ResourceSpace());
    expect(it.allocatable).toMatchObject({ cpu: 1930, memory: 6903 * MI, pods: 29 });
  });
  it("without an overhead, Karpenter's AWS formula is used (kube-reserved + 100Mi eviction threshold)", () => {
    const [e] = validateCatalogue([entry({ overhead: undefined })]);
    const it = compileInstanceType(e, 0, new ResourceSpace());
    expect(it.allocatable).toMatchObject({ cpu: 1930, memory: 6903 * MI });
  });
  it.each([
    // 6% of the first core, 1% of the second, 0.5% of the next two, 0.25% beyond (types.go kubeReservedResources)
    [1000, 60],
    [2000, 70],
    [4000, 80],
    [32000, 150],
    [96000, 310],
  ])('kube-reserved CPU for %d m = %d m', (cpu, reserved) => expect(kubeReservedCpuMillicores(cpu)).toBe(reserved));
  it.each([
    // 11 MiB per pod + 255 MiB kube-reserved, + 100 MiB eviction threshold
    [29, 674],
    [110, 1565],
    [234, 2929],
  ])('overhead memory for %d pods = %d Mi', (pods, mib) => expect(karpenterOverhead(2000, pods).memory).toBe(mib * MI));
  it.each([
    // 8192 MiB − ceil(7.5%) = 8192 − 615; arm64 also loses 64 MiB (types.go memory())
    [8192, 'amd64', 7577],
    [8192, 'arm64', 7518],
    [65536, 'amd64', 60620],
  ])('node memory capacity of %d MiB (%s) = %d MiB', (mib, arch, expected) =>
    expect(karpenterMemoryCapacityBytes(mib, arch)).toBe(expected * MI),
  );
});

describe('the built-in catalogue', () => {
  const catalogue = builtInCatalogue({
    region: 'us-east-1',
    zones: ['us-east-1a', 'us-east-1b'],
    spotUsdPerHour: new Map([['m5.large/us-east-1b', 0.035]]),
  });
  it('offers every priced type on-demand in every zone, and spot where a spot price is known', () => {
    const m5 = catalogue.find((e) => e.name === 'm5.large');
    expect(m5?.offerings).toEqual([
      { zone: 'us-east-1a', capacityType: 'on-demand', priceUsdPerHour: 0.096, available: true },
      { zone: 'us-east-1b', capacityType: 'on-demand', priceUsdPerHour: 0.096, available: true },
      { zone: 'us-east-1b', capacityType: 'spot', priceUsdPerHour: 0.035, available: true },
    ]);
    expect(m5?.capacity).toMatchObject({ cpu: '2', memory: '7577Mi', pods: '29' });
    expect(m5?.overhead).toEqual({ cpu: '70m', memory: '674Mi' });
    expect(m5?.labels['topology.kubernetes.io/region']).toBe('us-east-1');
  });
  it("every type's shipped allocatable is what Karpenter's formula gives for its capacity (the data and the formula agree)", () => {
    expect(catalogue.length).toBeGreaterThan(1000);
    const off: string[] = [];
    for (const e of catalogue) {
      const cpu = parseQuantity('cpu', e.capacity.cpu);
      const pods = parseQuantity('pods', e.capacity.pods);
      const expected = karpenterOverhead(cpu, pods);
      const given = { cpu: parseQuantity('cpu', e.overhead?.cpu ?? 0), memory: parseQuantity('memory', e.overhead?.memory ?? 0) };
      if (given.cpu !== expected.cpu || given.memory !== expected.memory) off.push(e.name);
    }
    expect(off).toEqual([]);
  });
  it('a region without a USD table gives no types (the caller says so)', () => {
    expect(builtInCatalogue({ region: 'cn-north-1' })).toEqual([]);
  });
});

describe('catalogueZones', () => {
  it.each([
    [
      'a NodePool naming zones, and a node elsewhere',
      [
        {
          spec: {
            template: {
              spec: { requirements: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-west-2b', 'us-west-2a'] }] },
            },
          },
        },
      ],
      [{ metadata: { labels: { 'topology.kubernetes.io/zone': 'us-west-2d' } } }],
      ['us-west-2a', 'us-west-2b', 'us-west-2d'],
    ],
    ["nothing says: the region's a, b, c", [{ spec: {} }], [], ['us-west-2a', 'us-west-2b', 'us-west-2c']],
    [
      'NotIn names no zone to offer',
      [
        {
          spec: {
            template: { spec: { requirements: [{ key: 'topology.kubernetes.io/zone', operator: 'NotIn', values: ['us-west-2a'] }] } },
          },
        },
      ],
      [],
      ['us-west-2a', 'us-west-2b', 'us-west-2c'],
    ],
  ])('%s', (_name, pools, nodes, zones) => expect(catalogueZones('us-west-2', pools, nodes)).toEqual(zones));
});
