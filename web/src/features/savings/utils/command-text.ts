import type { BalancedTryResponse } from '@schemas/karpenter-try';
import { formatUsd, formatUsdPerHour } from '../../../lib/format';

/** One of Karpenter's next-round commands as the tries answer it (null: nothing to consolidate). */
export type TriedCommand = BalancedTryResponse['balanced'];

const HOURS_PER_MONTH = 730;

/** "replace node-a, node-b → a1.xlarge on-demand: saves $0.282/h ($205.86/mo), disrupts 2 node(s), 2 pod(s)". */
export function commandText(c: TriedCommand): string {
  if (c === null) return 'nothing to consolidate';
  const nodes = c.candidates.map((x) => x.node).join(', ');
  const repl = c.replacement === null ? '' : ` → ${c.replacement.instanceType} ${c.replacement.capacityType}`;
  return `${c.action} ${nodes}${repl}: saves ${formatUsdPerHour(c.savingsUsdPerHour)}/h (${formatUsd(c.savingsUsdPerHour * HOURS_PER_MONTH)}/mo), disrupts ${c.candidates.length} node(s), ${c.podsDisrupted} pod(s)`;
}
