import { type ExistingNodeBase, ExistingNodeSlot } from './existing-node.js';
import type { InstanceType } from './instance-types.js';
import { type ClaimOptions, InflightNodeClaim, type PlacementFailure } from './nodeclaim.js';
import { type PodData, podData } from './pod-data.js';
import { cloneConstraints, isProvisionable, type PodConstraints, type SchedPod } from './pods.js';
import { relax } from './preferences.js';
import type { Requirements } from './requirements.js';
import type { ResourceSpace, ResourceVector } from './resources.js';
import type { NodeClaimTemplate } from './templates.js';
import { Topology, type TopologyInit } from './topology.js';
import { RESOURCE_NODES } from './well-known.js';

/**
 * One scheduling round as Karpenter's Scheduler.Solve runs it (pkg/controllers/provisioning/scheduling/scheduler.go,
 * v1.14.1): pods sorted by CPU then memory (largest first), each tried on existing nodes (initialized first, by
 * name), then on the NodeClaims already planned (fewest pods first), then on a new NodeClaim from the first NodePool
 * in weight order that can take it; a pod that fits nowhere has its preferences relaxed one at a time, and pods
 * still unplaced are retried while the queue makes progress.
 *
 * Deviations that keep it deterministic and fast, not different: ties Karpenter leaves to Go's map order or unstable
 * sorts are broken by name/creation order, and a node a pod shape has definitely failed on (taints, requirements,
 * resources, host ports — never topology) is not tried again for the same shape.
 */

export interface SchedulerOptions {
  space: ResourceSpace;
  templates: readonly NodeClaimTemplate[];
  /** Destinations that exist (or are being launched), in any order. */
  existing: readonly { base: ExistingNodeBase; underConsolidateAfter: boolean }[];
  /** `existing` is already initialized-first, then by name. */
  existingSorted?: boolean;
  /** Entries of a sorted `existing` to leave out (consolidation candidates), by position. */
  skip?: Uint8Array;
  /** Remaining room per NodePool (limits − capacity of its nodes), by resource slot; absent = no limits. */
  remaining: ReadonlyMap<string, { slots: number[]; amounts: ResourceVector }>;
  topology: Omit<TopologyInit, 'ignorePreferences'>;
  ignorePreferences?: boolean;
  toleratePreferNoSchedule: boolean;
  /** Names of nodes being deleted: their pods may go to nodes under consolidateAfter. */
  deletingNodes?: ReadonlySet<string>;
  /** minValues policy and reservation counting for the NodeClaims this round plans. */
  claimOptions?: ClaimOptions;
  /** Every NodePool is static: Karpenter's provisioner has none to schedule with (ErrNodePoolsNotFound). */
  noDynamicNodePools?: boolean;
  /**
   * Turn off the shortcuts that only save work (the NodePool types within limits kept between pods, a destination a
   * pod shape failed on in the cluster as it stood kept failed across rounds): the slow path, for tests that check the
   * fast one gives the same answers.
   */
  noShortcuts?: boolean;
  /**
   * Shared by the rounds a caller runs over the same `existing` (consolidation's simulations, one per candidate): per
   * pod shape, the destinations it failed on for good while they held only what the cluster gave them (taints,
   * requirements, host ports, resources, never topology). Such a failure holds in every round over them (a destination
   * only fills up and narrows as a round goes on), so a later round skips them without trying.
   */
  baseFailures?: Map<string, Uint8Array>;
}

export interface SolveResult {
  newNodeClaims: InflightNodeClaim[];
  existing: ExistingNodeSlot[];
  /** Why each pod that did not schedule did not, in Karpenter's words. */
  errors: Map<SchedPod, string>;
}

/**
 * Everything podData reads: nodeSelector, requests, host ports, tolerations and node affinity (labels, namespace
 * and pod affinities only matter to topology, which reads them from the pod itself).
 */
function shapeKey(pod: SchedPod, c: PodConstraints, volume?: Requirements): string {
  let k = '';
  for (const key in pod.nodeSelector) k += `${key}=${pod.nodeSelector[key]},`;
  k += '|';
  for (const key in pod.requests) k += `${key}:${pod.requests[key]},`;
  if (pod.hostPorts.length) k += `|p${JSON.stringify(pod.hostPorts)}`;
  if (c.tolerations.length) k += `|t${JSON.stringify(c.tolerations)}`;
  if (c.requiredNodeTerms.length || c.preferredNodeTerms.length) k += `|n${JSON.stringify([c.requiredNodeTerms, c.preferredNodeTerms])}`;
  const v = volume ?? pod.volumeRequirements;
  if (v) k += `|v${v.signature()}`;
  return k;
}

