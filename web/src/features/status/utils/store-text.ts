import type { StatusResponse } from '@schemas/status';
import { formatBytes, formatUtcDateTime } from '../../../lib/format';

/**
 * What the database file holds, in one line for the banner: its size, from when its 5-minute snapshots run, the hourly
 * span folded from them, and how long each is kept; a file that cannot shrink yet, or a retention pass that failed,
 * is said.
 */
export function storeText(s: StatusResponse['store']): string {
  const at = (iso: string): string => `${formatUtcDateTime(Date.parse(iso))} UTC`;
  const parts = [`Database ${formatBytes(s.fileBytes)}`];
  if (s.hourlyFrom !== null && s.hourlyTo !== null) parts.push(`hourly ${at(s.hourlyFrom)} – ${at(s.hourlyTo)}`);
  if (s.rawFrom !== null) parts.push(`5-minute from ${at(s.rawFrom)}`);
  parts.push(`5-minute snapshots kept ${s.rawRetention}, then hourly; everything kept ${s.retention}`);
  if (s.autoVacuum !== 'incremental') parts.push('does not shrink yet (the next collect switches on incremental vacuum)');
  if (s.lastRun?.error != null) parts.push(`last retention pass failed: ${s.lastRun.error}`);
  return parts.join(' · ');
}
