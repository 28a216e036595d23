import { disruptionsOfNodeClaim, type Disruption } from '../../core/karpenter/disruptions.js';
import { LAUNCHING_EVENT_REASONS, REMOVAL_EVENT_REASONS, TERMINATING_EVENT_REASONS } from '../../core/karpenter/events.js';
import type { LifecycleEvent, NodeClaimReasons, ResourceTotals } from '../schemas/bill.js';
import type { EventFact, ExplainContext, InstanceTypeFact, LaunchFact, NodeFact, NodePoolFact, ResourceFact } from './facts.js';
import { gib, iso, plural, vcpu } from './format.js';
import { Requirements } from '../../core/karpenter/requirements.js';
import { LABEL_CAPACITY_RESERVATION_ID, LABEL_CAPACITY_TYPE } from '../../core/labels.js';

/**
 * Pure: why a NodeClaim exists the way it does — the NodePool requirements that admitted its instance type, the
 * pods whose requests sized it, why spot or on-demand, and the consolidation or interruption that created or
 * removed it. Every statement is derived from stored facts; what the data cannot tell is said, not guessed. Why a
 * NodeClaim came and went is read from the kept disruptions the Consolidation page lists, never from the events'
 * wording (which Karpenter changed from release to release: core/karpenter/events.ts).
 */

const DISRUPTION_KIND: Record<string, NodeClaimReasons['removed']['kind']> = {
  Underutilized: 'consolidation',
  Empty: 'consolidation',
  Drifted: 'drift',
  Expired: 'expiry',
  Interrupted: 'interruption',
};

const toTotals = (r: ResourceFact): ResourceTotals => ({ cpuMillicores: r.cpuMillicores, memoryBytes: r.memoryBytes, pods: r.pods });
const toEvent = (e: EventFact): LifecycleEvent => ({ at: iso(e.atMs), reason: e.reason, message: e.message });

/** Events naming these Nodes or NodeClaims, to list beside a reason (they are shown, not read). */
function eventsNaming(ctx: ExplainContext, names: ReadonlySet<string>, reasons: readonly string[]): EventFact[] {
  return ctx.events.filter((e) => names.has(e.name) && reasons.includes(e.reason));
}

const LAUNCH_EVENTS: readonly string[] = LAUNCHING_EVENT_REASONS;
const REMOVAL_EVENTS = REMOVAL_EVENT_REASONS;

/** The kept disruptions about this node: the one that removed it, those it replaced (core/karpenter/disruptions.ts). */
export function disruptionsOf(node: NodeFact, ctx: ExplainContext): { removedBy: Disruption | null; replaced: Disruption[] } {
  if (node.nodeClaim === null) {
    const removedBy = ctx.disruptions.find((d) => !d.blocked && d.nodeClaim === null && d.nodeName === node.name) ?? null;
    return { removedBy, replaced: [] };
  }
  return disruptionsOfNodeClaim(ctx.disruptions, node.nodeClaim, node.name);
}

