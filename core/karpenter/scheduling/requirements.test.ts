import { describe, expect, it } from 'vitest';
import { Requirement, RequirementError, Requirements } from './requirements.js';
import { WELL_KNOWN_LABELS } from './well-known.js';

// The fourteen requirements of kubernetes-sigs/karpenter@v1.14.1 pkg/scheduling/requirement_test.go:35-48
const R: Record<string, Requirement> = {
  exists: Requirement.of('key', 'Exists'),
  doesNotExist: Requirement.of('key', 'DoesNotExist'),
  inA: Requirement.of('key', 'In', ['A']),
  inB: Requirement.of('key', 'In', ['B']),
  inAB: Requirement.of('key', 'In', ['A', 'B']),
  notInA: Requirement.of('key', 'NotIn', ['A']),
  in1: Requirement.of('key', 'In', ['1']),
  in9: Requirement.of('key', 'In', ['9']),
  in19: Requirement.of('key', 'In', ['1', '9']),
  notIn12: Requirement.of('key', 'NotIn', ['1', '2']),
  greaterThan1: Requirement.of('key', 'Gt', ['1']),
  greaterThan9: Requirement.of('key', 'Gt', ['9']),
  lessThan1: Requirement.of('key', 'Lt', ['1']),
  lessThan9: Requirement.of('key', 'Lt', ['9']),
};
const NAMES = Object.keys(R);

/** complement, values and bounds in one comparable string: "!{1,2} >=2 <=8". */
const canon = (r: Requirement) =>
  `${r.complement ? '!' : ''}{${r.sortedValues().join(',')}}${r.gte !== undefined ? ` >=${r.gte}` : ''}${r.lte !== undefined ? ` <=${r.lte}` : ''}`;

// Expected intersections, requirement_test.go:118-329 ("should intersect two requirements without minValues"),
// rows = existing, columns = new, in the order of NAMES; a name stands for that requirement, anything else is canon().
const D = 'doesNotExist';
const INTERSECTIONS: Record<string, string[]> = {
  exists: NAMES,
  doesNotExist: NAMES.map(() => D),
  inA: ['inA', D, 'inA', D, 'inA', D, D, D, D, 'inA', D, D, D, D],
  inB: ['inB', D, D, 'inB', 'inB', 'inB', D, D, D, 'inB', D, D, D, D],
  inAB: ['inAB', D, 'inA', 'inB', 'inAB', 'inB', D, D, D, 'inAB', D, D, D, D],
  notInA: [
    'notInA',
    D,
    D,
    'inB',
    'inB',
    'notInA',
    'in1',
    'in9',
    'in19',
    '!{1,2,A}',
    'greaterThan1',
    'greaterThan9',
    'lessThan1',
    'lessThan9',
  ],
  in1: ['in1', D, D, D, D, 'in1', 'in1', D, 'in1', D, D, D, D, 'in1'],
  in9: ['in9', D, D, D, D, 'in9', D, 'in9', 'in9', 'in9', 'in9', D, D, D],
  in19: ['in19', D, D, D, D, 'in19', 'in1', 'in9', 'in19', 'in9', 'in9', D, D, 'in1'],
  notIn12: ['notIn12', D, 'inA', 'inB', 'inAB', '!{1,2,A}', D, 'in9', 'in9', 'notIn12', '!{2} >=2', '!{} >=10', '!{} <=0', '!{1,2} <=8'],
  greaterThan1: ['greaterThan1', D, D, D, D, 'greaterThan1', D, 'in9', 'in9', '!{2} >=2', 'greaterThan1', 'greaterThan9', D, '!{} >=2 <=8'],
  greaterThan9: ['greaterThan9', D, D, D, D, 'greaterThan9', D, D, D, 'greaterThan9', 'greaterThan9', 'greaterThan9', D, D],
  lessThan1: ['lessThan1', D, D, D, D, 'lessThan1', D, D, D, 'lessThan1', D, D, 'lessThan1', 'lessThan1'],
  lessThan9: ['lessThan9', D, D, D, D, 'lessThan9', 'in1', D, 'in1', '!{1,2} <=8', '!{} >=2 <=8', D, 'lessThan1', 'lessThan9'],
};

