import type {
  CurAttributedBy,
  CurNamespaceDay,
  CurNodePoolDay,
  CurResourceDay,
  KnownNodeClaim,
} from '../../db/repositories/cur-repository.js';
import type { CurAggregateRow } from './aggregate-statement.js';

/**
 * The statement's rows of one billing period as the rows we store (pure): the NodePool of a line whose tag is missing
 * is taken from the NodeClaim we know by its instance id (an instance's first minutes are billed before Karpenter's
 * tags reach the bill, and a tag activated late is not retroactive), then lines are summed per NodePool per day and
 * split lines per namespace per day. What stays without a NodePool is kept under '' and counted.
 */

export interface PeriodRows {
  nodePoolDays: CurNodePoolDay[];
  namespaceDays: CurNamespaceDay[];
  resourceDays: CurResourceDay[];
  /** Σ over every non-split line of the period. */
  unblendedUsd: number;
  amortizedUsd: number;
  /** Lines of instances, volumes or data transfer without a NodePool (account-level fees, credits, taxes excluded). */
  unattributedLines: number;
  unattributedUsd: number;
  /** Lines whose NodePool came from our NodeClaims. */
  nodeClaimFilledLines: number;
  splitLines: number;
}

/** UTC day start of YYYY-MM-DD, epoch ms. */
export function dayStartMs(day: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (m === null) throw new Error(`usage day "${day}" is not YYYY-MM-DD`);
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
}

/**
 * DuckDB (and Athena) sum in parallel, in no fixed order, so the last bits of a sum of doubles differ from run to run;
 * rounded to a billionth (of a USD, an hour, a GB) the same lines give the same stored figures, and no CUR amount
 * (AWS prints at most 10 decimals of a rate, costs to 1e-10 at most in their sums) loses anything that matters.
 */
const fine = (n: number): number => Math.round(n * 1e9) / 1e9;
function fineNumbers<T extends object>(row: T): T {
  const out = { ...row } as Record<string, unknown>;
  for (const [k, v] of Object.entries(out)) if (typeof v === 'number' && k !== 'dayMs') out[k] = fine(v);
  return out as T;
}

/** Code-unit order (localeCompare's collation ignores the \u0000 separators of our keys). */
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const resourceKey = (r: CurResourceDay): string =>
  [r.resourceId, r.lineItemType, r.usageType, r.productCode, r.operation, r.commitmentArn].join('\u0000');

function addInto<T>(map: Map<string, T>, key: string, fresh: () => T, add: (into: T) => void): void {
  let into = map.get(key);
  if (into === undefined) {
    into = fresh();
    map.set(key, into);
  }
  add(into);
}

/**
 * The statement's rows of one billing period, one at a time: `add` returns the resource-day row to store at once (the
 * NodePool filled in, numbers rounded), while the per NodePool and per namespace days — a few rows per day, whatever
 * the CUR's size — and the period's totals are summed here until `finish`. So an import holds the NodeClaims it joins
 * and these sums, never the period's rows.
 */
export class PeriodRowsBuilder {
  private readonly nodePoolDays = new Map<string, CurNodePoolDay>();
  private readonly namespaceDays = new Map<string, CurNamespaceDay>();
  private readonly out = {
    unblendedUsd: 0,
    amortizedUsd: 0,
    unattributedLines: 0,
    unattributedUsd: 0,
    nodeClaimFilledLines: 0,
    splitLines: 0,
  };
  /** CUR lines behind the rows added: Σ line_count (every line is in exactly one row). */
  curLines = 0;

  constructor(private readonly known: ReadonlyMap<string, KnownNodeClaim>) {}

  /** Each day's start, parsed once (a period has 31 days and up to millions of rows). */
  private readonly dayMs = new Map<string, number>();

