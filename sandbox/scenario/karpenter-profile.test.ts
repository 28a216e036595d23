import { describe, expect, it } from 'vitest';
import { CURRENT_KARPENTER_VERSION, KarpenterVersionError, LEGACY_KARPENTER_VERSION, karpenterProfile } from './karpenter-profile.js';

describe('karpenterProfile', () => {
  it.each([
    ['1.0.0', { disruptionMessageHasMethod: true, disruptionReasonCondition: false, gteLteOperators: false, reservedCapacityType: false }],
    ['1.2.0', { disruptionReasonCondition: true, disruptionReasonInMessageOnly: true, blockedWording: 'sentence-with-pod' }],
    ['1.3.0', { disruptionReasonCondition: true, disruptionReasonInMessageOnly: true }],
    ['1.3.1', { disruptionReasonCondition: true, disruptionReasonInMessageOnly: false }],
    ['1.3.2', { disruptionMessageHasMethod: true, disruptionReasonCondition: true, gteLteOperators: false, reservedCapacityType: true }],
    ['1.1.5', { disruptionReasonCondition: false, blockedWording: 'cannot-disrupt' }],
    [
      '1.5.0',
      {
        disruptionMessageHasMethod: true,
        disruptionReasonCondition: true,
        gteLteOperators: false,
        reservedCapacityType: true,
        blockedWording: 'sentence',
      },
    ],
    ['v1.6.0', { disruptionMessageHasMethod: false, disruptionReasonCondition: true, gteLteOperators: false, reservedCapacityType: true }],
    ['1.10', { disruptionMessageHasMethod: false, disruptionReasonCondition: true, gteLteOperators: true, reservedCapacityType: true }],
  ])('%s', (version, expected) => {
    expect(karpenterProfile(version)).toMatchObject(expected);
  });

  it.each([
    ['1.3.0', false, false, false],
    ['1.5.0', false, false, false],
    ['1.6.0', true, true, false],
    ['1.14.1', true, true, true],
  ])(
    '%s: reserved capacity by default %s, reservation type label %s, interruptible label %s',
    (version, byDefault, typeLabel, interruptible) => {
      expect(karpenterProfile(version)).toMatchObject({
        reservedCapacityByDefault: byDefault,
        capacityReservationTypeLabel: typeLabel,
        capacityReservationInterruptibleLabel: interruptible,
      });
    },
  );

  // each boundary as its tag has it (kubernetes-sigs/karpenter: pkg/apis/v1alpha1/nodeoverlay.go first at v1.7.0,
  // NodePool spec.replicas at v1.8.0, disruption/events ConsolidationCandidate at v1.9.0, Balanced at v1.14.0)
  it.each([
    ['1.6.4', false, false, false, false],
    ['1.7.0', true, false, false, false],
    ['1.8.0', true, true, false, false],
    ['1.9.0', true, true, true, false],
    ['1.13.0', true, true, true, false],
    ['1.14.0', true, true, true, true],
  ])(
    '%s: NodeOverlay API %s, static capacity %s, consolidation decision events %s, Balanced %s',
    (version, overlay, statics, decisions, balanced) => {
      expect(karpenterProfile(version)).toMatchObject({
        nodeOverlayApi: overlay,
        staticCapacity: statics,
        consolidationDecisionEvents: decisions,
        balancedConsolidation: balanced,
      });
    },
  );

  it('defaults to the current release, which differs from the legacy one in its event wording', () => {
    expect(karpenterProfile().version).toBe(CURRENT_KARPENTER_VERSION);
    expect(karpenterProfile().disruptionMessageHasMethod).toBe(false);
    expect(karpenterProfile(LEGACY_KARPENTER_VERSION).disruptionMessageHasMethod).toBe(true);
  });

  it.each(['0.37.0', '2.0.0', 'latest', ''])('refuses %j, naming it', (version) => {
    expect(() => karpenterProfile(version)).toThrow(KarpenterVersionError);
  });
});
