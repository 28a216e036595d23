import type { EfficiencySummaryRow, IdleRates } from '@schemas/efficiency';
import type { NodeMixRow } from '@schemas/node-aggregates';
import type { NodePoolCompareRow } from '@schemas/nodepools';
import type { NodePool } from '@schemas/nodepools';
import type { DailyCostRow } from '@schemas/cost';
import type { CurNodePoolTotal } from '@schemas/cost-cur';

/** What one NodePool card shows: its policy from the cluster, its money and packing over the range, its nodes at the end. */
export interface NodePoolCard {
  /** '' = nodes Karpenter did not launch. */
  name: string;
  /** null for '' (no NodePool object). */
  spec: NodePool | null;
  /** Our estimate over the range, USD (Σ over capacity types); null without snapshots. */
  costUsd: number | null;
  /** The bill over the range in the chosen metric, instances and storage and network together, USD; null without a bill line. */
  billUsd: number | null;
  /** Its volumes and data transfer (EC2 - Other), USD; null without such a line. */
  billStorageNetworkUsd: number | null;
  /** Its bill from the Cost and Usage Report over the range, by category, in the chosen metric; null without CUR lines. */
  cur: CurNodePoolTotal | null;
  nodesAvg: number | null;
  cpu: number | null;
  memory: number | null;
  costWeightedCpu: number | null;
  idleUsdPerHour: number | null;
  /** The rates that idle was priced at over the range (relative price); null without snapshots. */
  idleRates: IdleRates | null;
  /** Spot savings against on-demand prices over the range, USD; null when unknown. */
  savingsUsd: number | null;
  /** Instance types at the snapshot, most nodes first. */
  mix: MixItem[];
  nodesNow: number;
}

export interface MixItem {
  instanceType: string;
  count: number;
  /** Of those, on spot. */
  spot: number;
}

/**
 * Instance types of a NodePool's nodes (the server's counts, /api/nodes/mix), most nodes first (ties by name); past
 * `top`, the rest folded into "other".
 */
export function instanceMix(rows: readonly NodeMixRow[], nodePool: string, top = 6): MixItem[] {
  const byType = new Map<string, MixItem>();
  for (const r of rows) {
    if (r.nodePool !== nodePool) continue;
    const item = byType.get(r.instanceType) ?? { instanceType: r.instanceType, count: 0, spot: 0 };
    item.count += r.nodes;
    item.spot += r.spotNodes;
    byType.set(r.instanceType, item);
  }
  const sorted = [...byType.values()].sort((a, b) => b.count - a.count || a.instanceType.localeCompare(b.instanceType));
  if (sorted.length <= top) return sorted;
  const rest = sorted.slice(top - 1);
  return [
    ...sorted.slice(0, top - 1),
    {
      instanceType: `${rest.length} other types`,
      count: rest.reduce((s, i) => s + i.count, 0),
      spot: rest.reduce((s, i) => s + i.spot, 0),
    },
  ];
}

/** Σ a nullable field over rows; null when every row has null (or there are no rows). */
function sumOrNull<R>(rows: readonly R[], pick: (r: R) => number | null): number | null {
  const values = rows.map(pick).filter((v): v is number => v !== null);
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0);
}

/**
 * One card per NodePool of the cluster (by name), then one for nodes without a NodePool when they cost
 * something in the range.
 */
export function buildCards(
  pools: readonly NodePool[],
  summary: readonly EfficiencySummaryRow[],
  compare: readonly NodePoolCompareRow[],
  mixRows: readonly NodeMixRow[],
  bill: readonly DailyCostRow[] = [],
  cur: readonly CurNodePoolTotal[] = [],
): NodePoolCard[] {
  const names = [...pools.map((p) => p.name).sort()];
  if (summary.some((r) => r.scope === 'nodepool' && r.nodePool === '') || mixRows.some((n) => n.nodePool === '')) names.push('');
  return names.map((name) => {
    const s = summary.find((r) => r.scope === 'nodepool' && r.nodePool === name);
    const c = compare.filter((r) => r.nodePool === name);
    const billed = bill.filter((r) => r.nodePool === name && r.billUsd !== null);
    const mix = instanceMix(mixRows, name);
    return {
      name,
      spec: pools.find((p) => p.name === name) ?? null,
      costUsd: sumOrNull(c, (r) => r.costUsd) ?? s?.costUsd ?? null,
      billUsd: billed.length === 0 ? null : billed.reduce((t, r) => t + (r.billUsd ?? 0), 0),
      billStorageNetworkUsd: sumOrNull(
        billed.filter((r) => r.band === 'storage-network'),
        (r) => r.billUsd,
      ),
      cur: cur.find((p) => p.nodePool === name) ?? null,
      nodesAvg: s?.nodesAvg ?? null,
      cpu: s?.cpu ?? null,
      memory: s?.memory ?? null,
      costWeightedCpu: s?.costWeightedCpu ?? null,
      idleUsdPerHour: s?.idleUsdPerHourAvg ?? null,
      idleRates: s?.idleRates ?? null,
      savingsUsd: sumOrNull(c, (r) => r.savingsUsd),
      mix,
      nodesNow: mix.reduce((a, m) => a + m.count, 0),
    };
  });
}