describe('Requirement.intersection: requirement_test.go:118-329 (every pair of the fourteen)', () => {
  const cases = NAMES.flatMap((a) => NAMES.map((b, j) => [a, b, INTERSECTIONS[a][j]] as const));
  it.each(cases)('%s ∩ %s = %s', (a, b, expected) => {
    const want = expected in R ? canon(R[expected]) : expected;
    expect(canon(R[a].intersection(R[b]))).toBe(want);
    // hasIntersection agrees with the intersection being non-empty
    expect(R[a].hasIntersection(R[b])).toBe(R[a].intersection(R[b]).len() > 0);
  });
});

// requirements_test.go:57-297 ("should be compatible with well-known v1 labels undefined"), on the zone label;
// rows = existing, columns = incoming, in the order unconstrained + NAMES; 1 = compatible.
const COMPATIBLE: Record<string, string> = {
  unconstrained: '111111111111111',
  exists: '110111111111111',
  doesNotExist: '101000100010000',
  inA: '110101000010000',
  inB: '110011100010000',
  inAB: '110111100010000',
  notInA: '111011111111111',
  in1: '110000110100001',
  in9: '110000101111000',
  in19: '110000111111001',
  notIn12: '111111101111111',
  greaterThan1: '110000101111101',
  greaterThan9: '110000100011100',
  lessThan1: '110000100010011',
  lessThan9: '110000110111011',
};

describe('Requirements.isCompatible with well-known labels allowed undefined: requirements_test.go:57-297', () => {
  const zone = (name: string) =>
    name === 'unconstrained'
      ? new Requirements()
      : new Requirements([Requirement.of('topology.kubernetes.io/zone', opOf(name), valuesOf(name))]);
  const all = ['unconstrained', ...NAMES];
  const cases = all.flatMap((a) => all.map((b, j) => [a, b, COMPATIBLE[a][j] === '1'] as const));
  it.each(cases)('%s compatible with %s: %s', (a, b, ok) => {
    expect(zone(a).isCompatible(zone(b), WELL_KNOWN_LABELS)).toBe(ok);
  });
  it('strictly (no undefined labels allowed), an unconstrained set refuses positive requirements: requirements_test.go:298-313', () => {
    const none = new Requirements();
    for (const n of ['exists', 'inA', 'inAB', 'in19', 'greaterThan1', 'lessThan9']) expect(none.isCompatible(zone(n))).toBe(false);
    for (const n of ['doesNotExist', 'notInA', 'notIn12']) expect(none.isCompatible(zone(n))).toBe(true);
  });
});

function opOf(name: string) {
  const r = R[name];
  if (r.gte !== undefined) return 'Gt' as const;
  if (r.lte !== undefined) return 'Lt' as const;
  return r.operator();
}
function valuesOf(name: string): string[] {
  const r = R[name];
  if (r.gte !== undefined) return [String(r.gte - 1)];
  if (r.lte !== undefined) return [String(r.lte + 1)];
  return r.sortedValues();
}

