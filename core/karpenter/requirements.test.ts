import { describe, expect, it } from 'vitest';
import {
  Requirement,
  Requirements,
  atoi,
  requirementFromJson,
  requirementsFromJson,
  type NodeSelectorRequirement,
} from './requirements.js';
import { DOCS_NODEPOOL } from '../../test/fixtures/karpenter-nodepools.js';

/**
 * Cases transcribed from kubernetes-sigs/karpenter v1.14.1 (commit of the tag in the local mirror):
 * pkg/scheduling/requirement_test.go (REQ) and pkg/scheduling/requirements_test.go (REQS); each row names its line.
 * The fourteen requirements both files build, on one key:
 */
const KARPENTER: Record<string, Omit<NodeSelectorRequirement, 'key'>> = {
  exists: { operator: 'Exists', values: [] },
  doesNotExist: { operator: 'DoesNotExist', values: [] },
  inA: { operator: 'In', values: ['A'] },
  inB: { operator: 'In', values: ['B'] },
  inAB: { operator: 'In', values: ['A', 'B'] },
  notInA: { operator: 'NotIn', values: ['A'] },
  in1: { operator: 'In', values: ['1'] },
  in9: { operator: 'In', values: ['9'] },
  in19: { operator: 'In', values: ['1', '9'] },
  notIn12: { operator: 'NotIn', values: ['1', '2'] },
  greaterThan1: { operator: 'Gt', values: ['1'] },
  greaterThan9: { operator: 'Gt', values: ['9'] },
  lessThan1: { operator: 'Lt', values: ['1'] },
  lessThan9: { operator: 'Lt', values: ['9'] },
};
const req = (name: string, key = 'key'): Requirement => Requirement.of({ key, ...KARPENTER[name] });

describe.each([
  [755, 'exists', 'A', true],
  [756, 'doesNotExist', 'A', false],
  [757, 'inA', 'A', true],
  [758, 'inB', 'A', false],
  [759, 'inAB', 'A', true],
  [760, 'notInA', 'A', false],
  [761, 'in1', 'A', false],
  [762, 'in9', 'A', false],
  [763, 'in19', 'A', false],
  [764, 'notIn12', 'A', true],
  [765, 'greaterThan1', 'A', false],
  [766, 'greaterThan9', 'A', false],
  [767, 'lessThan1', 'A', false],
  [768, 'lessThan9', 'A', false],
  [770, 'exists', 'B', true],
  [771, 'doesNotExist', 'B', false],
  [772, 'inA', 'B', false],
  [773, 'inB', 'B', true],
  [774, 'inAB', 'B', true],
  [775, 'notInA', 'B', true],
  [776, 'in1', 'B', false],
  [777, 'in9', 'B', false],
  [778, 'in19', 'B', false],
  [779, 'notIn12', 'B', true],
  [780, 'greaterThan1', 'B', false],
  [781, 'greaterThan9', 'B', false],
  [782, 'lessThan1', 'B', false],
  [783, 'lessThan9', 'B', false],
  [785, 'exists', '1', true],
  [786, 'doesNotExist', '1', false],
  [787, 'inA', '1', false],
  [788, 'inB', '1', false],
  [789, 'inAB', '1', false],
  [790, 'notInA', '1', true],
  [791, 'in1', '1', true],
  [792, 'in9', '1', false],
  [793, 'in19', '1', true],
  [794, 'notIn12', '1', false],
  [795, 'greaterThan1', '1', false],
  [796, 'greaterThan9', '1', false],
  [797, 'lessThan1', '1', false],
  [798, 'lessThan9', '1', true],
  [800, 'exists', '2', true],
  [801, 'doesNotExist', '2', false],
  [802, 'inA', '2', false],
  [803, 'inB', '2', false],
  [804, 'inAB', '2', false],
  [805, 'notInA', '2', true],
  [806, 'in1', '2', false],
  [807, 'in9', '2', false],
  [808, 'in19', '2', false],
  [809, 'notIn12', '2', false],
  [810, 'greaterThan1', '2', true],
  [811, 'greaterThan9', '2', false],
  [812, 'lessThan1', '2', false],
  [813, 'lessThan9', '2', true],
  [815, 'exists', '9', true],
  [816, 'doesNotExist', '9', false],
  [817, 'inA', '9', false],
  [818, 'inB', '9', false],
  [819, 'inAB', '9', false],
  [820, 'notInA', '9', true],
  [821, 'in1', '9', false],
  [822, 'in9', '9', true],
  [823, 'in19', '9', true],
  [824, 'notIn12', '9', true],
  [825, 'greaterThan1', '9', true],
  [826, 'greaterThan9', '9', false],
  [827, 'lessThan1', '9', false],
  [828, 'lessThan9', '9', false],
])('REQ line %i: %s has %s', (_line, name, value, expected) => {
  it(`is ${expected}, alone and as a label`, () => {
    expect(req(name).has(value)).toBe(expected);
    expect(req(name).matches({ key: value })).toBe(expected);
  });
});

