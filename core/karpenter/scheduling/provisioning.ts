import { clusterBoundPods, type EngineContext, nodeBase, remainingLimits, topologyNode } from './engine.js';
import { indexBoundPods } from './topology.js';
import {
  LABEL_CAPACITY_TYPE,
  LABEL_HOSTNAME,
  LABEL_NODE_INITIALIZED,
  LABEL_NODEPOOL,
  LABEL_RESERVATION_ID,
  LABEL_ZONE,
} from './well-known.js';
import { chooseLaunch, type FinalNodeClaim, finalizeNodeClaim, type LaunchChoice, nodeClaimRequirements } from './launch.js';
import type { ExistingNodeSpec } from './nodes.js';
import { isProvisionable, isReschedulable, type SchedPod } from './pods.js';
import { ReservationLedger } from './reservations.js';
import { Scheduler } from './scheduler.js';

/** A NodeClaim Karpenter would create for pending pods, and what it would launch. */
export interface ProvisionedNodeClaim {
  nodePool: string;
  claim: FinalNodeClaim;
  launch: LaunchChoice;
  pods: SchedPod[];
}

export interface ProvisioningOutcome {
  nodeClaims: ProvisionedNodeClaim[];
  unschedulable: { pod: SchedPod; reason: string }[];
  /** Pods placed on nodes that exist, by node name. */
  onExistingNodes: Map<string, SchedPod[]>;
  /** Instances launched into each capacity reservation (a reserved NodeClaim takes one place in its reservation). */
  reservationsUsed: Map<string, number>;
}

export interface ProvisionOptions {
  /** Pods to place; default: pending pods plus the reschedulable pods of nodes being deleted. */
  pods?: readonly SchedPod[];
  /** Nodes they may go to; default: every node not being deleted. Pass [] to re-pack from scratch. */
  destinations?: readonly ExistingNodeSpec[];
}

/** The pods a provisioning round places: pending ones, and those on nodes being deleted. */
export function podsToProvision(ctx: EngineContext): SchedPod[] {
  const out = ctx.pods.filter((p) => isProvisionable(p));
  for (const n of ctx.nodes) if (n.markedForDeletion) out.push(...n.pods.filter((p) => isReschedulable(p)));
  return out;
}

const views = new WeakMap<EngineContext, ReturnType<typeof buildView>>();

