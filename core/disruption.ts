/**
 * A disruption as core/karpenter/disruptions.ts builds it from Karpenter's events and NodeClaims and the collector
 * keeps it in the database. Times: epoch ms UTC.
 */
export interface Disruption {
  /** `<atMs>-<nodeclaim or node name>`. */
  id: string;
  atMs: number;
  nodeName: string | null;
  nodeClaim: string | null;
  nodePool: string;
  /** Underutilized | Empty | Drifted | Expired | Interrupted; 'Unrecognised' for a wording no release wrote; '' when blocked. */
  reason: string;
  /** Delete | Replace | Blocked; null when what happened is not known (only the NodeClaim's conditions tell). */
  action: string | null;
  /** event: from stored events; nodeclaim: a NodeClaim gone without a stored event (from its conditions or age). */
  source: 'event' | 'nodeclaim';
  spotInterrupted: boolean;
  instanceType: string | null;
  capacityType: string | null;
  nodeDeletedAtMs: number | null;
  /** NodeClaims launched in the same decision, sorted. */
  replacements: string[];
  /** The Node event's message (for blocked attempts: why), or what the NodeClaim showed. */
  message: string;
  blocked: boolean;
  /** The ledger's cluster (clusters.id) it happened in, once kept; absent while being built. */
  clusterId?: number;
}

/** What a timeline marker is made of (the kept disruptions are read as just this). */
export type MarkerSource = Pick<Disruption, 'id' | 'atMs' | 'nodePool' | 'reason' | 'action' | 'clusterId'>;

/**
 * The disruptions of one bucket x cluster x NodePool x reason, counted: its first (by time, then as built) as a marker
 * source, how many it holds, and the time of its last.
 */
export type MarkerGroup = MarkerSource & { count: number; lastAtMs: number };

/** Which disruptions a list shows: kind (disruptions, blocked attempts or both), NodePool, reason; and the page. */
export interface DisruptionPageQuery {
  fromMs: number;
  toMs: number;
  kind: 'disruption' | 'blocked' | 'all';
  nodePool?: string;
  reason?: string;
  /** One cluster's (clusters.id); null or absent: every cluster's. */
  clusterId?: number | null;
  /** Rows to skip and rows to give; limit null: every row. */
  offset: number;
  limit: number | null;
}
