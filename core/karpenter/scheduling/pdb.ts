import { parseGoDurationMs } from './duration.js';
import { naming } from './errors.js';
import type { KubePodDisruptionBudget } from './kube-types.js';
import { compileSelector, type LabelMatcher } from './label-selector.js';
import { isActive, isOwnedByNode, type SchedPod } from './pods.js';
import { DISRUPTED_TAINT, toleratesAll } from './taints.js';
import { ANNOTATION_DO_NOT_DISRUPT } from './well-known.js';

/** A PodDisruptionBudget as Karpenter's pkg/utils/pdb reads it. */
export interface PdbLimit {
  /** "namespace/name" */
  key: string;
  namespace: string;
  selector: LabelMatcher;
  disruptionsAllowed: number;
  /** maxUnavailable 0 / "0%" or minAvailable "100%": no pod may ever be evicted. */
  fullyBlocking: boolean;
  alwaysAllowUnhealthy: boolean;
}

function scaled(value: string | number, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  const m = /^(\d+)%$/.exec(value);
  if (!m) {
    if (/^\d+$/.test(value)) return Number(value);
    throw new Error(`"${value}" is neither a count nor a percentage`);
  }
  const v = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(v) : Math.floor(v);
}

/**
 * Reads a PDB. Its status.disruptionsAllowed is used when present (as Karpenter does); otherwise it is computed
 * from the spec and the pods it selects the way the disruption controller would (healthy = running and not
 * NotReady).
 */
export function normalizePdb(pdb: KubePodDisruptionBudget, pods: readonly SchedPod[]): PdbLimit {
  const ns = pdb.metadata?.namespace ?? 'default';
  const key = `${ns}/${pdb.metadata?.name}`;
  return naming(`PodDisruptionBudget ${key}`, () => {
    if (!pdb.metadata?.name) throw new Error('metadata.name is missing');
    const selector = compileSelector(pdb.spec?.selector);
    const spec = pdb.spec ?? {};
    const maxU = spec.maxUnavailable;
    const minA = spec.minAvailable;
    let allowed = pdb.status?.disruptionsAllowed;
    if (allowed === undefined) {
      const selected = pods.filter((p) => p.namespace === ns && selector.matches(p.labels) && isActive(p));
      const expected = selected.length;
      const healthy = selected.filter((p) => p.nodeName !== null && p.phase === 'Running' && !p.notReady).length;
      let desired = expected;
      if (minA !== undefined) desired = scaled(minA, expected, true);
      else if (maxU !== undefined) desired = expected - scaled(maxU, expected, true);
      allowed = Math.max(0, healthy - desired);
    }
    return {
      key,
      namespace: ns,
      selector,
      disruptionsAllowed: allowed,
      fullyBlocking: maxU === 0 || maxU === '0' || maxU === '0%' || minA === '100%',
      alwaysAllowUnhealthy: spec.unhealthyPodEvictionPolicy === 'AlwaysAllow',
    };
  });
}

/**
 * Karpenter's pod.IsDoNotDisruptActive: "true", or (v1.12.0+, `durations`) a duration not yet elapsed since the pod
 * started (a pod with no start time is protected; an unparseable or non-positive value protects nothing). Before
 * v1.12.0 only "true" protects (pod.HasDoNotDisrupt).
 */
export function doNotDisruptActive(pod: SchedPod, now: number, durations = true): boolean {
  const v = pod.annotations[ANNOTATION_DO_NOT_DISRUPT];
  if (v === undefined) return false;
  if (v === 'true') return true;
  if (!durations) return false;
  let ms: number | null;
  try {
    ms = parseGoDurationMs(v);
  } catch {
    return false;
  }
  if (ms === null || ms <= 0) return false;
  if (pod.startTime === null) return true;
  return now - pod.startTime < ms;
}

/** Karpenter's pod.IsEvictable: the pods a drain would call the eviction API for. */
export const isEvictable = (p: SchedPod, now: number, durations = true) =>
  isActive(p) && !toleratesAll([DISRUPTED_TAINT], p.constraints.tolerations) && !isOwnedByNode(p) && !doNotDisruptActive(p, now, durations);

export class PdbLimits {
  constructor(
    private readonly pdbs: readonly PdbLimit[],
    /** do-not-disrupt durations are read (Karpenter v1.12.0+). */
    private readonly durations = true,
  ) {}

  private matching(p: SchedPod): PdbLimit[] {
    return this.pdbs.filter((b) => b.namespace === p.namespace && b.selector.matches(p.labels));
  }

  /** The PDB(s) stopping one of these pods being evicted now, or null (Karpenter's CanEvictPods). */
  blocking(pods: readonly SchedPod[], now: number, mode: 'zero-disruptions' | 'fully-blocking' = 'zero-disruptions'): string[] | null {
    for (const p of pods) {
      const keys = this.blockingOne(p, now, mode);
      if (keys) return keys;
    }
    return null;
  }

  private blockingOne(p: SchedPod, now: number, mode: 'zero-disruptions' | 'fully-blocking'): string[] | null {
    if (!isEvictable(p, now, this.durations)) return null;
    const m = this.matching(p);
    // the eviction API refuses a pod covered by more than one PDB
    if (m.length > 1) return m.map((b) => b.key).sort();
    for (const b of m) {
      // an unhealthy pod may always be evicted under AlwaysAllow
      if (b.alwaysAllowUnhealthy && p.notReady) return null;
      if (mode === 'zero-disruptions' ? b.disruptionsAllowed === 0 : b.fullyBlocking) return [b.key];
    }
    return null;
  }

  /** Karpenter's IsCurrentlyReschedulable (less IsReschedulable, checked by the caller): not held by do-not-disrupt or a fully blocking PDB. */
  heldInPlace(p: SchedPod, now: number): boolean {
    return (isActive(p) && doNotDisruptActive(p, now, this.durations)) || this.blockingOne(p, now, 'fully-blocking') !== null;
  }
}
