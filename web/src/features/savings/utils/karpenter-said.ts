import type { KarpenterExplanationRow } from '@schemas/karpenter-explanations';

/**
 * Karpenter's own word on a node beside the engine's decision (the why-not table): the newest explanation Karpenter
 * wrote for the node in the hour up to the snapshot, and whether the two disagree. A disagreement is a finding
 * (Karpenter saw a budget, a price or a score the engine did not, or the other way round), not an error. Pure.
 */

/** How far before the snapshot an explanation still speaks for the node. */
export const SAID_WINDOW_MS = 60 * 60 * 1000;

/** The query for the explanations that can speak for a snapshot taken at `snapshotAt` (ISO). */
export function saidRange(snapshotAt: string): { from: string; to: string } {
  const t = Date.parse(snapshotAt);
  return { from: new Date(t - SAID_WINDOW_MS).toISOString(), to: new Date(t + 1).toISOString() };
}

/** Per node name, the newest explanation (rows come oldest first). */
export function newestPerNode(rows: readonly KarpenterExplanationRow[]): Map<string, KarpenterExplanationRow> {
  const out = new Map<string, KarpenterExplanationRow>();
  for (const r of rows) if (r.nodeName !== null) out.set(r.nodeName, r);
  return out;
}

export type EngineDecision = 'delete' | 'replace' | 'keep';
const ENGINE_WORD: Record<EngineDecision, string> = { delete: 'deletable', replace: 'replaceable', keep: 'keep' };

/** Karpenter would consolidate the node (it approved or named it a candidate) or keeps it (rejected, unconsolidatable). */
const karpenterMoves = (r: KarpenterExplanationRow): boolean => r.kind === 'approved' || r.kind === 'candidate';

/**
 * Null when they agree; else the sentence: "Karpenter: ConsolidationRejected (budget) · engine: deletable".
 * They agree when both keep the node, or both move it the same way (an approval names no method: any move agrees).
 */
export function disagreement(r: KarpenterExplanationRow, engine: EngineDecision): string | null {
  const moves = karpenterMoves(r);
  if (!moves && engine === 'keep') return null;
  if (moves && engine !== 'keep' && (r.decision === null || r.decision === engine)) return null;
  const said = r.kind === 'rejected' && r.score === null ? `ConsolidationRejected (${r.rejection ?? 'unknown'})` : r.said;
  return `Karpenter: ${said} · engine: ${ENGINE_WORD[engine]}`;
}
