import type { ExplainedNodeClaim, Explanation, ExplanationStatus, RemainderCause } from '../schemas/bill.js';
import type { ExplainContext, LineFact, NodeFact } from './facts.js';
import { hoursText, iso, nodePoolLabel, plural, usd } from './format.js';
import { costOverSpan, type SpanCost } from './price-timeline.js';
import { disruptionsOf, reasonsFor } from './reasons.js';

/**
 * Pure: "explain this bill line". The NodeClaims behind a Cost Explorer line (its NodePool tag, purchase type,
 * instance type or instance id, and its period), what each cost over the period at the prices then in effect,
 * and why it exists. The line's amount minus their sum is the remainder, shown with its likely cause.
 *
 * Tolerance: a cent (Cost Explorer's rounding and ours), plus, for spot NodeClaims, how much their price moved
 * within the hours they ran — the difference between pricing each hour at its start and integrating the price
 * history exactly. Real bills charge spot by the second at the price in effect, which our 5-minute view of the
 * price history can only bound; the sandbox bills exactly, so its remainders are rounding only.
 */

export const CENT_USD = 0.01;
export const PURCHASE_TYPE_ON_DEMAND = 'On Demand Instances';
export const PURCHASE_TYPE_SPOT = 'Spot Instances';

/** The Cost Explorer PURCHASE_TYPE a node's usage is billed under (capacity reservations bill as on-demand). */
export const purchaseTypeOf = (capacityType: string): string => (capacityType === 'spot' ? PURCHASE_TYPE_SPOT : PURCHASE_TYPE_ON_DEMAND);

const isCommitmentPurchaseType = (v: string): boolean => v !== PURCHASE_TYPE_ON_DEMAND && v !== PURCHASE_TYPE_SPOT;

/** Whether a node's usage falls under a line's grouping (the tag aside). */
function matchesDimension(node: NodeFact, line: LineFact): boolean {
  switch (line.groupBy) {
    case 'PURCHASE_TYPE':
      // Savings Plans / Reserved Instances cover on-demand capacity at a discount.
      return isCommitmentPurchaseType(line.dimensionValue)
        ? node.capacityType !== 'spot'
        : purchaseTypeOf(node.capacityType) === line.dimensionValue;
    case 'INSTANCE_TYPE':
      return node.instanceType === line.dimensionValue;
    case 'RESOURCE_ID':
      return node.instanceId === line.dimensionValue;
    case 'USAGE_TYPE':
      // EC2 - Other (volumes, data transfer): billed apart from any instance's hours, so no node's price explains it.
      return false;
    case 'NONE':
      return true;
  }
}

/** Where a node's billed life ends as far as the data knows: its deletion, else the end of the snapshots. */
function billedEndMs(node: NodeFact, line: LineFact, ctx: ExplainContext): number {
  const horizon =
    ctx.coverage.lastSnapshotMs === null ? Number.POSITIVE_INFINITY : ctx.coverage.lastSnapshotMs + ctx.coverage.snapshotIntervalMs;
  const end = node.deletedAtMs ?? horizon;
  return Math.min(end, line.billAsOfMs ?? Number.POSITIVE_INFINITY);
}

interface Costed {
  node: NodeFact;
  fromMs: number;
  toMs: number;
  cost: SpanCost;
}

function costNode(node: NodeFact, line: LineFact, ctx: ExplainContext): Costed | null {
  const fromMs = Math.max(node.launchedAtMs, line.periodStartMs);
  const toMs = Math.min(billedEndMs(node, line, ctx), line.periodEndMs);
  if (toMs <= fromMs) return null;
  return { node, fromMs, toMs, cost: costOverSpan(ctx.prices(node), fromMs, toMs) };
}

/**
 * How much of a deleted node's billed time is uncertain: it was last seen at lastSeenMs and gone at deletedAtMs;
 * a termination event inside that gap narrows it (the instance ends after the event, once drained).
 */
