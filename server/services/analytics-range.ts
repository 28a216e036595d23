import type { DataExtent } from '../analytics/range.js';
import { parseInstant, resolveRange } from '../analytics/range.js';

/** What the analytics services need to turn from / to into a range: the data's extent and a clock. */
export interface RangeContext {
  extent: () => DataExtent;
  now: () => number;
}

export interface ResolvedRange {
  fromMs: number;
  toMs: number;
  nodePool: string | undefined;
  /** One cluster (clusters.id), or null: every cluster of the ledger. */
  clusterId: number | null;
}

/** from / to / nodepool of a query as a range (defaults as the overview's: 14 days up to the newest data). */
export function rangeOf(
  ctx: RangeContext,
  q: { from?: string; to?: string; nodepool?: string },
  clusterId: number | null = null,
): ResolvedRange {
  const { fromMs, toMs } = resolveRange(q, ctx.extent(), ctx.now());
  return { fromMs, toMs, nodePool: q.nodepool, clusterId };
}

/** An optional instant parameter (e.g. `at`), or undefined. */
export const optionalInstant = (param: string, value: string | undefined): number | undefined =>
  value === undefined ? undefined : parseInstant(param, value);

/** A 404 with a message, for an id that names nothing (the error handler passes 4xx messages through). */
export class NotFoundError extends Error {
  readonly statusCode = 404;
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}
