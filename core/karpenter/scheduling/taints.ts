/** Taints and tolerations with Kubernetes' matching rule, as Karpenter's pkg/scheduling/taints.go applies it. */

export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

export interface Toleration {
  key?: string;
  /** "Equal" (the default) or "Exists". */
  operator?: string;
  value?: string;
  effect?: string;
}

/** Kubernetes' Toleration.ToleratesTaint. */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  const op = t.operator ?? 'Equal';
  if (op === 'Exists') return true;
  if (op === 'Equal') return (t.value ?? '') === (taint.value ?? '');
  return false;
}

export const formatTaint = (t: Taint): string => (t.value ? `${t.key}=${t.value}:${t.effect}` : `${t.key}:${t.effect}`);

/** The taints none of the tolerations tolerate; empty when all are tolerated. Every effect counts, as in Karpenter. */
export function untoleratedTaints(taints: readonly Taint[], tolerations: readonly Toleration[]): Taint[] {
  const out: Taint[] = [];
  for (const taint of taints) if (!tolerations.some((t) => toleratesTaint(t, taint))) out.push(taint);
  return out;
}

export const toleratesAll = (taints: readonly Taint[], tolerations: readonly Toleration[]): boolean =>
  taints.every((taint) => tolerations.some((t) => toleratesTaint(t, taint)));

/** Karpenter's message for untolerated taints. */
export const taintsMessage = (taints: readonly Taint[]): string =>
  taints.map((t) => `did not tolerate taint (taint=${formatTaint(t)})`).join('; ');

/** Karpenter's DisruptedNoScheduleTaint: a pod tolerating it is not evicted on disruption. */
export const DISRUPTED_TAINT: Taint = { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' };
