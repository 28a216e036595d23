import { describe, expect, it } from 'vitest';
import { Requirements } from '../../core/karpenter/requirements.js';
import { loadCatalog, catalogLabelKeys } from './catalog.js';
import { LEGACY_KARPENTER_VERSION } from './karpenter-profile.js';
import { ReleaseShapeError, shapeForRelease } from './release-shape.js';
import { loadScenarioFile, type ScenarioFile } from './scenario-file.js';
import { simulate } from './simulate.js';

const week4 = (version?: string): ScenarioFile => ({ ...loadScenarioFile('week4'), ...(version ? { karpenterVersion: version } : {}) });
const pool = (f: ScenarioFile, name: string) => f.nodePools.find((p) => p.name === name);

describe('week4 written for the current release, shaped for each', () => {
  it('current (1.14.1): general uses Gte and Lte, system allows reserved, the reservation is used', () => {
    const f = shapeForRelease(week4());
    expect(pool(f, 'general')?.requirements.filter((r) => r.operator.endsWith('te'))).toEqual([
      { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gte', values: ['6'] },
      { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lte', values: ['16'] },
    ]);
    expect(pool(f, 'system')?.capacityTypes).toEqual(['reserved', 'on-demand']);
    expect(f.capacityReservations).toHaveLength(1);
  });

  it('legacy (1.5.0): Gte 6 is Gt 5 and Lte 16 is Lt 17; no reserved (its feature gate is off by default before 1.6)', () => {
    const f = shapeForRelease(week4(LEGACY_KARPENTER_VERSION));
    const general = pool(f, 'general');
    expect(general?.requirements.some((r) => r.operator === 'Gte' || r.operator === 'Lte')).toBe(false);
    expect(general?.requirements.filter((r) => r.operator === 'Gt' || r.operator === 'Lt')).toEqual([
      { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gt', values: ['5'] },
      { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lt', values: ['17'] },
    ]);
    expect(pool(f, 'system')?.capacityTypes).toEqual(['on-demand']);
    expect(pool(f, 'system')?.requirements[0]).toEqual({ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] });
    expect(f.capacityReservations).toEqual([]);
  });

  it('both forms admit the same 198 instance types for general', () => {
    const admitted = (f: ScenarioFile) => {
      const reqs = new Requirements(pool(f, 'general')?.requirements ?? []);
      return [...loadCatalog().values()].filter((t) => reqs.admitsInstanceType(t.labels, catalogLabelKeys())).map((t) => t.name);
    };
    const current = admitted(shapeForRelease(week4()));
    expect(current).toHaveLength(198);
    expect(admitted(shapeForRelease(week4(LEGACY_KARPENTER_VERSION)))).toEqual(current);
  });

  it('refuses what an older release cannot say: Gte 0, a reserved-only NodePool', () => {
    const f = week4(LEGACY_KARPENTER_VERSION);
    const general = pool(f, 'general');
    if (!general) throw new Error('no general');
    const withGte0 = { ...f, nodePools: [{ ...general, requirements: [{ key: 'k', operator: 'Gte', values: ['0'] }] }] };
    expect(() => shapeForRelease(withGte0)).toThrow(ReleaseShapeError);
    expect(() => shapeForRelease(withGte0)).toThrow('NodePool general: k Gte 0 has no form before Karpenter v1.10');
    const reservedOnly = {
      ...f,
      nodePools: [{ ...general, requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['reserved'] }] }],
    };
    expect(() => shapeForRelease(reservedOnly)).toThrow('NodePool general allows only reserved capacity');
  });
});

describe("issue 22's objects, each from the release that has it", () => {
  // NodeOverlay v1.7.0 (pkg/apis/v1alpha1/nodeoverlay.go), spec.replicas v1.8.0, Balanced v1.14.0 (pkg/apis/v1/nodepool.go)
  it.each([
    ['1.14.1', 'Balanced', true, 2],
    ['1.13.0', 'WhenEmptyOrUnderutilized', true, 2],
    ['1.8.0', 'WhenEmptyOrUnderutilized', true, 2],
    ['1.7.0', 'WhenEmptyOrUnderutilized', false, 2],
    ['1.6.4', 'WhenEmptyOrUnderutilized', false, 0],
  ])('%s: steady %s, the static NodePool %s, %d NodeOverlays', (version, policy, statics, overlays) => {
    const f = shapeForRelease(week4(version));
    expect(pool(f, 'steady')?.consolidationPolicy).toBe(policy);
    expect(pool(f, 'load-test') !== undefined).toBe(statics);
    expect(f.nodeOverlays).toHaveLength(overlays);
  });
});

describe('the simulated history is the same on both releases', () => {
  const current = simulate(week4(), 42);
  const legacy = simulate(week4(LEGACY_KARPENTER_VERSION), 42);

  it('same nodes, times, types and reasons; only the system nodes differ, reserved in the reservation vs on-demand', () => {
    const shape = (n: (typeof current.nodes)[number]) => [n.name, n.instanceType, n.createdAt, n.deletedAt, n.deletionReason];
    expect(current.nodes.map(shape)).toEqual(legacy.nodes.map(shape));
    const differ = current.nodes.filter((n, i) => n.capacityType !== legacy.nodes[i].capacityType);
    // coredns' zone spread (issue 21) puts the two system nodes in us-east-1a and us-east-1b on both releases: the
    // one in the reservation's zone (us-east-1b) runs in it on 1.14.1, on-demand in the same zone on 1.5.0.
    expect(differ.map((n) => [n.nodePool, n.instanceType, n.capacityType, n.zone, n.capacityReservationId])).toEqual([
      ['system', 'm6i.large', 'reserved', 'us-east-1b', 'cr-0a1b2c3d4e5f60718'],
    ]);
    expect(legacy.nodes.filter((n) => differ.some((d) => d.name === n.name)).map((n) => [n.zone, n.capacityType])).toEqual([
      ['us-east-1b', 'on-demand'],
    ]);
    expect(current.nodes.filter((n, i) => n.zone !== legacy.nodes[i].zone).map((n) => n.name)).toEqual([]);
    expect(legacy.nodes.some((n) => n.capacityType === 'reserved')).toBe(false);
    // the same events, but ConsolidationCandidate, which only v1.9 and later write (disruption/events/events.go)
    expect(current.events.filter((e) => e.reason !== 'ConsolidationCandidate').map((e) => [e.at, e.reason, e.involvedObject.name])).toEqual(
      legacy.events.map((e) => [e.at, e.reason, e.involvedObject.name]),
    );
    expect([current.karpenterVersion, legacy.karpenterVersion]).toEqual(['1.14.1', '1.5.0']);
  });

  it('never holds more nodes in the reservation than it has room for (2), in its zone', () => {
    const inReservation = current.nodes.filter((n) => n.capacityReservationId !== undefined);
    for (const n of inReservation) {
      expect(n.zone).toBe('us-east-1b');
      const overlapping = inReservation.filter((m) => m.createdAt <= n.createdAt && (m.deletedAt === null || m.deletedAt > n.createdAt));
      expect(overlapping.length).toBeLessThanOrEqual(2);
    }
  });
});
