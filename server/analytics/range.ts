import { DAY_MS } from '../../core/time.js';
/** Pure parsing of the `from` / `to` query parameters into a UTC time range. No I/O. */

/** A query parameter that passed the schema but means nothing usable (e.g. 2026-02-30, to before from). */
export class QueryParamError extends Error {
  constructor(
    readonly param: string,
    readonly detail: string,
  ) {
    super(`${param}: ${detail}`);
    this.name = 'QueryParamError';
  }
}

export const DEFAULT_RANGE_DAYS = 14;
export const MAX_RANGE_DAYS = 731;

export const dayFloor = (ms: number): number => Math.floor(ms / DAY_MS) * DAY_MS;
export const dayCeil = (ms: number): number => Math.ceil(ms / DAY_MS) * DAY_MS;
/** YYYY-MM-DD of the UTC day holding `ms`. */
export const utcDay = (ms: number): string => new Date(dayFloor(ms)).toISOString().slice(0, 10);
export const isoInstant = (ms: number): string => new Date(ms).toISOString();

/**
 * Parses an ISO 8601 date (UTC midnight) or date-time with a zone to epoch ms, rejecting calendar
 * dates that do not exist (Date.parse takes 2026-02-30 as 2 March).
 */
export function parseInstant(param: string, value: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  const ms = Date.parse(value);
  if (m === null || Number.isNaN(ms)) throw new QueryParamError(param, `"${value}" is not a valid date or date-time`);
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const check = new Date(Date.UTC(y, mo - 1, d));
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) {
    throw new QueryParamError(param, `"${value}" is not a calendar date`);
  }
  return ms;
}

export interface DataExtent {
  lastSnapshotMs: number | null;
  /** UTC day start of the newest Cost Explorer day. */
  lastCostDayMs: number | null;
}

/** The UTC midnight after the newest data point (snapshot or bill day); with no data, after `nowMs`. */
export function defaultEndMs(extent: DataExtent, nowMs: number): number {
  const ends = [
    extent.lastSnapshotMs === null ? null : dayFloor(extent.lastSnapshotMs) + DAY_MS,
    extent.lastCostDayMs === null ? null : dayFloor(extent.lastCostDayMs) + DAY_MS,
  ].filter((x): x is number => x !== null);
  return ends.length > 0 ? Math.max(...ends) : dayFloor(nowMs) + DAY_MS;
}

/**
 * [fromMs, toMs) from the query. Missing `to`: the UTC midnight after the newest data. Missing
 * `from`: 14 days before `to`. `from` must be before `to`, and the span at most 731 days.
 */
export function resolveRange(query: { from?: string; to?: string }, extent: DataExtent, nowMs: number): { fromMs: number; toMs: number } {
  const toMs = query.to === undefined ? defaultEndMs(extent, nowMs) : parseInstant('to', query.to);
  const fromMs = query.from === undefined ? toMs - DEFAULT_RANGE_DAYS * DAY_MS : parseInstant('from', query.from);
  if (fromMs >= toMs) {
    throw new QueryParamError(
      query.to === undefined ? 'from' : 'to',
      `must have from (${isoInstant(fromMs)}) before to (${isoInstant(toMs)})`,
    );
  }
  if (toMs - fromMs > MAX_RANGE_DAYS * DAY_MS) {
    throw new QueryParamError('from', `the range may span at most ${MAX_RANGE_DAYS} days`);
  }
  return { fromMs, toMs };
}
