import { describe, expect, it } from 'vitest';
import { nodePoolsParam, placementLines, type WorkloadWhatIfAnswer } from './workload-whatif';

const workload = {
  namespace: 'payments',
  kind: 'Deployment',
  name: 'fraud-scorer',
  replicas: 2,
  nodePool: 'steady',
  cpuMillicores: 2000,
  memoryBytes: 4 * 2 ** 30,
};
const mix = (instanceType: string, nodes: number, usdPerHour: number) => ({ instanceType, capacityType: 'on-demand', nodes, usdPerHour });
const placement = (
  nodePool: string,
  nodes: number,
  usdPerHour: number,
  unschedulable: string[] = [],
  m = [mix('c7i.xlarge', nodes, usdPerHour)],
) => ({
  nodePool,
  footprint: { nodes, usdPerHour, mix: nodes === 0 ? [] : m },
  usdPerMonth: Math.round(usdPerHour * 730 * 1e6) / 1e6,
  unschedulable: unschedulable.map((reason, i) => ({ pod: `payments/fraud-scorer-${i}`, nodePool, reason })),
});

describe('the workload what-if, line by line', () => {
  const answer: Pick<WorkloadWhatIfAnswer, 'workload' | 'placements'> = {
    workload,
    placements: [
      // general: 1 × m7i.2xlarge at $0.4032/h = 0.4032 × 730 = $294.336 a month
      placement('general', 1, 0.4032, [], [mix('m7i.2xlarge', 1, 0.4032)]),
      // steady (where it runs now): 2 × c7i.xlarge at $0.1785/h each = $0.357/h = 0.357 × 730 = $260.61 a month
      placement('steady', 2, 0.357),
      // dedicated: tainted, neither pod fits
      placement('dedicated', 0, 0, [
        'untolerated taint dedicated=analytics:NoSchedule',
        'untolerated taint dedicated=analytics:NoSchedule',
      ]),
    ],
  };

  it('each NodePool beside the current one: general costs 294.34 − 260.61 = +33.73 a month more than steady', () => {
    const lines = placementLines(answer);
    expect(lines.map((l) => [l.nodePool, l.current, l.nodes, l.mix, l.vsCurrentUsdPerMonth])).toEqual([
      ['general', false, 1, '1 × m7i.2xlarge on-demand', 33.73],
      ['steady', true, 2, '2 × c7i.xlarge on-demand', 0],
      // a NodePool that leaves pods out has no price for the workload: no difference, its 2 pods and the reason once
      ['dedicated', false, 0, '—', null],
    ]);
    expect(lines[2]).toMatchObject({ unschedulable: 2, reasons: ['untolerated taint dedicated=analytics:NoSchedule'] });
  });

  it('no difference when the current NodePool was not asked, or left a pod out', () => {
    expect(placementLines({ workload, placements: answer.placements.slice(0, 1) })[0]?.vsCurrentUsdPerMonth).toBeNull();
    const steadyShort = placement('steady', 1, 0.1785, ['Insufficient cpu']);
    expect(
      placementLines({ workload, placements: [answer.placements[0], steadyShort].flatMap((p) => (p === undefined ? [] : [p])) })[0]
        ?.vsCurrentUsdPerMonth,
    ).toBeNull();
  });

  it.each([
    ['', undefined],
    ['   ', undefined],
    ['general', 'general'],
    ['general, steady', 'general,steady'],
    [' spot-batch ,, steady ', 'spot-batch,steady'],
    ['general steady', 'general,steady'],
  ])('NodePools typed %j are asked as %j', (typed, param) => {
    expect(nodePoolsParam(typed)).toBe(param);
  });
});