function uniqueSorted(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

export function instanceTypeReason(node: NodeFact, pool: NodePoolFact | undefined): NodeClaimReasons['instanceType'] {
  if (node.nodePool === null) {
    return {
      nodePoolFound: false,
      requirements: [],
      summary: `${node.instanceType} was chosen outside Karpenter (a managed node group or another launcher): no NodePool requirements apply.`,
    };
  }
  if (!pool) {
    return {
      nodePoolFound: false,
      requirements: [],
      summary: `NodePool ${node.nodePool} is not in the stored data (deleted before the first snapshot?): its requirements are unknown.`,
    };
  }
  const checks = new Requirements(pool.requirements).check(node.labels);
  const requirements = checks.map((c) => ({
    key: c.key,
    operator: c.operator,
    values: c.values,
    minValues: c.minValues,
    text: c.text,
    nodeValue: c.labelValue,
    satisfied: c.satisfied,
  }));
  const failed = checks.filter((c) => c.satisfied === false);
  const unjudged = checks.filter((c) => c.satisfied === null);
  const shown = checks.map((c) => `${c.text} (${c.labelValue ?? 'absent'})`).join('; ');
  const cannotJudge =
    unjudged.length === 0
      ? ''
      : ` ${plural(unjudged.length, 'requirement')} cannot be judged here: ${unjudged.map((c) => `${c.text}: ${c.problem ?? 'unknown'}`).join('; ')}.`;
  let summary: string;
  if (failed.length === 0 && unjudged.length === 0)
    summary = `NodePool ${pool.name} admits ${node.instanceType}: it meets all ${checks.length} requirements — ${shown}.`;
  else if (failed.length === 0)
    summary = `${node.instanceType} meets the ${plural(checks.length - unjudged.length, 'requirement')} of NodePool ${pool.name} that can be judged — ${shown}.${cannotJudge}`;
  else {
    // Karpenter relabels a node on-demand when its capacity reservation ends (AWS provider, capacityreservation
    // capacitytype controller): a reserved-only NodePool then no longer matches, though it did at launch.
    const demoted =
      failed.length === 1 &&
      failed[0].key === LABEL_CAPACITY_TYPE &&
      failed[0].labelValue === 'on-demand' &&
      (pool.capacityTypes.includes('reserved') || failed[0].values.includes('reserved'));
    const why = demoted
      ? 'its capacity reservation ended after the launch (Karpenter then relabels the node on-demand)'
      : 'the NodePool changed after the launch';
    summary = `${node.instanceType} does not meet ${plural(failed.length, 'requirement')} of NodePool ${pool.name} as stored now (${failed.map((c) => `${c.text}: the node has ${c.labelValue ?? 'no such label'}`).join('; ')}): ${why}.${cannotJudge}`;
  }
  return { nodePoolFound: true, requirements, summary };
}

const fits = (req: ResourceFact, alloc: ResourceFact): boolean =>
  req.cpuMillicores <= alloc.cpuMillicores && req.memoryBytes <= alloc.memoryBytes && req.pods <= alloc.pods;

/** What ran out first on a type too small for `req`. */
function shortOf(req: ResourceFact, alloc: ResourceFact): string {
  const parts: string[] = [];
  if (req.cpuMillicores > alloc.cpuMillicores) parts.push('cpu');
  if (req.memoryBytes > alloc.memoryBytes) parts.push('memory');
  if (req.pods > alloc.pods) parts.push('pods');
  return parts.join(' and ');
}

type Catalog = ExplainContext['catalog'];

/** Per catalog, per requirement set: the types a NodePool admits (the catalog holds over a thousand types). */
const admittedCache = new WeakMap<Catalog, Map<string, InstanceTypeFact[]>>();

function admittedTypes(pool: NodePoolFact, catalog: Catalog): InstanceTypeFact[] {
  let byRequirements = admittedCache.get(catalog);
  if (!byRequirements) {
    byRequirements = new Map();
    admittedCache.set(catalog, byRequirements);
  }
  const key = JSON.stringify(pool.requirements);
  let admitted = byRequirements.get(key);
  if (!admitted) {
    const requirements = new Requirements(pool.requirements);
    admitted = [...catalog.types.values()].filter((t) => requirements.admitsInstanceType(t.labels, catalog.labelKeys));
    byRequirements.set(key, admitted);
  }
  return admitted;
}

/**
 * The next smaller instance type the NodePool admits: the next size down in the node's own family (less cpu, or
 * as much cpu and less memory), else the biggest admitted type of any family with less cpu.
 */
export function nextSmallerType(node: NodeFact, pool: NodePoolFact | undefined, catalog: Catalog): InstanceTypeFact | null {
  if (!pool) return null;
  const cpu = node.allocatable.cpuMillicores;
  const admitted = admittedTypes(pool, catalog).filter((t) => t.name !== node.instanceType);
  const family = node.labels['karpenter.k8s.aws/instance-family'];
  const sameFamily = admitted.filter(
    (t) =>
      family !== undefined &&
      t.labels['karpenter.k8s.aws/instance-family'] === family &&
      (t.allocatable.cpuMillicores < cpu ||
        (t.allocatable.cpuMillicores === cpu && t.allocatable.memoryBytes < node.allocatable.memoryBytes)),
  );
  const candidates = sameFamily.length > 0 ? sameFamily : admitted.filter((t) => t.allocatable.cpuMillicores < cpu);
  return (
    candidates.sort(
      (a, b) =>
        b.allocatable.cpuMillicores - a.allocatable.cpuMillicores ||
        b.allocatable.memoryBytes - a.allocatable.memoryBytes ||
        a.name.localeCompare(b.name),
    )[0] ?? null
  );
}

export function sizeReason(
  node: NodeFact,
  pool: NodePoolFact | undefined,
  launch: LaunchFact | undefined,
  catalog: Catalog,
): NodeClaimReasons['size'] {
  const allocatable = toTotals(node.allocatable);
  const offer = `${node.instanceType} offers ${vcpu(allocatable.cpuMillicores)}, ${gib(allocatable.memoryBytes)} and ${allocatable.pods} pods allocatable`;
  if (!launch) {
    const why =
      node.nodePool === null
        ? 'it was not launched by Karpenter, so no pods sized it'
        : 'no snapshot saw it at launch, so the pods it was launched for are unknown';
    return {
      launchPods: [],
      observedAt: null,
      requested: { cpuMillicores: 0, memoryBytes: 0, pods: 0 },
      allocatable,
      smallerType: null,
      summary: `${offer}; ${why}.`,
    };
  }
  const requested = toTotals(launch.requested);
  const smaller = node.nodePool === null ? null : nextSmallerType(node, pool, catalog);
  const smallerType = smaller
    ? { instanceType: smaller.name, allocatable: toTotals(smaller.allocatable), fits: fits(launch.requested, smaller.allocatable) }
    : null;
  const workloadPods = launch.pods.filter((p) => p.ownerKind !== 'DaemonSet');
  const named = workloadPods
    .slice(0, 5)
    .map((p) => `${p.namespace}/${p.name}`)
    .join(', ');
  const more = workloadPods.length > 5 ? ` and ${workloadPods.length - 5} more` : '';
  let summary =
    `At its first snapshot (${iso(launch.observedAtMs)}) it ran ${plural(launch.pods.length, 'pod')}` +
    (workloadPods.length > 0 ? ` (${named}${more}, plus ${plural(launch.pods.length - workloadPods.length, 'DaemonSet pod')})` : '') +
    ` requesting ${vcpu(requested.cpuMillicores)} and ${gib(requested.memoryBytes)}; ${offer}.`;
  if (smallerType && smaller) {
    summary += smallerType.fits
      ? ` They would also have fit the next smaller admitted type, ${smaller.name} (${vcpu(smaller.allocatable.cpuMillicores)}, ${gib(smaller.allocatable.memoryBytes)}): the size came from price (spot offers differ by type and zone) or from pods that left before the first snapshot.`
      : ` The next smaller admitted type, ${smaller.name} (${vcpu(smaller.allocatable.cpuMillicores)}, ${gib(smaller.allocatable.memoryBytes)}), was short of ${shortOf(launch.requested, smaller.allocatable)}.`;
  } else if (node.nodePool !== null && pool) {
    summary += ' No smaller instance type is admitted by the NodePool.';
  }
  return { launchPods: launch.pods, observedAt: iso(launch.observedAtMs), requested, allocatable, smallerType, summary };
}

export function capacityReason(node: NodeFact, pool: NodePoolFact | undefined): NodeClaimReasons['capacityType'] {
  const chosen = node.capacityType;
  if (node.nodePool === null) {
    return { allowed: [], chosen, summary: `${chosen} capacity chosen by the node group that launched it, not by Karpenter.` };
  }
  const allowed = pool ? [...pool.capacityTypes].sort() : [];
  let summary: string;
  if (!pool) summary = `The NodePool is not stored: which capacity types it allowed is unknown.`;
  else if (allowed.length === 1) summary = `NodePool ${pool.name} allows only ${allowed[0]}.`;
  else if (chosen === 'reserved') {
    const id = node.labels[LABEL_CAPACITY_RESERVATION_ID];
    summary = `NodePool ${pool.name} allows ${allowed.join(' and ')}; Karpenter launches into a capacity reservation with room${id === undefined ? '' : ` (${id})`} before spot or on-demand. AWS bills it at the on-demand rate, as On Demand usage.`;
  } else if (chosen === 'spot')
    summary = `NodePool ${pool.name} allows ${allowed.join(' and ')}; Karpenter launches spot whenever the pods allow it, as it is the cheaper offer.`;
  else if (allowed.includes('spot')) {
    summary = `NodePool ${pool.name} allows spot too, so ${chosen} means the pods it was launched for required it (a karpenter.sh/capacity-type node selector or affinity; pod selectors are not stored here) or no spot offer was available.`;
  } else if (allowed.includes('reserved'))
    summary = `NodePool ${pool.name} allows ${allowed.join(' and ')}; ${chosen} means no matching capacity reservation had room at the launch (or the pods required ${chosen}).`;
  else summary = `NodePool ${pool.name} allows ${allowed.join(' and ')}.`;
  return { allowed, chosen, summary };
}

export function createdReason(node: NodeFact, ctx: ExplainContext, launch: LaunchFact | undefined): NodeClaimReasons['created'] {
  if (node.nodeClaim === null) {
    return {
      kind: 'not-karpenter',
      reason: null,
      replaces: [],
      events: [],
      summary: 'Not launched by Karpenter (no NodeClaim): a managed node group or another launcher started it.',
    };
  }
  const { replaced } = disruptionsOf(node, ctx);
  if (replaced.length > 0) {
    const reason = replaced[0].reason;
    const replaces = uniqueSorted(replaced.map((d) => d.nodeClaim ?? d.nodeName ?? ''));
    const names = new Set([node.nodeClaim, ...replaced.flatMap((d) => [d.nodeClaim, d.nodeName])].filter((x): x is string => x !== null));
    const events = eventsNaming(ctx, names, [...LAUNCH_EVENTS, ...TERMINATING_EVENT_REASONS]).map(toEvent);
    return {
      kind: 'replacement',
      reason,
      replaces,
      events,
      summary: `Launched replacing ${replaces.join(', ')} (${reason}): Karpenter moved the pods of a disrupted NodeClaim onto this one.`,
    };
  }
  const first = ctx.coverage.firstSnapshotMs;
  if (launch && first !== null && node.launchedAtMs >= first - ctx.coverage.snapshotIntervalMs) {
    const workload = launch.pods.filter((p) => p.ownerKind !== 'DaemonSet').length;
    return {
      kind: 'provisioning',
      reason: null,
      replaces: [],
      events: [],
      summary: `Launched by Karpenter for pending pods (${plural(workload, 'workload pod')} on it at its first snapshot).`,
    };
  }
  return {
    kind: 'unknown',
    reason: null,
    replaces: [],
    events: [],
    summary: `Launched ${iso(node.launchedAtMs)}, before the first snapshot: why is not in the data.`,
  };
}

export function removedReason(node: NodeFact, ctx: ExplainContext): NodeClaimReasons['removed'] {
  if (node.deletedAtMs === null) {
    const last = ctx.coverage.lastSnapshotMs;
    return {
      kind: 'still-running',
      reason: null,
      at: null,
      replacedBy: [],
      events: [],
      summary: `Still running at the last snapshot${last === null ? '' : ` (${iso(last)})`}.`,
    };
  }
  const d = disruptionsOf(node, ctx).removedBy;
  const names = new Set([node.name, node.nodeClaim].filter((x): x is string => x !== null));
  const events = eventsNaming(ctx, names, REMOVAL_EVENTS).map(toEvent);
  if (d === null) {
    return {
      kind: 'deleted',
      reason: null,
      at: iso(node.deletedAtMs),
      replacedBy: [],
      events,
      summary: `Gone by ${iso(node.deletedAtMs)} with no disruption recorded: deleted by hand, by its node group, or its events expired before collection.`,
    };
  }
  const interrupted = d.reason === 'Interrupted' || d.spotInterrupted;
  const reason = interrupted ? 'Interrupted' : d.reason;
  const kind: NodeClaimReasons['removed']['kind'] = interrupted ? 'interruption' : (DISRUPTION_KIND[reason] ?? 'deleted');
  const at = iso(d.atMs);
  const replacedBy = d.replacements;
  const by = replacedBy.length > 0 ? ` by ${replacedBy.join(', ')}` : '';
  // What happened to it, as the kept disruption says: replaced, deleted, or not known (its events expired).
  const fate =
    d.action === 'Replace'
      ? `replaced${replacedBy.length > 0 ? by : ' (the replacement is not in the data)'}`
      : d.action === 'Delete'
        ? 'deleted'
        : 'removed (whether it was replaced is not in the data)';
  let summary: string;
  switch (kind) {
    case 'interruption':
      summary = `${d.spotInterrupted ? 'Spot interruption' : 'Interruption'} at ${at}: EC2 reclaimed the capacity and Karpenter drained the node; its pods went to other or new nodes.`;
      break;
    case 'consolidation':
      summary =
        reason === 'Empty'
          ? `Consolidated at ${at}: it was empty (only DaemonSet pods) and deleted.`
          : d.action === 'Replace'
            ? `Consolidated at ${at} (Underutilized): its pods fit ${replacedBy.length > 0 ? `a cheaper replacement, ${replacedBy.join(', ')}` : 'a cheaper replacement (not in the data)'}, so it was replaced.`
            : d.action === 'Delete'
              ? `Consolidated at ${at} (Underutilized): its pods fit on the NodePool's other nodes, so it was deleted.`
              : `Consolidated at ${at} (Underutilized); ${fate}.`;
      break;
    case 'drift':
      summary = `${d.action === 'Delete' ? 'Deleted' : d.action === 'Replace' ? 'Replaced' : 'Removed'} at ${at} because it drifted from its NodePool or EC2NodeClass${by}.`;
      break;
    case 'expiry':
      summary =
        d.source === 'nodeclaim' && d.action === 'Delete'
          ? `Expired at ${at}: its age reached the NodePool's expireAfter and Karpenter deleted it (v1 records no event for this); its pods went to other or new nodes.`
          : `Expired at ${at} (the NodePool's expireAfter) and was ${fate}.`;
      break;
    default:
      summary = `Removed by Karpenter at ${at} with a message this version does not recognise: "${d.message}".`;
  }
  return { kind, reason, at, replacedBy, events, summary };
}

export function reasonsFor(node: NodeFact, ctx: ExplainContext): NodeClaimReasons {
  const pool = node.nodePool === null ? undefined : ctx.nodePools.get(node.nodePool);
  const launch = ctx.launches.get(node.name);
  return {
    instanceType: instanceTypeReason(node, pool),
    size: sizeReason(node, pool, launch, ctx.catalog),
    capacityType: capacityReason(node, pool),
    created: createdReason(node, ctx, launch),
    removed: removedReason(node, ctx),
  };
}
