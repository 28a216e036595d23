import { clusterBoundPods, type EngineContext, nodeBase, remainingLimits, topologyNode } from './engine.js';
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

/** One provisioning round (Karpenter's Provisioner.Schedule → Scheduler.Solve → NodeClaim launch). */
export function provision(ctx: EngineContext, opts: ProvisionOptions = {}): ProvisioningOutcome {
  const pods = opts.pods ?? podsToProvision(ctx);
  const cluster = clusterView(ctx);
  const destinations = opts.destinations ?? cluster.destinations;
  const scheduler = new Scheduler({
    space: ctx.space,
    templates: ctx.templates,
    existing: opts.destinations ? destinations.map((n) => ({ base: nodeBase(ctx, n), underConsolidateAfter: false })) : cluster.existing,
    existingSorted: !opts.destinations,
    remaining: remainingLimits(ctx, destinations),
    topology: {
      domainSources: ctx.domainSources,
      nodes: cluster.topologyNodes,
      ...clusterBoundPods(ctx),
      excluded: new Set(pods.map((p) => p.uid)),
      namespaceLabels: ctx.namespaceLabels,
    },
    ignorePreferences: ctx.ignorePreferences,
    toleratePreferNoSchedule: ctx.toleratePreferNoSchedule,
    deletingNodes: cluster.deleting,
    claimOptions: {
      relaxMinValues: ctx.minValuesPolicy === 'BestEffort',
      ledger: ctx.countReservations ? new ReservationLedger([ctx.catalogue]) : null,
    },
  });
  const result = scheduler.solve(pods);
  const unschedulable = [...result.errors].map(([pod, reason]) => ({ pod, reason }));
  const nodeClaims: ProvisionedNodeClaim[] = [];
  const reservationsUsed = new Map<string, number>();
  for (const nc of result.newNodeClaims) {
    const claim = finalizeNodeClaim(nc);
    const launch = chooseLaunch(nodeClaimRequirements(claim.requirements, claim.options), claim.requests, claim.options);
    if (!launch) {
      for (const pod of nc.pods) unschedulable.push({ pod, reason: 'all requested instance types were unavailable during launch' });
      continue;
    }
    if (launch.reservationId !== undefined)
      reservationsUsed.set(launch.reservationId, (reservationsUsed.get(launch.reservationId) ?? 0) + 1);
    nodeClaims.push({ nodePool: nc.template.pool.name, claim, launch, pods: nc.pods });
  }
  const onExistingNodes = new Map<string, SchedPod[]>();
  for (const slot of result.existing) if (slot.pods.length) onExistingNodes.set(slot.node.name, slot.pods);
  unschedulable.sort((a, b) => (a.pod.key < b.pod.key ? -1 : a.pod.key > b.pod.key ? 1 : 0));
  return { nodeClaims, unschedulable, onExistingNodes, reservationsUsed };
}
