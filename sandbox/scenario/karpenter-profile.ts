/**
 * Which Karpenter release the sandbox imitates, and what that changes in the objects and events it serves.
 * The product itself never branches on a version: it must read every release's shapes. The sandbox does, so the
 * tests can run the same scenario as an older and as a current cluster and check that the answers agree.
 *
 * Facts (kubernetes-sigs/karpenter, read at the tags named):
 * - v1.0.0–v1.5.x: DisruptionTerminating / DisruptionLaunching messages carry the method,
 *   "Disrupting Node: Underutilized/Replace" (orchestration/queue.go Command.Reason() = "<reason>/<replace|delete>").
 * - v1.6.0 and later: the message names the reason only, "Disrupting Node: Underutilized" (queue.go passes
 *   string(cmd.Reason())).
 * - v1.2.0 and later: a disrupted NodeClaim carries the DisruptionReason status condition, set True when the command
 *   is queued (disruption/controller.go MarkDisrupted): v1.2.0–v1.3.0 with reason "DisruptionReason" and the reason in
 *   the message, v1.3.1 and later with the reason in both (not v1.5 as first noted: git grep ConditionTypeDisruptionReason).
 * - DisruptionBlocked for a do-not-disrupt pod (state/statenode.go, disruption/types.go): v1.0–v1.1 "Cannot disrupt
 *   Node: pod "ns/name" has "karpenter.sh/do-not-disrupt" annotation" (NodeClaim: "Cannot disrupt NodeClaim: …"),
 *   v1.2–v1.4 'Pod "ns/name" has …' (pretty.Sentence), v1.5 and later 'Pod has …' (serrors.Wrap keeps the name out).
 * - Gte / Lte requirement operators: v1.10.0 and later (pkg/apis/v1/nodeclaim.go NodeSelectorOpGte/Lte).
 * - The `reserved` capacity type (on-demand capacity reservations): v1.3.0 and later (pkg/apis/v1/labels.go),
 *   behind the ReservedCapacity feature gate, off by default until v1.6.0 (pkg/operator/options/options.go).
 * - Labels on a reserved node (aws/karpenter-provider-aws pkg/apis/v1/labels.go): karpenter.k8s.aws/
 *   capacity-reservation-id from v1.3.0, capacity-reservation-type (default | capacity-block) from v1.6.0,
 *   capacity-reservation-interruptible from v1.10.0.
 * - karpenter.sh/v1alpha1 NodeOverlay (pkg/apis/v1alpha1/nodeoverlay.go): v1.7.0 and later (the CRD is installed;
 *   the NodeOverlay feature gate decides whether it is applied).
 * - Static-capacity NodePools (spec.replicas, pkg/apis/v1/nodepool.go): v1.8.0 and later.
 * - ConsolidationCandidate / ConsolidationRejected events (pkg/controllers/disruption/events/events.go): v1.9.0.
 * - consolidationPolicy Balanced and ConsolidationApproved (pkg/apis/v1/nodepool.go): v1.14.0.
 * The last four are the v1.14 profile of issue 22: the sandbox serves a scenario's NodeOverlays (not applied: its
 * controller keeps the NodeOverlay gate off, v1.14.1's default), its static NodePools (scaled to zero: the simulation
 * launches no static nodes), Balanced NodePools (the simulation scores their moves, scenario/balanced-score.ts) and
 * the events (karpenter-events.ts).
 */

