import { parseCalendarDuration } from './duration.js';
import { DAY_MS, HOUR_MS, WEEK_MS } from './time.js';

/**
 * How long the ledger keeps what (issue 24), pure: the two settings, their parsing and checks, and the instants they
 * cut at. The 5-minute rows (snapshots, per node, usage) are kept `raw` behind now, then folded into hourly rows;
 * hourly rows are kept `hourly` behind now, then folded into daily rows (time-weighted, as the hourly fold);
 * everything (hourly rows, rollups, events, disruptions, bills, CUR, prices) is kept `keep` behind now.
 */

/** A length of time as a person types it: fixed (`14d`, `36h`, `2w`) or calendar months (`13mo`, `1y`). */
export interface RetentionPeriod {
  /** As typed, e.g. "14d". */
  text: string;
  /** Fixed length in ms, or 0 for a period of months. */
  ms: number;
  /** Calendar months (12 per year), or 0 for a fixed period. */
  months: number;
}

export const DEFAULT_RAW_RETENTION = '14d';
export const DEFAULT_RETENTION = '13mo';
/** Hourly rows older than this are folded into one per UTC day (issue 24: a 13-month store at the envelope in 4 GB). */
export const DEFAULT_HOURLY_RETENTION = '30d';
/** An hour is folded once it is over and its usage rolled up: raw rows must outlive it by an hour at least. */
export const MIN_RAW_RETENTION_MS = 2 * HOUR_MS;
/** Less than a day would leave no day whole for the bill to compare with. */
export const MIN_RETENTION_MS = 24 * HOUR_MS;

const MONTHS = /^([1-9][0-9]{0,3})(mo|y)$/;
/** For comparing a period of months with a fixed one: the mean Gregorian month. */
const MEAN_MONTH_MS = (365.2425 / 12) * 24 * HOUR_MS;

/** "13mo", "1y", "14d", "36h", "2w", "1d12h"; null when the text is none of these (or not longer than nothing). */
export function parseRetentionPeriod(text: string): RetentionPeriod | null {
  const t = text.trim();
  const m = MONTHS.exec(t);
  if (m !== null) return { text: t, ms: 0, months: Number(m[1]) * (m[2] === 'y' ? 12 : 1) };
  const ms = parseCalendarDuration(t);
  if (ms === null || !Number.isSafeInteger(ms) || ms <= 0) return null;
  return { text: t, ms, months: 0 };
}

/** The period's length in ms (months at their mean length): for ordering two periods, never for cutting. */
export const approxMs = (p: RetentionPeriod): number => p.ms + p.months * MEAN_MONTH_MS;

/** `nowMs` less the period: months by the UTC calendar (13 months before 31 March is 28 or 29 February). */
export function periodStartMs(nowMs: number, p: RetentionPeriod): number {
  if (p.months === 0) return nowMs - p.ms;
  const d = new Date(nowMs);
  const y = d.getUTCFullYear();
  const monthIndex = d.getUTCMonth() - p.months;
  const first = Date.UTC(y, monthIndex, 1);
  const daysInMonth = new Date(Date.UTC(y, monthIndex + 1, 0)).getUTCDate();
  const day = Math.min(d.getUTCDate(), daysInMonth);
  return first + (day - 1) * 24 * HOUR_MS + (nowMs - Date.UTC(y, d.getUTCMonth(), d.getUTCDate()));
}

export interface RetentionSettings {
  raw: RetentionPeriod;
  keep: RetentionPeriod;
  hourly: RetentionPeriod;
}

export class RetentionSettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RetentionSettingError';
  }
}

/**
 * The two settings from their texts (a missing one takes its default), checked: each a period, the raw one at
 * least 2 hours, the kept one at least a day, and raw not longer than kept. Errors name the flag.
 */
export function retentionSettings(raw: string | undefined, keep: string | undefined, hourly?: string): RetentionSettings {
  const rawText = raw ?? DEFAULT_RAW_RETENTION;
  const keepText = keep ?? DEFAULT_RETENTION;
  const r = parseRetentionPeriod(rawText);
  if (r === null) throw new RetentionSettingError(`--raw-retention must be a length of time like 14d, 36h or 2w, got "${rawText}"`);
  const k = parseRetentionPeriod(keepText);
  if (k === null) throw new RetentionSettingError(`--retention must be a length of time like 13mo, 1y, 400d or 8w, got "${keepText}"`);
  if (approxMs(r) < MIN_RAW_RETENTION_MS)
    throw new RetentionSettingError(
      `--raw-retention must be at least 2h (an hour is folded once it is over and its usage rolled up), got "${rawText}"`,
    );
  if (approxMs(k) < MIN_RETENTION_MS) throw new RetentionSettingError(`--retention must be at least 1d, got "${keepText}"`);
  if (approxMs(r) > approxMs(k))
    throw new RetentionSettingError(
      `--raw-retention (${rawText}) must not be longer than --retention (${keepText}): 5-minute rows are folded into hourly ones, never kept past the hourly ones`,
    );
  // Not given: 30 days (issue 24: 90 left the 13-month envelope store over 4 GB), or the raw retention when that is
  // longer (5-minute rows then fold straight on to days).
  const defaultHourly = parseRetentionPeriod(DEFAULT_HOURLY_RETENTION) as RetentionPeriod;
  const hourlyText = hourly ?? (approxMs(r) > approxMs(defaultHourly) ? rawText : DEFAULT_HOURLY_RETENTION);
  const hr = parseRetentionPeriod(hourlyText);
  if (hr === null) throw new RetentionSettingError(`--hourly-retention must be a length of time like 90d, 3mo or 12w, got "${hourlyText}"`);
  if (approxMs(hr) < approxMs(r))
    throw new RetentionSettingError(
      `--hourly-retention (${hourlyText}) must not be shorter than --raw-retention (${rawText}): hourly rows are folded from the 5-minute ones`,
    );
  return { raw: r, keep: k, hourly: hr };
}

/**
 * Where the hourly rows end: hourly snapshots taken before this UTC day are folded into daily ones. Never past the
 * day holding the raw boundary (the hourly fold's limit), so a day is folded only once all its hours are.
 */
export function hourlyBoundaryMs(nowMs: number, hourly: RetentionPeriod, rawLimitMs: number): number {
  return Math.floor(Math.min(periodStartMs(nowMs, hourly), rawLimitMs) / DAY_MS) * DAY_MS;
}

/**
 * Where the 5-minute rows end: snapshots taken before this UTC hour are folded into hourly ones. Never past the hour of
 * the newest snapshot, so the newest (which stands for no time yet) and its hour stay as taken.
 */
export function rawBoundaryMs(nowMs: number, raw: RetentionPeriod, newestSnapshotMs: number | null): number {
  const byAge = Math.floor(periodStartMs(nowMs, raw) / HOUR_MS) * HOUR_MS;
  if (newestSnapshotMs === null) return byAge;
  return Math.min(byAge, Math.floor(newestSnapshotMs / HOUR_MS) * HOUR_MS);
}

/**
 * Where everything ends: older rows are deleted. Rounded down to a 7-day bucket aligned on the epoch (as the week
 * rollups are), so the hour, day and week rollups are cut at one instant and a range never reads a week whose days
 * are gone. So a little more than `keep` is kept, up to a week more.
 */
export function horizonMs(nowMs: number, keep: RetentionPeriod): number {
  return Math.floor(periodStartMs(nowMs, keep) / WEEK_MS) * WEEK_MS;
}