interface LiveList<T> {
  items: T[];
  /** New NodeClaims created before this index have been added to items. */
  seen: number;
}

export class Scheduler {
  private readonly topology: Topology;
  /** Destinations in the order they are tried; their slots are made when first tried (most never are). */
  private readonly existingInputs: readonly { base: ExistingNodeBase; underConsolidateAfter: boolean }[];
  private readonly existing: (ExistingNodeSlot | undefined)[];
  private readonly created: ExistingNodeSlot[] = [];
  private readonly newNodeClaims: InflightNodeClaim[] = [];
  private readonly remaining: Map<string, { slots: number[]; amounts: ResourceVector }>;
  /**
   * Per NodePool, its template's types within the room left (a pure function of the template and `remaining`, which
   * changes only when a NodeClaim of that NodePool is created): at the envelope most pods of a re-pack meet exhausted
   * limits, and filtering ~700 types for each of them again was most of the round.
   */
  private readonly withinLimits = new Map<string, readonly InstanceType[]>();
  /** Per pod shape, the destinations it has definitely failed on (1 = failed). */
  private readonly failedExisting = new Map<string, Uint8Array>();
  private readonly liveClaims = new Map<string, LiveList<InflightNodeClaim>>();
  /** PodData shared by pods whose scheduling-relevant fields are identical (most pods of a workload). */
  private readonly shapes = new Map<string, PodData>();
  /** The last placement attempt failed on a reserved offering (strict mode). */
  private reservedError = false;

  constructor(private readonly opts: SchedulerOptions) {
    this.topology = new Topology({ ...opts.topology, ignorePreferences: opts.ignorePreferences ?? false });
    type Input = SchedulerOptions['existing'][number];
    const order = (a: Input, b: Input) =>
      Number(b.base.node.initialized) - Number(a.base.node.initialized) ||
      (a.base.node.name < b.base.node.name ? -1 : a.base.node.name > b.base.node.name ? 1 : 0);
    // initialized nodes first, then by name (callers that keep them in that order say so)
    this.existingInputs = opts.existingSorted ? opts.existing : [...opts.existing].sort(order);
    this.existing = new Array(this.existingInputs.length);
    this.remaining = new Map([...opts.remaining].map(([k, v]) => [k, { slots: v.slots, amounts: Float64Array.from(v.amounts) }]));
  }

  solve(pods: readonly SchedPod[]): SolveResult {
    const { space } = this.opts;
    const cpu = space.slot('cpu');
    const mem = space.slot('memory');
    const data = new Map<SchedPod, PodData>();
    for (const p of pods) {
      data.set(p, this.dataFor(p, p.constraints));
      this.topology.update(p, p.constraints);
    }
    const keyed = pods.map((p) => {
      const r = (data.get(p) as PodData).requests;
      return { p, cpu: r[cpu], mem: r[mem] };
    });
    keyed.sort(
      (a, b) => b.cpu - a.cpu || b.mem - a.mem || a.p.createdAt - b.p.createdAt || (a.p.uid < b.p.uid ? -1 : a.p.uid > b.p.uid ? 1 : 0),
    );
    const queue = keyed.map((k) => k.p);
    const errors = new Map<SchedPod, string>();
    const lastLen = new Map<string, number>();
    let head = 0;
    while (head < queue.length) {
      const pod = queue[head];
      const pending = queue.length - head;
      // a full pass over the queue without progress: stop
      if (lastLen.get(pod.uid) === pending) break;
      head++;
      const err = this.trySchedule(pod, cloneConstraints(pod.constraints), data.get(pod));
      if (err === null) {
        errors.delete(pod);
        continue;
      }
      errors.set(pod, err);
      this.topology.update(pod, pod.constraints);
      queue.push(pod);
      lastLen.set(pod.uid, queue.length - head);
      // compact now and then so a long retry tail does not grow the array without bound
      if (head > 65536 && head * 2 > queue.length) {
        queue.splice(0, head);
        head = 0;
      }
    }
    return { newNodeClaims: this.newNodeClaims, existing: this.created, errors };
  }

