import type { PodRecord } from '../../core/model.js';

/**
 * One copy of each repeated string. A 150,000-pod list repeats a few hundred namespaces, owners, node names and
 * label values thousands of times, and every JSON parse makes a fresh copy of each: sharing them roughly halves
 * what the pod records of one snapshot keep alive.
 */
export function createInterner(): (s: string) => string {
  const seen = new Map<string, string>();
  return (s) => {
    const known = seen.get(s);
    if (known !== undefined) return known;
    seen.set(s, s);
    return s;
  };
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