function deletionUncertaintyUsd(c: Costed, ctx: ExplainContext): number {
  const { node } = c;
  const deletedAtMs = node.deletedAtMs;
  if (deletedAtMs === null || deletedAtMs > c.toMs || deletedAtMs <= c.fromMs) return 0;
  // The kept disruption's time is its termination event's (a NodeClaim known only from its conditions has none).
  const removal = disruptionsOf(node, ctx).removedBy;
  const terminatedAt =
    removal !== null && removal.source === 'event' && removal.atMs > node.lastSeenMs && removal.atMs <= deletedAtMs ? [removal.atMs] : [];
  const earliestEnd = Math.max(node.lastSeenMs, c.fromMs, ...terminatedAt);
  const uncertainMs = Math.max(0, deletedAtMs - earliestEnd);
  return (uncertainMs / 3_600_000) * c.cost.averageUsdPerHour;
}

/** The parts of [from, to) with no snapshots: before the first, or after the last plus one interval. */
function uncoveredSpans(line: LineFact, ctx: ExplainContext): { fromMs: number; toMs: number }[] {
  const { firstSnapshotMs: first, lastSnapshotMs: last, snapshotIntervalMs } = ctx.coverage;
  if (first === null || last === null) return [{ fromMs: line.periodStartMs, toMs: line.periodEndMs }];
  const spans: { fromMs: number; toMs: number }[] = [];
  if (line.periodStartMs < first) spans.push({ fromMs: line.periodStartMs, toMs: Math.min(first, line.periodEndMs) });
  const horizon = last + snapshotIntervalMs;
  const end = Math.min(line.periodEndMs, line.billAsOfMs ?? Number.POSITIVE_INFINITY);
  if (end > horizon) spans.push({ fromMs: Math.max(horizon, line.periodStartMs), toMs: end });
  return spans;
}

function toExplained(c: Costed, ctx: ExplainContext): ExplainedNodeClaim {
  const n = c.node;
  return {
    nodeName: n.name,
    nodeClaim: n.nodeClaim,
    nodePool: n.nodePool,
    instanceId: n.instanceId,
    instanceType: n.instanceType,
    capacityType: n.capacityType,
    zone: n.zone,
    launchedAt: iso(n.launchedAtMs),
    removedAt: n.deletedAtMs === null ? null : iso(n.deletedAtMs),
    from: iso(c.fromMs),
    to: iso(c.toMs),
    hours: c.cost.hours,
    unitPriceUsdPerHour: c.cost.averageUsdPerHour,
    minUsdPerHour: c.cost.minUsdPerHour,
    maxUsdPerHour: c.cost.maxUsdPerHour,
    priceSource: c.cost.source,
    priceChanges: c.cost.changes,
    computedUsd: c.cost.usd,
    reasons: reasonsFor(n, ctx),
  };
}

export function lineLabel(line: LineFact): string {
  const period =
    line.granularity === 'DAILY'
      ? iso(line.periodStartMs).slice(0, 10)
      : line.granularity === 'MONTHLY'
        ? iso(line.periodStartMs).slice(0, 7)
        : iso(line.periodStartMs).slice(0, 16);
  return [nodePoolLabel(line.nodePool), line.dimensionValue, period].filter((s) => s !== '').join(' · ');
}

/** Per-line facts the period-wide pass reads back. */
export interface LineWork {
  line: LineFact;
  costed: Costed[];
  explanation: Explanation;
  /** The line holds every node's cost because the NodePool tag is (or looks) inactive. */
  tagsInactive: boolean;
}

