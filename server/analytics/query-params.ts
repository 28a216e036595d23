/** Parsing of the analytics query parameters the schemas cannot check alone (pure, no I/O). */

import type { ShareWeights } from './packing.js';
import { QueryParamError } from './range.js';
import { parseGoDuration } from '../../core/duration.js';
import { HOUR_MS, MINUTE_MS } from '../../core/time.js';

export const MIN_WINDOW_MS = 5 * MINUTE_MS;
export const MAX_WINDOW_MS = 24 * HOUR_MS;

/** "30m" / "1h" (a Go duration, as the schema's pattern admits them) -> ms, between 5 minutes and 24 hours. */
export function parseWindow(param: string, value: string): number {
  const ms = parseGoDuration(value);
  if (ms === null) throw new QueryParamError(param, `"${value}" is not a duration like 30m or 1h`);
  if (ms < MIN_WINDOW_MS || ms > MAX_WINDOW_MS) throw new QueryParamError(param, `"${value}" must be from 5m to 24h`);
  return ms;
}

/** "0.7,0.3" -> { cpu: 0.7, memory: 0.3 }; the two must add up to 1. */
export function parseWeights(param: string, value: string): ShareWeights {
  const parts = value.split(',').map(Number);
  if (parts.length !== 2 || parts.some((x) => !Number.isFinite(x) || x < 0 || x > 1)) {
    throw new QueryParamError(param, `"${value}" must be two numbers from 0 to 1 for cpu and memory, like 0.5,0.5`);
  }
  const [cpu, memory] = parts;
  if (Math.abs(cpu + memory - 1) > 1e-9) throw new QueryParamError(param, `"${value}" must add up to 1 (got ${cpu + memory})`);
  return { cpu, memory };
}

/** The epoch ms of an event id `<atMs>-<name>`. */
export function eventIdTime(param: string, id: string): number {
  const m = /^([0-9]{1,16})-/.exec(id);
  const ms = m === null ? Number.NaN : Number(m[1]);
  if (!Number.isSafeInteger(ms)) throw new QueryParamError(param, `"${id}" is not an event id like 1793523600000-general-5xzjd`);
  return ms;
}
