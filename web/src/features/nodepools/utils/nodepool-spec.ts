import type { DisruptionBudget, NodePool, ResourceLimit } from '@schemas/nodepools';
import { formatBytes, formatMillicores } from '../../../lib/format';

/** How close a NodePool is to a limit: Karpenter launches nothing more once one is reached. */
export type LimitLevel = 'ok' | 'near' | 'at' | 'none' | 'unreadable';

/** One usage bar of a NodePool card. */
export interface LimitBar {
  /** 'CPU', 'Memory', 'Nodes', or the resource name as written (nvidia.com/gpu). */
  label: string;
  usedText: string;
  /** The limit formatted; 'no limit' when unset; the quantity as written when it does not parse. */
  limitText: string;
  /** used ÷ limit × 100, unrounded; null without a (readable, non-zero) limit. */
  percent: number | null;
  /** Bar width, 0–100. */
  widthPercent: number;
  level: LimitLevel;
}

/** Amber from here, red at 100 %. */
export const NEAR_LIMIT = 0.8;

/** Zero in the unit the limit is read in ("0 vCPU", not "0m"). */
const formatAmount = (unit: ResourceLimit['unit'], v: number): string => {
  if (unit === 'millicores') return v === 0 ? '0 vCPU' : formatMillicores(v);
  if (unit === 'bytes') return v === 0 ? '0 GiB' : formatBytes(v);
  return String(v);
};

export function limitLevel(used: number, limit: number | null): LimitLevel {
  if (limit === null) return 'unreadable';
  if (used >= limit) return 'at';
  return used / limit >= NEAR_LIMIT ? 'near' : 'ok';
}

function barOf(label: string, r: ResourceLimit): LimitBar {
  const level = limitLevel(r.used, r.limit);
  const percent = r.limit === null || r.limit === 0 ? null : (r.used / r.limit) * 100;
  return {
    label,
    usedText: formatAmount(r.unit, r.used),
    limitText: r.limit === null ? `${r.quantity} (unreadable)` : formatAmount(r.unit, r.limit),
    percent,
    widthPercent: level === 'at' ? 100 : Math.min(100, percent ?? 0),
    level,
  };
}

/**
 * CPU and memory always (a "no limit" bar when unset, showing what the nodes hold), then every other limited
 * resource. Usage is the capacity of the NodePool's nodes at the newest snapshot, what Karpenter counts.
 */
export function limitBars(pool: Pick<NodePool, 'limits' | 'usage'>): LimitBar[] {
  const { limits, usage } = pool;
  const find = (resource: string) => limits.resources.find((r) => r.resource === resource);
  const unlimited = (label: string, usedText: string): LimitBar => ({
    label,
    usedText,
    limitText: 'no limit',
    percent: null,
    widthPercent: 0,
    level: 'none',
  });
  const cpu = find('cpu');
  const memory = find('memory');
  return [
    cpu === undefined ? unlimited('CPU', formatAmount('millicores', usage.cpuMillicores)) : barOf('CPU', cpu),
    memory === undefined ? unlimited('Memory', formatAmount('bytes', usage.memoryBytes)) : barOf('Memory', memory),
    ...limits.resources
      .filter((r) => r.resource !== 'cpu' && r.resource !== 'memory')
      .map((r) => barOf(r.resource === 'nodes' ? 'Nodes' : r.resource, r)),
  ];
}

/** `budget: 10% nodes`; `budget: 0 nodes for Underutilized, Drifted, 0 9 * * mon-fri (UTC) for 8h`. */
export function formatBudget(b: DisruptionBudget): string {
  const reasons = b.reasons.length === 0 ? '' : ` for ${b.reasons.join(', ')}`;
  const schedule = b.schedule === null ? '' : `, ${b.schedule} (UTC)${b.duration === null ? '' : ` for ${b.duration}`}`;
  return `budget: ${b.nodes} nodes${reasons}${schedule}`;
}

/** What a screen reader hears for a bar. */
export function limitBarText(bar: LimitBar): string {
  if (bar.level === 'none') return `${bar.usedText}, no limit`;
  const percent = bar.percent === null ? '' : ` (${bar.percent.toFixed(1)} %)`;
  const state = bar.level === 'at' ? ', limit reached' : bar.level === 'near' ? ', near the limit' : '';
  return `${bar.usedText} of ${bar.limitText}${percent}${state}`;
}
