import { allowedDisruptions } from './budgets.js';
import {
  canPassThreshold,
  evaluateMove,
  type MoveScore,
  type NodePoolTotals,
  PER_NODE_DISRUPTION_COST,
  type ScoredCandidate,
} from './balanced.js';
import { capacityVector, type EngineContext, nodeBase, nodePrice, remainingLimits, topologyNode, typeFor } from './engine.js';
import type { ExistingNodeBase } from './existing-node.js';
import {
  cheapestAllowedPrice,
  type InstanceType,
  minValuesMessage,
  offeringAllowed,
  orderByPrice,
  satisfiesMinValues,
  worstLaunchPrice,
} from './instance-types.js';
import { chooseLaunch, type FinalNodeClaim, finalizeNodeClaim, type LaunchChoice, nodeClaimRequirements } from './launch.js';
import type { ExistingNodeSpec } from './nodes.js';
import type { DisruptionReason, NodePoolSpec } from './nodepools.js';
import { doNotDisruptActive } from './pdb.js';
import { isActive, isOwnedByDaemonSet, isReschedulable, type SchedPod } from './pods.js';
import { ReservationLedger } from './reservations.js';
import { Requirement, Requirements } from './requirements.js';
import { addInto, fits } from './resources.js';
import { Scheduler } from './scheduler.js';
import { type BoundPod, indexBoundPods, type TopologyNode } from './topology.js';
import {
  ANNOTATION_DO_NOT_DISRUPT,
  ANNOTATION_POD_DELETION_COST,
  CAPACITY_ON_DEMAND,
  CAPACITY_SPOT,
  LABEL_CAPACITY_TYPE,
  LABEL_ZONE,
} from './well-known.js';

/**
 * One disruption round for consolidation, as Karpenter's disruption controller runs it
 * (pkg/controllers/disruption: controller.go, emptiness.go, multinodeconsolidation.go, singlenodeconsolidation.go,
 * consolidation.go, helpers.go, types.go; v1.14.1): Emptiness first, then multi-node, then single-node
 * consolidation; the first method with a command wins. Every other node gets the reason it stays, in Karpenter's
 * words where Karpenter has them (its DisruptionBlocked and Unconsolidatable event messages).
 */

/** Karpenter's spot-to-spot flexibility floor (consolidation.go MinInstanceTypesForSpotToSpotConsolidation). */
export const MIN_SPOT_TO_SPOT_INSTANCE_TYPES = 15;
/** Multi-node consolidation looks at most at this many candidates (multinodeconsolidation.go). */
export const MAX_MULTI_NODE_CANDIDATES = 100;

export interface Candidate {
  node: ExistingNodeSpec;
  pool: NodePoolSpec;
  instanceType: InstanceType | null;
  /** The node's hourly price (its offering); 0 when unknown, as Karpenter's resolveNodePrice. */
  price: number;
  reschedulable: SchedPod[];
  /** 1 + the positive eviction costs of the reschedulable pods (Karpenter's RescheduleDisruptionCost). */
  rescheduleDisruptionCost: number;
  /** Karpenter's DisruptionCost before v1.14: eviction costs of all its pods × the fraction of its lifetime left. */
  disruptionCost: number;
  empty: boolean;
  consolidatable: boolean;
  /** Its NodePool is static (spec.replicas): never consolidated, but counted in its NodePool's totals. */
  static: boolean;
}

export interface Replacement {
  claim: FinalNodeClaim;
  launch: LaunchChoice;
}

export interface ConsolidationCommand {
  reason: 'Empty' | 'Underutilized';
  method: 'emptiness' | 'multi-node' | 'single-node';
  candidates: Candidate[];
  replacement: Replacement | null;
  /** Karpenter's EstimatedSavings: the candidates' prices less the replacement's cheapest offering. */
  savingsUsdPerHour: number;
  /** Balanced NodePools' scores of the move (all approved); empty when no candidate's NodePool is Balanced. */
  scores: MoveScore[];
}

export interface NodeVerdict {
  node: ExistingNodeSpec;
  usdPerHour: number | null;
  reason: string;
  /** 'karpenter' when the reason is Karpenter's own message, 'ledger' when it is ours (Karpenter stays silent there). */
  wording: 'karpenter' | 'ledger';
  /** Balanced NodePools: the score that decided (a rejection, or the approval of a move left for a later round). */
  score?: MoveScore;
}

export interface ConsolidationOutcome {
  command: ConsolidationCommand | null;
  unconsolidatable: NodeVerdict[];
}

