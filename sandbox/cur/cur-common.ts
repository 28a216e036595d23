import { createHash } from 'node:crypto';
import type { CurColumnName } from '../../core/cur/columns.js';
import { regionFacts } from '../../core/partitions.js';
import { HOUR_MS } from '../../core/time.js';
import { USAGE_TYPE_PREFIX } from '../serve/ce-query.js';
import type { EpochMs, Scenario } from '../scenario/types.js';

/**
 * What every line of the sandbox's Cost and Usage Report shares: the bill and account columns, the hour it covers,
 * a stable line id. Pure.
 */

/** A CUR cell as the writer stages it: text, a number, a timestamp (ISO text), a map column, or null. */
export type CurCell = string | number | null | Readonly<Record<string, string>>;
/** Columns of core/cur/columns.ts only: the sandbox writes the contract's columns, under their documented types. */
export type CurRow = Partial<Record<CurColumnName, CurCell>>;

/**
 * One line item: the columns it shares with other lines (the hour's bill columns, the instance's) and its own.
 * Kept apart rather than copied into one object per line: V8 turns an object spread and then grown past a few dozen
 * properties into a slow dictionary (80,000 such rows took 12 s; the shared parts make it 0.1 s), and the writer
 * serialises each shared part once.
 */
export interface CurLineItem {
  shared: readonly Readonly<CurRow>[];
  own: CurRow;
}

/** A column's value on a line (its own columns first); undefined when the line does not have it. */
export function cellOf(item: CurLineItem, column: CurColumnName): CurCell | undefined {
  if (column in item.own) return item.own[column];
  for (const part of item.shared) if (column in part) return part[column];
  return undefined;
}

/** A numeric column's value, 0 when absent or null (costs the line does not carry). */
export function amountOf(item: CurLineItem, column: CurColumnName): number {
  const v = cellOf(item, column);
  return typeof v === 'number' ? v : 0;
}

/** A text column's value, '' when absent or null. */
export function textOf(item: CurLineItem, column: CurColumnName): string {
  const v = cellOf(item, column);
  return typeof v === 'string' ? v : '';
}

/** A rate as CUR prints it (line_item_unblended_rate is text): decimal, up to 10 places, no trailing zeros. */
export const fixed = (usd: number): string => usd.toFixed(10).replace(/0+$/, '').replace(/\.$/, '');

/** `2026-11-01T00:00:00Z`: CUR's timestamps are UTC to the second. */
export const curTimestamp = (t: EpochMs): string => `${new Date(t).toISOString().slice(0, 19)}Z`;

/** The billing period (calendar month, UTC) a time falls in, as Data Exports names its partition: `2026-11`. */
export const billingPeriodOf = (t: EpochMs): string => new Date(t).toISOString().slice(0, 7);

/** [start, end) of a billing period `YYYY-MM`. */
export function billingPeriodBounds(period: string): { start: EpochMs; end: EpochMs } {
  const m = /^(\d{4})-(\d{2})$/.exec(period);
  if (!m) throw new Error(`billing period ${JSON.stringify(period)} is not YYYY-MM`);
  const year = Number(m[1]);
  const month = Number(m[2]) - 1;
  return { start: Date.UTC(year, month, 1), end: Date.UTC(year, month + 1, 1) };
}

/** A usage type as CUR spells it in a region: `BoxUsage:m5.large` in us-east-1, `USW2-BoxUsage:m5.large` in us-west-2. */
export const regionalUsageType = (scenario: Scenario, usageType: string): string =>
  `${USAGE_TYPE_PREFIX[scenario.region] ?? ''}${usageType}`;

/** A stable opaque id (AWS's identity_line_item_id is a 52-character base32 hash; any stable unique text will do). */
export const lineItemId = (key: string): string => createHash('sha1').update(key).digest('base64url');

/** The bill, account and time columns of the lines of one hour, made once per hour. */
export function commonColumnsOf(scenario: Scenario): (hourStart: EpochMs) => Readonly<CurRow> {
  const memo = new Map<EpochMs, CurRow>();
  return (hourStart) => {
    let row = memo.get(hourStart);
    if (row === undefined) {
      row = commonColumns(scenario, hourStart);
      memo.set(hourStart, row);
    }
    return row;
  };
}

/** The bill, account and time columns of a line for the hour starting at `hourStart`. */
export function commonColumns(scenario: Scenario, hourStart: EpochMs): CurRow {
  const period = billingPeriodBounds(billingPeriodOf(hourStart));
  const start = curTimestamp(hourStart);
  const end = curTimestamp(hourStart + HOUR_MS);
  return {
    bill_bill_type: 'Anniversary',
    bill_billing_period_start_date: curTimestamp(period.start),
    bill_billing_period_end_date: curTimestamp(period.end),
    bill_payer_account_id: scenario.accountId,
    identity_time_interval: `${start}/${end}`,
    // A China account is billed in CNY (core/partitions.ts), as the sandbox's Cost Explorer answers.
    line_item_currency_code: regionFacts(scenario.region).currency,
    line_item_usage_account_id: scenario.accountId,
    line_item_usage_start_date: start,
    line_item_usage_end_date: end,
  };
}