  /** `volume`: one of the pod's volume topology alternatives instead of its first. */
  private dataFor(pod: SchedPod, c: PodConstraints, volume?: Requirements): PodData {
    const shape = shapeKey(pod, c, volume);
    const known = this.shapes.get(shape);
    if (known) return { ...known, pod, constraints: c };
    const d = podData(pod, c, this.opts.space, this.opts.ignorePreferences ?? false, volume);
    this.shapes.set(shape, d);
    return d;
  }

  /**
   * Places the pod with its (current) constraints; a pod whose volumes allow several topologies tries each in turn
   * (Karpenter tries them per destination; the first alternative that places the pod anywhere wins here).
   */
  private addWithVolumes(pod: SchedPod, c: PodConstraints, d: PodData): string | null {
    const err = this.add(d);
    const alternatives = pod.volumeAlternatives;
    if (err === null || !alternatives || this.reservedError) return err;
    for (let i = 1; i < alternatives.length; i++) {
      if (this.add(this.dataFor(pod, c, alternatives[i])) === null) return null;
      if (this.reservedError) break;
    }
    return err;
  }

  /** Pods deferred because a compatible reservation had no room (ReservedOfferingError): Karpenter retries them next round. */
  readonly deferred = new Set<SchedPod>();

  private trySchedule(pod: SchedPod, c: PodConstraints, first?: PodData): string | null {
    let d = first ?? this.dataFor(pod, c);
    for (;;) {
      this.reservedError = false;
      const err = this.addWithVolumes(pod, c, d);
      if (err === null) {
        this.deferred.delete(pod);
        return null;
      }
      // a reserved offering error is not relaxed away (scheduler.go trySchedule)
      if (this.reservedError) {
        this.deferred.add(pod);
        return err;
      }
      this.deferred.delete(pod);
      if (relax(c, this.opts.toleratePreferNoSchedule) === null) return err;
      this.topology.update(pod, c);
      d = this.dataFor(pod, c);
    }
  }

  private add(d: PodData): string | null {
    if (this.addToExisting(d)) return null;
    if (this.addToInflight(d)) return null;
    if (this.opts.templates.length === 0)
      return this.opts.noDynamicNodePools ? 'no nodepools found' : 'nodepool requirements filtered out all available instance types';
    return this.addToNew(d);
  }

  private slotAt(i: number): ExistingNodeSlot {
    let slot = this.existing[i];
    if (!slot) {
      const e = this.existingInputs[i];
      slot = new ExistingNodeSlot(e.base, e.underConsolidateAfter);
      this.existing[i] = slot;
      this.created.push(slot);
    }
    return slot;
  }

  private addToExisting(d: PodData): boolean {
    const n = this.existingInputs.length;
    if (n === 0) return false;
    const shared = this.opts.noShortcuts ? undefined : this.opts.baseFailures;
    let failed = this.failedExisting.get(d.key);
    if (!failed) {
      // the skipped entries count as failed from the start
      failed = this.opts.skip ? Uint8Array.from(this.opts.skip) : new Uint8Array(n);
      const known = shared?.get(d.key);
      if (known) for (let i = 0; i < n; i++) failed[i] |= known[i];
      this.failedExisting.set(d.key, failed);
    }
    const movingPod = !isProvisionable(d.pod) && !(d.pod.nodeName !== null && this.opts.deletingNodes?.has(d.pod.nodeName));
    for (let i = 0; i < n; i++) {
      if (failed[i]) continue;
      // pods moving off a consolidation candidate may not land on a node still under consolidateAfter
      if (this.existingInputs[i].underConsolidateAfter && movingPod) continue;
      const slot = this.slotAt(i);
      const plan = slot.canAdd(d, this.topology);
      if (plan.ok) {
        slot.add(d, plan, this.topology);
        return true;
      }
      if (plan.permanent) {
        failed[i] = 1;
        // nothing placed here this round: the destination as the cluster has it
        if (shared && slot.pods.length === 0) {
          let known = shared.get(d.key);
          if (!known) shared.set(d.key, (known = new Uint8Array(n)));
          known[i] = 1;
        }
      }
    }
    return false;
  }

