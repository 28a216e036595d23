/**
 * Edits of a NodePool's disruption settings (spec.disruption), from its settings over time: what changed, in words,
 * for the packing-drop rule (core/alert-rules.ts). Pure.
 */

export interface DisruptionSettingsAt {
  nodePool: string;
  /** When these settings were first seen. */
  firstSeenMs: number;
  consolidationPolicy: string | null;
  consolidateAfter: string | null;
  budgets: unknown[] | null;
}

export interface DisruptionSettingsEdit {
  atMs: number;
  nodePool: string;
  /** "consolidationPolicy WhenEmptyOrUnderutilized -> WhenEmpty", fields joined by "; ". */
  what: string;
}

/** Karpenter's defaults for a NodePool that leaves them out (pkg/apis/v1/nodepool.go: WhenEmptyOrUnderutilized, nodes 10%). */
const shown = (field: 'consolidationPolicy' | 'consolidateAfter' | 'budgets', s: DisruptionSettingsAt): string => {
  if (field === 'budgets') return JSON.stringify(s.budgets ?? [{ nodes: '10%' }]);
  if (field === 'consolidationPolicy') return s.consolidationPolicy ?? 'WhenEmptyOrUnderutilized';
  return s.consolidateAfter ?? '(unset)';
};

/**
 * Each edit: a NodePool's settings that differ from its settings before (oldest first per NodePool, as the history
 * lists them). The first settings of a NodePool are no edit (nothing was seen before them).
 */
export function disruptionSettingsEdits(history: readonly DisruptionSettingsAt[]): DisruptionSettingsEdit[] {
  const out: DisruptionSettingsEdit[] = [];
  const last = new Map<string, DisruptionSettingsAt>();
  for (const s of [...history].sort((a, b) => a.firstSeenMs - b.firstSeenMs)) {
    const before = last.get(s.nodePool);
    last.set(s.nodePool, s);
    if (before === undefined) continue;
    const parts = (['consolidationPolicy', 'consolidateAfter', 'budgets'] as const)
      .filter((f) => shown(f, before) !== shown(f, s))
      .map((f) => `${f} ${shown(f, before)} -> ${shown(f, s)}`);
    if (parts.length > 0) out.push({ atMs: s.firstSeenMs, nodePool: s.nodePool, what: parts.join('; ') });
  }
  return out;
}