function buildView(ctx: EngineContext) {
  const destinations = ctx.nodes.filter((n) => !n.markedForDeletion);
  return {
    destinations,
    // in the order the scheduler tries them, so it need not sort them again for every round
    existing: [...destinations]
      .sort((a, b) => Number(b.initialized) - Number(a.initialized) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((n) => ({ base: nodeBase(ctx, n), underConsolidateAfter: false })),
    topologyNodes: ctx.nodes.map((n) => topologyNode(ctx, n)),
    deleting: new Set(ctx.nodes.filter((n) => n.markedForDeletion).map((n) => n.name)),
  };
}

/** The input's nodes as every provisioning round against them needs them, built once per context. */
function clusterView(ctx: EngineContext): ReturnType<typeof buildView> {
  let v = views.get(ctx);
  if (!v) {
    v = buildView(ctx);
    views.set(ctx, v);
  }
  return v;
}

/** A provisioned NodeClaim as a node that now exists (for the round that follows: consolidation, or provisioning again). */
export function launchedNode(ctx: EngineContext, nc: ProvisionedNodeClaim, i: number, initialized = true): ExistingNodeSpec {
  const name = `${nc.nodePool}-provisioned-${String(i + 1).padStart(4, '0')}`;
  const it = nc.launch.instanceType;
  const pool = ctx.poolByName.get(nc.nodePool);
  const labels: Record<string, string> = {
    ...it.labels,
    ...(pool?.labels ?? {}),
    [LABEL_NODEPOOL]: nc.nodePool,
    [LABEL_ZONE]: nc.launch.zone,
    [LABEL_CAPACITY_TYPE]: nc.launch.capacityType,
    [LABEL_HOSTNAME]: name,
  };
  if (initialized) labels[LABEL_NODE_INITIALIZED] = 'true';
  if (nc.launch.reservationId !== undefined) labels[LABEL_RESERVATION_ID] = nc.launch.reservationId;
  return {
    name,
    labels,
    annotations: {},
    taints: pool?.taints ?? [],
    allocatable: it.allocatable,
    capacity: it.capacity,
    createdAt: ctx.now,
    nodePool: nc.nodePool,
    initialized,
    markedForDeletion: false,
    ready: true,
    lastPodEventAt: ctx.now,
    pods: nc.pods.map((p) => bindPod(p, name, ctx.now)),
    instanceType: it.name,
    capacityType: nc.launch.capacityType,
    zone: nc.launch.zone,
    hostname: name,
  };
}

export const bindPod = (p: SchedPod, nodeName: string, now: number): SchedPod => ({
  ...p,
  nodeName,
  phase: 'Running',
  startTime: now,
  finishedAt: null,
});

/** Rounds a provisioning simulation runs at most to place pods deferred on full reservations. */
const MAX_RESERVATION_ROUNDS = 20;

/**
 * One provisioning round (Karpenter's Provisioner.Schedule → Scheduler.Solve → NodeClaim launch). When reservations
 * are counted, Karpenter defers a pod whose compatible reservations are full (ReservedOfferingModeStrict) and places
 * it in a later round, once the NodeClaims launched meanwhile have used the reservation up (its offerings then
 * unavailable) and exist as nodes: those rounds are run here too, so the answer is where the pods end up.
 */
export function provision(ctx: EngineContext, opts: ProvisionOptions = {}): ProvisioningOutcome {
  const asked = opts.pods ?? podsToProvision(ctx);
  // a pending pod whose PersistentVolumeClaim cannot be found is not provisioned for (provisioner.go Validate)
  const invalid = asked.filter((p) => p.volumeError && p.nodeName === null);
  const pods = invalid.length ? asked.filter((p) => !(p.volumeError && p.nodeName === null)) : asked;
  const cluster = clusterView(ctx);
  const destinations = opts.destinations ?? cluster.destinations;
  const nodeClaims: ProvisionedNodeClaim[] = [];
  const unschedulable: ProvisioningOutcome['unschedulable'] = invalid.map((pod) => ({ pod, reason: pod.volumeError as string }));
  const onExistingNodes = new Map<string, SchedPod[]>();
  const reservationsUsed = new Map<string, number>();
  let pending: readonly SchedPod[] = pods;
  /** The NodeClaims of earlier rounds as nodes (in flight, so after the initialized nodes). */
  const launched: { node: ExistingNodeSpec; claim: ProvisionedNodeClaim }[] = [];
  for (let round = 0; ; round++) {
    const launchedNodes = launched.map((l) => l.node);
    const roundDestinations = launched.length ? [...destinations, ...launchedNodes] : destinations;
    const bound = launched.length
      ? indexBoundPods(
          [...ctx.nodes, ...launchedNodes].flatMap((n) => n.pods.map((p) => ({ pod: p, constraints: p.constraints, nodeName: n.name }))),
        )
      : clusterBoundPods(ctx);
    const ledger = ctx.countReservations ? new ReservationLedger([ctx.catalogue], reservationsUsed) : null;
    const scheduler = new Scheduler({
      space: ctx.space,
      templates: ctx.templates,
      existing:
        opts.destinations || launched.length
          ? roundDestinations.map((n) => ({ base: nodeBase(ctx, n), underConsolidateAfter: false }))
          : cluster.existing,
      existingSorted: !opts.destinations && !launched.length,
      remaining: remainingLimits(ctx, roundDestinations),
      topology: {
        domainSources: ctx.domainSources,
        nodes: launched.length ? [...cluster.topologyNodes, ...launchedNodes.map((n) => topologyNode(ctx, n))] : cluster.topologyNodes,
        ...bound,
        excluded: new Set(pending.map((p) => p.uid)),
        namespaceLabels: ctx.namespaceLabels,
      },
      ignorePreferences: ctx.ignorePreferences,
      toleratePreferNoSchedule: ctx.toleratePreferNoSchedule,
      deletingNodes: cluster.deleting,
      noShortcuts: ctx.noShortcuts === true,
      claimOptions: { relaxMinValues: ctx.minValuesPolicy === 'BestEffort', ledger, strictReservations: true },
      noDynamicNodePools: ctx.behaviour.staticNodePools && ctx.pools.every((p) => p.replicas !== null),
    });
    const result = scheduler.solve(pending);
    const claimsBefore = nodeClaims.length;
    for (const nc of result.newNodeClaims) {
      const claim = finalizeNodeClaim(nc);
      const launch = chooseLaunch(nodeClaimRequirements(claim.requirements, claim.options), claim.requests, claim.options);
      if (!launch) {
        for (const pod of nc.pods) unschedulable.push({ pod, reason: 'all requested instance types were unavailable during launch' });
        continue;
      }
      if (launch.reservationId !== undefined)
        reservationsUsed.set(launch.reservationId, (reservationsUsed.get(launch.reservationId) ?? 0) + 1);
      nodeClaims.push({ nodePool: nc.template.pool.name, claim, launch, pods: [...nc.pods] });
    }
    const launchedByName = new Map(launched.map((l) => [l.node.name, l.claim]));
    let placedOnExisting = 0;
    for (const slot of result.existing) {
      if (!slot.pods.length) continue;
      placedOnExisting += slot.pods.length;
      const claim = launchedByName.get(slot.node.name);
      if (claim) claim.pods.push(...slot.pods);
      else onExistingNodes.set(slot.node.name, [...(onExistingNodes.get(slot.node.name) ?? []), ...slot.pods]);
    }
    const deferred = [...result.errors].filter(([pod]) => scheduler.deferred.has(pod));
    const progress = nodeClaims.length > claimsBefore || placedOnExisting > 0;
    if (deferred.length === 0 || !progress || round + 1 >= MAX_RESERVATION_ROUNDS) {
      for (const [pod, reason] of result.errors) unschedulable.push({ pod, reason });
      break;
    }
    // pods that failed for another reason stay failed; the deferred ones try again next round
    for (const [pod, reason] of result.errors) if (!scheduler.deferred.has(pod)) unschedulable.push({ pod, reason });
    for (let i = claimsBefore; i < nodeClaims.length; i++) {
      launched.push({ node: launchedNode(ctx, nodeClaims[i], i, false), claim: nodeClaims[i] });
    }
    // a pod placed on an earlier round's NodeClaim: that node holds it in the next round
    for (const l of launched) l.node = { ...l.node, pods: l.claim.pods.map((p) => bindPod(p, l.node.name, ctx.now)) };
    pending = deferred.map(([pod]) => pod);
  }
  unschedulable.sort((a, b) => (a.pod.key < b.pod.key ? -1 : a.pod.key > b.pod.key ? 1 : 0));
  return { nodeClaims, unschedulable, onExistingNodes, reservationsUsed };
}
