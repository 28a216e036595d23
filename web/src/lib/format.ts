/** Display formats. Everything is shown in UTC, the unit of Cost Explorer days. */

/**
 * The currency every amount of the database is in: USD, or CNY for a China (aws-cn) cluster, as /api/status says
 * (`pricing.currency`). The app shell sets it before any page renders and remounts the page if it changes, so the
 * money formatters below (named for USD, which they were written for) print the right one; amounts in two
 * currencies never meet, the collector refusing to mix them in one file.
 */
export type DisplayCurrency = 'USD' | 'CNY';
let current: DisplayCurrency = 'USD';
export const setDisplayCurrency = (c: DisplayCurrency): void => {
  current = c;
};
/** The currency code to print in labels ("USD / h", "CNY / h"). */
export const currencyCode = (): DisplayCurrency => current;

const money = {
  USD: new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 }),
  CNY: new Intl.NumberFormat('en-US', { style: 'currency', currency: 'CNY', minimumFractionDigits: 2, maximumFractionDigits: 2 }),
};
const moneyCompact = {
  USD: new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', notation: 'compact', maximumFractionDigits: 1 }),
  CNY: new Intl.NumberFormat('en-US', { style: 'currency', currency: 'CNY', notation: 'compact', maximumFractionDigits: 1 }),
};
/** "$" or "CN¥" (en-US spells the yuan so, never to be read as yen). */
const symbolOf = (c: DisplayCurrency): string => money[c].formatToParts(0).find((p) => p.type === 'currency')?.value ?? c;

export const formatUsd = (v: number): string => money[current].format(v);
export const formatUsdAxis = (v: number): string =>
  Math.abs(v) >= 1000 ? moneyCompact[current].format(v) : money[current].format(v).replace(/\.00$/, '');
/** A fraction (0.5) as a percent ("50.0 %"). */
export const formatFraction = (v: number): string => `${(v * 100).toFixed(1)} %`;
export const formatPercent = (v: number): string => `${v.toFixed(1)} %`;
const count = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
/** A whole count with thousands separators ("5,894"). */
export const formatCount = (n: number): string => count.format(n);

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number): string => String(n).padStart(2, '0');

/** "2026-11-01" -> "Nov 1". */
export function formatDayShort(day: string): string {
  const [, m, d] = day.split('-').map(Number);
  return `${MONTHS[(m ?? 1) - 1]} ${d}`;
}
/** Epoch ms -> "Nov 1 10:15" (UTC). */
export function formatUtcDateTime(ms: number): string {
  const t = new Date(ms);
  return `${MONTHS[t.getUTCMonth()]} ${t.getUTCDate()} ${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}`;
}
/** Epoch ms -> "10:15" (UTC). */
export const formatUtcTime = (ms: number): string => {
  const t = new Date(ms);
  return `${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}`;
};
/** Epoch ms -> "Nov 1" (UTC). */
export const formatUtcDay = (ms: number): string => {
  const t = new Date(ms);
  return `${MONTHS[t.getUTCMonth()]} ${t.getUTCDate()}`;
};
/** ISO instant -> "2026-11-01 10:15 UTC". */
export function formatIsoUtc(iso: string): string {
  const t = new Date(iso);
  return `${t.getUTCFullYear()}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())} ${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())} UTC`;
}
/** "3 min ago", "2 h ago", "5 days ago". */
export function formatAgo(iso: string, nowMs: number): string {
  const minutes = Math.round((nowMs - Date.parse(iso)) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 90) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}

/**
 * '' stands for the bill's lines without a karpenter.sh/nodepool tag, and for nodes Karpenter did not
 * launch (a managed node group, say): named for what they are in each place.
 */
export const nodePoolLabel = (name: string, of: 'bill' | 'nodes' = 'bill'): string =>
  name !== '' ? name : of === 'bill' ? '(untagged)' : '(no NodePool)';

/** A signed percent of a fraction: -0.043 -> "-4.3 %", and never "-0.0 %". */
export function formatSignedFraction(v: number): string {
  const text = (v * 100).toFixed(1);
  if (Number(text) === 0) return '0.0 %';
  return `${v > 0 ? '+' : ''}${text} %`;
}

/** Bytes as GiB or MiB (binary, as Kubernetes writes them): 1.5 GiB, 512 MiB. */
export function formatBytes(bytes: number): string {
  const gib = bytes / 2 ** 30;
  if (gib >= 1) return `${Number(gib.toFixed(gib >= 10 ? 0 : 1))} GiB`;
  return `${Math.round(bytes / 2 ** 20)} MiB`;
}

/** Millicores as cores when whole-ish (2 vCPU), else millicores (250m). */
export const formatMillicores = (m: number): string => (m >= 1000 ? `${Number((m / 1000).toFixed(2))} vCPU` : `${m}m`);

/** Hourly prices need more than cents: $0.0416 (cents above a dollar); CN¥0.4830 in CNY. */
export const formatUsdPerHour = (v: number): string => (Math.abs(v) >= 1 ? formatUsd(v) : `${symbolOf(current)}${v.toFixed(4)}`);

/** A span within a day, "10:15–24:00" (UTC): an end at the next midnight reads 24:00, not 00:00. */
export function formatUtcSpan(fromIso: string, toIso: string): string {
  const fromMs = Date.parse(fromIso);
  const toMs = Date.parse(toIso);
  const end = toMs > fromMs && toMs % 86_400_000 === 0 ? '24:00' : formatUtcTime(toMs);
  return `${formatUtcTime(fromMs)}–${end}`;
}
