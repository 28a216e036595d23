import { parseKarpenterDuration } from '../../core/duration.js';
import {
  consolidate as consolidateRound,
  type ConsolidationOutcome,
  type EngineContext,
  evictionCost,
  isReschedulable,
  nodePrice,
  provision,
  type ProvisioningOutcome,
  type SchedPod,
} from '../../core/karpenter/scheduling/index.js';
import type { LaunchChoice } from '../../core/karpenter/scheduling/launch.js';
import { ANNOTATION_DO_NOT_DISRUPT, type CapacityType } from '../../core/labels.js';
import { HOUR_MS as HOUR, MINUTE_MS as MINUTE } from '../../core/time.js';
import { approvedMessage, type BalancedScore, balancedScore } from './balanced-score.js';
import type { EngineView } from './engine-view.js';
import type { EventLog } from './event-log.js';
import type { Kubelet } from './kubelet.js';
import type { LiveNode, LivePod, SimState } from './sim-state.js';
import type { EpochMs, SimNode, SimNodePool } from './types.js';
import { commandForNode, validateCommand } from './validate-command.js';

/** How long a pool waits after one disruption before the next: keeps the simulated churn near Karpenter's. */
const DISRUPTION_COOLDOWN = 15 * MINUTE;
/**
 * How long a pool waits after a consolidation round that found nothing before the next look (unless a drift is
 * pending). Karpenter looks again within seconds of a change; the sandbox's clock moves in 5-minute steps and a
 * round of the engine evaluates every candidate, so a pool is looked at every 15 simulated minutes at most.
 */
const LOOK_INTERVAL = 15 * MINUTE;
const BLOCKED_EVENT_EVERY = 6 * HOUR;
/** Karpenter's commandValidationDelay (pkg/controllers/disruption/consolidation.go:45, v1.14.1). */
const COMMAND_VALIDATION_DELAY = 15 * 1000;
/** Rounds retried without a Balanced NodePool's rejected candidates before the round gives up. */
const MAX_BALANCED_RETRIES = 8;
/**
 * Engine verdicts Karpenter publishes as DisruptionBlocked (candidate validation, budgets) or as no event at all
 * (an error it logs), not as Unconsolidatable.
 */
