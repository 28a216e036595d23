import { describe, expect, it } from 'vitest';
import { loadCatalog } from './catalog.js';
import { withinLimits } from './pool-limits.js';

const type = (name: string) => {
  const t = loadCatalog().get(name);
  if (!t) throw new Error(name);
  return t;
};
// m6i.large: 2 vCPU, 8192 MiB; m6i.4xlarge: 16 vCPU, 65536 MiB.
const large = type('m6i.large');
const big = type('m6i.4xlarge');

describe('withinLimits: one more node against spec.limits (int-or-string), as Karpenter counts capacity', () => {
  it.each([
    ['cpu 16 (a number): 7 x 2 vCPU + 2 = 16 fits', { cpu: 16 }, 7, large, true],
    ['cpu "16": 8 x 2 + 2 = 18 does not', { cpu: '16' }, 8, large, false],
    ['cpu "1500m": nothing of 2 vCPU fits', { cpu: '1500m' }, 0, large, false],
    ['memory "64Gi": 7 x 8 GiB + 8 = 64 GiB fits', { memory: '64Gi' }, 7, large, true],
    ['memory 64Gi: 1 x 8 GiB + 64 GiB does not', { memory: '64Gi' }, 1, big, false],
    ['nodes 10 (a number): the 10th fits', { nodes: 10 }, 9, large, true],
    ['nodes 10: not an 11th', { nodes: 10 }, 10, large, false],
    ['a resource the simulation does not model is not checked', { 'example.com/fpga': 0 }, 3, large, true],
    ['no limits', {}, 500, big, true],
  ])('%s', (_name, limits, running, t, ok) => {
    expect(withinLimits(limits, Array<typeof large>(running).fill(large), t)).toBe(ok);
  });
});
