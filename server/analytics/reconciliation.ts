/**
 * Reconciliation of the Cost Explorer bill with our estimate, per day x NodePool x purchase kind, with the
 * likely cause of each difference (pure, no I/O). The rows come from mergeDailyCost (daily-cost.ts).
 */

import type { CostMetric, DailyCostRow, GapCause } from '../schemas/cost.js';
import type { ReconciliationCause, ReconciliationResponse, ReconciliationRow } from '../schemas/cost.js';

/** Within this, bill and estimate match: 1 % of the larger, or a cent. */
export const MATCH_FRACTION = 0.01;
export const MATCH_USD = 0.01;
/** Differences up to this share of the estimate are what sampling and spot price moves explain. */
export const SAMPLING_FRACTION = 0.05;

const CAUSE_TEXT: Readonly<Record<ReconciliationCause, string>> = {
  match: 'Bill and estimate agree within 1 % (or a cent).',
  'bill-not-final': 'Cost Explorer still marks this day as estimated; the bill can change until the day is final.',
  'no-bill':
    'No bill line: the karpenter.sh/nodepool cost allocation tag may not be active (activation takes up to 24 h and is not retroactive), or the day is not fetched yet.',
  'no-estimate':
    'No estimate: no snapshots cover this (collector not running), or the purchase type (Savings Plans, Reserved Instances) has no capacity type in the cluster.',
  untagged:
    'Untagged cost: instances without the karpenter.sh/nodepool tag (e.g. managed node groups), or hours billed before Karpenter tagged the instance.',
  'amortized-differs':
    'AmortizedCost differs from UnblendedCost by more than 1 %: Savings Plans or Reserved Instances cover part of this usage.',
  volumes:
    'Volumes and data transfer (EC2 - Other) tagged with the NodePool: part of its bill that the estimate, made of instance prices, does not include.',
  'spot-price-within-hour':
    'Within 5 % on spot capacity: spot prices move within the hour while the estimate samples the price every few minutes.',
  sampling: 'Within 5 % on on-demand capacity: nodes started or stopped between snapshots, and per-second billing around them.',
  unexplained: 'More than 5 % apart with no known cause: check for nodes the collector missed or tags on other resources.',
};

/** The most likely cause of a row's difference, checked in this order. */
export function reconciliationCause(r: DailyCostRow): ReconciliationCause {
  const bill = r.billUsd ?? 0;
  const estimate = r.estimateUsd ?? 0;
  const diff = Math.abs(bill - estimate);
  if (
    r.billUsd !== null &&
    r.estimateUsd !== null &&
    diff <= Math.max(MATCH_USD, MATCH_FRACTION * Math.max(Math.abs(bill), Math.abs(estimate)))
  )
    return 'match';
  if (r.band === 'storage-network') return 'volumes';
  if (r.billEstimated) return 'bill-not-final';
  if (r.nodePool === '') return 'untagged';
  if (r.billUsd === null) return 'no-bill';
  if (r.estimateUsd === null) return 'no-estimate';
  const unblended = r.billUnblendedUsd ?? bill;
  if (r.billAmortizedUsd !== null && Math.abs(r.billAmortizedUsd - unblended) > MATCH_FRACTION * Math.abs(unblended))
    return 'amortized-differs';
  if (diff <= SAMPLING_FRACTION * Math.abs(estimate)) return r.capacityType === 'spot' ? 'spot-price-within-hour' : 'sampling';
  return 'unexplained';
}

export function reconcileRows(rows: readonly DailyCostRow[]): ReconciliationRow[] {
  return rows.map((r) => {
    const cause = reconciliationCause(r);
    const differenceUsd = (r.billUsd ?? 0) - (r.estimateUsd ?? 0);
    return {
      day: r.day,
      nodePool: r.nodePool,
      capacityType: r.capacityType,
      purchaseType: r.purchaseType,
      band: r.band,
      billUsd: r.billUsd,
      billUnblendedUsd: r.billUnblendedUsd,
      billAmortizedUsd: r.billAmortizedUsd,
      billNetUnblendedUsd: r.billNetUnblendedUsd,
      billNetAmortizedUsd: r.billNetAmortizedUsd,
      billEstimated: r.billEstimated,
      estimateUsd: r.estimateUsd,
      differenceUsd,
      differenceFraction: r.estimateUsd === null || r.estimateUsd === 0 ? null : differenceUsd / r.estimateUsd,
      cause,
      causeText: CAUSE_TEXT[cause],
    };
  });
}

