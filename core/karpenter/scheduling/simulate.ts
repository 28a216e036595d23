import type { MoveScore } from './balanced.js';
import { type ConsolidationOutcome, Consolidator } from './consolidation.js';
import { type EngineContext, type EngineInput, nodeOffering, nodePrice, prepare } from './engine.js';
import type { FinalNodeClaim, LaunchChoice } from './launch.js';
import type { ExistingNodeSpec } from './nodes.js';
import type { OverlayOutcome } from './overlays.js';
import type { SchedPod } from './pods.js';
import { bindPod, launchedNode, provision, type ProvisioningOutcome } from './provisioning.js';
import {
  ANNOTATION_CAPACITY_OVERLAY_APPLIED,
  ANNOTATION_MIN_VALUES_RELAXED,
  ANNOTATION_PRICE_OVERLAY_APPLIED,
  CAPACITY_RESERVED,
  LABEL_RESERVATION_ID,
} from './well-known.js';

/** A Balanced NodePool's score of a move (balanced.go ScoreResult), as the pages show it. */
export interface ScoreJson {
  nodePool: string;
  /** null when infinite (nothing disrupted). */
  score: number | null;
  threshold: number;
  k: number;
  savingsPercent: number;
  disruptionPercent: number;
  approved: boolean;
  /** "score 3.33 >= threshold 0.50 (k: 2, savings 12.5%, disruption 3.8%)" (Karpenter's ConsolidationApproved). */
  message: string;
}

/** What a NodeClaim would launch (prices are Karpenter's view: after NodeOverlays, reservations at on-demand ÷ 10^7). */
export interface LaunchJson {
  /** The cheapest compatible available offering it would launch on. */
  instanceType: string;
  /** Every type the NodeClaim allows, cheapest first (at most 600). */
  instanceTypeOptions: string[];
  capacityType: string;
  zone: string;
  usdPerHour: number;
  /** The capacity reservation a reserved launch goes into. */
  reservationId?: string;
  /** The NodeOverlay that set the launched offering's price. */
  priceOverlay?: string;
  /**
   * The annotations Karpenter puts on the NodeClaim that the simulation decides: karpenter.sh/price-overlay-applied
   * and capacity-overlay-applied ("true" when an option is overlaid), karpenter.sh/nodeclaim-min-values-relaxed
   * ("true"/"false", v1.6.0+). Always set by `simulate` (optional for callers that build this shape themselves).
   */
  annotations?: Record<string, string>;
}

/** The engine's answer, in the shape `nodepool-ledger simulate --json` prints (issue 14). Prices are USD per hour. */
export interface SimulationResult {
  /** The release and options simulated. */
  karpenter: {
    version: string;
    featureGates: { spotToSpotConsolidation: boolean; nodeOverlay: boolean; staticCapacity: boolean; reservedCapacity: boolean };
    minValuesPolicy: 'Strict' | 'BestEffort';
  };
  provisioning: {
    nodeClaims: (LaunchJson & {
      nodePool: string;
      /** "namespace/name", in the order they were placed. */
      pods: string[];
    })[];
    unschedulable: { pod: string; reason: string }[];
  };
  consolidation: {
    /** One disruption round: the command Karpenter would run next (at most one). */
    decisions: {
      action: 'delete' | 'replace';
      reason: 'Empty' | 'Underutilized';
      method: 'emptiness' | 'multi-node' | 'single-node';
      candidates: string[];
      replacement: LaunchJson | null;
      savingsUsdPerHour: number;
      /** Balanced NodePools' scores of the move (each approved); empty for other policies. */
      scores: ScoreJson[];
    }[];
    /** Every node that stays, with the reason and what keeping it costs. */
    unconsolidatable: {
      node: string;
      nodePool: string | null;
      reason: string;
      wording: 'karpenter' | 'ledger';
      usdPerHour: number | null;
      /** Balanced NodePools: the score behind the reason ("score 0.31 < threshold 0.50 …"). */
      score?: ScoreJson;
      /** The NodeOverlay that set the node's price (NodeOverlay gate). */
      priceOverlay?: string;
    }[];
  };
  costUsdPerHour: { before: number; after: number };
  /** Nodes the catalogue cannot price (left out of the costs). */
  unpricedNodes: string[];
  /** NodePools whose requirements allow no instance type, with Karpenter's message. */
  skippedNodePools: { nodePool: string; reason: string }[];
  /** Static NodePools (spec.replicas): never consolidated, not used for pending pods; their nodes and cost. */
  staticNodePools: { nodePool: string; replicas: number; nodes: number; costUsdPerHour: number }[];
  /** What each NodeOverlay did (NodeOverlay gate on): applied, or why not, and how many offerings it priced. */
  overlays: OverlayOutcome[];
  /**
   * Capacity reservations the catalogue offers: nodes already in each, instances this round launches into it, and
   * instances left (null: not known). AWS bills a reservation whether it is used or not.
   */
  reservations: { reservationId: string; nodes: number; launched: number; instancesLeft: number | null }[];
  warnings: string[];
}