function explainOne(line: LineFact, ctx: ExplainContext, tagsInactive: boolean, withNodeClaims: boolean): LineWork {
  const splitByTag = !(tagsInactive && line.nodePool === '');
  const costed = ctx.nodes
    .filter((n) => (!splitByTag || (n.nodePool ?? '') === line.nodePool) && matchesDimension(n, line))
    .map((n) => costNode(n, line, ctx))
    .filter((c): c is Costed => c !== null)
    .sort((a, b) => b.cost.usd - a.cost.usd || a.node.name.localeCompare(b.node.name));
  const computedUsd = costed.reduce((s, c) => s + c.cost.usd, 0);
  const lineUsd = line.unblendedUsd;
  const remainderUsd = lineUsd - computedUsd;
  const spotMovementUsd = costed
    .filter((c) => c.node.capacityType === 'spot')
    .reduce((s, c) => s + Math.abs(c.cost.usd - c.cost.hourStartUsd), 0);
  const toleranceUsd = CENT_USD + spotMovementUsd;
  const within = Math.abs(remainderUsd) <= toleranceUsd;
  const causes: RemainderCause[] = [];
  const notes: string[] = [];

  const uncovered = uncoveredSpans(line, ctx);
  const uncoveredHours = uncovered.reduce((s, u) => s + (u.toMs - u.fromMs) / 3_600_000, 0);
  if (uncoveredHours > 0) {
    notes.push(
      `No snapshots cover ${hoursText(uncoveredHours)} of this period (${uncovered.map((u) => `${iso(u.fromMs)} – ${iso(u.toMs)}`).join(', ')}): NodeClaims running only then are missing.`,
    );
  }
  const unpriced = costed.filter((c) => c.cost.source === 'unknown');
  if (line.groupBy === 'USAGE_TYPE') {
    notes.push(
      `"${line.dimensionValue}" is EC2 - Other usage (volumes, snapshots, data transfer) that Karpenter tagged with the NodePool at launch: part of the NodePool's bill, never of one NodeClaim (the NodeClaim tag is on the instance only), and outside our instance-price estimate.`,
    );
  }
  if (line.groupBy === 'PURCHASE_TYPE' && isCommitmentPurchaseType(line.dimensionValue)) {
    notes.push(
      `"${line.dimensionValue}" is usage covered by a commitment (Savings Plans or Reserved Instances) at a discounted rate; the NodeClaims below are priced on demand, so they show what the hours would cost without it.`,
    );
  }
  if (line.amortizedUsd !== null && Math.abs(line.amortizedUsd - lineUsd) > CENT_USD) {
    notes.push(
      `Amortized cost ${usd(line.amortizedUsd)} differs from unblended ${usd(lineUsd)}: commitments (Savings Plans, Reserved Instances) apply to this usage.`,
    );
  }

  if (!splitByTag) {
    causes.push({
      code: 'tags-not-active',
      message:
        'karpenter.sh/nodepool is not an active cost allocation tag (or was not for this period), so Cost Explorer bills every instance under the untagged line: the line cannot be split by NodePool. Activate it in Billing → Cost allocation tags; activation takes up to 24 h and is not retroactive.',
      usd: null,
    });
  }
  if (within && splitByTag) {
    if (Math.abs(remainderUsd) > CENT_USD) {
      causes.push({
        code: 'spot-within-hour',
        message: `Spot prices moved within the hours these NodeClaims ran (by up to ${usd(spotMovementUsd)} between hour-start and exact pricing); the remainder is inside that.`,
        usd: remainderUsd,
      });
    } else if (Math.abs(remainderUsd) >= 1e-6) {
      causes.push({
        code: 'rounding',
        message: 'Rounding: Cost Explorer amounts and our arithmetic differ by less than a cent.',
        usd: remainderUsd,
      });
    }
  } else if (!within) {
    if (line.nodePool !== '' && remainderUsd < 0) {
      causes.push({
        code: 'untagged-hours',
        message: `These NodeClaims ran ${usd(-remainderUsd)} more than this line bills under karpenter.sh/nodepool=${line.nodePool}: some of their hours were likely billed without the tag (look at the untagged line).`,
        usd: remainderUsd,
      });
    }
    if (line.nodePool === '' && splitByTag && remainderUsd > 0) {
      causes.push({
        code: 'untagged-hours',
        message: `The untagged line is ${usd(remainderUsd)} more than the nodes without a NodePool cost: hours of Karpenter instances billed without the karpenter.sh/nodepool tag (a tag removed, or a launch outside Karpenter).`,
        usd: remainderUsd,
      });
    }
    if (uncoveredHours > 0) {
      causes.push({
        code: 'no-snapshot-data',
        message: `No snapshot data for ${hoursText(uncoveredHours)} of the period: the NodeClaims that ran then cannot be listed.`,
        usd: null,
      });
    }
    const uncertainUsd = costed.reduce((s, c) => s + deletionUncertaintyUsd(c, ctx), 0);
    if (uncertainUsd > CENT_USD) {
      causes.push({
        code: 'deletion-time-uncertain',
        message: `Deletion times are known to within the snapshot interval: up to ${usd(uncertainUsd)} of the computed cost may not have been billed.`,
        usd: -uncertainUsd,
      });
    }
    if (
      (line.groupBy === 'PURCHASE_TYPE' && isCommitmentPurchaseType(line.dimensionValue)) ||
      (line.amortizedUsd !== null && Math.abs(line.amortizedUsd - lineUsd) > CENT_USD)
    ) {
      causes.push({
        code: 'discounts',
        message: 'Savings Plans, Reserved Instances or private pricing change the rate billed; the NodeClaims are priced at public rates.',
        usd: null,
      });
    }
    if (unpriced.length > 0) {
      causes.push({
        code: 'unknown-prices',
        message: `No price is stored for ${plural(unpriced.length, 'NodeClaim')} (${unpriced.map((c) => c.node.instanceType).join(', ')}): they count as $0.`,
        usd: null,
      });
    }
    if (causes.length === 0) {
      causes.push({ code: 'unmatched', message: `No cause found in the data for ${usd(remainderUsd)}.`, usd: remainderUsd });
    }
  }

  let status: ExplanationStatus;
  if (!splitByTag) status = 'cannot-explain';
  else if (within) status = 'explained';
  else if (costed.length === 0) status = 'cannot-explain';
  else status = 'partly-explained';

  const label = lineLabel(line);
  let summary: string;
  if (!splitByTag) {
    summary = `${label}: ${usd(lineUsd)} holds every instance's cost because the NodePool tag is not active; the ${plural(costed.length, 'NodeClaim')} that ran cost ${usd(computedUsd)} in all, but the line cannot be split by NodePool.`;
  } else if (costed.length === 0) {
    summary =
      lineUsd === 0
        ? `${label}: nothing billed and nothing ran.`
        : `${label}: ${usd(lineUsd)} billed, but the stored data holds no NodeClaim that ran under it in the period.`;
  } else {
    summary =
      `${label}: ${usd(lineUsd)} billed; ${plural(costed.length, 'NodeClaim')} account for ${usd(computedUsd)}` +
      (within
        ? ` (remainder ${usd(remainderUsd)}, within the ${usd(toleranceUsd)} tolerance).`
        : `, leaving ${usd(remainderUsd)} unexplained.`);
  }

  return {
    line,
    costed,
    tagsInactive: !splitByTag,
    explanation: {
      line: stripFacts(line),
      status,
      summary,
      // Lines read only to match an untagged surplus skip the per-NodeClaim reasons (the costly part).
      nodeClaims: withNodeClaims ? costed.map((c) => toExplained(c, ctx)) : [],
      lineUsd,
      computedUsd,
      remainderUsd,
      toleranceUsd,
      remainderCauses: causes,
      notes,
    },
  };
}

