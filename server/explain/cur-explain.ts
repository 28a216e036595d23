import type { CostMetric } from '../schemas/cost.js';
import type { CurExplainedLine, CurNodeClaim, CurResourceExplanation } from '../schemas/bill-cur.js';
import { plural, usd } from './format.js';

/**
 * Pure: "explain this bill" for Cost and Usage Report lines. A resource-day (an instance or a volume, one UTC day)
 * is the CUR lines of that resource that day — its usage, and what a commitment did to it — each said in words:
 * usage amount × rate = unblended; what the commitment (Savings Plan or reservation, by ARN) makes of it amortized;
 * net after private discounts; which NodePool and NodeClaim it belongs to, and what we estimated for it.
 *
 * Amounts per line item type as AWS's CUR documentation gives them (Understanding Savings Plans,
 * https://docs.aws.amazon.com/cur/latest/userguide/cur-sp.html; Understanding your reservations,
 * https://docs.aws.amazon.com/cur/latest/userguide/understanding-ri.html): a SavingsPlanCoveredUsage line carries
 * the on-demand cost as unblended and the Savings Plan's effective cost as amortized, and its SavingsPlanNegation
 * cancels that unblended cost (the plan's recurring fee is the bill instead); a DiscountedUsage line is the usage a
 * reservation covered, its unblended cost carried by the RIFee line and its amortized cost the reservation's
 * effective cost.
 */

/** One stored CUR resource-day line, as the explainer reads it (USD; usage in its unit). */
export interface CurLineFact {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  resourceId: string;
  /** line_item_line_item_type: Usage, SavingsPlanCoveredUsage, SavingsPlanNegation, DiscountedUsage, Credit, … */
  lineItemType: string;
  /** line_item_usage_type, e.g. USW2-BoxUsage:m5.large, USW2-EBS:VolumeUsage.gp3. */
  usageType: string;
  /** line_item_product_code, e.g. AmazonEC2. */
  productCode: string;
  /** karpenter.sh/nodepool from resource_tags (or the NodeClaim we know by instance id); null when neither. */
  nodePool: string | null;
  /** karpenter.sh/nodeclaim from resource_tags (instances only), or the NodeClaim we know by instance id. */
  nodeClaim: string | null;
  /** savings_plan_savings_plan_a_r_n or reservation_reservation_a_r_n; null when no commitment applies. */
  commitmentArn: string | null;
  usageAmount: number;
  unblendedUsd: number;
  amortizedUsd: number;
  netUnblendedUsd: number | null;
  netAmortizedUsd: number | null;
  /** pricing_public_on_demand_cost; null when the CUR does not carry it. */
  publicOnDemandUsd: number | null;
}

export const CUR_METRIC_NAME: Readonly<Record<CostMetric, string>> = {
  unblended: 'unblended',
  amortized: 'amortized',
  'net-unblended': 'net unblended',
  'net-amortized': 'net amortized',
};

/** A line's figure in a metric; the net ones fall back to the gross figure where the CUR has no net column (no discounts). */
export function inMetric(
  l: Pick<CurLineFact, 'unblendedUsd' | 'amortizedUsd' | 'netUnblendedUsd' | 'netAmortizedUsd'>,
  m: CostMetric,
): number {
  switch (m) {
    case 'unblended':
      return l.unblendedUsd;
    case 'amortized':
      return l.amortizedUsd;
    case 'net-unblended':
      return l.netUnblendedUsd ?? l.unblendedUsd;
    case 'net-amortized':
      return l.netAmortizedUsd ?? l.amortizedUsd;
  }
}

export type ResourceKind = 'instance' | 'volume' | 'other';

export const resourceKindOf = (resourceId: string): ResourceKind =>
  resourceId.startsWith('i-') ? 'instance' : resourceId.startsWith('vol-') ? 'volume' : 'other';

/** The commitment kind an ARN names (arn:aws:savingsplans:… / arn:aws:ec2:…:reserved-instances/…). */
export function commitmentOf(arn: string | null): CurExplainedLine['commitment'] {
  if (arn === null || arn === '') return null;
  if (arn.includes(':savingsplans:')) return { kind: 'savings-plan', arn };
  return { kind: 'reservation', arn };
}

/** A usage amount with its unit as the usage type implies (instance hours, GB-months of a volume, GB moved). */
function amountText(l: CurLineFact): string {
  const n = Number(l.usageAmount.toFixed(4));
  if (/BoxUsage|SpotUsage|DedicatedUsage|HostUsage/.test(l.usageType)) return `${n} instance-hours`;
  if (/VolumeUsage|SnapshotUsage/.test(l.usageType)) return `${n} GB-months`;
  if (/VolumeP-IOPS|IOPS/.test(l.usageType)) return `${n} IOPS-months`;
  if (/Throughput/.test(l.usageType)) return `${n} MiBps-months`;
  if (/DataTransfer|Bytes/.test(l.usageType)) return `${n} GB`;
  return `${n} units`;
}