/**
 * Consolidation runs on the cluster as provisioning leaves it: pending pods placed, new nodes launched.
 * `commandOnly`: stop at the round's command as Karpenter does (nodes not evaluated get no reason of their own).
 */
export function consolidate(
  ctx: EngineContext,
  provisioned: ProvisioningOutcome,
  opts: { commandOnly?: boolean } = {},
): ConsolidationOutcome {
  const nominated = new Set<string>();
  const nodes: ExistingNodeSpec[] = ctx.nodes.map((n) => {
    const extra = provisioned.onExistingNodes.get(n.name);
    if (!extra) return n;
    nominated.add(n.name);
    return { ...n, pods: [...n.pods, ...extra.map((p) => bindPod(p, n.name, ctx.now))], lastPodEventAt: ctx.now };
  });
  provisioned.nodeClaims.forEach((nc, i) => {
    const n = launchedNode(ctx, nc, i);
    nominated.add(n.name);
    nodes.push(n);
  });
  return new Consolidator(ctx, {
    nodes,
    nominated,
    commandOnly: opts.commandOnly ?? false,
    reservationsUsed: provisioned.reservationsUsed,
  }).run();
}

const scoreJson = (s: MoveScore): ScoreJson => ({
  nodePool: s.nodePool,
  score: Number.isFinite(s.score) ? s.score : null,
  threshold: s.threshold,
  k: s.k,
  savingsPercent: s.savingsFraction * 100,
  disruptionPercent: s.disruptionFraction * 100,
  approved: s.approved,
  message: s.message,
});

function launchJson(ctx: EngineContext, claim: FinalNodeClaim, launch: LaunchChoice): LaunchJson {
  const annotations: Record<string, string> = {};
  if (claim.options.some((it) => it.offerings.some((o) => o.priceOverlay !== undefined)))
    annotations[ANNOTATION_PRICE_OVERLAY_APPLIED] = 'true';
  if (claim.options.some((it) => it.capacityOverlays?.length)) annotations[ANNOTATION_CAPACITY_OVERLAY_APPLIED] = 'true';
  if (ctx.behaviour.minValuesPolicy) annotations[ANNOTATION_MIN_VALUES_RELAXED] = String(claim.minValuesRelaxed ?? false);
  return {
    instanceType: launch.instanceType.name,
    instanceTypeOptions: claim.options.map((it) => it.name),
    capacityType: launch.capacityType,
    zone: launch.zone,
    usdPerHour: launch.usdPerHour,
    ...(launch.reservationId !== undefined ? { reservationId: launch.reservationId } : {}),
    ...(launch.priceOverlay !== undefined ? { priceOverlay: launch.priceOverlay } : {}),
    annotations,
  };
}

