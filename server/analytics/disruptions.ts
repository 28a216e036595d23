/**
 * Disruption events from stored Kubernetes events and NodeClaim lifetimes (pure, no I/O).
 *
 * Karpenter records a disruption as events on both the Node and its NodeClaim: DisruptionTerminating
 * "Disrupting Node: <Reason>/<Delete|Replace>", DisruptionLaunching "Launching NodeClaim: <Reason>/Replace"
 * on each replacement, SpotInterrupted on an interrupted node, DisruptionBlocked when a pod (do-not-disrupt)
 * or a budget stops it. Kubernetes keeps events for about an hour, so a NodeClaim gone with a disruption
 * reason but no stored event still counts, from its lifetime.
 */

import { DISRUPTION_REASONS } from '../../core/labels.js';
import type { Disruption, DisruptionPageQuery, MarkerSource } from '../../core/disruption.js';
import { lastIndexAtOrBefore } from '../../core/time-search.js';
import type { TimelineMarker } from '../schemas/consolidation.js';
import type { EventJoinRow, GoneNodeClaimJoinRow } from '../../db/repositories/analytics-events-repository.js';

/** An event row joined with the Node / NodeClaim it names: the rows the events repository reads (declared there). */
export type DisruptionEventRow = EventJoinRow;
/** A NodeClaim gone with a disruption reason, for disruptions whose events expired (declared with its SQL). */
export type GoneNodeClaimRow = GoneNodeClaimJoinRow;

// Declared in core/ so the repository that keeps them (db/) can name them too.
export type { Disruption, DisruptionPageQuery, MarkerSource };

/** Node and NodeClaim events of one disruption land within this of each other. */
export const SAME_DISRUPTION_MS = 60_000;
/** A replacement's DisruptionLaunching and the disrupted node's DisruptionTerminating land within this. */
export const REPLACEMENT_MATCH_MS = 2 * 60_000;
/** A SpotInterrupted warning comes up to two minutes before the node goes. */
export const INTERRUPTION_MATCH_MS = 5 * 60_000;

const CANONICAL_REASON = new Map(DISRUPTION_REASONS.map((r) => [r.toLowerCase(), r]));

/** "Disrupting Node: Underutilized/Delete" -> { reason: 'Underutilized', action: 'Delete' }; null when not of that form. */
export function parseDisruptionMessage(message: string): { reason: string; action: string | null } | null {
  const m = /^(?:Disrupting|Launching)\s+(?:Node|NodeClaim)\s*:\s*([A-Za-z]+)(?:\s*\/\s*([A-Za-z]+))?/.exec(message.trim());
  if (m === null) return null;
  const reason = CANONICAL_REASON.get(m[1].toLowerCase()) ?? m[1];
  const action = m[2] === undefined ? null : m[2][0].toUpperCase() + m[2].slice(1).toLowerCase();
  return { reason, action };
}

/** The name a disruption is known by: its NodeClaim, else its Node, else what the event names. */
const keyOf = (e: { nodeClaim: string | null; nodeName: string | null; name?: string }): string =>
  e.nodeClaim ?? e.nodeName ?? e.name ?? '';

export const disruptionId = (atMs: number, key: string): string => `${atMs}-${key}`;

