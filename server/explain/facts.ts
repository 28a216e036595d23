import type { Disruption } from '../../core/karpenter/disruptions.js';
import type { BillLine } from '../schemas/bill.js';
import type { PricePoint } from './price-timeline.js';
import type { NodeSelectorRequirement } from '../../core/karpenter/requirements.js';

/**
 * What the explainer reads: rows from the store turned into plain facts by the bill service. Times are epoch ms
 * UTC, cpu in millicores, memory in bytes. Nothing here does I/O.
 */

/** A bill line with its period as numbers and the time the bill was read. */
export interface LineFact extends BillLine {
  periodStartMs: number;
  periodEndMs: number;
  /** Usage after this time cannot be in the line (when it was fetched); null when unknown (imports). */
  billAsOfMs: number | null;
}

export interface ResourceFact {
  cpuMillicores: number;
  memoryBytes: number;
  pods: number;
}

export interface NodeFact {
  name: string;
  nodeClaim: string | null;
  /** null: not launched by Karpenter (no karpenter.sh/nodepool tag on the instance). */
  nodePool: string | null;
  instanceType: string;
  capacityType: string;
  zone: string;
  instanceId: string | null;
  /** When billing starts: the NodeClaim's creation where known (it precedes the Node's), else the Node's. */
  launchedAtMs: number;
  /** First and last snapshot that saw it. */
  firstSeenMs: number;
  lastSeenMs: number;
  /** First snapshot where it was gone; null while it runs. The deletion happened in (lastSeenMs, deletedAtMs]. */
  deletedAtMs: number | null;
  /** The NodeClaim's recorded disruption reason, if any. */
  disruptionReason: string | null;
  allocatable: ResourceFact;
  labels: Record<string, string>;
}

export interface NodePoolFact {
  name: string;
  capacityTypes: string[];
  requirements: NodeSelectorRequirement[];
}

export interface LaunchPod {
  namespace: string;
  name: string;
  ownerKind: string | null;
  cpuMillicores: number;
  memoryBytes: number;
}

/** The node at its first snapshot: the pods it was launched for and their summed effective requests. */
export interface LaunchFact {
  observedAtMs: number;
  pods: LaunchPod[];
  /** Σ effective requests of its running pods then (the snapshot's own sum, DaemonSets included). */
  requested: ResourceFact;
}

export interface EventFact {
  atMs: number;
  reason: string;
  message: string;
  /** Node | NodeClaim */
  kind: string;
  name: string;
}

export interface InstanceTypeFact {
  name: string;
  labels: Readonly<Record<string, string>>;
  allocatable: ResourceFact;
}

export type TagStatus = 'active' | 'inactive' | 'unknown';

export interface ExplainContext {
  /** Nodes whose lives overlap the periods asked about (any NodePool: the untagged line may need them all). */
  nodes: NodeFact[];
  nodePools: ReadonlyMap<string, NodePoolFact>;
  launches: ReadonlyMap<string, LaunchFact>;
  /** Karpenter's lifecycle events around those nodes' launches and removals, sorted by time: listed as they are, not read. */
  events: EventFact[];
  /**
   * The kept disruptions around those nodes, the rows the Consolidation page lists (core/karpenter/disruptions.ts):
   * why each NodeClaim went, what replaced it, what it replaced. Sorted by time.
   */
  disruptions: Disruption[];
  /**
   * Price history of a node's market, sorted by time (spot: its zone; on-demand and reserved: the type), as far as
   * it prices the context's window: from the point in effect at its start (else the market's first) to its end.
   */
  prices: (node: Pick<NodeFact, 'capacityType' | 'instanceType' | 'zone'>) => PricePoint[];
  /**
   * Reference instance types (labels and allocatable), to name the next smaller type a NodePool admits, and the
   * label keys they carry (a requirement on any other key says nothing about the type). core/instance-catalog.ts.
   */
  catalog: { types: ReadonlyMap<string, InstanceTypeFact>; labelKeys: ReadonlySet<string> };
  coverage: {
    firstSnapshotMs: number | null;
    lastSnapshotMs: number | null;
    /** Typical gap between snapshots (the collection step). */
    snapshotIntervalMs: number;
  };
  /** Is karpenter.sh/nodepool an active cost allocation tag (ListCostAllocationTags)? */
  nodePoolTag: TagStatus;
}
