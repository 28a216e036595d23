import type { Disruption } from '../disruption.js';
import type { DisruptionReason } from '../labels.js';
import { lastIndexAtOrBefore } from '../time-search.js';
import {
  BLOCKED_EVENT_REASONS,
  canonicalReason,
  classifyKarpenterEvent,
  TERMINATING_EVENT_REASONS,
  type DisruptionMethod,
  type KarpenterEvent,
} from './events.js';
import { expireAfterMs } from './expire-after.js';

/**
 * Disruptions from what the cluster shows (pure, no I/O): Karpenter's events on Nodes and NodeClaims, and the
 * NodeClaims themselves (when each was created and went, its DisruptionReason condition, its expireAfter).
 *
 * The action (Delete or Replace) and the replacements do not come from the message's "/Replace" suffix, which
 * Karpenter stopped writing in v1.6: a disruption decision's replacements are the NodeClaims launched for it, as
 * their DisruptionLaunching events say. Karpenter publishes those before the DisruptionTerminating of the candidates,
 * and they live as long, so where the termination is stored, its launches are too: none means a Delete. Only where
 * they cannot be (a suffix says Replace but no launch is stored; or no event of the disruption is stored at all and
 * the NodeClaim's DisruptionReason condition dates the decision) are the NodeClaims of its NodePool created at the
 * decision taken instead: those created within 30 s of the condition's time, else in the 15 minutes before the
 * termination. (Creation alone cannot tell a replacement from a NodeClaim provisioned for pending pods in the same
 * moment, so it is the last resort.) A suffix, where written, decides the action and keeps a Delete from taking
 * another decision's launches. The same inputs in v1.5 and v1.6 wording give the same disruptions.
 */

/** One stored event joined with the Node and NodeClaim it names (db/repositories/analytics-events-repository.ts). */
export interface DisruptionEventInput {
  uid: string;
  atMs: number;
  /** Kubernetes event reason. */
  reason: string;
  message: string;
  /** Kind of the involved object: Node | NodeClaim (Machine on v0.3x). */
  kind: string;
  name: string;
  nodeName: string | null;
  nodeClaim: string | null;
  nodePool: string | null;
  instanceType: string | null;
  capacityType: string | null;
  nodeDeletedAtMs: number | null;
}

/** A NodeClaim alive at some time near the range built. */
export interface NodeClaimInput {
  name: string;
  nodePool: string | null;
  nodeName: string | null;
  instanceType: string | null;
  capacityType: string | null;
  createdAtMs: number;
  lastSeenMs: number;
  /** First snapshot where it was gone; null while it lives. */
  deletedAtMs: number | null;
  /** The reason its conditions recorded (DisruptionReason, else Drifted), as written. */
  disruptionReason: string | null;
  /** When its DisruptionReason condition was set: the disruption decision. */
  disruptionAtMs: number | null;
  /** spec.expireAfter as written ("720h", "Never"). */
  expireAfter: string | null;
  /** A removal event naming it (or its node) is stored, at any time: then that event is its disruption. */
  removalEventStored: boolean;
}

export type DisruptionAction = DisruptionMethod | 'Blocked';

// Declared in core/disruption.ts, with what the database keeps of it.
export type { Disruption };

/** A reason shown when the wording is one no release wrote: the message is shown as it is. */
export const UNRECOGNISED_REASON = 'Unrecognised';

/** Node and NodeClaim copies of one event land within this of each other. */
export const SAME_DISRUPTION_MS = 60_000;
/** The candidates of one command are deleted together (queue.go deletes them in parallel). */
export const SAME_DECISION_MS = 60_000;
/**
 * A replacement is launched before its termination: Karpenter deletes the candidates only once every replacement is
 * initialized, waiting up to 10 minutes (orchestration/queue.go maxRetryDuration@v1.5.0), while re-publishing the
 * DisruptionLaunching event every 2 minutes (pkg/events/recorder.go dedupe timeout).
 */
export const REPLACEMENT_LEAD_MS = 15 * 60_000;
/** A DisruptionLaunching stored a little after its termination (clocks, aggregated events) still belongs to it. */
export const REPLACEMENT_LAG_MS = 2 * 60_000;
/** Replacements are created right after the candidates are marked (MarkDisrupted, then CreateNodeClaims). */
export const DECISION_CREATE_MS = 30_000;
/** A SpotInterrupted warning comes up to two minutes before the node goes. */
export const INTERRUPTION_MATCH_MS = 5 * 60_000;
/** How far apart in time the inputs of one disruption can be: what a build must read beyond the range it builds. */
export const DISRUPTION_EDGE_MS = Math.max(SAME_DISRUPTION_MS, REPLACEMENT_LEAD_MS + REPLACEMENT_LAG_MS, INTERRUPTION_MATCH_MS);