const BLOCKED_NOT_UNCONSOLIDATABLE =
  /^(Node is nominated|Node isn't|NodePool not found|Disruption is blocked|Pod has "|Pdb prevents|Eviction does not support|No allowed disruptions|Would schedule against uninitialized)/;

/** A consolidation round the sandbox's Karpenter decided (the engine's command), for a caller that watches them. */
export interface ConsolidationRound {
  at: EpochMs;
  method: 'emptiness' | 'multi-node' | 'single-node';
  /** The candidates' node names, in the command's order. */
  candidates: string[];
  replacement: boolean;
  /** The engine's EstimatedSavings, unrounded. */
  savingsUsdPerHour: number;
  /** Balanced NodePools' approvals (consolidationScoreMessage's text), per NodePool. */
  approvals: { pool: string; message: string }[];
  /** Validation's reason when the command was rejected (validate-command.ts), else null (carried out). */
  rejected: string | null;
}

/**
 * The Karpenter driver: what Karpenter's controllers decide, by the engine (core/karpenter), carried out on the
 * simulated cluster. Provisioning (pending pods bound where the engine places them, NodeClaims launched), and the
 * disruption controller (drift, then one consolidation round), with the events Karpenter publishes about them.
 */
export class KarpenterDriver {
  private readonly lastUnconsolidatable = new Map<string, { message: string; at: EpochMs }>();
  private readonly lastDisruption = new Map<string, EpochMs>();
  private readonly evaluatedAt = new Map<string, { version: number; at: EpochMs }>();

  constructor(
    private readonly s: SimState,
    private readonly view: EngineView,
    private readonly kubelet: Kubelet,
    private readonly events: EventLog,
    private readonly watch?: (round: ConsolidationRound) => void,
  ) {}

  /**
   * What a consolidation round says about the nodes it leaves: DisruptionBlocked for a do-not-disrupt pod (the
   * sandbox's cadence), Unconsolidatable where Karpenter's consolidation.go publishes one: its message, when it
   * changes and else at the DisruptionBlocked cadence (Karpenter dedupes for 15 minutes and re-evaluates on every
   * change of the cluster: every 15 minutes of a busy cluster would be ~14,000 events in week4's two weeks, noise
   * for a demo). Nodes of the NodePools paused this round are not looked at.
   */
  private noteVerdicts(verdicts: ConsolidationOutcome['unconsolidatable'], pools: ReadonlySet<string>, t: EpochMs): void {
    for (const v of verdicts) {
      if (!pools.has(v.node.nodePool ?? '')) continue;
      const live = this.s.liveNamed(v.node.name);
      if (!live) continue;
      if (v.reason.startsWith(`Pod has "${ANNOTATION_DO_NOT_DISRUPT}"`)) {
        const blocker = this.blocker(live);
        if (blocker) this.noteBlocked(live, blocker, t);
      } else if (v.wording === 'karpenter' && !BLOCKED_NOT_UNCONSOLIDATABLE.test(v.reason)) {
        const last = this.lastUnconsolidatable.get(live.node.name);
        if (last && last.message === v.reason && t - last.at < BLOCKED_EVENT_EVERY) continue;
        this.lastUnconsolidatable.set(live.node.name, { message: v.reason, at: t });
        this.events.emit(live, t, this.events.karpenter.unconsolidatable(v.reason), true);
      }
    }
  }

  /** The Balanced NodePools' scores of a command (none for Emptiness, which Karpenter does not score). */
  private balancedScores(ctx: EngineContext, cmd: NonNullable<ConsolidationOutcome['command']>): { pool: string; score: BalancedScore }[] {
    if (cmd.method === 'emptiness') return [];
    const out: { pool: string; score: BalancedScore }[] = [];
    const byPool = new Map<string, typeof cmd.candidates>();
    for (const c of cmd.candidates) byPool.set(c.pool.name, [...(byPool.get(c.pool.name) ?? []), c]);
    const sourceCost = cmd.candidates.reduce((s, c) => s + c.price, 0);
    for (const [pool, list] of byPool) {
      if (list[0].pool.consolidationPolicy !== 'Balanced') continue;
      // balanced.go EvaluateBalancedMove: a cross-pool move's savings split by each pool's share of the source cost
      const poolCost = list.reduce((s, c) => s + c.price, 0);
      const savings = byPool.size > 1 && sourceCost > 0 ? cmd.savingsUsdPerHour * (poolCost / sourceCost) : cmd.savingsUsdPerHour;
      const totals = this.poolTotals(ctx, pool);
      const move = list.reduce((s, c) => s + c.rescheduleDisruptionCost, 0);
      out.push({ pool, score: balancedScore(savings, move, totals.cost, totals.disruption) });
    }
    return out;
  }

  /** A NodePool's cost and disruption cost over all its nodes (balanced.go computeNodePoolTotals). */
  private poolTotals(ctx: EngineContext, pool: string): { cost: number; disruption: number } {
    let cost = 0;
    let disruption = 0;
    for (const n of ctx.nodes) {
      if (n.nodePool !== pool) continue;
      cost += nodePrice(ctx, n) ?? 0;
      disruption += 1 + n.pods.filter((p) => isReschedulable(p)).reduce((s, p) => s + Math.max(0, evictionCost(p)), 0);
    }
    return { cost, disruption };
  }

  /** One provisioning round for the pending pods: bound where the engine places them, NodeClaims launched. */
  schedulePending(t: EpochMs): void {
    if (!this.s.workloads.some((w) => w.pods.some((p) => p.node === null))) return;
    const { ctx, podByKey } = this.view.at(t);
    this.applyProvisioning(provision(ctx), podByKey, t);
  }

  private applyProvisioning(out: ProvisioningOutcome, podByKey: ReadonlyMap<string, LivePod>, t: EpochMs): void {
    const pods = (list: readonly SchedPod[]) => list.flatMap((p) => podByKey.get(p.key) ?? []);
    for (const [nodeName, placed] of out.onExistingNodes) {
      const live = this.s.liveNamed(nodeName);
      if (live) for (const p of pods(placed)) this.kubelet.bind(p, live, t);
    }
    for (const nc of out.nodeClaims) {
      const taken = pods(nc.pods);
      const live = this.launchChoice(nc.nodePool, nc.launch, t, { kind: 'pending-pods', podNames: taken.map((p) => p.name) });
      for (const p of taken) this.kubelet.bind(p, live, t);
    }
    // pods the engine finds no room for (a NodePool's limits, the managed group full) stay pending
  }

  /** Launches what the engine chose; a reservation filled within the round falls back to on-demand, as EC2 does. */
  private launchChoice(poolName: string, choice: LaunchChoice, t: EpochMs, reason: SimNode['launchReason']): LiveNode {
    const pool = this.s.pools.find((p) => p.name === poolName) ?? null;
    const type = choice.instanceType.name;
    const capacityType = choice.capacityType === 'reserved' && !this.s.reservationFor(type) ? 'on-demand' : choice.capacityType;
    return this.kubelet.launch(pool, type, capacityType as CapacityType, choice.zone, t, reason);
  }

  /**
   * Karpenter validates a consolidation command 15 s after computing it (consolidation.go:45): a spot interruption
   * timed inside that window (the sandbox applies it at its next step, incidents.ts) marks its node for deletion
   * before then. The rejection reason when the command no longer holds (validate-command.ts), else null.
   */
  private validation(ctx: EngineContext, cmd: NonNullable<ConsolidationOutcome['command']>, t: EpochMs): string | null {
    if (cmd.method === 'emptiness') return null;
    for (const inc of this.s.file.incidents) {
      if (inc.kind !== 'spot-interruption') continue;
      const at = Date.parse(inc.at);
      if (!(at > t && at <= t + COMMAND_VALIDATION_DELAY)) continue;
      const victim = this.s.interruptionVictim(inc.nodePool);
      if (!victim) continue;
      this.s.interrupted.set(inc, victim.node.name);
      const reason = validateCommand(ctx, cmd, victim.node.name);
      if (reason !== null) return reason;
    }
    return null;
  }

  // ---- disruption ----------------------------------------------------------------------------------------------

  private blocker(live: LiveNode): LivePod | undefined {
    return live.pods.find((p) => p.workload?.spec.doNotDisrupt);
  }

  private noteBlocked(live: LiveNode, pod: LivePod, t: EpochMs): void {
    if (t - live.lastBlockedEventAt < BLOCKED_EVENT_EVERY) return;
    live.lastBlockedEventAt = t;
    this.events.emit(live, t, this.events.karpenter.blocked(`${pod.record?.namespace}/${pod.name}`));
  }

  /**
   * The disruption controller's turn: drift (the sandbox knows when a NodeClass changed) for each NodePool whose
   * pace allows, then one consolidation round decided by the engine over those NodePools.
   */
  disrupt(t: EpochMs): void {
    const due = this.s.pools.filter((pool) => {
      if (t - (this.lastDisruption.get(pool.name) ?? -Infinity) < DISRUPTION_COOLDOWN) return false;
      // Nothing that could make room changed since a fruitless look, no node's consolidateAfter ended since (spot
      // prices aside, which an hourly look catches in a pool that can launch spot): Karpenter would find nothing
      // new, so skip the work.
      const seen = this.evaluatedAt.get(pool.name);
      if (seen && t - seen.at < LOOK_INTERVAL && !this.driftPending(pool)) return false;
      const spotMoved = pool.capacityTypes.includes('spot') && seen !== undefined && t - seen.at >= HOUR;
      if (!seen || seen.version !== (this.s.poolVersion.get(pool.name) ?? 0) || spotMoved || this.driftPending(pool)) return true;
      const after = parseKarpenterDuration(pool.consolidateAfter);
      return (
        after !== null && this.s.live.some((n) => n.pool === pool && n.lastPodChangeAt + after > seen.at && n.lastPodChangeAt + after <= t)
      );
    });
    if (due.length === 0) return;
    const consolidating = new Set<string>();
    for (const pool of due) {
      if (this.drift(pool, t)) this.lastDisruption.set(pool.name, t);
      else consolidating.add(pool.name);
    }
    if (consolidating.size > 0 && !this.consolidate(consolidating, t)) {
      for (const name of consolidating) this.evaluatedAt.set(name, { version: this.s.poolVersion.get(name) ?? 0, at: t });
    }
  }

  private driftPending(pool: SimNodePool): boolean {
    const hash = this.s.nodeClassHash.get(pool.nodeClassName);
    return this.s.live.some((n) => n.pool === pool && n.terminateAt === null && n.node.nodeClassHash !== hash && !this.blocker(n));
  }

  /**
   * Replaces one drifted node of the pool, as Karpenter's drift method does: its pods scheduled on the rest of the
   * cluster by the engine, NodeClaims launched for what does not fit, then the node deleted. Not when its pods
   * would not all schedule.
   */
  private drift(pool: SimNodePool, t: EpochMs): boolean {
    const hash = this.s.nodeClassHash.get(pool.nodeClassName);
    const drifted = this.s.live.filter((n) => n.pool === pool && n.terminateAt === null && n.node.nodeClassHash !== hash);
    for (const live of drifted) {
      const blocker = this.blocker(live);
      if (blocker) {
        this.noteBlocked(live, blocker, t);
        continue;
      }
      const { ctx } = this.view.at(t);
      const pods = ctx.pods.filter((p) => p.nodeName === live.node.name && isReschedulable(p)).map((p) => ({ ...p, nodeName: null }));
      const plan = provision(ctx, { pods, destinations: ctx.nodes.filter((n) => n.name !== live.node.name) });
      if (plan.unschedulable.length > 0) continue;
      this.events.emit(live, t, this.events.karpenter.terminating('Drifted', plan.nodeClaims.length > 0 ? 'Replace' : 'Delete'));
      for (const nc of plan.nodeClaims) {
        const replacement = this.launchChoice(nc.nodePool, nc.launch, t, {
          kind: 'replacement',
          replaces: [live.node.nodeClaimName ?? live.node.name],
          reason: 'Drifted',
        });
        this.events.emit(replacement, t, [this.events.karpenter.launching('Drifted')]);
      }
      // the evicted pods are placed by the next provisioning round, where the engine planned them
      this.kubelet.disruptNode(live, t, 'Drifted');
      return true;
    }
    return false;
  }

  /**
   * One consolidation round by the engine over the given NodePools (the others paused): the command Karpenter
   * would run, shown to the watcher, validated 15 s on (a spot interruption in that window can reject it) and
   * carried out. Nodes a do-not-disrupt pod holds get Karpenter's DisruptionBlocked events.
   */
  private consolidate(pools: ReadonlySet<string>, t: EpochMs): boolean {
    // Karpenter considers a node only once its consolidateAfter has passed since its last pod event: when no node of
    // these pools has, the round is known to find nothing (but the do-not-disrupt nodes it reports as blocked)
    const considered = this.s.live.filter((n) => n.pool !== null && pools.has(n.pool.name) && n.terminateAt === null);
    if (!considered.some((n) => t - n.lastPodChangeAt >= (parseKarpenterDuration(n.pool?.consolidateAfter ?? 'Never') ?? Infinity))) {
      for (const live of considered) {
        const blocker = this.blocker(live);
        if (blocker) this.noteBlocked(live, blocker, t);
      }
      return false;
    }
    const paused = new Set(this.s.pools.map((p) => p.name).filter((name) => !pools.has(name)));
    // A Balanced NodePool's move that fails its score is not carried out: Karpenter goes on to its next candidate
    // (singlenodeconsolidation.go), here the round again without the rejected candidates.
    const rejected = new Set<string>();
    let cmd: ConsolidationOutcome['command'] = null;
    let approvals: { pool: string; message: string }[] = [];
    let decidedOn: EngineContext | null = null;
    for (let attempt = 0; attempt < MAX_BALANCED_RETRIES; attempt++) {
      const { ctx } = this.view.at(t, paused, rejected);
      decidedOn = ctx;
      const outcome = consolidateRound(ctx, provision(ctx), { commandOnly: true });
      if (attempt === 0) this.noteVerdicts(outcome.unconsolidatable, pools, t);
      cmd = outcome.command;
      if (!cmd) return false;
      if (cmd.replacement)
        for (const c of cmd.candidates) {
          const live = this.s.liveNamed(c.node.name);
          if (live)
            this.events.emit(
              live,
              t,
              this.events.karpenter.consolidationCandidate(c.node.name, cmd.candidates.length, cmd.savingsUsdPerHour),
              true,
            );
        }
      const scored = this.balancedScores(ctx, cmd);
      if (scored.every((s) => s.score.approved)) {
        approvals = scored.map((s) => ({ pool: s.pool, message: approvedMessage(s.score) }));
        break;
      }
      for (const c of cmd.candidates) rejected.add(c.node.name);
      cmd = null;
    }
    if (!cmd) return false;
    // Karpenter publishes the approval (balanced.go ApproveCommand) before it validates the command
    if (approvals.length > 0 && this.s.profile.balancedConsolidation) {
      if (cmd.candidates.length === 1) {
        const live = this.s.liveNamed(cmd.candidates[0].node.name);
        if (live) this.events.emit(live, t, this.events.karpenter.consolidationApproved(approvals[0].message), true);
      } else
        for (const a of approvals)
          this.events.event(t, { kind: 'NodePool', name: a.pool }, 'ConsolidationApproved', a.message, 'Normal', true);
    }
    const invalid = decidedOn === null ? null : this.validation(decidedOn, cmd, t);
    this.watch?.({
      at: t,
      method: cmd.method,
      candidates: cmd.candidates.map((c) => c.node.name),
      replacement: cmd.replacement !== null,
      savingsUsdPerHour: cmd.savingsUsdPerHour,
      approvals,
      rejected: invalid,
    });
    if (invalid !== null) {
      // validation failed: ConsolidationRejected on each candidate, nothing carried out; the next round looks again
      for (const c of cmd.candidates) {
        const live = this.s.liveNamed(c.node.name);
        const said = this.events.karpenter.consolidationRejected(commandForNode(cmd, c.node.name), invalid, cmd.savingsUsdPerHour);
        if (live) this.events.emit(live, t + COMMAND_VALIDATION_DELAY, said, true);
      }
      return false;
    }
    const victims = cmd.candidates.flatMap((c) => this.s.liveNamed(c.node.name) ?? []);
    const method = cmd.replacement ? 'Replace' : 'Delete';
    for (const live of victims) this.events.emit(live, t, this.events.karpenter.terminating(cmd.reason, method));
    if (cmd.replacement) {
      const replacement = this.launchChoice(cmd.candidates[0].pool.name, cmd.replacement.launch, t, {
        kind: 'replacement',
        replaces: victims.map((v) => v.node.nodeClaimName ?? v.node.name),
        reason: cmd.reason,
      });
      this.events.emit(replacement, t, [this.events.karpenter.launching(cmd.reason)]);
    }
    for (const live of victims) {
      this.kubelet.disruptNode(live, t, cmd.reason);
      if (live.pool) this.lastDisruption.set(live.pool.name, t);
    }
    return true;
  }
}
