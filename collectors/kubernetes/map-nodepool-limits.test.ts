import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { parseBaseUnits, parseCpuMillicores } from '../../core/quantity.js';
import { mapNode, mapNodePool } from './map.js';

/** What NodePool limits need from the API objects: each node's status.capacity and the NodePool's expireAfter. */
describe.each([
  {
    name: 'karpenter.sh/v1: spec.template.spec.expireAfter',
    spec: { template: { spec: { expireAfter: '720h' } }, disruption: {} },
    expireAfter: '720h',
  },
  { name: 'v1 "Never"', spec: { template: { spec: { expireAfter: 'Never' } } }, expireAfter: 'Never' },
  {
    name: 'v1beta1: spec.disruption.expireAfter',
    spec: { template: { spec: {} }, disruption: { expireAfter: '168h' } },
    expireAfter: '168h',
  },
  { name: 'unset', spec: { template: { spec: {} } }, expireAfter: null },
  { name: 'not a string', spec: { template: { spec: { expireAfter: 720 } } }, expireAfter: null },
])('mapNodePool expireAfter, $name', ({ spec, expireAfter }) => {
  it(`is ${String(expireAfter)}`, () => {
    expect(mapNodePool({ metadata: { name: 'general' }, spec: { ...spec, limits: { cpu: '1000', memory: '1000Gi' } } })).toMatchObject({
      name: 'general',
      expireAfter,
      limits: { cpu: '1000', memory: '1000Gi' },
    });
  });
});

/**
 * spec.limits is a map of int-or-string quantities: the API server hands back what was applied, so `cpu: 100`
 * (aws/karpenter-provider-aws examples/v1/100-cpu-limit.yaml) and `nodes: 10` (the docs' NodePool) arrive as JSON
 * numbers, `memory: 1000Gi` as a string. Each is kept in its string form and reads as the same quantity.
 */
describe.each([
  { written: 100, resource: 'cpu', text: '100', parsed: 100_000 },
  { written: '100', resource: 'cpu', text: '100', parsed: 100_000 },
  { written: 1.5, resource: 'cpu', text: '1.5', parsed: 1500 },
  { written: '1500m', resource: 'cpu', text: '1500m', parsed: 1500 },
  { written: '64Gi', resource: 'memory', text: '64Gi', parsed: 64 * 1024 ** 3 },
  { written: 68719476736, resource: 'memory', text: '68719476736', parsed: 64 * 1024 ** 3 },
  { written: 10, resource: 'nodes', text: '10', parsed: 10 },
  { written: 0, resource: 'nodes', text: '0', parsed: 0 },
])('mapNodePool limits: $resource: $written ($written as JSON)', ({ written, resource, text, parsed }) => {
  it(`is kept as "${text}" = ${parsed}`, () => {
    const pool = mapNodePool(JSON.parse(JSON.stringify({ metadata: { name: 'default' }, spec: { limits: { [resource]: written } } })));
    expect(pool.limits).toEqual({ [resource]: text });
    expect((resource === 'cpu' ? parseCpuMillicores : parseBaseUnits)(pool.limits[resource])).toBe(parsed);
  });
});

describe('mapNodePool limits that are neither number nor string', () => {
  it('are dropped, the others kept', () => {
    const pool = mapNodePool({ metadata: { name: 'x' }, spec: { limits: { cpu: null, memory: { value: 1 }, nodes: true, pods: 110 } } });
    expect(pool.limits).toEqual({ pods: '110' });
  });
});

describe('mapNode capacity', () => {
  const node = (status: V1Node['status']): V1Node => ({ metadata: { name: 'ip-10-0-1-2.ec2.internal' }, status });
  it('keeps status.capacity as given, every resource, beside the parsed allocatable', () => {
    const n = mapNode(
      node({
        capacity: { cpu: '4', memory: '16092956Ki', pods: '58', 'ephemeral-storage': '20959212Ki' },
        allocatable: { cpu: '3920m', memory: '15208220Ki', pods: '58' },
      }),
    );
    expect(n.capacity).toEqual({ cpu: '4', memory: '16092956Ki', pods: '58', 'ephemeral-storage': '20959212Ki' });
    expect(n.allocatable).toEqual({ cpuMillicores: 3920, memoryBytes: 15_208_220 * 1024, pods: 58, gpu: 0 });
  });
  it('leaves capacity unknown when the node reports none', () => {
    expect(mapNode(node({ allocatable: { cpu: '2' } })).capacity).toBeUndefined();
    expect(mapNode(node(undefined)).capacity).toBeUndefined();
  });
});