/** USD per unit, to six significant places so $0.0000001 of a GB-second still reads. */
export function rateText(usdAmount: number, usage: number): string | null {
  if (!(usage > 0)) return null;
  const r = usdAmount / usage;
  return `$${Number(r.toPrecision(6))}`;
}

const isSpot = (usageType: string): boolean => usageType.includes('SpotUsage');

/** Why one CUR line costs what it does, in a sentence or two. */
export function lineText(l: CurLineFact): string {
  const amount = amountText(l);
  const rate = rateText(l.unblendedUsd, l.usageAmount);
  const c = commitmentOf(l.commitmentArn);
  const netText =
    l.netAmortizedUsd !== null && Math.abs(l.netAmortizedUsd - l.amortizedUsd) >= 0.005
      ? ` After private discounts it is ${usd(l.netAmortizedUsd)} net amortized.`
      : '';
  switch (l.lineItemType) {
    case 'Usage': {
      const what = isSpot(l.usageType) ? 'at the Spot price' : 'at the on-demand rate';
      return `${amount} of ${l.usageType} ${what}${rate === null ? '' : ` (${rate} each)`} = ${usd(l.unblendedUsd)} unblended; no commitment covers it, so amortized is the same ${usd(l.amortizedUsd)}.${netText}`;
    }
    case 'SavingsPlanCoveredUsage': {
      const spRate = rateText(l.amortizedUsd, l.usageAmount);
      const saved = l.unblendedUsd - l.amortizedUsd;
      const pct = l.unblendedUsd > 0 ? ` (${((saved / l.unblendedUsd) * 100).toFixed(1)} % less)` : '';
      return (
        `${amount} of ${l.usageType} covered by Savings Plan ${c?.arn ?? '(no ARN)'}: ${amount} × ${rate ?? '—'} on-demand = ${usd(l.unblendedUsd)} unblended, ` +
        `cancelled by its SavingsPlanNegation line; at the plan's rate (${spRate ?? '—'} each) it is ${usd(l.amortizedUsd)} amortized, ${usd(saved)} below on demand${pct}.${netText}`
      );
    }
    case 'SavingsPlanNegation':
      return `${usd(l.unblendedUsd)} cancels the on-demand cost of the usage Savings Plan ${c?.arn ?? '(no ARN)'} covered: the plan's recurring fee pays for it instead, so this line is ${usd(l.amortizedUsd)} amortized.`;
    case 'DiscountedUsage': {
      const effRate = rateText(l.amortizedUsd, l.usageAmount);
      const od = l.publicOnDemandUsd === null ? '' : ` against ${usd(l.publicOnDemandUsd)} at the public on-demand rate`;
      return (
        `${amount} of ${l.usageType} covered by reservation ${c?.arn ?? '(no ARN)'}: ${usd(l.unblendedUsd)} unblended (the reservation's fee is billed on its RIFee line), ` +
        `${usd(l.amortizedUsd)} amortized — the reservation's effective cost${effRate === null ? '' : ` of ${effRate} each`}${od}.${netText}`
      );
    }
    case 'Credit':
    case 'Refund':
      return `A ${l.lineItemType.toLowerCase()} of ${usd(l.unblendedUsd)} on this resource: it lowers unblended and amortized cost alike (${usd(l.amortizedUsd)}).${netText}`;
    default:
      return `${l.lineItemType}: ${usd(l.unblendedUsd)} unblended, ${usd(l.amortizedUsd)} amortized${l.usageAmount > 0 ? ` for ${amount}` : ''}.${netText}`;
  }
}

/** One CUR line with its explanation. */
export function explainCurLine(l: CurLineFact, metric: CostMetric): CurExplainedLine {
  return {
    day: l.day,
    resourceId: l.resourceId,
    lineItemType: l.lineItemType,
    usageType: l.usageType,
    productCode: l.productCode,
    nodePool: l.nodePool,
    nodeClaim: l.nodeClaim,
    commitment: commitmentOf(l.commitmentArn),
    usageAmount: l.usageAmount,
    unblendedUsd: l.unblendedUsd,
    amortizedUsd: l.amortizedUsd,
    netUnblendedUsd: l.netUnblendedUsd,
    netAmortizedUsd: l.netAmortizedUsd,
    publicOnDemandUsd: l.publicOnDemandUsd,
    billUsd: inMetric(l, metric),
    unblendedRateUsd: l.usageAmount > 0 ? l.unblendedUsd / l.usageAmount : null,
    amortizedRateUsd: l.usageAmount > 0 ? l.amortizedUsd / l.usageAmount : null,
    text: lineText(l),
  };
}