/** Per day: Σ bill, Σ estimate, the difference, and the cause of the row that differs most. */
export function reconcileDays(rows: readonly ReconciliationRow[]): ReconciliationResponse['days'] {
  const days = new Map<string, ReconciliationResponse['days'][number] & { worst: number }>();
  for (const r of rows) {
    const d = days.get(r.day) ?? { day: r.day, billUsd: 0, estimateUsd: 0, differenceUsd: 0, mainCause: r.cause, worst: -1 };
    d.billUsd += r.billUsd ?? 0;
    d.estimateUsd += r.estimateUsd ?? 0;
    d.differenceUsd += r.differenceUsd;
    if (Math.abs(r.differenceUsd) > d.worst) {
      d.worst = Math.abs(r.differenceUsd);
      d.mainCause = r.cause;
    }
    days.set(r.day, d);
  }
  return [...days.values()].sort((a, b) => a.day.localeCompare(b.day)).map(({ worst: _worst, ...d }) => d);
}

const sumOrNull = (values: readonly (number | null)[]): number | null =>
  values.some((v) => v === null) ? null : values.reduce<number>((t, v) => t + (v ?? 0), 0);

/**
 * The gap between the bill (in `metric`) and our estimate over the rows, split by cause. Each amount is what the
 * data shows for that cause, bill side minus estimate side:
 * - commitments: amortized − unblended of the compute rows (0 in an unblended metric), the Savings Plans / RI effect;
 * - credits-discounts: net − gross (0 in a gross metric);
 * - volumes: the storage-network bill, which the estimate does not cover;
 * - untagged: bill − estimate of the untagged compute rows (NodePool '');
 * - spot-within-hour: unblended bill − estimate of the tagged spot rows (prices moving between samples);
 * - other: the rest (on-demand sampling, days not fetched or not final, nodes the collector missed).
 * A cause whose inputs some row lacks (net metrics synced before they were asked for) is null and falls into other.
 */
export function gapByCause(rows: readonly DailyCostRow[], metric: CostMetric): GapCause[] {
  const compute = rows.filter((r) => r.band === 'compute' && r.billUnblendedUsd !== null);
  const amortizedMetric = metric === 'amortized' || metric === 'net-amortized';
  const netMetric = metric === 'net-unblended' || metric === 'net-amortized';
  const commitments = amortizedMetric
    ? sumOrNull(compute.map((r) => (r.billAmortizedUsd === null ? null : r.billAmortizedUsd - (r.billUnblendedUsd ?? 0))))
    : 0;
  const gross = (r: DailyCostRow): number | null => (amortizedMetric ? r.billAmortizedUsd : r.billUnblendedUsd);
  const netOf = (r: DailyCostRow): number | null => (metric === 'net-amortized' ? r.billNetAmortizedUsd : r.billNetUnblendedUsd);
  const billed = rows.filter((r) => r.billUnblendedUsd !== null);
  const credits = netMetric
    ? sumOrNull(
        billed.map((r) => {
          const n = netOf(r);
          const g = gross(r);
          return n === null || g === null ? null : n - g;
        }),
      )
    : 0;
  // Gross, so a credit on a volume counts once (under credits-discounts).
  const volumes = rows.filter((r) => r.band === 'storage-network').reduce((t, r) => t + (gross(r) ?? r.billUsd ?? 0), 0);
  const untagged = rows
    .filter((r) => r.band === 'compute' && r.nodePool === '')
    .reduce((t, r) => t + (r.billUnblendedUsd ?? 0) - (r.estimateUsd ?? 0), 0);
  const spot = rows
    .filter(
      (r) =>
        r.band === 'compute' && r.nodePool !== '' && r.capacityType === 'spot' && r.billUnblendedUsd !== null && r.estimateUsd !== null,
    )
    .reduce((t, r) => t + (r.billUnblendedUsd ?? 0) - (r.estimateUsd ?? 0), 0);
  const total = rows.reduce((t, r) => t + (r.billUsd ?? 0) - (r.estimateUsd ?? 0), 0);
  const known = (commitments ?? 0) + (credits ?? 0) + volumes + untagged + spot;
  return [
    {
      cause: 'commitments',
      amountUsd: commitments,
      text: 'Savings Plans and Reserved Instances: amortized − unblended cost of the instances.',
    },
    { cause: 'credits-discounts', amountUsd: credits, text: 'Credits and private discounts: net − gross cost.' },
    {
      cause: 'volumes',
      amountUsd: volumes,
      text: 'Volumes and data transfer tagged with the NodePool (EC2 - Other): not in the estimate.',
    },
    { cause: 'untagged', amountUsd: untagged, text: 'Untagged instance hours: bill − estimate of instances without the NodePool tag.' },
    { cause: 'spot-within-hour', amountUsd: spot, text: 'Spot price movement within the hour: bill − estimate of spot capacity.' },
    { cause: 'other', amountUsd: total - known, text: 'The rest: on-demand sampling between snapshots, days not fetched or not final.' },
  ];
}
