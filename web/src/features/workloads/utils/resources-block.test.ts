import { describe, expect, it } from 'vitest';
import { cpuQuantity, kubectlLine, memoryQuantity, resourcesBlock } from './resources-block';

const MIB = 2 ** 20;
const row = {
  namespace: 'payments',
  workloadKind: 'Deployment',
  workloadName: 'payments-api',
  container: 'api',
  recommendedCpuMillicores: 250,
  recommendedMemoryBytes: 230 * MIB,
};

describe('what to paste', () => {
  it.each([
    [250, '250m'],
    [1000, '1'],
    [1500, '1500m'],
    [10.2, '11m'],
  ])('CPU %d millicores -> %s', (m, q) => expect(cpuQuantity(m)).toBe(q));

  it.each([
    [230 * MIB, '230Mi'],
    [2048 * MIB, '2Gi'],
    [20 * MIB, '20Mi'],
  ])('memory %d bytes -> %s', (b, q) => expect(memoryQuantity(b)).toBe(q));

  it('the resources: block and the kubectl line say the same requests', () => {
    expect(resourcesBlock(row)).toBe('resources:\n  requests:\n    cpu: 250m\n    memory: 230Mi');
    expect(kubectlLine(row)).toBe(
      'kubectl set resources deployment/payments-api -n payments --containers=api --requests=cpu=250m,memory=230Mi',
    );
    expect(kubectlLine({ ...row, workloadKind: 'StatefulSet', workloadName: 'ledger-db' })).toMatch(
      /^kubectl set resources statefulset\/ledger-db /,
    );
  });

  it('a bare Pod cannot be changed in place: no kubectl line', () => {
    expect(kubectlLine({ ...row, workloadKind: 'Pod' })).toBeNull();
  });
});
