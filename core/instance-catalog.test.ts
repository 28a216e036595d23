import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InstanceCatalogError, loadInstanceCatalog, parseInstanceCatalog } from './instance-catalog.js';

const dir = mkdtempSync(join(tmpdir(), 'ledger-catalog-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the shipped catalogue (data/instance-types.json)', () => {
  const catalog = loadInstanceCatalog();
  it('holds every type of the file, each with parsed allocatable (1,363 types)', () => {
    expect(catalog.types.size).toBe(1363);
    expect(catalog.origin).toContain('aws/karpenter-provider-aws@');
  });
  it.each([
    // allocatable as the file gives it: cpu 1930m, memory 6903Mi = 6903 x 1,048,576 bytes, 29 pods; 2 vCPU, 8192 MiB.
    ['m5.large', { cpuMillicores: 1930, memoryBytes: 6903 * 1_048_576, pods: 29, gpu: 0 }, 2, 8192],
    ['m6i.xlarge', { cpuMillicores: 3920, memoryBytes: 14162 * 1_048_576, pods: 58, gpu: 0 }, 4, 16384],
    ['g4dn.xlarge', { cpuMillicores: 3920, memoryBytes: 14481 * 1_048_576, pods: 29, gpu: 1 }, 4, 16384],
  ])('%s', (name, allocatable, vcpu, memoryMiB) => {
    expect(catalog.types.get(name)).toMatchObject({ name, allocatable, vcpu, memoryMiB });
  });
  it('knows which label keys types carry (GPU keys only on GPU types, but known)', () => {
    expect(catalog.labelKeys.has('karpenter.k8s.aws/instance-generation')).toBe(true);
    expect(catalog.labelKeys.has('karpenter.k8s.aws/instance-gpu-count')).toBe(true);
    expect(catalog.labelKeys.has('karpenter.sh/capacity-type')).toBe(false);
    expect(catalog.types.get('m5.large')?.labels['karpenter.k8s.aws/instance-gpu-count']).toBeUndefined();
  });
  it('is read once per path', () => {
    expect(loadInstanceCatalog()).toBe(catalog);
  });
});

describe('a catalogue that is not right says which file and which type', () => {
  it('an unreadable file', () => {
    expect(() => loadInstanceCatalog(join(dir, 'missing.json'))).toThrow(/cannot read the instance-type catalogue .*missing\.json/);
  });
  it('a type whose allocatable is not a quantity', () => {
    const path = join(dir, 'bad.json');
    writeFileSync(
      path,
      JSON.stringify({ instanceTypes: { 'x1.large': { labels: {}, allocatable: { cpu: 'two', memory: '1Gi', pods: '8' } } } }),
    );
    expect(() => loadInstanceCatalog(path)).toThrow(InstanceCatalogError);
    expect(() => loadInstanceCatalog(path)).toThrow(/bad\.json: instance type "x1\.large": not a Kubernetes quantity: "two"/);
  });
  it('a type without labels, or no instanceTypes at all', () => {
    expect(() => parseInstanceCatalog({ instanceTypes: { 'x1.large': { allocatable: {} } } }, 'f.json')).toThrow(
      'f.json: instance type "x1.large" needs "labels" and "allocatable" objects of strings',
    );
    expect(() => parseInstanceCatalog([], 'f.json')).toThrow('f.json: no "instanceTypes" object');
  });
  it('a type with no pods figure is left out, as Karpenter cannot place pods on it', () => {
    const c = parseInstanceCatalog(
      { instanceTypes: { 'x1.large': { labels: { a: 'b' }, allocatable: { cpu: '1', memory: '1Gi' } } } },
      'f',
    );
    expect(c.types.size).toBe(0);
  });
});