  private addToInflight(d: PodData): boolean {
    let live = this.liveClaims.get(d.key);
    if (!live) {
      live = { items: [], seen: 0 };
      this.liveClaims.set(d.key, live);
    }
    if (live.seen < this.newNodeClaims.length) {
      for (let i = live.seen; i < this.newNodeClaims.length; i++) live.items.push(this.newNodeClaims[i]);
      live.seen = this.newNodeClaims.length;
    }
    // Karpenter re-sorts its NodeClaims by pod count before each pod and takes the first that fits: the emptiest.
    // Scanning for the smallest (pods, id) does the same without sorting the list for every pod.
    const items = live.items;
    let tried: Set<InflightNodeClaim> | null = null;
    for (;;) {
      let best = -1;
      for (let i = 0; i < items.length; i++) {
        const nc = items[i];
        if (tried?.has(nc)) continue;
        if (best < 0 || nc.pods.length < items[best].pods.length || (nc.pods.length === items[best].pods.length && nc.id < items[best].id))
          best = i;
      }
      if (best < 0) return false;
      const nc = items[best];
      const plan = nc.canAdd(d, this.topology);
      if (plan.ok) {
        nc.add(d, plan, this.topology);
        return true;
      }
      if (plan.permanent) {
        // never again for this pod shape: drop it from the list (order does not matter, the scan finds the minimum)
        items[best] = items[items.length - 1];
        items.pop();
      } else (tried ??= new Set()).add(nc);
    }
  }

  private addToNew(d: PodData): string | null {
    const errors: string[] = [];
    for (const tpl of this.opts.templates) {
      let options: readonly InstanceType[] = tpl.options;
      const rem = this.remaining.get(tpl.pool.name);
      if (rem) {
        const nodesSlot = this.opts.space.indexOf(RESOURCE_NODES);
        // exactly none left: exhausted (scheduler.go); fewer than none: every type exceeds the limit, said below
        if (nodesSlot !== undefined && rem.slots.includes(nodesSlot) && rem.amounts[nodesSlot] === 0) {
          errors.push(`node limits have been exhausted for nodepool (NodePool=${tpl.pool.name})`);
          continue;
        }
        const cached = this.opts.noShortcuts ? undefined : this.withinLimits.get(tpl.pool.name);
        if (cached !== undefined) options = cached;
        else {
          options = options.filter((it) => rem.slots.every((s) => it.capacityVector[s] <= rem.amounts[s]));
          if (!this.opts.noShortcuts) this.withinLimits.set(tpl.pool.name, options);
        }
        if (options.length === 0) {
          errors.push(`all available instance types exceed limits for nodepool (NodePool=${tpl.pool.name})`);
          continue;
        }
      }
      const nc = new InflightNodeClaim(this.newNodeClaims.length, tpl, [...options], this.opts.space, this.opts.claimOptions);
      // without topology (or counted reservations) a first pod's plan depends only on the claim's number, its options
      // and the pod's shape
      const planKey =
        this.topology.empty && !this.opts.claimOptions?.ledger
          ? `${nc.id}|${options.length}|${rem ? rem.slots.map((s) => rem.amounts[s]).join(',') : ''}|${d.key}`
          : null;
      const known = planKey === null ? undefined : tpl.firstPlans.get(planKey);
      const plan = known ?? nc.canAdd(d, this.topology);
      if (planKey !== null && plan.ok && !known) tpl.firstPlans.set(planKey, plan);
      if (!plan.ok) {
        const f = plan as PlacementFailure;
        errors.push(f.message());
        // compatible with a NodePool whose reservation is full: no falling back to a lighter NodePool this round
        if (f.reservedOffering) {
          this.reservedError = true;
          break;
        }
        continue;
      }
      nc.add(d, plan, this.topology);
      this.newNodeClaims.push(nc);
      if (rem) {
        this.withinLimits.delete(tpl.pool.name);
        // Karpenter assumes the largest of the remaining types will launch (subtractMax)
        for (const s of rem.slots) {
          let max = 0;
          for (const it of nc.options) max = Math.max(max, it.capacityVector[s]);
          rem.amounts[s] -= max;
        }
      }
      return null;
    }
    return errors.join('; ');
  }
}