/** Provisioning for pending pods, then one consolidation round, priced: the whole `simulate` answer. */
export function simulate(input: EngineInput): SimulationResult {
  const ctx = prepare(input);
  const provisioned = provision(ctx);
  const consolidation = consolidate(ctx, provisioned);
  const names = (pods: readonly SchedPod[]) => pods.map((p) => p.key);
  const unpriced: string[] = [];
  let before = 0;
  let remaining = 0;
  const removed = new Set(consolidation.command?.candidates.map((c) => c.node.name) ?? []);
  for (const n of ctx.nodes) {
    const price = nodePrice(ctx, n);
    if (price === null) {
      unpriced.push(n.name);
      continue;
    }
    before += price;
    if (!n.markedForDeletion && !removed.has(n.name)) remaining += price;
  }
  const provisionedCost = provisioned.nodeClaims.reduce((s, nc) => s + nc.launch.usdPerHour, 0);
  const replacementCost = consolidation.command?.replacement?.launch.usdPerHour ?? 0;
  const cmd = consolidation.command;
  return {
    karpenter: { version: ctx.behaviour.version, featureGates: { ...ctx.gates }, minValuesPolicy: ctx.minValuesPolicy },
    provisioning: {
      nodeClaims: provisioned.nodeClaims.map((nc) => ({
        nodePool: nc.nodePool,
        ...launchJson(ctx, nc.claim, nc.launch),
        pods: names(nc.pods),
      })),
      unschedulable: provisioned.unschedulable.map((u) => ({ pod: u.pod.key, reason: u.reason })),
    },
    consolidation: {
      decisions: cmd
        ? [
            {
              action: cmd.replacement ? 'replace' : 'delete',
              reason: cmd.reason,
              method: cmd.method,
              candidates: cmd.candidates.map((c) => c.node.name),
              replacement: cmd.replacement ? launchJson(ctx, cmd.replacement.claim, cmd.replacement.launch) : null,
              savingsUsdPerHour: cmd.savingsUsdPerHour,
              scores: cmd.scores.map(scoreJson),
            },
          ]
        : [],
      unconsolidatable: consolidation.unconsolidatable
        .filter((v) => ctx.nodeByName.has(v.node.name))
        .map((v) => ({
          node: v.node.name,
          nodePool: v.node.nodePool,
          reason: v.reason,
          wording: v.wording,
          usdPerHour: v.usdPerHour,
          ...(v.score ? { score: scoreJson(v.score) } : {}),
          ...overlayOf(ctx, v.node),
        })),
    },
    costUsdPerHour: { before, after: remaining + provisionedCost + replacementCost },
    unpricedNodes: unpriced,
    skippedNodePools: ctx.skippedPools,
    staticNodePools: staticPools(ctx),
    overlays: ctx.overlays,
    reservations: reservationsReport(ctx, provisioned, consolidation),
    warnings: ctx.warnings,
  };
}

function overlayOf(ctx: EngineContext, node: ExistingNodeSpec): { priceOverlay?: string } {
  const overlay = nodeOffering(ctx, node)?.priceOverlay;
  return overlay === undefined ? {} : { priceOverlay: overlay };
}

function staticPools(ctx: EngineContext): SimulationResult['staticNodePools'] {
  if (!ctx.behaviour.staticNodePools) return [];
  return ctx.pools
    .filter((p) => p.replicas !== null)
    .map((p) => {
      const nodes = ctx.nodes.filter((n) => n.nodePool === p.name && !n.markedForDeletion);
      return {
        nodePool: p.name,
        replicas: p.replicas as number,
        nodes: nodes.length,
        costUsdPerHour: nodes.reduce((s, n) => s + (nodePrice(ctx, n) ?? 0), 0),
      };
    });
}

function reservationsReport(
  ctx: EngineContext,
  provisioned: ProvisioningOutcome,
  consolidation: ConsolidationOutcome,
): SimulationResult['reservations'] {
  const left = new Map<string, number | null>();
  for (const it of ctx.catalogue) {
    for (const o of it.offerings) {
      if (o.reservationId === undefined) continue;
      const known = left.get(o.reservationId);
      const cap = o.reservationCapacity ?? null;
      // listed twice: the smaller count, as Karpenter's reservation manager keeps
      left.set(o.reservationId, known === undefined ? cap : known === null || cap === null ? (known ?? cap) : Math.min(known, cap));
    }
  }
  if (left.size === 0) return [];
  const launched = new Map(provisioned.reservationsUsed);
  const r = consolidation.command?.replacement?.launch.reservationId;
  if (r !== undefined) launched.set(r, (launched.get(r) ?? 0) + 1);
  const nodes = new Map<string, number>();
  for (const n of ctx.nodes) {
    const id = n.capacityType === CAPACITY_RESERVED ? n.labels[LABEL_RESERVATION_ID] : undefined;
    if (id !== undefined) nodes.set(id, (nodes.get(id) ?? 0) + 1);
  }
  return [...left.keys()].sort().map((id) => {
    const used = launched.get(id) ?? 0;
    const cap = left.get(id) ?? null;
    return { reservationId: id, nodes: nodes.get(id) ?? 0, launched: used, instancesLeft: cap === null ? null : Math.max(0, cap - used) };
  });
}