  add(r: CurAggregateRow): CurResourceDay | null {
    let dayMs = this.dayMs.get(r.usageDay);
    if (dayMs === undefined) {
      dayMs = dayStartMs(r.usageDay);
      this.dayMs.set(r.usageDay, dayMs);
    }
    const out = this.out;
    this.curLines += r.lineCount;
    if (r.rowKind === 'split') {
      out.splitLines += r.lineCount;
      const claim = r.nodePool === '' && r.resourceId !== '' ? this.known.get(r.resourceId) : undefined;
      const nodePool = r.nodePool !== '' ? r.nodePool : (claim?.nodePool ?? '');
      const key = [r.usageDay, r.cluster, nodePool, r.namespace].join('\u0000');
      addInto(
        this.namespaceDays,
        key,
        (): CurNamespaceDay => ({
          day: r.usageDay,
          dayMs,
          cluster: r.cluster,
          nodePool,
          namespace: r.namespace,
          splitCostUsd: 0,
          unusedCostUsd: 0,
          netSplitCostUsd: 0,
          netUnusedCostUsd: 0,
          publicOnDemandSplitCostUsd: 0,
          publicOnDemandUnusedCostUsd: 0,
          vcpuHours: 0,
          memoryGbHours: 0,
          podCount: 0,
          lineCount: 0,
        }),
        (n) => {
          n.splitCostUsd += r.splitCostUsd;
          n.unusedCostUsd += r.unusedCostUsd;
          n.netSplitCostUsd += r.netSplitCostUsd;
          n.netUnusedCostUsd += r.netUnusedCostUsd;
          n.publicOnDemandSplitCostUsd += r.publicOnDemandSplitCostUsd;
          n.publicOnDemandUnusedCostUsd += r.publicOnDemandUnusedCostUsd;
          n.vcpuHours += r.vcpuHours;
          n.memoryGbHours += r.memoryGbHours;
          n.podCount += r.podCount;
          n.lineCount += r.lineCount;
        },
      );
      return null;
    }

    const claim = r.rowKind === 'resource' ? this.known.get(r.resourceId) : undefined;
    let nodePool = r.nodePool;
    let attributedBy: CurAttributedBy = nodePool !== '' ? 'tag' : 'none';
    if (nodePool === '' && claim !== undefined && claim.nodePool !== '') {
      nodePool = claim.nodePool;
      attributedBy = 'nodeclaim';
      out.nodeClaimFilledLines += r.lineCount;
    }
    const nodeClaim = r.nodeClaim !== '' ? r.nodeClaim : (claim?.nodeClaim ?? '');
    out.unblendedUsd += r.unblendedUsd;
    out.amortizedUsd += r.amortizedUsd;
    if (nodePool === '' && r.category !== 'other') {
      out.unattributedLines += r.lineCount;
      out.unattributedUsd += r.unblendedUsd;
    }
    // A template, not an array joined: this runs for each of a period's rows.
    const key = `${r.usageDay}\u0000${r.cluster}\u0000${nodePool}\u0000${r.category}\u0000${attributedBy}`;
    addInto(
      this.nodePoolDays,
      key,
      (): CurNodePoolDay => ({
        day: r.usageDay,
        dayMs,
        cluster: r.cluster,
        nodePool,
        category: r.category,
        attributedBy,
        unblendedUsd: 0,
        amortizedUsd: 0,
        netUnblendedUsd: 0,
        netAmortizedUsd: 0,
        usageAmount: 0,
        publicOnDemandUsd: 0,
        lineCount: 0,
      }),
      (n) => {
        n.unblendedUsd += r.unblendedUsd;
        n.amortizedUsd += r.amortizedUsd;
        n.netUnblendedUsd += r.netUnblendedUsd;
        n.netAmortizedUsd += r.netAmortizedUsd;
        n.usageAmount += r.usageAmount;
        n.publicOnDemandUsd += r.publicOnDemandUsd;
        n.lineCount += r.lineCount;
      },
    );
    if (r.rowKind !== 'resource') return null;
    // Rounded field by field: no copy of the row and walk over its entries for each of a period's rows.
    return {
      day: r.usageDay,
      dayMs,
      resourceId: r.resourceId,
      lineItemType: r.lineItemType,
      usageType: r.usageType,
      productCode: r.productCode,
      operation: r.operation,
      category: r.category,
      cluster: r.cluster,
      nodePool,
      nodeClaim,
      attributedBy,
      commitmentArn: r.commitmentArn,
      unblendedUsd: fine(r.unblendedUsd),
      amortizedUsd: fine(r.amortizedUsd),
      netUnblendedUsd: fine(r.netUnblendedUsd),
      netAmortizedUsd: fine(r.netAmortizedUsd),
      usageAmount: fine(r.usageAmount),
      publicOnDemandUsd: fine(r.publicOnDemandUsd),
      lineCount: fine(r.lineCount),
    };
  }

  /** The NodePool and namespace days (by day, then key) and the period's totals, rounded. */
  finish(): Omit<PeriodRows, 'resourceDays'> {
    const byKey = <T extends { dayMs: number }>(a: T, b: T, ka: string, kb: string): number => a.dayMs - b.dayMs || compare(ka, kb);
    const sorted = <T extends { dayMs: number }>(m: Map<string, T>): T[] =>
      [...m.entries()].sort(([ka, a], [kb, b]) => byKey(a, b, ka, kb)).map(([, v]) => fineNumbers(v));
    return { ...fineNumbers(this.out), nodePoolDays: sorted(this.nodePoolDays), namespaceDays: sorted(this.namespaceDays) };
  }
}

/** A period's rows all at once (tests; the importers stream through PeriodRowsBuilder): resource days in key order. */
export function periodRows(rows: readonly CurAggregateRow[], known: ReadonlyMap<string, KnownNodeClaim>): PeriodRows {
  const builder = new PeriodRowsBuilder(known);
  const resourceDays: CurResourceDay[] = [];
  for (const r of rows) {
    const resource = builder.add(r);
    if (resource !== null) resourceDays.push(resource);
  }
  return {
    ...builder.finish(),
    // The engine returns groups in no fixed order: sorted, the same lines are written in the same order.
    resourceDays: resourceDays.sort((a, b) => a.dayMs - b.dayMs || compare(resourceKey(a), resourceKey(b))),
  };
}
