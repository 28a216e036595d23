import { EngineInputError } from './errors.js';

/**
 * Which Karpenter release the engine reproduces (EngineInput.karpenterVersion), and what that release decides
 * differently. Each flag names the release that introduced the behaviour, read at that tag in
 * kubernetes-sigs/karpenter (core) or aws/karpenter-provider-aws (aws); core and aws releases share numbers.
 * Older behaviour stays reachable by giving an older version.
 */

/** The newest release modelled, and the default. */
export const NEWEST_MODELLED_VERSION = '1.14.1';

export interface KarpenterBehaviour {
  /** "1.14.1" */
  version: string;
  /** v1.14.0 (core #2962): consolidationPolicy Balanced, scored against k = 2. */
  balancedPolicy: boolean;
  /** v1.14.0 (core #3006): non-pending pods are not simulated onto nodes still under consolidateAfter. */
  consolidateAfterOnDestinations: boolean;
  /** v1.14.0: candidates by price per unit of disruption, highest first; before, by disruption cost, lowest first. */
  savingsRatioOrder: boolean;
  /**
   * v1.14.0: a node is empty when no pod adds positive eviction cost (Candidate.IsEmpty); before, when it has no
   * reschedulable pod. Also the wording for a WhenEmpty pool's non-empty node.
   */
  emptyByEvictionCost: boolean;
  /** v1.14.0 (core #2975): a DaemonSet pod counts as overhead only on instance types its requirements admit. */
  daemonSetInstanceTypeRequirements: boolean;
  /** aws v1.14.0 (#9249): a NodeOverlay with one instance-type In requirement and a price prices a type without one. */
  overlayPricesUnpricedTypes: boolean;
  /** v1.12.0: karpenter.sh/do-not-disrupt takes a duration ("30m") measured from the pod's start. */
  doNotDisruptDuration: boolean;
  /** v1.11.0 (core #2526): limits.nodes counts nodes on dynamic NodePools. */
  nodeLimits: boolean;
  /** v1.8.0: pod-level spec.resources are the pod's requests (resourcehelper.PodRequests). */
  podLevelResources: boolean;
  /** v1.8.0: NodePools with spec.replicas are static: not used for dynamic provisioning, never consolidated. */
  staticNodePools: boolean;
  /** v1.7.0: the NodeOverlay and StaticCapacity feature gates exist. */
  nodeOverlayGate: boolean;
  staticCapacityGate: boolean;
  /** v1.6.0: --min-values-policy BestEffort and the nodeclaim-min-values-relaxed annotation. */
  minValuesPolicy: boolean;
  /** v1.3.0: the ReservedCapacity gate exists; v1.6.0: it defaults to true. */
  reservedCapacityGate: boolean;
  reservedCapacityByDefault: boolean;
}

type Triple = [number, number, number];

function parse(version: string): Triple {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?$/.exec(version.trim());
  if (m === null) throw new EngineInputError('karpenterVersion', `"${version}" is not a release number like 1.14.1`);
  const v: Triple = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
  if (v[0] !== 1)
    throw new EngineInputError(
      'karpenterVersion',
      `"${version}": the engine models Karpenter v1 releases (1.0.0 to ${NEWEST_MODELLED_VERSION})`,
    );
  return v;
}

const atLeast = (v: Triple, minor: number, patch = 0): boolean => v[1] > minor || (v[1] === minor && v[2] >= patch);

/** The behaviour of a release; a newer release than modelled gets the newest behaviour and a warning. */
export function karpenterBehaviour(version: string = NEWEST_MODELLED_VERSION, warnings?: string[]): KarpenterBehaviour {
  const v = parse(version);
  const newest = parse(NEWEST_MODELLED_VERSION);
  if (v[1] > newest[1] || (v[1] === newest[1] && v[2] > newest[2]))
    warnings?.push(
      `karpenterVersion ${v.join('.')} is newer than the newest release modelled (${NEWEST_MODELLED_VERSION}); simulated as ${NEWEST_MODELLED_VERSION}`,
    );
  return {
    version: v.join('.'),
    balancedPolicy: atLeast(v, 14),
    consolidateAfterOnDestinations: atLeast(v, 14),
    savingsRatioOrder: atLeast(v, 14),
    emptyByEvictionCost: atLeast(v, 14),
    daemonSetInstanceTypeRequirements: atLeast(v, 14),
    overlayPricesUnpricedTypes: atLeast(v, 14),
    doNotDisruptDuration: atLeast(v, 12),
    nodeLimits: atLeast(v, 11),
    podLevelResources: atLeast(v, 8),
    staticNodePools: atLeast(v, 8),
    nodeOverlayGate: atLeast(v, 7),
    staticCapacityGate: atLeast(v, 7),
    minValuesPolicy: atLeast(v, 6),
    reservedCapacityGate: atLeast(v, 3),
    reservedCapacityByDefault: atLeast(v, 6),
  };
}

/** Karpenter's feature gates in the engine's spelling. */
export interface FeatureGates {
  spotToSpotConsolidation?: boolean;
  nodeOverlay?: boolean;
  staticCapacity?: boolean;
  reservedCapacity?: boolean;
}

export type ResolvedGates = Required<FeatureGates>;

/**
 * The gates in effect: given values, else the release's defaults (pkg/operator/options/options.go: ReservedCapacity
 * on from v1.6.0, the rest off). A gate the release does not have is off, as Karpenter ignores an unknown gate name;
 * turning one on is said in a warning.
 */
export function resolveGates(given: FeatureGates | undefined, b: KarpenterBehaviour, warnings: string[]): ResolvedGates {
  const g = given ?? {};
  const exists = (name: string, present: boolean, value: boolean | undefined, since: string): boolean => {
    if (present) return value ?? false;
    if (value === true)
      warnings.push(`feature gate ${name} does not exist before Karpenter ${since} (karpenterVersion ${b.version}); left off`);
    return false;
  };
  return {
    spotToSpotConsolidation: g.spotToSpotConsolidation ?? false,
    nodeOverlay: exists('NodeOverlay', b.nodeOverlayGate, g.nodeOverlay, 'v1.7.0'),
    staticCapacity: exists('StaticCapacity', b.staticCapacityGate, g.staticCapacity, 'v1.7.0'),
    reservedCapacity: exists('ReservedCapacity', b.reservedCapacityGate, g.reservedCapacity ?? b.reservedCapacityByDefault, 'v1.3.0'),
  };
}
