import type { PodRecord } from '../../core/model.js';

/**
 * One copy of each repeated string. A 150,000-pod list repeats a few hundred namespaces, owners, node names and
 * label values thousands of times, and every JSON parse makes a fresh copy of each: sharing them roughly halves
 * what the pod records of one snapshot keep alive.
 */
/** Gives back the first copy of each equal string; `size`: how many distinct strings it holds now. */
export interface Interner {
  (s: string): string;
  readonly size: number;
}

export function createInterner(maxEntries = Number.POSITIVE_INFINITY): Interner {
  const seen = new Map<string, string>();
  const intern = (s: string): string => {
    const known = seen.get(s);
    if (known !== undefined) return known;
    // A long-lived interner (the watch cache's, for months) forgets what it knew past `maxEntries`: node names and
    // hashes churn, and an unbounded table would keep every one ever seen. What was shared stays shared.
    if (seen.size >= maxEntries) seen.clear();
    seen.set(s, s);
    return s;
  };
  return Object.defineProperty(intern, 'size', { get: () => seen.size }) as Interner;
}

/**
 * The same pod record with its repeated strings shared (uid and name are unique and left alone). Spelled out, not
 * `{ ...p, … }`: spread and overwrite gave every pod a hidden class of its own, and a property added later (the
 * usage a snapshot joins to its pods) then copied that class per pod — about 500 bytes a pod (issue 24, usage memory).
 */
export function internPod(p: PodRecord, intern: (s: string) => string): PodRecord {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.labels)) labels[intern(k)] = intern(v);
  const opt = (s: string | null): string | null => (s === null ? null : intern(s));
  return {
    uid: p.uid,
    namespace: intern(p.namespace),
    name: p.name,
    nodeName: opt(p.nodeName),
    phase: intern(p.phase),
    ownerKind: opt(p.ownerKind),
    ownerName: opt(p.ownerName),
    team: opt(p.team),
    requests: p.requests,
    ...(p.usage !== undefined ? { usage: p.usage } : {}),
    containers: p.containers?.map((c) => ({ ...c, name: intern(c.name) })),
    doNotDisrupt: p.doNotDisrupt,
    createdAt: p.createdAt,
    labels,
    // What the engine reads (collect21): set on every record, undefined where absent, so that every pod keeps one
    // hidden class (a conditional spread gives each combination its own).
    scheduling: p.scheduling,
    doNotDisruptValue: p.doNotDisruptValue,
    deletionCost: p.deletionCost,
    startedAt: p.startedAt,
    finishedAt: p.finishedAt,
    volumes: p.volumes,
    karpenterImage: p.karpenterImage,
    karpenterFeatureGates: p.karpenterFeatureGates,
  };
}

/**
 * The pod record with the team resolved at snapshot time, sharing everything else (labels, containers, requests)
 * with the cached record. Spelled out in internPod's order, for the same reason: `{ ...p, team }` gave each of the
 * watch cache's 150,000 copies a hidden class of its own, which the usage joined to them then copied per pod.
 */
export function podWithTeam(p: PodRecord, team: string | null): PodRecord {
  return {
    uid: p.uid,
    namespace: p.namespace,
    name: p.name,
    nodeName: p.nodeName,
    phase: p.phase,
    ownerKind: p.ownerKind,
    ownerName: p.ownerName,
    team,
    requests: p.requests,
    ...(p.usage !== undefined ? { usage: p.usage } : {}),
    containers: p.containers,
    doNotDisrupt: p.doNotDisrupt,
    createdAt: p.createdAt,
    labels: p.labels,
    scheduling: p.scheduling,
    doNotDisruptValue: p.doNotDisruptValue,
    deletionCost: p.deletionCost,
    startedAt: p.startedAt,
    finishedAt: p.finishedAt,
    volumes: p.volumes,
    karpenterImage: p.karpenterImage,
    karpenterFeatureGates: p.karpenterFeatureGates,
  };
}
