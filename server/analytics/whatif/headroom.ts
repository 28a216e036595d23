import type { EngineContext, KubeNodePool } from '../../../core/karpenter/scheduling/index.js';
import {
  ANNOTATION_DO_NOT_DISRUPT,
  CAPACITY_ON_DEMAND,
  CAPACITY_SPOT,
  LABEL_CAPACITY_TYPE,
} from '../../../core/karpenter/scheduling/well-known.js';
import {
  emptyFootprint,
  type Footprint,
  launchableCapacityType,
  perMonth,
  prepareWorld,
  repack,
  todayByPool,
  type Unschedulable,
  type WhatIfWorld,
} from './repack.js';

/**
 * Consolidation headroom and the spot lever, per NodePool. Pure.
 *
 * - Headroom: every pod of the snapshot's Karpenter nodes re-placed from scratch in its own NodePool on its own
 *   capacity type (a reserved node's on on-demand), with its own constraints: the re-pack. `best` is the cheaper of
 *   today and the re-pack (it is not a bound: Karpenter's first-fit packing is not optimal, and a re-pack can cost
 *   more than the placement the cluster already has, e.g. week4 at 09:30 m6a.4xlarge for what sits on a c6a.4xlarge
 *   and a c6a.large). Headroom is today less `best`: what consolidation could still save without changing any
 *   NodePool or purchase option, by the engine's own packing.
 * - Spot: the same re-pack with every NodePool's capacity types widened to spot and each pod free to take it, except
 *   pods marked karpenter.sh/do-not-disrupt (they keep their capacity type: an interruption is a disruption), or
 *   `best` when that is cheaper; the lever is `best` less that. A pod's own capacity-type selector still holds.
 */

export interface HeadroomRow {
  nodePool: string;
  today: Footprint;
  /** The engine's re-pack from scratch (its own answer, cheaper or not). */
  repack: Footprint;
  /** The cheaper of today and the re-pack: the best placement known under today's NodePools. */
  best: Footprint;
  bestSource: 'repack' | 'today';
  /** The re-pack with spot allowed, or the best placement (the cheaper of today and the re-pack) when that is cheaper. */
  spot: Footprint;
  spotSource: 'repack' | 'best';
  headroomUsdPerHour: number;
  headroomUsdPerMonth: number;
  spotUsdPerHour: number;
  spotUsdPerMonth: number;
}

export interface HeadroomResult {
  rows: HeadroomRow[];
  /** Pods the re-pack could not place (their cost is then missing from it). */
  unschedulable: Unschedulable[];
  spotUnschedulable: Unschedulable[];
  unpricedNodes: string[];
}

/** A NodePool with spot added to its capacity types (the other requirements unchanged). */
export function withSpot(np: KubeNodePool): KubeNodePool {
  const reqs = np.spec.template?.spec?.requirements ?? [];
  const others = reqs.filter((r) => r.key !== LABEL_CAPACITY_TYPE);
  const ct = reqs.find((r) => r.key === LABEL_CAPACITY_TYPE && r.operator === 'In');
  const values = [...new Set([...(ct?.values ?? [CAPACITY_ON_DEMAND]), CAPACITY_SPOT])];
  return {
    ...np,
    spec: {
      ...np.spec,
      template: {
        ...np.spec.template,
        spec: { ...np.spec.template?.spec, requirements: [...others, { key: LABEL_CAPACITY_TYPE, operator: 'In', values }] },
      },
    },
  };
}

export function consolidationHeadroom(world: WhatIfWorld, ctx: EngineContext = prepareWorld(world)): HeadroomResult {
  const today = todayByPool(ctx);
  const lower = repack(ctx, ctx, (_pod, from) => ({
    nodePool: from.nodePool,
    capacityType: launchableCapacityType(from.capacityType) ?? undefined,
  }));
  const spotCtx = prepareWorld(world, world.objects.nodePools.map(withSpot));
  const spot = repack(ctx, spotCtx, (pod, from) =>
    pod.annotations[ANNOTATION_DO_NOT_DISRUPT] === 'true'
      ? { nodePool: from.nodePool, capacityType: launchableCapacityType(from.capacityType) ?? undefined }
      : { nodePool: from.nodePool },
  );
  const pools = [...new Set([...today.byPool.keys(), ...lower.byPool.keys()])].sort();
  const rows = pools.map((nodePool): HeadroomRow => {
    const t = today.byPool.get(nodePool) ?? emptyFootprint();
    const r = lower.byPool.get(nodePool) ?? emptyFootprint();
    // A re-pack that left pods out is no bound at all: it did not pay for them.
    const complete = (u: readonly Unschedulable[]) => !u.some((x) => x.nodePool === nodePool);
    const l = complete(lower.unschedulable) && r.usdPerHour <= t.usdPerHour ? r : t;
    const spotRepack = spot.byPool.get(nodePool) ?? emptyFootprint();
    const s = complete(spot.unschedulable) && spotRepack.usdPerHour <= l.usdPerHour ? spotRepack : l;
    const headroom = t.usdPerHour - l.usdPerHour;
    const spotSaving = l.usdPerHour - s.usdPerHour;
    return {
      nodePool,
      today: t,
      repack: r,
      best: l,
      bestSource: l === r ? 'repack' : 'today',
      spot: s,
      spotSource: s === spotRepack ? 'repack' : 'best',
      headroomUsdPerHour: headroom,
      headroomUsdPerMonth: perMonth(headroom),
      spotUsdPerHour: spotSaving,
      spotUsdPerMonth: perMonth(spotSaving),
    };
  });
  return { rows, unschedulable: lower.unschedulable, spotUnschedulable: spot.unschedulable, unpricedNodes: today.unpriced };
}
