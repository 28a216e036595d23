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
 *   capacity type (a reserved node's on on-demand); today's cost per hour less that lower bound. It is what perfect
 *   consolidation could still save without changing any NodePool or purchase option.
 * - Spot: the same re-pack with every NodePool's capacity types widened to spot and each pod free to take it, except
 *   pods marked karpenter.sh/do-not-disrupt (they keep their capacity type: an interruption is a disruption);
 *   the lower bound less that. Stored pods carry no capacity-type selector, so "where the pods allow it" means
 *   "where nothing stored forbids it".
 *
 * Karpenter's provisioning is first-fit over pods largest first, not an optimal packing: a re-pack from scratch
 * can cost more than the placement the cluster already has (week4 at 09:30: m6a.4xlarge for what sits on a
 * c6a.4xlarge and a c6a.large today). Today's placement is itself feasible, so the lower bound is the cheaper of the
 * two, and the spot figure starts from that bound the same way; `repack` keeps the engine's own answer.
 */

export interface HeadroomRow {
  nodePool: string;
  today: Footprint;
  /** The engine's re-pack from scratch (its own answer, cheaper or not). */
  repack: Footprint;
  /** The cheaper of today and the re-pack: the best placement known under today's NodePools. */
  lowerBound: Footprint;
  lowerBoundSource: 'repack' | 'today';
  /** The re-pack with spot allowed, or the lower bound when that is cheaper. */
  spot: Footprint;
  spotSource: 'repack' | 'lower-bound';
  headroomUsdPerHour: number;
  headroomUsdPerMonth: number;
  spotUsdPerHour: number;
  spotUsdPerMonth: number;
}

export interface HeadroomResult {
  rows: HeadroomRow[];
  /** Pods the lower-bound re-pack could not place (their cost is then missing from it). */
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
      lowerBound: l,
      lowerBoundSource: l === r ? 'repack' : 'today',
      spot: s,
      spotSource: s === spotRepack ? 'repack' : 'lower-bound',
      headroomUsdPerHour: headroom,
      headroomUsdPerMonth: perMonth(headroom),
      spotUsdPerHour: spotSaving,
      spotUsdPerMonth: perMonth(spotSaving),
    };
  });
  return { rows, unschedulable: lower.unschedulable, spotUnschedulable: spot.unschedulable, unpricedNodes: today.unpriced };
}