const LINE_ORDER = ['Usage', 'SavingsPlanCoveredUsage', 'SavingsPlanNegation', 'DiscountedUsage', 'Credit', 'Refund'];
const orderOf = (t: string): number => {
  const i = LINE_ORDER.indexOf(t);
  return i === -1 ? LINE_ORDER.length : i;
};

/**
 * A resource-day explained: its lines (usage first, then what commitments and credits did), the sums in each
 * metric, the NodeClaim behind it where we know it (with what we estimated at public prices), and a summary.
 * `lines` must all be of one resource and day.
 */
export function explainCurResourceDay(
  lines: readonly CurLineFact[],
  metric: CostMetric,
  /** The NodeClaim with this instance id; null when none was collected; undefined when not looked up (a whole day). */
  node: CurNodeClaim | null | undefined,
): CurResourceExplanation {
  if (lines.length === 0) throw new RangeError('a resource-day needs at least one CUR line');
  const { day, resourceId } = lines[0];
  const mixed = lines.find((l) => l.day !== day || l.resourceId !== resourceId);
  if (mixed !== undefined) throw new RangeError(`lines of ${resourceId} on ${day} mixed with ${mixed.resourceId} on ${mixed.day}`);
  const sorted = [...lines].sort(
    (a, b) =>
      orderOf(a.lineItemType) - orderOf(b.lineItemType) || a.usageType.localeCompare(b.usageType) || a.unblendedUsd - b.unblendedUsd,
  );
  const explained = sorted.map((l) => explainCurLine(l, metric));
  const sum = (m: CostMetric) => lines.reduce((t, l) => t + inMetric(l, m), 0);
  const totals = {
    unblendedUsd: sum('unblended'),
    amortizedUsd: sum('amortized'),
    netUnblendedUsd: sum('net-unblended'),
    netAmortizedUsd: sum('net-amortized'),
  };
  const billUsd = sum(metric);
  const kind = resourceKindOf(resourceId);
  const nodePool = lines.find((l) => l.nodePool !== null)?.nodePool ?? node?.nodePool ?? null;
  const nodeClaim = lines.find((l) => l.nodeClaim !== null)?.nodeClaim ?? node?.nodeClaim ?? null;

  const owner =
    nodePool === null ? 'no NodePool tag' : nodeClaim === null ? `NodePool ${nodePool}` : `NodeClaim ${nodeClaim} of NodePool ${nodePool}`;
  const types = [...new Set(sorted.map((l) => l.lineItemType))];
  const commitments = [...new Set(explained.map((l) => l.commitment?.arn).filter((a): a is string => a !== undefined))];
  let summary = `${resourceId} (${kind}, ${owner}) on ${day}: ${usd(billUsd)} ${CUR_METRIC_NAME[metric]} over ${plural(lines.length, 'CUR line')} (${types.join(', ')}).`;
  if (commitments.length > 0) summary += ` Covered by ${commitments.join(' and ')}.`;
  if (Math.abs(totals.amortizedUsd - totals.unblendedUsd) >= 0.005) {
    summary += ` Amortized ${usd(totals.amortizedUsd)} vs unblended ${usd(totals.unblendedUsd)}: the commitment's rate, not the on-demand one, is what this usage really cost.`;
  }

  const notes: string[] = [];
  if (kind === 'volume') {
    notes.push(
      'A volume is tagged with its NodePool at launch but never with a NodeClaim (karpenter.sh/nodeclaim is added to the instance only): part of the NodePool\'s "storage and network" bill.',
    );
  }
  if (kind === 'instance' && node === null) {
    notes.push('No NodeClaim we collected has this instance id: it ran outside the snapshots we hold, or was not launched by Karpenter.');
  }
  if (node != null && node.estimateUsd !== null) {
    const onDemand =
      totals.unblendedUsd - sorted.filter((l) => l.lineItemType === 'SavingsPlanNegation').reduce((t, l) => t + l.unblendedUsd, 0);
    notes.push(
      `We estimated ${usd(node.estimateUsd)} for its ${Number(node.hours.toFixed(2))} h that day at public prices; the CUR's usage before commitments is ${usd(onDemand)}.`,
    );
  }
  return {
    day,
    resourceId,
    resourceKind: kind,
    nodePool,
    nodeClaim,
    metric,
    billUsd,
    totals,
    lines: explained,
    node: node ?? null,
    summary,
    notes,
  };
}