export interface KarpenterProfile {
  /** The release imitated, "major.minor.patch". */
  version: string;
  /** Disruption event messages end in "/Replace" or "/Delete" (v1.0–v1.5). */
  disruptionMessageHasMethod: boolean;
  /** Disrupted NodeClaims carry the DisruptionReason status condition (v1.2+). */
  disruptionReasonCondition: boolean;
  /** Where that condition writes the reason: its message only, reason "DisruptionReason" (v1.2.0–v1.3.0); else both. */
  disruptionReasonInMessageOnly: boolean;
  /** How a DisruptionBlocked message names a do-not-disrupt pod: prefixed (v1.0–v1.1), a sentence naming it (v1.2–v1.4), or not (v1.5+). */
  blockedWording: 'cannot-disrupt' | 'sentence-with-pod' | 'sentence';
  /** NodePool requirements may use Gte and Lte (v1.10+). */
  gteLteOperators: boolean;
  /** The `reserved` capacity type exists (v1.3+). */
  reservedCapacityType: boolean;
  /** Reserved capacity is used without opting in: the ReservedCapacity feature gate defaults to true (v1.6+). */
  reservedCapacityByDefault: boolean;
  /** A reserved node carries karpenter.k8s.aws/capacity-reservation-type (v1.6+). */
  capacityReservationTypeLabel: boolean;
  /** A reserved node carries karpenter.k8s.aws/capacity-reservation-interruptible (v1.10+). */
  capacityReservationInterruptibleLabel: boolean;
  /** The karpenter.sh/v1alpha1 NodeOverlay API is served (v1.7+). */
  nodeOverlayApi: boolean;
  /** NodePools may be static (spec.replicas, v1.8+). */
  staticCapacity: boolean;
  /** Karpenter writes ConsolidationCandidate and ConsolidationRejected events (v1.9+). */
  consolidationDecisionEvents: boolean;
  /** consolidationPolicy Balanced, and ConsolidationApproved events (v1.14+). */
  balancedConsolidation: boolean;
}

/**
 * The FEATURE_GATES env the release's Helm chart gives its controller (aws charts/karpenter/templates/deployment.yaml:
 * SpotToSpotConsolidation from v1.0, NodeRepair v1.1, ReservedCapacity v1.3 (first), NodeOverlay v1.7, StaticCapacity
 * v1.8, CapacityBuffer v1.14), with the values the sandbox's controller runs with: ReservedCapacity as the release
 * defaults it (values.yaml: true from v1.6), SpotToSpotConsolidation as the scenario says, the rest off.
 */
export function karpenterFeatureGatesEnv(profile: KarpenterProfile, spotToSpotConsolidation: boolean): string {
  const [, minor] = profile.version.split('.').map(Number);
  const gates: [string, boolean][] = [
    ...(minor >= 3 ? [['ReservedCapacity', profile.reservedCapacityByDefault] as [string, boolean]] : []),
    ['SpotToSpotConsolidation', spotToSpotConsolidation],
    ...(minor >= 1 ? [['NodeRepair', false] as [string, boolean]] : []),
    ...(minor >= 7 ? [['NodeOverlay', false] as [string, boolean]] : []),
    ...(minor >= 8 ? [['StaticCapacity', false] as [string, boolean]] : []),
    ...(minor >= 14 ? [['CapacityBuffer', false] as [string, boolean]] : []),
  ];
  return gates.map(([name, on]) => `${name}=${on}`).join(',');
}

/** The release `npm start` imitates, and the older one the end-to-end tests also run. */
export const CURRENT_KARPENTER_VERSION = '1.14.1';
export const LEGACY_KARPENTER_VERSION = '1.5.0';

export class KarpenterVersionError extends Error {}

function parseVersion(version: string): [number, number, number] {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?$/.exec(version.trim());
  if (m === null) throw new KarpenterVersionError(`karpenterVersion "${version}" is not a release number like 1.14.1`);
  const parts: [number, number, number] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
  if (parts[0] !== 1)
    throw new KarpenterVersionError(`karpenterVersion "${version}": the sandbox imitates Karpenter v1 releases (1.0.0 and later)`);
  return parts;
}

const atLeast = (v: [number, number, number], minor: number, patch = 0): boolean => v[1] > minor || (v[1] === minor && v[2] >= patch);

export function karpenterProfile(version: string = CURRENT_KARPENTER_VERSION): KarpenterProfile {
  const v = parseVersion(version);
  return {
    version: v.join('.'),
    disruptionMessageHasMethod: !atLeast(v, 6),
    disruptionReasonCondition: atLeast(v, 2),
    disruptionReasonInMessageOnly: atLeast(v, 2) && !atLeast(v, 3, 1),
    blockedWording: atLeast(v, 5) ? 'sentence' : atLeast(v, 2) ? 'sentence-with-pod' : 'cannot-disrupt',
    gteLteOperators: atLeast(v, 10),
    reservedCapacityType: atLeast(v, 3),
    reservedCapacityByDefault: atLeast(v, 6),
    capacityReservationTypeLabel: atLeast(v, 6),
    capacityReservationInterruptibleLabel: atLeast(v, 10),
    nodeOverlayApi: atLeast(v, 7),
    staticCapacity: atLeast(v, 8),
    consolidationDecisionEvents: atLeast(v, 9),
    balancedConsolidation: atLeast(v, 14),
  };
}
