import { LABEL_CAPACITY_TYPE } from '../../core/labels.js';
import { karpenterProfile, type KarpenterProfile } from './karpenter-profile.js';
import type { ScenarioFile } from './scenario-file.js';

/**
 * A scenario file is written for the current Karpenter release (Gte and Lte requirements, reserved capacity).
 * Run as an older release (its karpenterVersion), its NodePools are rewritten the way a user of that release
 * writes the same intent, so both releases admit the same instance types and the simulated history is the same:
 * - without Gte/Lte (before v1.10): Gte N becomes Gt N-1 and Lte N becomes Lt N+1, exactly how Karpenter itself
 *   canonicalizes Gt and Lt (pkg/scheduling/requirement.go); Gte 0 has no Gt form (values must be >= 0) and is refused;
 * - without reserved capacity by default (before v1.6): `reserved` leaves the capacity-type requirement and the
 *   capacity reservations are not used, so those nodes launch on-demand (same type and price; the zone is the
 *   engine's pick among equally priced zones rather than the reservation's);
 * - without consolidationPolicy Balanced (before v1.14): WhenEmptyOrUnderutilized, the policy Balanced refines
 *   (the same moves, none scored);
 * - without static NodePools (spec.replicas, before v1.8): the static NodePool is left out (it runs no nodes);
 * - without the NodeOverlay API (before v1.7): no NodeOverlays.
 * Pure: returns a new file.
 */

export class ReleaseShapeError extends Error {}

type Pool = ScenarioFile['nodePools'][number];
type PoolRequirement = Pool['requirements'][number];

function rewriteBound(pool: string, r: PoolRequirement, profile: KarpenterProfile): PoolRequirement {
  if (profile.gteLteOperators || (r.operator !== 'Gte' && r.operator !== 'Lte')) return r;
  const n = Number(r.values[0]);
  if (!Number.isSafeInteger(n) || r.values.length !== 1)
    throw new ReleaseShapeError(`NodePool ${pool}: ${r.key} ${r.operator} needs one integer value, got [${r.values.join(', ')}]`);
  if (r.operator === 'Gte' && n === 0)
    throw new ReleaseShapeError(`NodePool ${pool}: ${r.key} Gte 0 has no form before Karpenter v1.10 (Gt takes values >= 0)`);
  return r.operator === 'Gte' ? { ...r, operator: 'Gt', values: [String(n - 1)] } : { ...r, operator: 'Lt', values: [String(n + 1)] };
}

function withoutReserved(pool: Pool): Pool {
  const requirements = pool.requirements.map((r) =>
    r.key === LABEL_CAPACITY_TYPE && r.operator === 'In' ? { ...r, values: r.values.filter((v) => v !== 'reserved') } : r,
  );
  const emptied = requirements.find((r) => r.key === LABEL_CAPACITY_TYPE && r.operator === 'In' && r.values.length === 0);
  if (emptied)
    throw new ReleaseShapeError(
      `NodePool ${pool.name} allows only reserved capacity, which this Karpenter release does not use by default`,
    );
  return { ...pool, requirements, capacityTypes: pool.capacityTypes.filter((c) => c !== 'reserved') };
}

export function shapeForRelease(file: ScenarioFile): ScenarioFile {
  const profile = karpenterProfile(file.karpenterVersion);
  const nodePools = file.nodePools
    .filter((pool) => profile.staticCapacity || pool.replicas === undefined)
    .map((pool) => {
      const shaped = {
        ...pool,
        requirements: pool.requirements.map((r) => rewriteBound(pool.name, r, profile)),
        ...(pool.consolidationPolicy === 'Balanced' && !profile.balancedConsolidation
          ? { consolidationPolicy: 'WhenEmptyOrUnderutilized' as const }
          : {}),
      };
      return profile.reservedCapacityByDefault ? shaped : withoutReserved(shaped);
    });
  return {
    ...file,
    nodePools,
    capacityReservations: profile.reservedCapacityByDefault ? (file.capacityReservations ?? []) : [],
    nodeOverlays: profile.nodeOverlayApi ? (file.nodeOverlays ?? []) : [],
  };
}