type Evaluation = { command: ConsolidationCommand } | { noop: string | null };

const sentence = (s: string) => (s ? s[0].toUpperCase() + s.slice(1) : s);
const usd = (n: number) => `$${n.toFixed(2)}`;

/**
 * Karpenter's LifetimeRemaining (pkg/utils/disruption): the fraction of the node's expireAfter still ahead of it,
 * within [0, 1]; 1 when it never expires.
 */
export function lifetimeRemaining(pool: NodePoolSpec, node: ExistingNodeSpec, now: number): number {
  if (pool.expireAfterMs === null || pool.expireAfterMs <= 0) return 1;
  return Math.min(1, Math.max(0, (pool.expireAfterMs - (now - node.createdAt)) / pool.expireAfterMs));
}

/** Karpenter's EvictionCost: 1, plus pod-deletion-cost / 2^27, plus priority / 2^25, within [-10, 10]. */
export function evictionCost(p: SchedPod): number {
  let cost = 1;
  const deletionCost = p.annotations[ANNOTATION_POD_DELETION_COST];
  if (deletionCost !== undefined && Number.isFinite(Number(deletionCost))) cost += Number(deletionCost) / 2 ** 27;
  if (p.priority !== null) cost += p.priority / 2 ** 25;
  return Math.min(10, Math.max(-10, cost));
}

/** The cluster after this round's provisioning: the nodes consolidation works on. */
export interface ConsolidationWorld {
  nodes: ExistingNodeSpec[];
  /** Nodes that just received pending pods (nominated), and nodes just launched: neither is a candidate. */
  nominated: ReadonlySet<string>;
  /**
   * Stop single-node consolidation at the first command, as Karpenter does, instead of evaluating every candidate
   * so each node gets its reason: for a caller that only carries the command out (the sandbox). Nodes left
   * unevaluated get "No consolidation found for this node".
   */
  commandOnly?: boolean;
  /** Instances this round's provisioning launched into each counted reservation. */
  reservationsUsed?: ReadonlyMap<string, number>;
}

export class Consolidator {
  private readonly bases = new Map<string, ExistingNodeBase>();
  private readonly topologyNodes: TopologyNode[];
  private readonly bound: ReturnType<typeof indexBoundPods>;
  private readonly candidates: Candidate[] = [];
  private readonly verdicts = new Map<string, NodeVerdict>();
  /** Every node that is not being deleted, as a destination, in the order the scheduler tries them. */
  private readonly destinations: { base: ExistingNodeBase; underConsolidateAfter: boolean; node: ExistingNodeSpec }[];
  private readonly deleting: ReadonlySet<string>;
  private readonly byName: ReadonlyMap<string, ExistingNodeSpec>;
  private readonly destinationIndex: ReadonlyMap<string, number>;
  /** NodePool limits less every destination's capacity; a simulation adds its candidates' back. */
  private readonly remaining: Map<string, { slots: number[]; amounts: Float64Array }>;
  /** Balanced scoring's denominators, per NodePool (computeNodePoolTotals), once the candidates are known. */
  private totals = new Map<string, NodePoolTotals>();
  /** Per pod shape, destinations it can never take as the cluster stands (Scheduler's baseFailures), across simulations. */
  private readonly baseFailures = new Map<string, Uint8Array>();

