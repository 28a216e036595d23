/**
 * The Karpenter scheduling and consolidation engine: pure, deterministic, no I/O. See README.md in this folder
 * for how to call it.
 */
export { simulate, consolidate, type LaunchJson, type ScoreJson, type SimulationResult } from './simulate.js';
export { prepare, nodePrice, type EngineContext, type EngineInput, type FeatureGates } from './engine.js';
export { provision, podsToProvision, type ProvisionedNodeClaim, type ProvisioningOutcome, type ProvisionOptions } from './provisioning.js';
export {
  describe as describeCommand,
  evictionCost,
  type ConsolidationCommand,
  type ConsolidationOutcome,
  type NodeVerdict,
} from './consolidation.js';
export {
  buildBuiltInCatalogue,
  catalogueZones,
  CatalogueError,
  karpenterOverhead,
  parseCatalogue,
  validateCatalogue,
  type CatalogueEntry,
  type CatalogueOffering,
} from './catalogue.js';
export { EngineInputError } from './errors.js';
export { karpenterBehaviour, NEWEST_MODELLED_VERSION, resolveGates, type KarpenterBehaviour, type ResolvedGates } from './version.js';
export { BALANCED_K, scoreMove, type MoveScore } from './balanced.js';
export { adjustedPrice, checkOverlaySchema, overlayPricedTypes, runtimeValidation, type OverlayOutcome } from './overlays.js';
export { capacityReservations, endedReservations } from './reservations.js';
export { expandReplicas, isReschedulable, normalizePod, type SchedPod } from './pods.js';
export { normalizeNode, type ExistingNodeSpec } from './nodes.js';
export { normalizeNodePool, type NodePoolSpec } from './nodepools.js';
export { Requirement, Requirements, type SelectorRequirement } from './requirements.js';
export type * from './kube-types.js';
export {
  ObjectStreamError,
  parseObjectStream,
  type ExpandedWorkload,
  type IgnoredObject,
  type ObjectStream,
  type StreamNamespace,
} from './object-stream.js';
