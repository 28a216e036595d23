import { formatUtcDateTime } from '../../../lib/format';

/** Colours and words for Karpenter's disruption reasons, the same on every chart and list. */

const REASON_COLOR: Readonly<Record<string, string>> = {
  Underutilized: '#8e6bd1',
  Empty: '#1a9ea8',
  Drifted: '#d9822b',
  Expired: '#7a8a99',
  Interrupted: '#d64545',
};
const OTHER_COLOR = '#9aa5b4';

export const reasonColor = (reason: string): string => REASON_COLOR[reason] ?? OTHER_COLOR;

const REASON_TEXT: Readonly<Record<string, string>> = {
  Underutilized: 'its pods fit on other nodes or a cheaper one',
  Empty: 'no pods left but DaemonSets',
  Drifted: 'its spec no longer matches the NodePool or EC2NodeClass',
  Expired: 'it reached expireAfter',
  Interrupted: 'AWS reclaimed the spot instance',
};

/** Why Karpenter removes a node for this reason, in a few words. */
export const reasonText = (reason: string): string => REASON_TEXT[reason] ?? 'as Karpenter reported it';

/** Disruptions per reason, most frequent first, ties by name; a marker standing for several (`count`) counts them all. */
export function countByReason(events: readonly { reason: string; count?: number }[]): { reason: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const e of events) counts.set(e.reason, (counts.get(e.reason) ?? 0) + (e.count ?? 1));
  return [...counts].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
}

/**
 * What a timeline mark says on hover: the disruption, or for a mark standing for several (thinned past 300 in the
 * range) how many, of which reason and NodePool, from when.
 */
export function markTitle(m: { atMs: number; nodePool: string; reason: string; action: string | null; count: number }): string {
  const reason = m.reason || 'Other';
  const at = `${formatUtcDateTime(m.atMs)} UTC`;
  if (m.count > 1) return `${m.count} disruptions: ${reason} in ${m.nodePool || '(no NodePool)'}, the first at ${at}`;
  return `${reason}${m.action === null ? '' : `/${m.action}`} in ${m.nodePool || '(no NodePool)'} at ${at}`;
}
