import type { PodSchedulingRef, PodSchedulingSpec } from '../../core/model.js';
import { canonicalJson, contentHash } from './canonical-json.js';

/**
 * The watch cache's scheduling specs: one shared ref per content hash, as createSpecTable gives the one-shot list,
 * but the canonical JSON held only until a snapshot carrying it is stored (pod_specs keeps it from then on, once per
 * hash). At the envelope the cached pods' ~57,000 distinct specs (the sandbox's pods differ in their anti-affinity)
 * held ~45 MB of JSON for the life of the collector, and keyed the table by that same text.
 *
 * The table is rebuilt at each `snapshot` from the refs the cached pods hold, so a hash is known only while a pod in
 * the cluster carries it: its pod row (last seen at that snapshot) keeps the stored spec from retention's orphan
 * prune, and a pod arriving with a spec whose last holder went long ago gets its JSON again.
 */
export class SpecRefs {
  private byHash = new Map<string, PodSchedulingRef>();

  /** The shared ref of this spec (the canonical JSON is computed and hashed here; kept only if the hash is new). */
  readonly ref = (spec: PodSchedulingSpec): PodSchedulingRef => {
    const json = canonicalJson(spec);
    const hash = contentHash(json);
    let ref = this.byHash.get(hash);
    if (ref === undefined) {
      ref = { hash, json };
      this.byHash.set(hash, ref);
    }
    return ref;
  };

  /** Keeps only the refs `held` (those of the pods in the cache now); the rest are forgotten. */
  retain(held: Iterable<PodSchedulingRef | undefined>): void {
    const next = new Map<string, PodSchedulingRef>();
    for (const r of held) if (r !== undefined) next.set(r.hash, r);
    this.byHash = next;
  }

  /**
   * A snapshot holding these refs is stored: their JSON is in pod_specs, so the refs drop it (every cached pod shares
   * the ref object, so one write frees it for all of them). Only refs of this table: a ref it forgot meanwhile keeps
   * its JSON, which costs memory, never a spec.
   */
  stored(refs: Iterable<PodSchedulingRef | undefined>): void {
    for (const r of refs) if (r !== undefined && r.json !== undefined && this.byHash.get(r.hash) === r) r.json = undefined;
  }

  /** How many specs it knows, and how many of them still hold their JSON. */
  get size(): { specs: number; withJson: number } {
    let withJson = 0;
    for (const r of this.byHash.values()) if (r.json !== undefined) withJson += 1;
    return { specs: this.byHash.size, withJson };
  }
}