function stripFacts(line: LineFact): Explanation['line'] {
  const { periodStartMs: _s, periodEndMs: _e, billAsOfMs: _a, ...rest } = line;
  return rest;
}

/** Lines that describe the same money another way are compared only with each other. */
const bucketKey = (l: LineFact): string =>
  `${l.source}|${l.granularity}|${l.periodStartMs}|${l.groupBy}|${l.groupBy === 'PURCHASE_TYPE' || l.groupBy === 'INSTANCE_TYPE' ? l.dimensionValue : ''}`;

/**
 * Whether the NodePool tag looks inactive for the lines of one period and grouping: nothing is tagged, and the
 * untagged line holds more than half of what Karpenter's NodeClaims cost on top of the nodes without a NodePool.
 * (ListCostAllocationTags says so directly where its answer was stored.)
 */
function tagsLookInactive(lines: readonly LineFact[], ctx: ExplainContext): boolean {
  if (ctx.nodePoolTag === 'inactive') return true;
  const untagged = lines.find((l) => l.nodePool === '');
  if (!untagged || lines.some((l) => l.nodePool !== '')) return false;
  let karpenterUsd = 0;
  let otherUsd = 0;
  for (const n of ctx.nodes) {
    if (!matchesDimension(n, untagged)) continue;
    const c = costNode(n, untagged, ctx);
    if (c === null) continue;
    if (n.nodePool === null) otherUsd += c.cost.usd;
    else karpenterUsd += c.cost.usd;
  }
  return karpenterUsd > CENT_USD && untagged.unblendedUsd - otherUsd > karpenterUsd / 2;
}