describe.each([
  [108, 'exists', 'exists', 'key Exists'],
  [109, 'exists', 'doesNotExist', 'key DoesNotExist'],
  [110, 'exists', 'inA', 'key In [A]'],
  [111, 'exists', 'inB', 'key In [B]'],
  [112, 'exists', 'inAB', 'key In [A B]'],
  [113, 'exists', 'notInA', 'key NotIn [A]'],
  [114, 'exists', 'in1', 'key In [1]'],
  [115, 'exists', 'in9', 'key In [9]'],
  [116, 'exists', 'in19', 'key In [1 9]'],
  [117, 'exists', 'notIn12', 'key NotIn [1 2]'],
  [118, 'exists', 'greaterThan1', 'key Exists >=2'],
  [119, 'exists', 'greaterThan9', 'key Exists >=10'],
  [120, 'exists', 'lessThan1', 'key Exists <=0'],
  [121, 'exists', 'lessThan9', 'key Exists <=8'],
  [123, 'doesNotExist', 'exists', 'key DoesNotExist'],
  [124, 'doesNotExist', 'doesNotExist', 'key DoesNotExist'],
  [125, 'doesNotExist', 'inA', 'key DoesNotExist'],
  [126, 'doesNotExist', 'inB', 'key DoesNotExist'],
  [127, 'doesNotExist', 'inAB', 'key DoesNotExist'],
  [128, 'doesNotExist', 'notInA', 'key DoesNotExist'],
  [129, 'doesNotExist', 'in1', 'key DoesNotExist'],
  [130, 'doesNotExist', 'in9', 'key DoesNotExist'],
  [131, 'doesNotExist', 'in19', 'key DoesNotExist'],
  [132, 'doesNotExist', 'notIn12', 'key DoesNotExist'],
  [133, 'doesNotExist', 'greaterThan1', 'key DoesNotExist'],
  [134, 'doesNotExist', 'greaterThan9', 'key DoesNotExist'],
  [135, 'doesNotExist', 'lessThan1', 'key DoesNotExist'],
  [136, 'doesNotExist', 'lessThan9', 'key DoesNotExist'],
  [138, 'inA', 'exists', 'key In [A]'],
  [139, 'inA', 'doesNotExist', 'key DoesNotExist'],
  [140, 'inA', 'inA', 'key In [A]'],
  [141, 'inA', 'inB', 'key DoesNotExist'],
  [142, 'inA', 'inAB', 'key In [A]'],
  [143, 'inA', 'notInA', 'key DoesNotExist'],
  [144, 'inA', 'in1', 'key DoesNotExist'],
  [145, 'inA', 'in9', 'key DoesNotExist'],
  [146, 'inA', 'in19', 'key DoesNotExist'],
  [147, 'inA', 'notIn12', 'key In [A]'],
  [148, 'inA', 'greaterThan1', 'key DoesNotExist'],
  [149, 'inA', 'greaterThan9', 'key DoesNotExist'],
  [150, 'inA', 'lessThan1', 'key DoesNotExist'],
  [151, 'inA', 'lessThan9', 'key DoesNotExist'],
  [153, 'inB', 'exists', 'key In [B]'],
  [154, 'inB', 'doesNotExist', 'key DoesNotExist'],
  [155, 'inB', 'inA', 'key DoesNotExist'],
  [156, 'inB', 'inB', 'key In [B]'],
  [157, 'inB', 'inAB', 'key In [B]'],
  [158, 'inB', 'notInA', 'key In [B]'],
  [159, 'inB', 'in1', 'key DoesNotExist'],
  [160, 'inB', 'in9', 'key DoesNotExist'],
  [161, 'inB', 'in19', 'key DoesNotExist'],
  [162, 'inB', 'notIn12', 'key In [B]'],
  [163, 'inB', 'greaterThan1', 'key DoesNotExist'],
  [164, 'inB', 'greaterThan9', 'key DoesNotExist'],
  [165, 'inB', 'lessThan1', 'key DoesNotExist'],
  [166, 'inB', 'lessThan9', 'key DoesNotExist'],
  [168, 'inAB', 'exists', 'key In [A B]'],
  [169, 'inAB', 'doesNotExist', 'key DoesNotExist'],
  [170, 'inAB', 'inA', 'key In [A]'],
  [171, 'inAB', 'inB', 'key In [B]'],
  [172, 'inAB', 'inAB', 'key In [A B]'],
  [173, 'inAB', 'notInA', 'key In [B]'],
  [174, 'inAB', 'in1', 'key DoesNotExist'],
  [175, 'inAB', 'in9', 'key DoesNotExist'],
  [176, 'inAB', 'in19', 'key DoesNotExist'],
  [177, 'inAB', 'notIn12', 'key In [A B]'],
  [178, 'inAB', 'greaterThan1', 'key DoesNotExist'],
  [179, 'inAB', 'greaterThan9', 'key DoesNotExist'],
  [180, 'inAB', 'lessThan1', 'key DoesNotExist'],
  [181, 'inAB', 'lessThan9', 'key DoesNotExist'],
  [183, 'notInA', 'exists', 'key NotIn [A]'],
  [184, 'notInA', 'doesNotExist', 'key DoesNotExist'],
  [185, 'notInA', 'inA', 'key DoesNotExist'],
  [186, 'notInA', 'inB', 'key In [B]'],
  [187, 'notInA', 'inAB', 'key In [B]'],
  [188, 'notInA', 'notInA', 'key NotIn [A]'],
  [189, 'notInA', 'in1', 'key In [1]'],
  [190, 'notInA', 'in9', 'key In [9]'],
  [191, 'notInA', 'in19', 'key In [1 9]'],
  [192, 'notInA', 'notIn12', 'key NotIn [1 2 A]'],
  [193, 'notInA', 'greaterThan1', 'key Exists >=2'],
  [194, 'notInA', 'greaterThan9', 'key Exists >=10'],
  [195, 'notInA', 'lessThan1', 'key Exists <=0'],
  [196, 'notInA', 'lessThan9', 'key Exists <=8'],
  [198, 'in1', 'exists', 'key In [1]'],
  [199, 'in1', 'doesNotExist', 'key DoesNotExist'],
  [200, 'in1', 'inA', 'key DoesNotExist'],
  [201, 'in1', 'inB', 'key DoesNotExist'],
  [202, 'in1', 'inAB', 'key DoesNotExist'],
  [203, 'in1', 'notInA', 'key In [1]'],
  [204, 'in1', 'in1', 'key In [1]'],
  [205, 'in1', 'in9', 'key DoesNotExist'],
  [206, 'in1', 'in19', 'key In [1]'],
  [207, 'in1', 'notIn12', 'key DoesNotExist'],
  [208, 'in1', 'greaterThan1', 'key DoesNotExist'],
  [209, 'in1', 'greaterThan9', 'key DoesNotExist'],
  [210, 'in1', 'lessThan1', 'key DoesNotExist'],
  [211, 'in1', 'lessThan9', 'key In [1]'],
  [213, 'in9', 'exists', 'key In [9]'],
  [214, 'in9', 'doesNotExist', 'key DoesNotExist'],
  [215, 'in9', 'inA', 'key DoesNotExist'],
  [216, 'in9', 'inB', 'key DoesNotExist'],
  [217, 'in9', 'inAB', 'key DoesNotExist'],
  [218, 'in9', 'notInA', 'key In [9]'],
  [219, 'in9', 'in1', 'key DoesNotExist'],
  [220, 'in9', 'in9', 'key In [9]'],
  [221, 'in9', 'in19', 'key In [9]'],
  [222, 'in9', 'notIn12', 'key In [9]'],
  [223, 'in9', 'greaterThan1', 'key In [9]'],
  [224, 'in9', 'greaterThan9', 'key DoesNotExist'],
  [225, 'in9', 'lessThan1', 'key DoesNotExist'],
  [226, 'in9', 'lessThan9', 'key DoesNotExist'],
  [228, 'in19', 'exists', 'key In [1 9]'],
  [229, 'in19', 'doesNotExist', 'key DoesNotExist'],
  [230, 'in19', 'inA', 'key DoesNotExist'],
  [231, 'in19', 'inB', 'key DoesNotExist'],
  [232, 'in19', 'inAB', 'key DoesNotExist'],
  [233, 'in19', 'notInA', 'key In [1 9]'],
  [234, 'in19', 'in1', 'key In [1]'],
  [235, 'in19', 'in9', 'key In [9]'],
  [236, 'in19', 'in19', 'key In [1 9]'],
  [237, 'in19', 'notIn12', 'key In [9]'],
  [238, 'in19', 'greaterThan1', 'key In [9]'],
  [239, 'in19', 'greaterThan9', 'key DoesNotExist'],
  [240, 'in19', 'lessThan1', 'key DoesNotExist'],
  [241, 'in19', 'lessThan9', 'key In [1]'],
  [243, 'notIn12', 'exists', 'key NotIn [1 2]'],
  [244, 'notIn12', 'doesNotExist', 'key DoesNotExist'],
  [245, 'notIn12', 'inA', 'key In [A]'],
  [246, 'notIn12', 'inB', 'key In [B]'],
  [247, 'notIn12', 'inAB', 'key In [A B]'],
  [248, 'notIn12', 'notInA', 'key NotIn [1 2 A]'],
  [249, 'notIn12', 'in1', 'key DoesNotExist'],
  [250, 'notIn12', 'in9', 'key In [9]'],
  [251, 'notIn12', 'in19', 'key In [9]'],
  [252, 'notIn12', 'notIn12', 'key NotIn [1 2]'],
  [253, 'notIn12', 'greaterThan1', 'key NotIn [2] >=2'],
  [254, 'notIn12', 'greaterThan9', 'key Exists >=10'],
  [255, 'notIn12', 'lessThan1', 'key Exists <=0'],
  [256, 'notIn12', 'lessThan9', 'key NotIn [1 2] <=8'],
  [258, 'greaterThan1', 'exists', 'key Exists >=2'],
  [259, 'greaterThan1', 'doesNotExist', 'key DoesNotExist'],
  [260, 'greaterThan1', 'inA', 'key DoesNotExist'],
  [261, 'greaterThan1', 'inB', 'key DoesNotExist'],
  [262, 'greaterThan1', 'inAB', 'key DoesNotExist'],
  [263, 'greaterThan1', 'notInA', 'key Exists >=2'],
  [264, 'greaterThan1', 'in1', 'key DoesNotExist'],
  [265, 'greaterThan1', 'in9', 'key In [9]'],
  [266, 'greaterThan1', 'in19', 'key In [9]'],
  [267, 'greaterThan1', 'notIn12', 'key NotIn [2] >=2'],
  [268, 'greaterThan1', 'greaterThan1', 'key Exists >=2'],
  [269, 'greaterThan1', 'greaterThan9', 'key Exists >=10'],
  [270, 'greaterThan1', 'lessThan1', 'key DoesNotExist'],
  [271, 'greaterThan1', 'lessThan9', 'key Exists >=2 <=8'],
  [273, 'greaterThan9', 'exists', 'key Exists >=10'],
  [274, 'greaterThan9', 'doesNotExist', 'key DoesNotExist'],
  [275, 'greaterThan9', 'inA', 'key DoesNotExist'],
  [276, 'greaterThan9', 'inB', 'key DoesNotExist'],
  [277, 'greaterThan9', 'inAB', 'key DoesNotExist'],
  [278, 'greaterThan9', 'notInA', 'key Exists >=10'],
  [279, 'greaterThan9', 'in1', 'key DoesNotExist'],
  [280, 'greaterThan9', 'in9', 'key DoesNotExist'],
  [281, 'greaterThan9', 'in19', 'key DoesNotExist'],
  [282, 'greaterThan9', 'notIn12', 'key Exists >=10'],
  [283, 'greaterThan9', 'greaterThan1', 'key Exists >=10'],
  [284, 'greaterThan9', 'greaterThan9', 'key Exists >=10'],
  [285, 'greaterThan9', 'lessThan1', 'key DoesNotExist'],
  [286, 'greaterThan9', 'lessThan9', 'key DoesNotExist'],
  [288, 'lessThan1', 'exists', 'key Exists <=0'],
  [289, 'lessThan1', 'doesNotExist', 'key DoesNotExist'],
  [290, 'lessThan1', 'inA', 'key DoesNotExist'],
  [291, 'lessThan1', 'inB', 'key DoesNotExist'],
  [292, 'lessThan1', 'inAB', 'key DoesNotExist'],
  [293, 'lessThan1', 'notInA', 'key Exists <=0'],
  [294, 'lessThan1', 'in1', 'key DoesNotExist'],
  [295, 'lessThan1', 'in9', 'key DoesNotExist'],
  [296, 'lessThan1', 'in19', 'key DoesNotExist'],
  [297, 'lessThan1', 'notIn12', 'key Exists <=0'],
  [298, 'lessThan1', 'greaterThan1', 'key DoesNotExist'],
  [299, 'lessThan1', 'greaterThan9', 'key DoesNotExist'],
  [300, 'lessThan1', 'lessThan1', 'key Exists <=0'],
  [301, 'lessThan1', 'lessThan9', 'key Exists <=0'],
  [303, 'lessThan9', 'exists', 'key Exists <=8'],
  [304, 'lessThan9', 'doesNotExist', 'key DoesNotExist'],
  [305, 'lessThan9', 'inA', 'key DoesNotExist'],
  [306, 'lessThan9', 'inB', 'key DoesNotExist'],
  [307, 'lessThan9', 'inAB', 'key DoesNotExist'],
  [308, 'lessThan9', 'notInA', 'key Exists <=8'],
  [309, 'lessThan9', 'in1', 'key In [1]'],
  [310, 'lessThan9', 'in9', 'key DoesNotExist'],
  [311, 'lessThan9', 'in19', 'key In [1]'],
  [312, 'lessThan9', 'notIn12', 'key NotIn [1 2] <=8'],
  [313, 'lessThan9', 'greaterThan1', 'key Exists >=2 <=8'],
  [314, 'lessThan9', 'greaterThan9', 'key DoesNotExist'],
  [315, 'lessThan9', 'lessThan1', 'key Exists <=0'],
  [316, 'lessThan9', 'lessThan9', 'key Exists <=8'],
])('REQ line %i: %s ∩ %s', (_line, a, b, expected) => {
  it(`is ${expected} (Karpenter's String of the expected requirement)`, () => {
    expect(req(a).intersect(req(b)).toString()).toBe(expected);
  });
});

