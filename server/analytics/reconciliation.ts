/**
 * Reconciliation of the Cost Explorer bill with our estimate, per day x NodePool x purchase kind, with the
 * likely cause of each difference (pure, no I/O). The rows come from mergeDailyCost (daily-cost.ts).
 */

import type { DailyCostRow } from '../schemas/cost.js';
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
  if (r.billEstimated) return 'bill-not-final';
  if (r.nodePool === '') return 'untagged';
  if (r.billUsd === null) return 'no-bill';
  if (r.estimateUsd === null) return 'no-estimate';
  if (r.billAmortizedUsd !== null && Math.abs(r.billAmortizedUsd - bill) > MATCH_FRACTION * Math.abs(bill)) return 'amortized-differs';
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
      billUsd: r.billUsd,
      billAmortizedUsd: r.billAmortizedUsd,
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
