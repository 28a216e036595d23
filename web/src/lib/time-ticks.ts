/** Time-axis ticks on round UTC times, shared by every time chart. */
import { DAY_MS, HOUR_MS } from './time';

const TICK_STEPS_MS = [HOUR_MS, 3 * HOUR_MS, 6 * HOUR_MS, 12 * HOUR_MS, DAY_MS, 2 * DAY_MS, 7 * DAY_MS, 14 * DAY_MS, 28 * DAY_MS];

/** Time ticks: hours for a range up to two days, days beyond. */
export const showsHourTicks = (fromMs: number, toMs: number): boolean => toMs - fromMs <= 2 * DAY_MS;

/**
 * Axis ticks on round UTC times (midnights for day steps), at most `maxTicks`, so labels never repeat
 * a day. The step is the smallest of 1, 3, 6, 12 h, 1, 2, 7, 14, 28 days that fits.
 */
export function timeTicks(fromMs: number, toMs: number, maxTicks = 12): number[] {
  const span = toMs - fromMs;
  if (!(span > 0)) return [];
  const step = TICK_STEPS_MS.find((s) => span / s <= maxTicks) ?? Math.ceil(span / maxTicks / DAY_MS) * DAY_MS;
  const ticks: number[] = [];
  for (let t = Math.ceil(fromMs / step) * step; t <= toMs; t += step) ticks.push(t);
  return ticks;
}
