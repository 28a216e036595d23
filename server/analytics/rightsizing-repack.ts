import { prepare, provision, podsToProvision, type EngineInput } from '../../core/karpenter/scheduling/index.js';
import type { CatalogueEntry } from '../../core/karpenter/scheduling/catalogue.js';
import { HOURS_PER_MONTH } from '../../core/usage-efficiency.js';
import { workloadOf } from '../../core/usage.js';
import type { StoredSnapshot, StoredSnapshotPod } from '../../db/repositories/stored-snapshot-repository.js';
import { snapshotToEngineInput, type RequestsOf } from './snapshot-to-engine.js';

/**
 * The dollar effect of right-sized requests through the scheduling engine: a NodePool's pods at a snapshot re-packed
 * from scratch (Karpenter's provisioning, as `provision(ctx, { pods, destinations: [] })`) twice, with the current
 * requests and with the recommended ones. The same method on both sides, so the difference in nodes and USD is the
 * recommendation's effect, not the gap between today's packing and an ideal one. Pure.
 */

export interface RepackResult {
  nodes: number;
  usdPerHour: number;
  /** Pods no NodeClaim could take (too big for every type the NodePool allows, say). */
  unschedulable: number;
}

/** One re-pack from scratch: every pod of the input placed on new NodeClaims. */
export function repack(input: EngineInput): RepackResult {
  const ctx = prepare(input);
  const out = provision(ctx, { pods: podsToProvision(ctx), destinations: [] });
  return {
    nodes: out.nodeClaims.length,
    usdPerHour: out.nodeClaims.reduce((s, c) => s + c.launch.usdPerHour, 0),
    unschedulable: out.unschedulable.length,
  };
}

/** Per replica, what a workload's containers change: Σ over its containers of recommended − current. */
export interface WorkloadRequestDelta {
  /** `namespace/kind/name` (workloadRef). */
  workload: string;
  cpuMillicores: number;
  memoryBytes: number;
}

export const workloadRef = (namespace: string, kind: string, name: string): string => `${namespace}/${kind}/${name}`;

/** Each pod's stored requests plus its workload's delta (never below zero). */
export function rightsizedRequests(deltas: readonly WorkloadRequestDelta[]): RequestsOf {
  const byWorkload = new Map(deltas.map((d) => [d.workload, d]));
  return (p: StoredSnapshotPod) => {
    const w = workloadOf({ name: p.name, ownerKind: p.ownerKind, ownerName: p.ownerName, labels: p.labels });
    const d = byWorkload.get(workloadRef(p.namespace, w.kind, w.name));
    return {
      cpuMillicores: Math.max(0, p.reqCpuMillicores + (d?.cpuMillicores ?? 0)),
      memoryBytes: Math.max(0, p.reqMemoryBytes + (d?.memoryBytes ?? 0)),
    };
  };
}

export interface RepackEffect {
  nodePool: string;
  pods: number;
  before: RepackResult;
  after: RepackResult;
  /** (after − before) USD/hour × 730; negative saves. Null when either re-pack left a pod out (not comparable). */
  monthlyEffectUsd: number | null;
  nodesDelta: number;
}

/** The NodePool re-packed with its current requests (`before`, pass it again to save a re-pack) and with `deltas` applied. */
export function repackEffect(
  s: StoredSnapshot,
  catalogue: readonly CatalogueEntry[],
  nodePool: string,
  deltas: readonly WorkloadRequestDelta[],
  before?: RepackResult,
): RepackEffect {
  const base = before ?? repack(snapshotToEngineInput(s, catalogue, { nodePool, unbound: true }));
  const after = repack(snapshotToEngineInput(s, catalogue, { nodePool, unbound: true, requestsOf: rightsizedRequests(deltas) }));
  const comparable = base.unschedulable === 0 && after.unschedulable === 0;
  const nodeNames = new Set(s.nodes.filter((n) => n.nodePool === nodePool).map((n) => n.name));
  return {
    nodePool,
    pods: s.pods.filter((p) => nodeNames.has(p.nodeName)).length,
    before: base,
    after,
    monthlyEffectUsd: comparable ? (after.usdPerHour - base.usdPerHour) * HOURS_PER_MONTH : null,
    nodesDelta: after.nodes - base.nodes,
  };
}