const DISRUPTION_KINDS_BY_DECISION: ReadonlySet<string> = new Set<DisruptionReason>(['Underutilized', 'Empty', 'Drifted', 'Expired']);

interface Classified {
  row: DisruptionEventInput;
  k: KarpenterEvent;
}

/** The name a disruption is known by: its NodeClaim, else its Node, else what the event names. */
const keyOf = (e: { nodeClaim: string | null; nodeName: string | null; name?: string }): string =>
  e.nodeClaim ?? e.nodeName ?? e.name ?? '';

export const disruptionId = (atMs: number, key: string): string => `${atMs}-${key}`;

/** Groups rows of the same object within SAME_DISRUPTION_MS (Node + NodeClaim copies), earliest first. */
function groupSameObject(rows: readonly Classified[]): Classified[][] {
  const byKey = new Map<string, Classified[]>();
  for (const r of [...rows].sort((a, b) => a.row.atMs - b.row.atMs || a.row.kind.localeCompare(b.row.kind))) {
    const k = keyOf(r.row);
    const list = byKey.get(k);
    if (list) list.push(r);
    else byKey.set(k, [r]);
  }
  const groups: Classified[][] = [];
  for (const list of byKey.values()) {
    let current: Classified[] = [];
    for (const r of list) {
      if (current.length > 0 && r.row.atMs - current[0].row.atMs > SAME_DISRUPTION_MS) {
        groups.push(current);
        current = [];
      }
      current.push(r);
    }
    if (current.length > 0) groups.push(current);
  }
  return groups;
}

/** Fields of a group, preferring the row that knows them (the Node row knows the node, the NodeClaim row the claim). */
function merged(group: readonly Classified[]) {
  const rows = group.map((g) => g.row);
  const pick = <K extends keyof DisruptionEventInput>(k: K): DisruptionEventInput[K] | null => rows.find((g) => g[k] !== null)?.[k] ?? null;
  const nodeRow = group.find((g) => g.row.kind === 'Node');
  return {
    atMs: rows[0].atMs,
    nodeName: pick('nodeName') ?? nodeRow?.row.name ?? null,
    nodeClaim: pick('nodeClaim') ?? rows.find((g) => g.kind === 'NodeClaim' || g.kind === 'Machine')?.name ?? null,
    nodePool: pick('nodePool') ?? '',
    instanceType: pick('instanceType'),
    capacityType: pick('capacityType'),
    nodeDeletedAtMs: pick('nodeDeletedAtMs'),
    message: (nodeRow ?? group[0]).row.message,
    /** What the group says, from its Node row where it has one (the message the list shows). */
    k: (nodeRow ?? group[0]).k,
  };
}

/** A disruption read from a group of events: where and when from the merged rows, what it was from the caller. */
function eventDisruption(
  m: ReturnType<typeof merged>,
  key: string,
  what: Pick<Disruption, 'reason' | 'action' | 'spotInterrupted' | 'blocked'>,
): Disruption {
  return {
    id: disruptionId(m.atMs, key),
    atMs: m.atMs,
    nodeName: m.nodeName,
    nodeClaim: m.nodeClaim,
    nodePool: m.nodePool,
    instanceType: m.instanceType,
    capacityType: m.capacityType,
    nodeDeletedAtMs: m.nodeDeletedAtMs,
    message: m.message,
    ...what,
    source: 'event',
    replacements: [],
  };
}

/** One disruption command as the cluster shows it: the candidates removed together, of one NodePool and reason. */
interface Decision {
  nodePool: string;
  reason: DisruptionReason;
  /** The method the messages wrote (v0.3x–v1.5); null from v1.6. */
  method: DisruptionMethod | null;
  firstAtMs: number;
  lastAtMs: number;
  rows: Disruption[];
  candidates: Set<string>;
  replacements: Set<string>;
}

interface Launch {
  claim: string;
  nodePool: string;
  reason: DisruptionReason;
  /** The latest stored time of its DisruptionLaunching events (the nearest to the termination). */
  atMs: number;
}