/**
 * REQS "should be compatible" / "should be strictly compatible": a label set (In one value, or none: unconstrained)
 * against a requirement on topology.kubernetes.io/zone; with the label present AllowUndefinedWellKnownLabels changes
 * nothing, so those rows are the strict verdict too.
 */
const ZONE = 'topology.kubernetes.io/zone';
const LABELS: Record<string, Record<string, string>> = {
  inA: { [ZONE]: 'A' },
  inB: { [ZONE]: 'B' },
  in1: { [ZONE]: '1' },
  in9: { [ZONE]: '9' },
  unconstrained: {},
};
describe.each([
  [106, 'inA', 'unconstrained', true],
  [107, 'inA', 'exists', true],
  [108, 'inA', 'doesNotExist', false],
  [109, 'inA', 'inA', true],
  [110, 'inA', 'inB', false],
  [111, 'inA', 'inAB', true],
  [112, 'inA', 'notInA', false],
  [113, 'inA', 'in1', false],
  [114, 'inA', 'in9', false],
  [115, 'inA', 'in19', false],
  [116, 'inA', 'notIn12', true],
  [117, 'inA', 'greaterThan1', false],
  [118, 'inA', 'greaterThan9', false],
  [119, 'inA', 'lessThan1', false],
  [120, 'inA', 'lessThan9', false],
  [122, 'inB', 'unconstrained', true],
  [123, 'inB', 'exists', true],
  [124, 'inB', 'doesNotExist', false],
  [125, 'inB', 'inA', false],
  [126, 'inB', 'inB', true],
  [127, 'inB', 'inAB', true],
  [128, 'inB', 'notInA', true],
  [129, 'inB', 'in1', false],
  [130, 'inB', 'in9', false],
  [131, 'inB', 'in19', false],
  [132, 'inB', 'notIn12', true],
  [133, 'inB', 'greaterThan1', false],
  [134, 'inB', 'greaterThan9', false],
  [135, 'inB', 'lessThan1', false],
  [136, 'inB', 'lessThan9', false],
  [170, 'in1', 'unconstrained', true],
  [171, 'in1', 'exists', true],
  [172, 'in1', 'doesNotExist', false],
  [173, 'in1', 'inA', false],
  [174, 'in1', 'inB', false],
  [175, 'in1', 'inAB', false],
  [176, 'in1', 'notInA', true],
  [177, 'in1', 'in1', true],
  [178, 'in1', 'in9', false],
  [179, 'in1', 'in19', true],
  [180, 'in1', 'notIn12', false],
  [181, 'in1', 'greaterThan1', false],
  [182, 'in1', 'greaterThan9', false],
  [183, 'in1', 'lessThan1', false],
  [184, 'in1', 'lessThan9', true],
  [186, 'in9', 'unconstrained', true],
  [187, 'in9', 'exists', true],
  [188, 'in9', 'doesNotExist', false],
  [189, 'in9', 'inA', false],
  [190, 'in9', 'inB', false],
  [191, 'in9', 'inAB', false],
  [192, 'in9', 'notInA', true],
  [193, 'in9', 'in1', false],
  [194, 'in9', 'in9', true],
  [195, 'in9', 'in19', true],
  [196, 'in9', 'notIn12', true],
  [197, 'in9', 'greaterThan1', true],
  [198, 'in9', 'greaterThan9', false],
  [199, 'in9', 'lessThan1', false],
  [200, 'in9', 'lessThan9', false],
  [301, 'unconstrained', 'exists', false],
  [302, 'unconstrained', 'inA', false],
  [303, 'unconstrained', 'inB', false],
  [304, 'unconstrained', 'inAB', false],
  [305, 'unconstrained', 'in1', false],
  [306, 'unconstrained', 'in9', false],
  [307, 'unconstrained', 'in19', false],
  [308, 'unconstrained', 'greaterThan1', false],
  [309, 'unconstrained', 'greaterThan9', false],
  [310, 'unconstrained', 'lessThan1', false],
  [311, 'unconstrained', 'lessThan9', false],
  [314, 'unconstrained', 'unconstrained', true],
  [315, 'unconstrained', 'doesNotExist', true],
  [316, 'unconstrained', 'notInA', true],
  [317, 'unconstrained', 'notIn12', true],
])('REQS line %i: labels %s against %s', (_line, labels, requirement, expected) => {
  it(`matches: ${expected}`, () => {
    const reqs = new Requirements(requirement === 'unconstrained' ? [] : [{ key: ZONE, ...KARPENTER[requirement] }]);
    expect(reqs.matches(LABELS[labels])).toBe(expected);
  });
});