  constructor(
    private readonly ctx: EngineContext,
    private readonly world: ConsolidationWorld,
  ) {
    for (const n of world.nodes) this.bases.set(n.name, nodeBase(ctx, n));
    this.topologyNodes = world.nodes.map((n) => topologyNode(ctx, n));
    const bound: BoundPod[] = [];
    for (const n of world.nodes) for (const p of n.pods) bound.push({ pod: p, constraints: p.constraints, nodeName: n.name });
    this.bound = indexBoundPods(bound);
    const live = world.nodes
      .filter((n) => !n.markedForDeletion)
      .sort((a, b) => Number(b.initialized) - Number(a.initialized) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    // v1.14.0+: pods moving off a candidate are not simulated onto nodes still under consolidateAfter
    const onDestinations = ctx.behaviour.consolidateAfterOnDestinations;
    this.destinations = live.map((n) => ({
      base: this.bases.get(n.name) as ExistingNodeBase,
      underConsolidateAfter: onDestinations && this.underConsolidateAfter(n),
      node: n,
    }));
    this.deleting = new Set(world.nodes.filter((n) => n.markedForDeletion).map((n) => n.name));
    this.byName = new Map(world.nodes.map((n) => [n.name, n]));
    this.destinationIndex = new Map(this.destinations.map((d, i) => [d.node.name, i]));
    this.remaining = remainingLimits(ctx, live);
  }

  run(): ConsolidationOutcome {
    this.buildCandidates();
    this.totals = this.nodePoolTotals();
    // every method is evaluated so each node gets its own reason; the first with a command is the round's command
    const empty = this.emptiness();
    const multi = this.world.commandOnly && empty ? null : this.multiNode();
    const single =
      this.world.commandOnly && (empty ?? multi)
        ? null
        : this.singleNode(new Set((empty ?? multi)?.candidates.map((c) => c.node.name) ?? []));
    const command = empty ?? multi ?? single;
    const inCommand = new Set(command?.candidates.map((c) => c.node.name) ?? []);
    const unconsolidatable = this.world.nodes
      .filter((n) => !inCommand.has(n.name) && !n.markedForDeletion)
      .map((n) => this.verdicts.get(n.name) ?? this.verdict(n, 'No consolidation found for this node', 'ledger'))
      .sort((a, b) => (a.node.name < b.node.name ? -1 : a.node.name > b.node.name ? 1 : 0));
    return { command, unconsolidatable };
  }

  private verdict(node: ExistingNodeSpec, reason: string, wording: NodeVerdict['wording'], score?: MoveScore): NodeVerdict {
    return { node, usdPerHour: nodePrice(this.ctx, node), reason, wording, ...(score ? { score } : {}) };
  }

  private say(node: ExistingNodeSpec, reason: string, wording: NodeVerdict['wording'] = 'karpenter', score?: MoveScore): void {
    if (!this.verdicts.has(node.name)) this.verdicts.set(node.name, this.verdict(node, reason, wording, score));
  }

  /**
   * computeNodePoolTotals: per NodePool, the cost of all its nodes and the disruption cost of all its nodes (a
   * candidate's RescheduleDisruptionCost, another node's 1 + positive eviction costs of its non-DaemonSet pods).
   */
  private nodePoolTotals(): Map<string, NodePoolTotals> {
    const out = new Map<string, NodePoolTotals>();
    if (!this.ctx.pools.some((p) => p.consolidationPolicy === 'Balanced')) return out;
    const byName = new Map(this.candidates.map((c) => [c.node.name, c]));
    const candidateCost = new Map<string, number>();
    for (const c of this.candidates) candidateCost.set(c.pool.name, (candidateCost.get(c.pool.name) ?? 0) + c.price);
    for (const n of this.world.nodes) {
      if (n.nodePool === null) continue;
      const t = out.get(n.nodePool) ?? { costUsdPerHour: 0, disruptionCost: 0 };
      t.costUsdPerHour += nodePrice(this.ctx, n) ?? 0;
      const c = byName.get(n.name);
      t.disruptionCost += c
        ? c.rescheduleDisruptionCost
        : PER_NODE_DISRUPTION_COST +
          n.pods.filter((p) => isActive(p) && !isOwnedByDaemonSet(p)).reduce((sum, p) => sum + Math.max(0, evictionCost(p)), 0);
      out.set(n.nodePool, t);
    }
    // Karpenter reads the NodePool's cost from its cost tracker, and sums the candidates' prices when that says 0
    for (const [pool, t] of out) if (t.costUsdPerHour <= 0) t.costUsdPerHour = candidateCost.get(pool) ?? 0;
    return out;
  }

  private scored(c: Candidate): ScoredCandidate {
    return {
      nodePool: c.pool.name,
      balanced: c.pool.consolidationPolicy === 'Balanced',
      priceUsdPerHour: c.price,
      rescheduleDisruptionCost: c.rescheduleDisruptionCost,
    };
  }

  /** ApproveCommand for Balanced NodePools; other policies pass. */
  private approve(cmd: ConsolidationCommand): { approved: boolean; scores: MoveScore[] } {
    if (this.totals.size === 0) return { approved: true, scores: [] };
    return evaluateMove(
      cmd.candidates.map((c) => this.scored(c)),
      cmd.savingsUsdPerHour,
      this.totals,
    );
  }

  /** Karpenter's NewCandidate + ValidateNodeDisruptable + ValidatePodsDisruptable. */
  private buildCandidates(): void {
    const { ctx } = this;
    for (const node of [...this.world.nodes].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (node.markedForDeletion) continue;
      if (this.world.nominated.has(node.name)) {
        this.say(node, 'Node is nominated for a pending pod');
        continue;
      }
      if (node.nodePool === null) {
        const label = node.labels['karpenter.sh/nodepool'];
        this.say(node, label === undefined ? "Node isn't managed by karpenter" : `NodePool not found (NodePool=${label})`);
        continue;
      }
      if (!node.initialized) {
        this.say(node, "Node isn't initialized");
        continue;
      }
      if (node.annotations[ANNOTATION_DO_NOT_DISRUPT] === 'true') {
        this.say(node, `Disruption is blocked through the "${ANNOTATION_DO_NOT_DISRUPT}" annotation`);
        continue;
      }
      const blocker = node.pods.find((p) => isActive(p) && doNotDisruptActive(p, ctx.now, ctx.behaviour.doNotDisruptDuration));
      if (blocker) {
        this.say(node, `Pod has "${ANNOTATION_DO_NOT_DISRUPT}" annotation (Pod=${blocker.key})`);
        continue;
      }
      const pdbs = ctx.pdbs.blocking(node.pods, ctx.now);
      if (pdbs) {
        this.say(
          node,
          pdbs.length > 1
            ? `Eviction does not support multiple PDBs (PodDisruptionBudget(s)=[${pdbs.join(' ')}])`
            : `Pdb prevents pod evictions (PodDisruptionBudget=[${pdbs[0]}])`,
        );
        continue;
      }
      const pool = ctx.poolByName.get(node.nodePool) as NodePoolSpec;
      const reschedulable = node.pods.filter((p) => isReschedulable(p));
      const rescheduleDisruptionCost = PER_NODE_DISRUPTION_COST + reschedulable.reduce((s, p) => s + Math.max(0, evictionCost(p)), 0);
      const since = ctx.now - node.lastPodEventAt;
      this.candidates.push({
        node,
        pool,
        instanceType: node.instanceType === null ? null : (typeFor(ctx, node.nodePool, node.instanceType) ?? null),
        price: nodePrice(ctx, node) ?? 0,
        reschedulable,
        rescheduleDisruptionCost,
        disruptionCost: node.pods.reduce((s, p) => s + evictionCost(p), 0) * lifetimeRemaining(pool, node, ctx.now),
        // v1.14.0: empty when no pod adds positive eviction cost; before, when no pod needs rescheduling
        empty: ctx.behaviour.emptyByEvictionCost ? rescheduleDisruptionCost <= PER_NODE_DISRUPTION_COST : reschedulable.length === 0,
        consolidatable: pool.consolidateAfterMs !== null && since >= pool.consolidateAfterMs,
        static: ctx.behaviour.staticNodePools && pool.replicas !== null,
      });
    }
    const byName = (a: Candidate, b: Candidate) => (a.node.name < b.node.name ? -1 : a.node.name > b.node.name ? 1 : 0);
    if (ctx.behaviour.savingsRatioOrder) {
      // v1.14.0: by price per unit of disruption, highest first (ties by name here)
      this.candidates.sort((a, b) => b.price / b.rescheduleDisruptionCost - a.price / a.rescheduleDisruptionCost || byName(a, b));
    } else {
      // before: by disruption cost, lowest first
      this.candidates.sort((a, b) => a.disruptionCost - b.disruptionCost || byName(a, b));
    }
  }

  private staticMessage(c: Candidate): string {
    return `NodePool "${c.pool.name}" is static (spec.replicas ${c.pool.replicas}): Karpenter never consolidates its nodes`;
  }

  private notYet(c: Candidate): string {
    const waited = Math.max(0, Math.round((this.ctx.now - c.node.lastPodEventAt) / 1000));
    return `NodePool "${c.pool.name}" consolidateAfter (${Math.round((c.pool.consolidateAfterMs ?? 0) / 1000)}s) has not passed since the node's last pod event (${waited}s ago); Karpenter does not consider it yet`;
  }

  /** Nodes each NodePool may disrupt now for a reason (Karpenter's BuildDisruptionBudgetMapping). */
  private budgets(reason: DisruptionReason): Map<string, number> {
    const numNodes = new Map<string, number>();
    const disrupting = new Map<string, number>();
    for (const n of this.world.nodes) {
      if (n.nodePool === null || !n.initialized) continue;
      numNodes.set(n.nodePool, (numNodes.get(n.nodePool) ?? 0) + 1);
      if (!n.ready || n.markedForDeletion) disrupting.set(n.nodePool, (disrupting.get(n.nodePool) ?? 0) + 1);
    }
    const out = new Map<string, number>();
    for (const pool of this.ctx.pools) {
      const allowed = allowedDisruptions(pool, numNodes.get(pool.name) ?? 0, reason, this.ctx.now);
      out.set(pool.name, Math.max(allowed - (disrupting.get(pool.name) ?? 0), 0));
    }
    return out;
  }

  private budgetMessage(reason: DisruptionReason): string {
    return `No allowed disruptions for disruption reason ${reason} due to blocking budget`;
  }

  /** Emptiness: every empty, consolidatable node the budgets allow, in one delete command. */
  private emptiness(): ConsolidationCommand | null {
    const budget = this.budgets('Empty');
    const empty: Candidate[] = [];
    for (const c of this.candidates) {
      if (!c.empty) continue;
      if (c.static) {
        this.say(c.node, this.staticMessage(c), 'ledger');
        continue;
      }
      if (c.pool.consolidateAfterMs === null) {
        this.say(c.node, `NodePool "${c.pool.name}" has consolidation disabled`);
        continue;
      }
      if (!c.consolidatable) {
        this.say(c.node, this.notYet(c), 'ledger');
        continue;
      }
      const left = budget.get(c.pool.name) ?? 0;
      if (left === 0) {
        this.say(c.node, this.budgetMessage('Empty'));
        continue;
      }
      empty.push(c);
      budget.set(c.pool.name, left - 1);
    }
    if (empty.length === 0) return null;
    return {
      reason: 'Empty',
      method: 'emptiness',
      candidates: empty,
      replacement: null,
      savingsUsdPerHour: empty.reduce((s, c) => s + c.price, 0),
      scores: [],
    };
  }

  /** Consolidation's ShouldDisrupt filter, recording why a node is left out. */
  private consolidationCandidates(): Candidate[] {
    const out: Candidate[] = [];
    const v14 = this.ctx.behaviour.emptyByEvictionCost;
    for (const c of this.candidates) {
      // v1.14.0: empty nodes are Emptiness's alone; before, consolidation considered them too
      if (c.empty && v14) continue;
      const n = c.node;
      if (c.static) this.say(n, this.staticMessage(c), 'ledger');
      else if (c.instanceType === null) this.say(n, `Instance Type "${n.instanceType ?? ''}" not found`);
      else if (n.capacityType === null) this.say(n, `Node does not have label "${LABEL_CAPACITY_TYPE}"`);
      else if (n.zone === null) this.say(n, `Node does not have label "${LABEL_ZONE}"`);
      else if (c.pool.consolidateAfterMs === null) this.say(n, `NodePool "${c.pool.name}" has consolidation disabled`);
      else if (v14 && c.pool.consolidationPolicy === 'WhenEmpty')
        this.say(n, `NodePool "${c.pool.name}" has consolidation policy WhenEmpty, but node is not empty`);
      else if (!v14 && c.pool.consolidationPolicy !== 'WhenEmptyOrUnderutilized')
        this.say(n, `NodePool "${c.pool.name}" has non-empty consolidation disabled`);
      else if (!c.consolidatable) this.say(n, this.notYet(c), 'ledger');
      else out.push(c);
    }
    return out;
  }

  /** Multi-node consolidation: the largest prefix of candidates that can go at once (binary search). */
  private multiNode(): ConsolidationCommand | null {
    const budget = this.budgets('Underutilized');
    const disruptable: Candidate[] = [];
    for (const c of this.consolidationCandidates()) {
      const left = budget.get(c.pool.name) ?? 0;
      if (left === 0) continue;
      disruptable.push(c);
      budget.set(c.pool.name, left - 1);
    }
    if (disruptable.length < 2) return null;
    let max = Math.min(disruptable.length, MAX_MULTI_NODE_CANDIDATES);
    if (disruptable.length <= max) max = disruptable.length - 1;
    let min = 1;
    let last: ConsolidationCommand | null = null;
    while (min <= max) {
      const mid = (min + max) >> 1;
      const batch = disruptable.slice(0, mid + 1);
      const e = this.compute(batch);
      let valid = false;
      if ('command' in e) {
        if (e.command.replacement === null) valid = true;
        else {
          const filtered = this.filterOutSameInstanceType(e.command, batch);
          if (filtered) {
            e.command.replacement = filtered.replacement;
            e.command.savingsUsdPerHour = filtered.savingsUsdPerHour;
            valid = true;
          }
        }
      }
      if (valid && 'command' in e) {
        // Balanced NodePools may reject the move (balanced.go ApproveCommand); the search then tries fewer nodes
        const verdict = this.approve(e.command);
        if (verdict.approved) e.command.scores = verdict.scores;
        else valid = false;
      }
      if (valid && 'command' in e) {
        last = { ...e.command, method: 'multi-node' };
        min = mid + 1;
      } else max = mid - 1;
    }
    return last;
  }

  /** Single-node consolidation: candidates by savings ratio, interleaved across NodePools; the first that works. */
  private singleNode(removed: Set<string>): ConsolidationCommand | null {
    const decided = removed.size > 0;
    const budget = this.budgets('Underutilized');
    const byPool = new Map<string, Candidate[]>();
    for (const c of this.consolidationCandidates()) {
      const list = byPool.get(c.pool.name) ?? [];
      list.push(c);
      byPool.set(c.pool.name, list);
    }
    const lists = [...byPool.values()];
    const order: Candidate[] = [];
    for (let i = 0; lists.some((l) => i < l.length); i++) for (const l of lists) if (i < l.length) order.push(l[i]);
    let chosen: ConsolidationCommand | null = null;
    for (const c of order) {
      if ((budget.get(c.pool.name) ?? 0) === 0) {
        this.say(c.node, this.budgetMessage('Underutilized'));
        continue;
      }
      // Balanced: a node whose outright deletion would not pass is not even simulated (CanPassThreshold)
      const best = this.totals.size ? canPassThreshold(this.scored(c), this.totals) : null;
      if (best) {
        this.say(c.node, best.message, 'ledger', best);
        continue;
      }
      if (this.world.commandOnly && this.cannotConsolidate(c, removed)) continue;
      // every candidate is evaluated so each node gets its reason (Karpenter stops at the first command); once a
      // command is chosen, the others are evaluated as the next rounds would see them: without its nodes
      const e = this.compute([c], removed);
      if ('command' in e) {
        const verdict = this.approve(e.command);
        if (!verdict.approved) {
          const rejected = verdict.scores.find((sc) => !sc.approved);
          this.say(c.node, rejected?.message ?? 'Balanced scoring rejected the move', 'ledger', rejected);
          continue;
        }
        e.command.scores = verdict.scores;
        if (!chosen && !decided) {
          chosen = { ...e.command, method: 'single-node' };
          removed.add(c.node.name);
          if (this.world.commandOnly) break;
        } else this.say(c.node, `Would be consolidated in a later round: ${describe(e.command)}`, 'ledger', verdict.scores[0]);
      } else if (e.noop) this.say(c.node, e.noop);
    }
    return chosen;
  }

  /**
   * A quick proof that single-node consolidation of a spot candidate yields no command when SpotToSpotConsolidation
   * is off: it could only be deleted (a spot replacement is refused), and its pods' requests exceed the free room of
   * all other destinations together. Used only when the caller wants the command alone (nodes skipped get no reason).
   */
  private cannotConsolidate(c: Candidate, gone: ReadonlySet<string>): boolean {
    const { ctx } = this;
    if (c.node.capacityType !== CAPACITY_SPOT || ctx.spotToSpotConsolidation) return false;
    const requests = ctx.space.vector();
    for (const p of c.reschedulable) if (!ctx.pdbs.heldInPlace(p, ctx.now)) addInto(requests, ctx.space.vector(p.requests));
    const room = ctx.space.vector();
    for (const d of this.destinations) {
      if (d.node.name === c.node.name || gone.has(d.node.name)) continue;
      const r = d.base.remaining;
      for (let i = 0; i < r.length; i++) if (r[i] > 0) room[i] += r[i];
    }
    return !fits(requests, room);
  }

  /** Karpenter's filterOutSameInstanceType: a merge into one of the merged nodes' own types must be cheaper than that node. */
  private filterOutSameInstanceType(
    cmd: ConsolidationCommand,
    batch: Candidate[],
  ): { replacement: Replacement; savingsUsdPerHour: number } | null {
    const r = cmd.replacement;
    if (!r) return null;
    const priceByType = new Map<string, number>();
    for (const c of batch) {
      if (!c.instanceType) continue;
      const labels = Requirements.fromLabels(c.node.labels);
      let p = Infinity;
      for (const o of c.instanceType.offerings) if (offeringAllowed(labels, o)) p = Math.min(p, o.priceUsdPerHour);
      if (p < Infinity) priceByType.set(c.instanceType.name, Math.min(p, priceByType.get(c.instanceType.name) ?? Infinity));
    }
    let maxPrice = Infinity;
    for (const it of r.claim.options) {
      const p = priceByType.get(it.name);
      if (p !== undefined && p < maxPrice) maxPrice = p;
    }
    const options = r.claim.options.filter((it) => worstLaunchPrice(it, r.claim.requirements) < maxPrice);
    if (options.length === 0) return null;
    if (r.claim.requirements.hasMinValues() && satisfiesMinValues(options, r.claim.requirements).unmet) return null;
    return this.replacementFor(batch, r.claim.requirements, r.claim.requests, options);
  }

  private replacementFor(
    candidates: Candidate[],
    requirements: Requirements,
    requests: Float64Array,
    options: InstanceType[],
  ): { replacement: Replacement; savingsUsdPerHour: number } | null {
    const claim: FinalNodeClaim = { requirements, requests, options };
    const launch = chooseLaunch(nodeClaimRequirements(requirements, options), requests, options);
    if (!launch) return null;
    const first = options[0];
    const dest = first ? cheapestAllowedPrice(first, requirements) : 0;
    const source = candidates.reduce((s, c) => s + c.price, 0);
    return { replacement: { claim, launch }, savingsUsdPerHour: source - (Number.isFinite(dest) ? dest : 0) };
  }

  /** Karpenter's computeConsolidation for a set of candidates. */
  private compute(cands: Candidate[], gone: ReadonlySet<string> = new Set()): Evaluation {
    const { ctx } = this;
    const names = new Set([...gone, ...cands.map((c) => c.node.name)]);
    const pods = cands.flatMap((c) => c.reschedulable.filter((p) => !ctx.pdbs.heldInPlace(p, ctx.now)));
    // the candidates' capacity no longer counts against their NodePools' limits
    const remaining = new Map([...this.remaining].map(([k, v]) => [k, { slots: v.slots, amounts: Float64Array.from(v.amounts) }]));
    // the candidates (and nodes already gone this round) are no destinations; the rest stay in the scheduler's order
    const skip = new Uint8Array(this.destinations.length);
    for (const name of names) {
      const n = this.byName.get(name);
      const rem = n?.nodePool ? remaining.get(n.nodePool) : undefined;
      if (n && rem) {
        const cap = capacityVector(ctx, n);
        for (const sl of rem.slots) rem.amounts[sl] += cap[sl];
      }
      const i = this.destinationIndex.get(name);
      if (i !== undefined) skip[i] = 1;
    }
    const scheduler = new Scheduler({
      space: ctx.space,
      templates: ctx.templates,
      existing: this.destinations,
      existingSorted: true,
      skip,
      remaining,
      topology: {
        domainSources: ctx.domainSources,
        nodes: this.topologyNodes,
        ...this.bound,
        excluded: new Set(pods.map((p) => p.uid)),
        namespaceLabels: ctx.namespaceLabels,
      },
      ignorePreferences: ctx.ignorePreferences,
      toleratePreferNoSchedule: ctx.toleratePreferNoSchedule,
      deletingNodes: this.deleting,
      baseFailures: this.baseFailures,
      noShortcuts: ctx.noShortcuts === true,
      claimOptions: {
        relaxMinValues: ctx.minValuesPolicy === 'BestEffort',
        ledger: ctx.countReservations ? new ReservationLedger([ctx.catalogue], this.world.reservationsUsed) : null,
      },
    });
    const result = scheduler.solve(pods);
    const single = cands.length === 1;
    if (result.errors.size > 0) {
      const errs = [...result.errors].sort(([a], [b]) => (a.key < b.key ? -1 : 1));
      let msg = 'not all pods would schedule, ';
      errs.slice(0, 5).forEach(([p, e]) => (msg += `${p.key} => ${e} `));
      if (errs.length > 5) msg += ` and ${errs.length - 5} other(s)`;
      return { noop: single ? sentence(msg) : null };
    }
    for (const slot of result.existing) {
      if (slot.pods.length && !slot.node.initialized)
        return { noop: single ? `Would schedule against uninitialized node/${slot.node.name}` : null };
    }
    if (result.newNodeClaims.length === 0) {
      return {
        command: {
          reason: 'Underutilized',
          method: 'single-node',
          candidates: cands,
          replacement: null,
          savingsUsdPerHour: cands.reduce((s, c) => s + c.price, 0),
          scores: [],
        },
      };
    }
    if (result.newNodeClaims.length !== 1)
      return { noop: single ? `Can't remove without creating ${result.newNodeClaims.length} candidates` : null };
    const final = finalizeNodeClaim(result.newNodeClaims[0]);
    const candidatePrice = cands.reduce((s, c) => s + c.price, 0);
    const reqs = final.requirements;
    const allSpot = cands.every((c) => c.node.capacityType === CAPACITY_SPOT);
    let options = orderByPrice(final.options, reqs);
    if (allSpot && reqs.get(LABEL_CAPACITY_TYPE).has(CAPACITY_SPOT)) {
      if (!ctx.spotToSpotConsolidation)
        return { noop: single ? "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node" : null };
      reqs.add(Requirement.of(LABEL_CAPACITY_TYPE, 'In', [CAPACITY_SPOT]));
      options = options.filter((it) => it.offerings.some((o) => o.available && offeringAllowed(reqs, o)));
      const priced = this.cheaperThan(options, reqs, candidatePrice);
      if ('noop' in priced) return { noop: single ? priced.noop : null };
      options = priced.options;
      if (single) {
        if (options.length < MIN_SPOT_TO_SPOT_INSTANCE_TYPES) {
          return {
            noop: `SpotToSpotConsolidation requires ${MIN_SPOT_TO_SPOT_INSTANCE_TYPES} cheaper instance type options than the current candidate to consolidate, got ${options.length}`,
          };
        }
        const keep = reqs.hasMinValues()
          ? Math.max(MIN_SPOT_TO_SPOT_INSTANCE_TYPES, satisfiesMinValues(options, reqs).needed)
          : MIN_SPOT_TO_SPOT_INSTANCE_TYPES;
        options = options.slice(0, keep);
      }
    } else {
      const priced = this.cheaperThan(options, reqs, candidatePrice);
      if ('noop' in priced) return { noop: single ? priced.noop : null };
      options = priced.options;
      // moving on-demand to [on-demand, spot]: prices were filtered assuming spot, so only spot may launch
      const ct = reqs.get(LABEL_CAPACITY_TYPE);
      if (ct.has(CAPACITY_SPOT) && ct.has(CAPACITY_ON_DEMAND)) reqs.add(Requirement.of(LABEL_CAPACITY_TYPE, 'In', [CAPACITY_SPOT]));
    }
    const r = this.replacementFor(cands, reqs, final.requests, options);
    if (!r) return { noop: single ? "Can't replace with a cheaper node" : null };
    return {
      command: {
        reason: 'Underutilized',
        method: 'single-node',
        candidates: cands,
        replacement: r.replacement,
        savingsUsdPerHour: r.savingsUsdPerHour,
        scores: [],
      },
    };
  }

  /** Karpenter's RemoveInstanceTypeOptionsByPriceAndMinValues with its two messages. */
  private cheaperThan(options: InstanceType[], reqs: Requirements, maxPrice: number): { options: InstanceType[] } | { noop: string } {
    const kept = options.filter((it) => worstLaunchPrice(it, reqs) < maxPrice);
    if (reqs.hasMinValues()) {
      const { unmet } = satisfiesMinValues(kept, reqs);
      if (unmet) return { noop: `Filtering by price: ${minValuesMessage(unmet)}` };
    }
    if (kept.length === 0) return { noop: "Can't replace with a cheaper node" };
    return { options: kept };
  }

  /** Karpenter's IsUnderConsolidateAfter for a destination node. */
  private underConsolidateAfter(n: ExistingNodeSpec): boolean {
    const pool = n.nodePool === null ? undefined : this.ctx.poolByName.get(n.nodePool);
    if (!pool || !pool.consolidateAfterMs || !n.initialized) return false;
    return this.ctx.now - n.lastPodEventAt < pool.consolidateAfterMs;
  }
}

/** Karpenter's Command.String wording: `delete: [a, b] (savings: $0.12)` / `replace: [a] -> [1 replacement] (savings: …)`. */
export function describe(cmd: ConsolidationCommand): string {
  const sources = cmd.candidates.map((c) => c.node.name).join(', ');
  const savings = `(savings: ${usd(cmd.savingsUsdPerHour)})`;
  return cmd.replacement ? `replace: [${sources}] -> [1 replacement] ${savings}` : `delete: [${sources}] ${savings}`;
}