/**
 * Disruptions (and blocked attempts) from event rows and NodeClaims, sorted by time, NodePool, node.
 * `nodeClaims` should hold every NodeClaim alive within DISRUPTION_EDGE_MS of the events (replacement candidates,
 * and the conditions of the disrupted ones); those deleted without a stored removal event become disruptions of
 * their own when their conditions or age say why.
 */
export function buildDisruptions(events: readonly DisruptionEventInput[], nodeClaims: readonly NodeClaimInput[] = []): Disruption[] {
  const classified = events.map((row) => ({ row, k: classifyKarpenterEvent(row.reason, row.message) }));
  const terminating = classified.filter(
    (c) =>
      c.k.kind === 'terminating' ||
      c.k.kind === 'interruption-termination' ||
      (c.k.kind === 'unrecognised' && TERMINATING_EVENT_REASONS.some((r) => r === c.row.reason)),
  );
  const launching = classified.filter((c) => c.k.kind === 'launching');
  const warnings = classified.filter((c) => c.k.kind === 'interruption-warning');
  const blocked = classified.filter(
    (c) => c.k.kind === 'blocked' && BLOCKED_EVENT_REASONS.some((r) => r === c.row.reason) && c.row.kind !== 'NodePool',
  );
  const claimByName = new Map(nodeClaims.map((c) => [c.name, c]));

  const out: Disruption[] = [];
  const warningGroups = groupSameObject(warnings);
  const warningsByKey = new Map<string, Classified[][]>();
  for (const g of warningGroups) {
    const k = keyOf(merged(g));
    warningsByKey.set(k, [...(warningsByKey.get(k) ?? []), g]);
  }
  const usedWarnings = new Set<Classified[]>();
  const decisions: Decision[] = [];
  const decisionOf = new Map<Disruption, { reason: DisruptionReason; method: DisruptionMethod | null }>();

  for (const group of groupSameObject(terminating)) {
    const m = merged(group);
    const key = keyOf(m);
    const warning = warningsByKey.get(key)?.find((g) => Math.abs(g[0].row.atMs - m.atMs) <= INTERRUPTION_MATCH_MS);
    if (warning) usedWarnings.add(warning);
    const spotInterrupted = warning?.some((w) => w.k.kind === 'interruption-warning' && w.k.signal === 'SpotInterrupted') ?? false;
    const byInterruption = group.some((g) => g.k.kind === 'interruption-termination');
    let reason: string;
    let action: string | null;
    if (byInterruption) {
      reason = 'Interrupted';
      action = 'Delete';
    } else if (m.k.kind === 'terminating') {
      reason = m.k.reason;
      action = m.k.method;
    } else {
      reason = UNRECOGNISED_REASON;
      action = null;
    }
    const d = eventDisruption(m, key, { reason, action, spotInterrupted, blocked: false });
    out.push(d);
    if (!byInterruption && m.k.kind === 'terminating') {
      if (DISRUPTION_KINDS_BY_DECISION.has(m.k.reason)) decisionOf.set(d, { reason: m.k.reason, method: m.k.method });
      // Removed by Karpenter's interruption handling in the old wording ("…: Interrupted/Delete"): nothing is launched for it.
      else d.action = m.k.method ?? 'Delete';
    }
  }

  // An interruption warning without a termination event still removed a node.
  for (const group of warningGroups) {
    if (usedWarnings.has(group)) continue;
    const m = merged(group);
    out.push(
      eventDisruption(m, keyOf(m), {
        reason: 'Interrupted',
        action: null,
        spotInterrupted: group.some((g) => g.k.kind === 'interruption-warning' && g.k.signal === 'SpotInterrupted'),
        blocked: false,
      }),
    );
  }

  // Decisions: candidates of one NodePool, reason and written method, removed within SAME_DECISION_MS of each other.
  const byDecisionKey = new Map<string, Disruption[]>();
  for (const [d, r] of decisionOf) {
    const k = `${d.nodePool}\u0000${r.reason}\u0000${r.method ?? ''}`;
    const list = byDecisionKey.get(k);
    if (list) list.push(d);
    else byDecisionKey.set(k, [d]);
  }
  for (const list of byDecisionKey.values()) {
    list.sort((a, b) => a.atMs - b.atMs);
    let current: Decision | null = null;
    for (const d of list) {
      const r = decisionOf.get(d);
      if (r === undefined) continue;
      if (current === null || d.atMs - current.lastAtMs > SAME_DECISION_MS) {
        current = {
          nodePool: d.nodePool,
          reason: r.reason,
          method: r.method,
          firstAtMs: d.atMs,
          lastAtMs: d.atMs,
          rows: [],
          candidates: new Set(),
          replacements: new Set(),
        };
        decisions.push(current);
      }
      current.rows.push(d);
      current.lastAtMs = d.atMs;
      if (d.nodeClaim !== null) current.candidates.add(d.nodeClaim);
    }
  }

  // Launches: one per replacement NodeClaim, at its latest DisruptionLaunching.
  const launchByClaim = new Map<string, Launch>();
  for (const c of launching) {
    if (c.k.kind !== 'launching') continue;
    const claim = c.row.nodeClaim ?? c.row.name;
    const seen = launchByClaim.get(claim);
    if (seen === undefined)
      launchByClaim.set(claim, {
        claim,
        nodePool: c.row.nodePool ?? claimByName.get(claim)?.nodePool ?? '',
        reason: c.k.reason,
        atMs: c.row.atMs,
      });
    else if (c.row.atMs > seen.atMs) seen.atMs = c.row.atMs;
  }
  const launchedFor = new Set<string>();
  // Each launch goes to the decision of its NodePool and reason it precedes most closely (or follows by little).
  const decisionsByPoolReason = new Map<string, Decision[]>();
  for (const d of decisions) {
    const k = `${d.nodePool}\u0000${d.reason}`;
    decisionsByPoolReason.set(k, [...(decisionsByPoolReason.get(k) ?? []), d]);
  }
  for (const list of decisionsByPoolReason.values()) list.sort((a, b) => a.firstAtMs - b.firstAtMs);
  for (const l of [...launchByClaim.values()].sort((a, b) => a.atMs - b.atMs || a.claim.localeCompare(b.claim))) {
    const list = decisionsByPoolReason.get(`${l.nodePool}\u0000${l.reason}`) ?? [];
    let best: Decision | undefined;
    let bestScore = Infinity;
    const from = lastIndexAtOrBefore(list, l.atMs - REPLACEMENT_LAG_MS - SAME_DECISION_MS - 1, (d) => d.firstAtMs) + 1;
    for (let i = from; i < list.length && list[i].firstAtMs <= l.atMs + REPLACEMENT_LEAD_MS; i++) {
      const d = list[i];
      if (d.method === 'Delete' || d.candidates.has(l.claim)) continue;
      if (l.atMs < d.firstAtMs - REPLACEMENT_LEAD_MS || l.atMs > d.lastAtMs + REPLACEMENT_LAG_MS) continue;
      // Launched before its termination is the rule; after it only by clock skew, so that counts double.
      const score = l.atMs <= d.lastAtMs ? Math.max(0, d.firstAtMs - l.atMs) : 2 * (l.atMs - d.lastAtMs);
      if (score < bestScore) {
        best = d;
        bestScore = score;
      }
    }
    if (best !== undefined) {
      best.replacements.add(l.claim);
      launchedFor.add(l.claim);
    }
  }

  // Without launch events: the NodeClaims of the NodePool created at the decision.
  const claimsByPool = new Map<string, NodeClaimInput[]>();
  for (const c of nodeClaims) {
    const k = c.nodePool ?? '';
    const list = claimsByPool.get(k);
    if (list) list.push(c);
    else claimsByPool.set(k, [c]);
  }
  for (const list of claimsByPool.values()) list.sort((a, b) => a.createdAtMs - b.createdAtMs || a.name.localeCompare(b.name));
  const createdBetween = (nodePool: string, fromMs: number, toMs: number, exclude: ReadonlySet<string>): string[] => {
    const list = claimsByPool.get(nodePool) ?? [];
    const out: string[] = [];
    for (let i = lastIndexAtOrBefore(list, fromMs - 1, (c) => c.createdAtMs) + 1; i < list.length && list[i].createdAtMs <= toMs; i++) {
      const c = list[i];
      if (!exclude.has(c.name) && !launchedFor.has(c.name) && !launchByClaim.has(c.name)) out.push(c.name);
    }
    return out;
  };
  for (const d of decisions) {
    // Launch events are stored wherever the termination is: creation is looked at only for a written Replace.
    if (d.replacements.size === 0 && d.method === 'Replace') {
      const decidedAt = [...d.candidates]
        .map((c) => claimByName.get(c)?.disruptionAtMs ?? null)
        .filter((t): t is number => t !== null && t <= d.lastAtMs + SAME_DECISION_MS)
        .sort((a, b) => a - b)[0];
      const found =
        decidedAt !== undefined
          ? createdBetween(d.nodePool, decidedAt - 2_000, decidedAt + DECISION_CREATE_MS, d.candidates)
          : createdBetween(d.nodePool, d.firstAtMs - REPLACEMENT_LEAD_MS, d.firstAtMs, d.candidates);
      for (const c of found) {
        d.replacements.add(c);
        launchedFor.add(c);
      }
    }
    const action: DisruptionMethod = d.method ?? (d.replacements.size > 0 ? 'Replace' : 'Delete');
    for (const row of d.rows) {
      row.action = action;
      row.replacements = [...d.replacements];
    }
  }

  // NodeClaims gone without a removal event: their events expired before the collector saw them, or nothing was
  // written (v1 expiration). Their conditions or their age say why; otherwise they are not counted.
  const seen = new Set(out.map((d) => d.nodeClaim).filter((c): c is string => c !== null));
  for (const c of nodeClaims) {
    if (c.deletedAtMs === null || c.removalEventStored || seen.has(c.name)) continue;
    const base = {
      id: disruptionId(c.deletedAtMs, c.name),
      atMs: c.deletedAtMs,
      nodeName: c.nodeName,
      nodeClaim: c.name,
      nodePool: c.nodePool ?? '',
      source: 'nodeclaim' as const,
      spotInterrupted: false,
      instanceType: c.instanceType,
      capacityType: c.capacityType,
      nodeDeletedAtMs: c.deletedAtMs,
      blocked: false,
    };
    if (c.disruptionReason !== null) {
      const reason = canonicalReason(c.disruptionReason);
      let replacements: string[] = [];
      let action: string | null = null;
      if (c.disruptionAtMs !== null && reason !== null) {
        replacements =
          reason === 'Empty'
            ? []
            : createdBetween(c.nodePool ?? '', c.disruptionAtMs - 2_000, c.disruptionAtMs + DECISION_CREATE_MS, new Set([c.name]));
        action = replacements.length > 0 ? 'Replace' : 'Delete';
      }
      out.push({
        ...base,
        reason: reason ?? UNRECOGNISED_REASON,
        action,
        replacements: replacements.sort(),
        message:
          c.disruptionAtMs === null
            ? `NodeClaim gone with disruption reason ${c.disruptionReason} (no event stored)`
            : `NodeClaim gone; its DisruptionReason condition (${c.disruptionReason}) was set ${new Date(c.disruptionAtMs).toISOString()} (no event stored)`,
      });
      continue;
    }
    const expiry = expireAfterMs(c.expireAfter);
    if (expiry !== null && c.deletedAtMs - c.createdAtMs >= expiry) {
      out.push({
        ...base,
        reason: 'Expired',
        action: 'Delete',
        replacements: [],
        message: `NodeClaim gone after its expireAfter (${c.expireAfter}): Karpenter v1 deletes expired NodeClaims without an event`,
      });
    }
  }

  for (const group of groupSameObject(blocked)) {
    const m = merged(group);
    out.push(eventDisruption(m, keyOf(m), { reason: '', action: 'Blocked', spotInterrupted: false, blocked: true }));
  }

  for (const d of out) d.replacements.sort();
  return out.sort(
    (a, b) =>
      a.atMs - b.atMs ||
      a.nodePool.localeCompare(b.nodePool) ||
      (a.nodeName ?? '').localeCompare(b.nodeName ?? '') ||
      Number(a.blocked) - Number(b.blocked),
  );
}

/**
 * What a NodeClaim's disruptions say about it: the one that removed it, and those it was launched to replace.
 * The Consolidation page lists the same rows, so the two can never disagree.
 */
export function disruptionsOfNodeClaim(
  ds: readonly Disruption[],
  nodeClaim: string,
  nodeName: string | null = null,
): { removedBy: Disruption | null; replaced: Disruption[] } {
  const own = ds.filter(
    (d) => !d.blocked && (d.nodeClaim === nodeClaim || (d.nodeClaim === null && nodeName !== null && d.nodeName === nodeName)),
  );
  return {
    removedBy: own[0] ?? null,
    replaced: ds.filter((d) => !d.blocked && d.replacements.includes(nodeClaim)),
  };
}