describe.each([
  [837, 'exists', 'Exists'],
  [838, 'doesNotExist', 'DoesNotExist'],
  [839, 'inA', 'In'],
  [842, 'notInA', 'NotIn'],
  [846, 'notIn12', 'NotIn'],
  [847, 'greaterThan1', 'Exists'],
  [850, 'lessThan9', 'Exists'],
])('REQ line %i: %s reads as operator %s', (_line, name, op) => {
  it('canonically', () => expect(req(name).canonicalOperator()).toBe(op));
});

describe.each([
  [898, req('exists'), 'key Exists'],
  [902, req('inAB'), 'key In [A B]'],
  [907, req('notIn12'), 'key NotIn [1 2]'],
  [908, req('greaterThan1'), 'key Exists >=2'],
  [911, req('lessThan9'), 'key Exists <=8'],
  [912, req('greaterThan1').intersect(req('lessThan9')), 'key Exists >=2 <=8'],
  [913, req('greaterThan9').intersect(req('lessThan1')), 'key DoesNotExist'],
])('REQ line %i: String()', (_line, r, text) => {
  it(`is "${text}"`, () => expect(r.toString()).toBe(text));
});

describe('Gte and Lte (REQ lines 953-1083, Karpenter v1.10+)', () => {
  const gte2 = Requirement.of({ key: 'key', operator: 'Gte', values: ['2'] });
  const lte8 = Requirement.of({ key: 'key', operator: 'Lte', values: ['8'] });
  it.each([
    ['2', true],
    ['3', true],
    ['100', true],
    ['1', false],
    ['0', false],
  ])('line 959: Gte 2 has %s: %s', (v, ok) => expect(gte2.has(v)).toBe(ok));
  it.each([
    ['8', true],
    ['7', true],
    ['0', true],
    ['9', false],
    ['10', false],
  ])('line 967: Lte 8 has %s: %s', (v, ok) => expect(lte8.has(v)).toBe(ok));
  it.each([
    ['2', true],
    ['5', true],
    ['8', true],
    ['1', false],
    ['9', false],
  ])('line 975: Gte 2 ∩ Lte 8 has %s: %s', (v, ok) => expect(gte2.intersect(lte8).has(v)).toBe(ok));
  it('line 984: Gte 2 behaves as Gt 1, Lte 8 as Lt 9', () => {
    const gt1 = Requirement.of({ key: 'key', operator: 'Gt', values: ['1'] });
    const lt9 = Requirement.of({ key: 'key', operator: 'Lt', values: ['9'] });
    for (const v of ['1', '2']) expect(gte2.has(v)).toBe(gt1.has(v));
    for (const v of ['8', '9']) expect(lte8.has(v)).toBe(lt9.has(v));
  });
  it.each([
    [995, 'Gt', '4', 'Gte', '5', 'key Exists >=5', '5', '4'],
    [1009, 'Gt', '5', 'Gte', '5', 'key Exists >=6', '6', '5'],
    [1021, 'Gt', '3', 'Gte', '6', 'key Exists >=6', '6', '5'],
    [1032, 'Lt', '5', 'Lte', '5', 'key Exists <=4', '4', '5'],
    [1044, 'Lt', '9', 'Lte', '5', 'key Exists <=5', '5', '6'],
  ])('line %i: %s %s ∩ %s %s collapses to one bound', (_line, opA, a, opB, b, text, yes, no) => {
    const r = Requirement.of({ key: 'key', operator: opA, values: [a] }).intersect(
      Requirement.of({ key: 'key', operator: opB, values: [b] }),
    );
    expect([r.toString(), r.has(yes), r.has(no)]).toEqual([text, true, false]);
  });
  it('lines 1056-1065: Gte 0 and Lte 0 at the boundary', () => {
    expect(Requirement.of({ key: 'key', operator: 'Gte', values: ['0'] }).has('0')).toBe(true);
    expect(Requirement.of({ key: 'key', operator: 'Gte', values: ['0'] }).has('-1')).toBe(false);
    expect(Requirement.of({ key: 'key', operator: 'Lte', values: ['0'] }).has('0')).toBe(true);
    expect(Requirement.of({ key: 'key', operator: 'Lte', values: ['0'] }).has('1')).toBe(false);
  });
  it('line 1078: Gt of the largest int64 matches nothing (DoesNotExist): only a node without the label meets it', () => {
    const r = Requirement.of({ key: 'key', operator: 'Gt', values: ['9223372036854775807'] });
    expect(r.canonicalOperator()).toBe('DoesNotExist');
    expect([r.matches({ key: '9223372036854775807' }), r.matches({})]).toEqual([false, true]);
  });
});

