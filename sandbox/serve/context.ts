import type { IncomingHttpHeaders } from 'node:http';
import type { Partition } from '../../core/partitions.js';
import type { EpochMs, Scenario } from '../scenario/types.js';
import type { StsSession } from './sts.js';

/** The simulated "now": the seeding driver advances it; every API answers as of this time. */
export class SandboxClock {
  private readonly listeners = new Set<(from: EpochMs, to: EpochMs) => void>();
  constructor(private t: EpochMs) {}
  now(): EpochMs {
    return this.t;
  }
  /** Moves the clock; watchers hear of it at once (they stream what changed in between). */
  set(t: EpochMs): void {
    const from = this.t;
    this.t = t;
    if (from !== t) for (const l of [...this.listeners]) l(from, t);
  }
  onChange(listener: (from: EpochMs, to: EpochMs) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** A long-lived streamed answer (a Kubernetes watch): `open` starts writing and returns how to stop. */
export interface SandboxStream {
  status: number;
  headers: Record<string, string>;
  open(write: (chunk: string) => void, end: () => void): () => void;
}

export const isStream = (r: SandboxResponse | SandboxStream): r is SandboxStream => 'open' in r;

export interface SandboxRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface SandboxResponse {
  status: number;
  headers: Record<string, string>;
  /** Text (JSON, XML) or bytes (an S3 object). */
  body: string | Buffer;
}

/** Faults a test can inject: the next N matching requests fail with `status` (throttling, 5xx, 410). */
export interface FaultRule {
  /** Matches the AWS operation name (e.g. GetCostAndUsage) or a Kubernetes path prefix. */
  match: string;
  status: number;
  remaining: number;
  /** Kubernetes faults only: a Retry-After header to send with it (seconds, or an HTTP-date). */
  retryAfter?: string;
}

export interface SandboxContext {
  scenario: Scenario;
  /**
   * Other clusters billed to the same account (the sandbox's second cluster): Cost Explorer's lines carry theirs
   * beside the scenario's, each tagged with its own cluster name, as one account's bill does. Absent: none.
   */
  billedClusters?: Scenario[];
  clock: SandboxClock;
  /**
   * Every request served, by protocol operation: for tests and request counting. AWS requests also carry the
   * region they were signed for, which names the endpoint a real client would have called.
   */
  requestLog: { at: EpochMs; operation: string; region?: string }[];
  faults: FaultRule[];
  /**
   * The partition an access key id belongs to (a test giving the account a second set of credentials, e.g. the
   * standard account that pays a GovCloud account's bill); keys not listed belong to the scenario's partition.
   */
  credentialPartitions?: Record<string, Partition>;
  /** The temporary sessions STS AssumeRole issued, by access key id (sandbox/serve/sts.ts). */
  stsSessions?: Map<string, StsSession>;
}

/** A protocol adapter: answers the request, or returns null when it is not its protocol. */
export type SandboxHandler = (req: SandboxRequest, ctx: SandboxContext) => SandboxResponse | SandboxStream | null;

export const json = (status: number, value: unknown, contentType = 'application/json'): SandboxResponse => ({
  status,
  headers: { 'content-type': contentType },
  body: JSON.stringify(value),
});
