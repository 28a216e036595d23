/** A disruption as the analytics build it from events and NodeClaim lifetimes and the database keeps it. Times: epoch ms UTC. */
export interface Disruption {
  id: string;
  atMs: number;
  nodeName: string | null;
  nodeClaim: string | null;
  nodePool: string;
  reason: string;
  action: string | null;
  source: 'event' | 'nodeclaim';
  spotInterrupted: boolean;
  instanceType: string | null;
  capacityType: string | null;
  nodeDeletedAtMs: number | null;
  replacements: string[];
  message: string;
  blocked: boolean;
}

/** What a timeline marker is made of (the kept disruptions are read as just this). */
export type MarkerSource = Pick<Disruption, 'id' | 'atMs' | 'nodePool' | 'reason' | 'action'>;

/** Which disruptions a list shows: kind (disruptions, blocked attempts or both), NodePool, reason; and the page. */
export interface DisruptionPageQuery {
  fromMs: number;
  toMs: number;
  kind: 'disruption' | 'blocked' | 'all';
  nodePool?: string;
  reason?: string;
  /** Rows to skip and rows to give; limit null: every row. */
  offset: number;
  limit: number | null;
}