describe('a real NodePool against real node labels (hand-worked)', () => {
  // Karpenter's docs example NodePool (aws/karpenter-provider-aws@v1.14.1 website/content/en/docs/concepts/nodepools.md:90-118).
  // The same eight requirements as test/fixtures/karpenter-nodepools.ts transcribes them (category minValues 2,
  // family minValues 5, cpu 4-32, nitro, generation Gte 3, two zones, both arches, spot/on-demand/reserved).
  const docs = new Requirements(DOCS_NODEPOOL.spec.template.spec.requirements);
  const m5xlarge = {
    'karpenter.k8s.aws/instance-category': 'm',
    'karpenter.k8s.aws/instance-family': 'm5',
    'karpenter.k8s.aws/instance-cpu': '4',
    'karpenter.k8s.aws/instance-hypervisor': 'nitro',
    'karpenter.k8s.aws/instance-generation': '5',
    'topology.kubernetes.io/zone': 'us-west-2b',
    'kubernetes.io/arch': 'amd64',
    'karpenter.sh/capacity-type': 'reserved',
  };
  it('an m5.xlarge in a capacity reservation meets all eight; generation 5 >= 3', () => {
    expect(docs.matches(m5xlarge)).toBe(true);
    expect(docs.check(m5xlarge).map((c) => c.satisfied)).toEqual(Array(8).fill(true));
    expect(docs.check(m5xlarge)[4]).toEqual({
      key: 'karpenter.k8s.aws/instance-generation',
      operator: 'Gte',
      values: ['3'],
      minValues: null,
      text: 'karpenter.k8s.aws/instance-generation Gte 3',
      labelValue: '5',
      satisfied: true,
      problem: null,
    });
    expect(docs.check(m5xlarge)[0].text).toBe('karpenter.k8s.aws/instance-category In [c, m, r] (minValues 2)');
  });
  it('a c4 is generation 4 (>= 3) but not nitro; a generation-2 m2 fails Gte 3', () => {
    expect(docs.matches({ ...m5xlarge, 'karpenter.k8s.aws/instance-family': 'c4', 'karpenter.k8s.aws/instance-hypervisor': 'xen' })).toBe(
      false,
    );
    const m2 = { ...m5xlarge, 'karpenter.k8s.aws/instance-generation': '2' };
    expect(
      docs
        .check(m2)
        .filter((c) => c.satisfied === false)
        .map((c) => c.text),
    ).toEqual(['karpenter.k8s.aws/instance-generation Gte 3']);
  });
  it('NotIn and DoesNotExist are met by an absent label; In, Exists and the bounds are not', () => {
    const absent = (operator: string, values: string[]) =>
      new Requirements([{ key: 'karpenter.k8s.aws/instance-gpu-count', operator, values }]).matches({});
    expect(
      ['NotIn', 'DoesNotExist', 'In', 'Exists', 'Gt', 'Lt', 'Gte', 'Lte'].map((op) => absent(op, op.endsWith('xist') ? [] : ['1'])),
    ).toEqual([true, true, false, false, false, false, false, false]);
  });
  it('reads deprecated keys as Karpenter normalizes them, on either side', () => {
    const arch = new Requirements([{ key: 'beta.kubernetes.io/arch', operator: 'In', values: ['arm64'] }]);
    expect(arch.matches({ 'kubernetes.io/arch': 'arm64' })).toBe(true);
    expect(
      new Requirements([{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }]).matches({ 'beta.kubernetes.io/arch': 'arm64' }),
    ).toBe(true);
    expect(arch.matches({ 'kubernetes.io/arch': 'amd64' })).toBe(false);
  });
  it('a bound against a label that is not a Go integer is not met ("8.0", "0x8", " 8")', () => {
    const r = Requirement.of({ key: 'cpu', operator: 'Gte', values: ['4'] });
    expect(['8', '+8', '008', '8.0', '0x8', ' 8', ''].map((v) => r.has(v))).toEqual([true, true, true, false, false, false, false]);
  });
  it('two requirements on one key are intersected before an absent label is judged (Requirements.Add)', () => {
    // docs nodepools.md:350-356: instance-family Exists (minValues 5) and In [...] (minValues 3): the larger minValues wins.
    const family = new Requirements([
      { key: 'karpenter.k8s.aws/instance-family', operator: 'Exists', values: [], minValues: 5 },
      { key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m5', 'c5'], minValues: 3 },
    ]);
    expect(family.byKey().get('karpenter.k8s.aws/instance-family')?.toString()).toBe(
      'karpenter.k8s.aws/instance-family In [c5 m5] minValues 5',
    );
    expect([
      family.matches({ 'karpenter.k8s.aws/instance-family': 'c5' }),
      family.matches({ 'karpenter.k8s.aws/instance-family': 'r5' }),
    ]).toEqual([true, false]);
    // Exists ∩ NotIn [a] is NotIn [a]: Karpenter lets a node without the label through (requirements.go Compatible).
    const quirk = new Requirements([
      { key: 'team', operator: 'Exists', values: [] },
      { key: 'team', operator: 'NotIn', values: ['a'] },
    ]);
    expect([quirk.check({}).map((c) => c.satisfied), quirk.matches({})]).toEqual([[false, true], true]);
  });
  it('an operator it does not know, or a bound that is not an integer, is not judged (null), and says why', () => {
    const reqs = new Requirements([
      { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
      { key: 'example.com/size', operator: 'Between', values: ['1', '4'] },
    ]);
    expect(reqs.matches({ 'kubernetes.io/arch': 'amd64' })).toBeNull();
    expect(reqs.matches({ 'kubernetes.io/arch': 'arm64' })).toBe(false);
    expect(reqs.check({})[1]).toMatchObject({ satisfied: null, problem: expect.stringContaining('"Between"') as unknown });
    expect(Requirement.of({ key: 'cpu', operator: 'Gt', values: ['four'] }).problem).toBe('Gt takes an integer, got "four"');
  });
});

describe('admitsInstanceType: only keys an instance-type catalogue carries are judged', () => {
  const typeKeys = new Set(['karpenter.k8s.aws/instance-cpu', 'karpenter.k8s.aws/instance-generation', 'kubernetes.io/arch']);
  const reqs = new Requirements([
    { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] },
    { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] },
    { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gte', values: ['6'] },
    { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lte', values: ['16'] },
  ]);
  it.each([
    [{ 'karpenter.k8s.aws/instance-generation': '6', 'karpenter.k8s.aws/instance-cpu': '16' }, true],
    [{ 'karpenter.k8s.aws/instance-generation': '7', 'karpenter.k8s.aws/instance-cpu': '4' }, true],
    [{ 'karpenter.k8s.aws/instance-generation': '5', 'karpenter.k8s.aws/instance-cpu': '4' }, false],
    [{ 'karpenter.k8s.aws/instance-generation': '6', 'karpenter.k8s.aws/instance-cpu': '32' }, false],
  ])('%j: %s', (labels, ok) => expect(reqs.admitsInstanceType(labels, typeKeys)).toBe(ok));
});

describe('reading requirements from JSON', () => {
  it('keeps key, operator, string values and a positive integer minValues', () => {
    expect(
      requirementsFromJson([
        { key: 'karpenter.k8s.aws/instance-family', operator: 'Exists', minValues: 5 },
        { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Gte', values: ['4', 8, null] },
        { key: 'k', operator: 'In', values: ['a'], minValues: 0 },
        'not a requirement',
      ]),
    ).toEqual([
      { key: 'karpenter.k8s.aws/instance-family', operator: 'Exists', values: [], minValues: 5 },
      { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Gte', values: ['4'] },
      { key: 'k', operator: 'In', values: ['a'] },
    ]);
    expect(requirementFromJson(null)).toBeNull();
  });
  it('atoi is Go strconv.Atoi on 64 bits', () => {
    expect(['7', '-7', '+7', '007', '9223372036854775807', '9223372036854775808', '7.0', '', '1e3'].map((s) => atoi(s))).toEqual([
      7n,
      -7n,
      7n,
      7n,
      9223372036854775807n,
      null,
      null,
      null,
      null,
    ]);
  });
});
