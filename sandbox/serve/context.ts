import type { IncomingHttpHeaders } from 'node:http';
import type { EpochMs, Scenario } from '../scenario/types';

/** The simulated "now": the seeding driver advances it; every API answers as of this time. */
export class SandboxClock {
  constructor(private t: EpochMs) {}
  now(): EpochMs {
    return this.t;
  }
  set(t: EpochMs): void {
    this.t = t;
  }
}

export interface SandboxRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface SandboxResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Faults a test can inject: the next N matching requests fail with `status` (throttling, 5xx, 410). */
export interface FaultRule {
  /** Matches the AWS operation name (e.g. GetCostAndUsage) or a Kubernetes path prefix. */
  match: string;
  status: number;
  remaining: number;
}

export interface SandboxContext {
  scenario: Scenario;
  clock: SandboxClock;
  /** Every request served, by protocol operation: for tests and request counting. */
  requestLog: { at: EpochMs; operation: string }[];
  faults: FaultRule[];
}

/** A protocol adapter: answers the request, or returns null when it is not its protocol. */
export type SandboxHandler = (req: SandboxRequest, ctx: SandboxContext) => SandboxResponse | null;

export const json = (status: number, value: unknown, contentType = 'application/json'): SandboxResponse => ({
  status,
  headers: { 'content-type': contentType },
  body: JSON.stringify(value),
});