/**
 * Explains lines, reading lines of the same period together: an untagged line's surplus is matched with the
 * tagged lines that fall short by the same money, naming the NodeClaims whose hours went untagged. `wanted`
 * picks the lines to return (the others are context); default all.
 */
export function explainLines(
  lines: readonly LineFact[],
  ctx: ExplainContext,
  wanted: (line: LineFact) => boolean = () => true,
): Explanation[] {
  const buckets = new Map<string, LineFact[]>();
  for (const l of lines) buckets.set(bucketKey(l), [...(buckets.get(bucketKey(l)) ?? []), l]);
  const inactiveByBucket = new Map([...buckets].map(([k, ls]) => [k, tagsLookInactive(ls, ctx)]));
  const work = lines.map((l) => explainOne(l, ctx, inactiveByBucket.get(bucketKey(l)) ?? false, wanted(l)));
  for (const ls of buckets.values()) matchUntaggedSurplus(work.filter((w) => ls.includes(w.line)));
  return work.filter((w) => wanted(w.line)).map((w) => w.explanation);
}

/** The NodeClaims of a short line whose cost in the period is close to the shortfall (one of them, or all). */
function likelyUntagged(w: LineWork, shortUsd: number): Costed[] {
  const tol = Math.max(CENT_USD, w.explanation.toleranceUsd);
  const single = w.costed.filter((c) => Math.abs(c.cost.usd - shortUsd) <= tol);
  if (single.length > 0) return single;
  return [];
}

function matchUntaggedSurplus(members: LineWork[]): void {
  const untagged = members.find((w) => w.line.nodePool === '' && !w.tagsInactive);
  if (!untagged) return;
  const surplus = untagged.explanation.remainderUsd;
  if (surplus <= untagged.explanation.toleranceUsd) return;
  const short = members.filter((w) => w.line.nodePool !== '' && w.explanation.remainderUsd < -w.explanation.toleranceUsd);
  if (short.length === 0) return;
  const shortUsd = short.reduce((s, w) => s - w.explanation.remainderUsd, 0);
  const tolerance = [untagged, ...short].reduce((s, w) => s + w.explanation.toleranceUsd, 0);
  if (Math.abs(shortUsd - surplus) > tolerance) return;
  const suspects = short.flatMap((w) => likelyUntagged(w, -w.explanation.remainderUsd));
  const named =
    suspects.length > 0
      ? ` The likely ${suspects.length === 1 ? 'NodeClaim is' : 'NodeClaims are'} ${suspects.map((c) => `${c.node.nodeClaim ?? c.node.name} (${c.node.instanceType}, ${usd(c.cost.usd)} in the period)`).join(', ')}.`
      : '';
  const pools = short.map((w) => `${w.line.nodePool} (${usd(-w.explanation.remainderUsd)} short)`).join(', ');
  const message = `The untagged surplus ${usd(surplus)} matches what ${pools} ${short.length === 1 ? 'is' : 'are'} missing: those hours were billed without the karpenter.sh/nodepool tag.${named}`;
  for (const w of [untagged, ...short]) {
    const cause = w.explanation.remainderCauses.find((c) => c.code === 'untagged-hours');
    if (cause) cause.message = `${cause.message} ${message}`;
    w.explanation.summary = `${w.explanation.summary} Matched: ${usd(w === untagged ? surplus : -w.explanation.remainderUsd)} of untagged hours.`;
  }
}