/** Groups events of the same object within SAME_DISRUPTION_MS (Node + NodeClaim copies), earliest first. */
function groupSameDisruption(rows: readonly DisruptionEventRow[]): DisruptionEventRow[][] {
  const byKey = new Map<string, DisruptionEventRow[]>();
  for (const r of [...rows].sort((a, b) => a.atMs - b.atMs || a.kind.localeCompare(b.kind))) {
    const k = keyOf(r);
    byKey.set(k, [...(byKey.get(k) ?? []), r]);
  }
  const groups: DisruptionEventRow[][] = [];
  for (const list of byKey.values()) {
    let current: DisruptionEventRow[] = [];
    for (const r of list) {
      if (current.length > 0 && r.atMs - current[0].atMs > SAME_DISRUPTION_MS) {
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
function merged(group: readonly DisruptionEventRow[]) {
  const pick = <K extends keyof DisruptionEventRow>(k: K): DisruptionEventRow[K] | null => group.find((g) => g[k] !== null)?.[k] ?? null;
  const first = group[0];
  return {
    atMs: first.atMs,
    nodeName: pick('nodeName') ?? group.find((g) => g.kind === 'Node')?.name ?? null,
    nodeClaim: pick('nodeClaim') ?? group.find((g) => g.kind === 'NodeClaim')?.name ?? null,
    nodePool: pick('nodePool') ?? '',
    instanceType: pick('instanceType'),
    capacityType: pick('capacityType'),
    nodeDeletedAtMs: pick('nodeDeletedAtMs'),
    message: (group.find((g) => g.kind === 'Node') ?? first).message,
  };
}

/**
 * The Replace nearest to `atMs` within REPLACEMENT_MATCH_MS (of `reason` when known) in a time-sorted list; on a tie
 * the earlier one, as a stable sort by distance would pick.
 */
function nearestReplace(sorted: readonly Disruption[], atMs: number, reason: string | null): Disruption | undefined {
  let i = lastIndexAtOrBefore(sorted, atMs - REPLACEMENT_MATCH_MS - 1, (d) => d.atMs) + 1;
  let best: Disruption | undefined;
  for (; i < sorted.length && sorted[i].atMs <= atMs + REPLACEMENT_MATCH_MS; i++) {
    const d = sorted[i];
    if (reason !== null && d.reason !== reason) continue;
    if (best === undefined || Math.abs(d.atMs - atMs) < Math.abs(best.atMs - atMs)) best = d;
  }
  return best;
}

/**
 * Disruptions (and blocked attempts) from event rows and gone NodeClaims, sorted by time, NodePool, node.
 * Replacements: NodeClaims with DisruptionLaunching in the same NodePool, for the same reason, within
 * REPLACEMENT_MATCH_MS of a Replace, each given to the nearest such disruption.
 */
export function buildDisruptions(events: readonly DisruptionEventRow[], gone: readonly GoneNodeClaimRow[] = []): Disruption[] {
  const out: Disruption[] = [];
  const terminating = events.filter((e) => e.reason === 'DisruptionTerminating');
  const interrupted = events.filter((e) => e.reason === 'SpotInterrupted');
  const usedInterruptions = new Set<DisruptionEventRow[]>();
  const interruptionGroups = groupSameDisruption(interrupted);
  const interruptionsByKey = new Map<string, DisruptionEventRow[][]>();
  for (const g of interruptionGroups) {
    const k = keyOf(merged(g));
    interruptionsByKey.set(k, [...(interruptionsByKey.get(k) ?? []), g]);
  }

  for (const group of groupSameDisruption(terminating)) {
    const m = merged(group);
    const parsed = parseDisruptionMessage(m.message) ?? { reason: 'Unknown', action: null };
    const key = keyOf(m);
    const warning = interruptionsByKey.get(key)?.find((g) => Math.abs(g[0].atMs - m.atMs) <= INTERRUPTION_MATCH_MS);
    if (warning) usedInterruptions.add(warning);
    out.push({
      id: disruptionId(m.atMs, key),
      ...m,
      reason: parsed.reason,
      action: parsed.action,
      source: 'event',
      spotInterrupted: warning !== undefined,
      replacements: [],
      blocked: false,
    });
  }
  // An interruption warning without a DisruptionTerminating still removed a node.
  for (const group of interruptionGroups) {
    if (usedInterruptions.has(group)) continue;
    const m = merged(group);
    out.push({
      id: disruptionId(m.atMs, keyOf(m)),
      ...m,
      reason: 'Interrupted',
      action: null,
      source: 'event',
      spotInterrupted: true,
      replacements: [],
      blocked: false,
    });
  }

  // Replacements, each to the nearest Replace of the same NodePool and reason. Replaces are looked up per NodePool
  // by time (binary search to the window), so a month of a churning cluster stays linear-ish, not launches x disruptions.
  const replacesByPool = new Map<string, Disruption[]>();
  for (const d of out) {
    if (d.action !== 'Replace') continue;
    const list = replacesByPool.get(d.nodePool) ?? [];
    list.push(d);
    replacesByPool.set(d.nodePool, list);
  }
  for (const list of replacesByPool.values()) list.sort((a, b) => a.atMs - b.atMs);
  for (const group of groupSameDisruption(events.filter((e) => e.reason === 'DisruptionLaunching'))) {
    const m = merged(group);
    const parsed = parseDisruptionMessage(m.message);
    const claim = m.nodeClaim ?? group[0].name;
    const nearest = nearestReplace(replacesByPool.get(m.nodePool) ?? [], m.atMs, parsed?.reason ?? null);
    if (nearest !== undefined && !nearest.replacements.includes(claim)) nearest.replacements.push(claim);
  }

  // NodeClaims gone with a reason and no event: their events expired before the collector saw them.
  const seen = new Set(out.map((d) => d.nodeClaim).filter((c): c is string => c !== null));
  for (const g of gone) {
    if (seen.has(g.nodeClaim)) continue;
    out.push({
      id: disruptionId(g.deletedAtMs, g.nodeClaim),
      atMs: g.deletedAtMs,
      nodeName: g.nodeName,
      nodeClaim: g.nodeClaim,
      nodePool: g.nodePool ?? '',
      reason: CANONICAL_REASON.get(g.disruptionReason.toLowerCase()) ?? g.disruptionReason,
      action: null,
      source: 'nodeclaim',
      spotInterrupted: false,
      instanceType: g.instanceType,
      capacityType: g.capacityType,
      nodeDeletedAtMs: g.deletedAtMs,
      replacements: [],
      message: `NodeClaim gone with disruption reason ${g.disruptionReason} (no event stored)`,
      blocked: false,
    });
  }

  for (const group of groupSameDisruption(events.filter((e) => e.reason === 'DisruptionBlocked'))) {
    const m = merged(group);
    out.push({
      id: disruptionId(m.atMs, keyOf(m)),
      ...m,
      reason: '',
      action: 'Blocked',
      source: 'event',
      spotInterrupted: false,
      replacements: [],
      blocked: true,
    });
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

/** A timeline marker: one disruption, or the first of `count` in a bucket x NodePool x reason. */
export type DisruptionMarker = TimelineMarker;

/**
 * Timeline markers for disruptions sorted by time: every one while there are at most `max`; else the first of each
 * bucket x NodePool x reason with how many it stands for, buckets aligned on the epoch, starting at `bucketMs` and
 * doubled until at most `max` markers are left (or one bucket holds them all). A month of a churning cluster is
 * thousands of disruptions: more marks than a chart a screen wide can tell apart.
 */
export function timelineMarkers(ds: readonly MarkerSource[], bucketMs: number, max: number): DisruptionMarker[] {
  const one = (d: MarkerSource): DisruptionMarker => ({
    id: d.id,
    atMs: d.atMs,
    nodePool: d.nodePool,
    reason: d.reason,
    action: d.action,
    count: 1,
  });
  if (ds.length <= max) return ds.map(one);
  if (!(bucketMs > 0)) throw new RangeError(`bucketMs must be positive, got ${bucketMs}`);
  const spanMs = ds[ds.length - 1].atMs - ds[0].atMs;
  // Each NodePool x reason numbered once, so a group is a number (bucket x pairs + pair), not a string per disruption per pass.
  const pairs = new Map<string, number>();
  const pairOf = ds.map((d) => {
    const key = `${d.nodePool}\u0000${d.reason}`;
    let id = pairs.get(key);
    if (id === undefined) pairs.set(key, (id = pairs.size));
    return id;
  });
  for (let width = bucketMs; ; width *= 2) {
    const thinned = new Map<number, DisruptionMarker>();
    ds.forEach((d, i) => {
      const key = Math.floor(d.atMs / width) * pairs.size + pairOf[i];
      const first = thinned.get(key);
      if (first === undefined) thinned.set(key, one(d));
      else first.count += 1;
    });
    if (thinned.size <= max || width > spanMs) return [...thinned.values()];
  }
}

/** Reason counts, by count then name. */
export function sortReasonCounts(counts: Iterable<readonly [string, number]>): { reason: string; count: number }[] {
  return [...counts].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
}

/** Disruptions per reason (blocked attempts as "Blocked"), by count then name. */
export function countByReason(ds: readonly Disruption[]): { reason: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const d of ds) {
    const k = d.blocked ? 'Blocked' : d.reason;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return sortReasonCounts(counts);
}

export interface DisruptionPage {
  rows: Disruption[];
  /** Matching rows before paging. */
  total: number;
  /** Per reason over every matching row (blocked attempts as "Blocked"). */
  counts: { reason: string; count: number }[];
}

/** A page of disruptions sorted by time, filtered as asked, counted in full. */
export function pageDisruptions(ds: readonly Disruption[], q: Omit<DisruptionPageQuery, 'fromMs' | 'toMs'>): DisruptionPage {
  const rows = ds.filter(
    (d) =>
      (q.kind === 'all' || d.blocked === (q.kind === 'blocked')) &&
      (q.nodePool === undefined || d.nodePool === q.nodePool) &&
      (q.reason === undefined || d.reason === q.reason),
  );
  return { rows: rows.slice(q.offset, q.limit === null ? undefined : q.offset + q.limit), total: rows.length, counts: countByReason(rows) };
}