describe("messages in Karpenter's words", () => {
  it.each([
    // requirements_test.go:550-555 and 562-566
    ['zone', 'topology.kubernetes.io/zone'],
    ['region', 'topology.kubernetes.io/region'],
    ['nodepool', 'karpenter.sh/nodepool'],
    ['instance-type', 'node.kubernetes.io/instance-type'],
    ['arch', 'kubernetes.io/arch'],
    ['capacity-type', 'karpenter.sh/capacity-type'],
    ['topology.kubernetesio/zone', 'topology.kubernetes.io/zone'],
    ['node.io/zone', 'topology.kubernetes.io/zone'],
    ['topology.kubernetes.io/regio', 'topology.kubernetes.io/region'],
    ['node.kubernetes.io/region', 'topology.kubernetes.io/region'],
    ['karpenter/nodepool', 'karpenter.sh/nodepool'],
  ])('label typo hint "%s" -> %s: requirements_test.go:545-566', (bad, hint) => {
    const c = new Requirements().compatibility(new Requirements([Requirement.of(bad, 'Exists')]), WELL_KNOWN_LABELS);
    expect(c?.message()).toBe(`label "${bad}" does not have known values (typo of "${hint}"?)`);
  });
  it('unknown label without a hint: requirements_test.go:568-572', () => {
    expect(new Requirements().compatibility(new Requirements([Requirement.of('deployment', 'Exists')]))?.message()).toBe(
      'label "deployment" does not have known values',
    );
  });
  it.each([
    [Requirement.of('k', 'In', ['b', 'a']), 'k In [a b]'],
    [Requirement.of('k', 'In', ['1', '2', '3', '4', '5', '6', '7']), 'k In [1 2 3 4 5 and 2 others]'],
    [Requirement.of('k', 'NotIn', ['x']), 'k NotIn [x]'],
    [Requirement.of('k', 'Exists'), 'k Exists'],
    [Requirement.of('k', 'DoesNotExist'), 'k DoesNotExist'],
    [Requirement.of('k', 'Gt', ['4']), 'k Exists >=5'],
    [Requirement.of('k', 'Lte', ['8']), 'k Exists <=8'],
    [Requirement.of('k', 'In', ['a'], 2), 'k In [a] minValues 2'],
  ])('%s prints as %s (Requirement.String)', (r, s) => expect(r.toString()).toBe(s));
  it('a mismatch names the key, the incoming and the existing requirement (badKeyError)', () => {
    const existing = new Requirements([Requirement.of('kubernetes.io/arch', 'In', ['arm64'])]);
    const incoming = new Requirements([Requirement.of('kubernetes.io/arch', 'In', ['amd64'])]);
    expect(existing.compatibility(incoming)?.message()).toBe(
      'key kubernetes.io/arch, kubernetes.io/arch In [amd64] not in kubernetes.io/arch In [arm64]',
    );
  });
});

describe('operators', () => {
  it.each([
    ['Gte', '4', ['3', '4', '10'], [false, true, true]],
    ['Lte', '4', ['3', '4', '5'], [true, true, false]],
    ['Gt', '4', ['4', '5'], [false, true]],
    ['Lt', '4', ['3', '4'], [true, false]],
    ['Gt', '4', ['five'], [false]],
  ] as const)('%s %s: %j -> %j (bounds are inclusive after Gt/Lt canonicalisation)', (op, v, values, has) => {
    const r = Requirement.of('karpenter.k8s.aws/instance-cpu', op, [v]);
    expect(values.map((x) => r.has(x))).toEqual(has);
  });
  it('beta labels are normalised to the stable ones (requirement_test.go:62-96)', () => {
    const r = Requirements.fromLabels({ 'failure-domain.beta.kubernetes.io/zone': 'a', 'beta.kubernetes.io/arch': 'amd64' });
    expect([...r.keys()].sort()).toEqual(['kubernetes.io/arch', 'topology.kubernetes.io/zone']);
  });
  it('an unknown operator or a non-integer bound is refused with the key named', () => {
    expect(() => Requirement.fromSelector({ key: 'k', operator: 'Bigger', values: ['1'] })).toThrow(/k: unknown operator "Bigger"/);
    expect(() => Requirement.fromSelector({ key: 'k', operator: 'Gt', values: ['x'] })).toThrow(RequirementError);
  });
  it('minValues survives intersections as the larger of the two', () => {
    const a = Requirement.of('k', 'In', ['a', 'b', 'c'], 2);
    const b = Requirement.of('k', 'Exists', [], 3);
    expect(a.intersection(b).minValues).toBe(3);
  });
});
