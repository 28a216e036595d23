/**
 * Which CUR imports a view reads, in words (pure, no I/O). One billing period may have been imported from several
 * sources (a local folder, S3, Athena) that describe the same money: the repository reads each period from the
 * source imported last, never adding them up; this names those sources for the response.
 */

import type { CurSourceInfo } from '../schemas/bill-cur.js';

export interface CurPeriodRef {
  source: string;
  /** YYYY-MM. */
  billingPeriod: string;
  importedAtMs: number;
}

/** The newest import of each billing period (ties: the greater source name, as the repository reads), oldest period first. */
export function newestPerPeriod(periods: readonly CurPeriodRef[]): CurPeriodRef[] {
  const best = new Map<string, CurPeriodRef>();
  for (const p of periods) {
    const b = best.get(p.billingPeriod);
    if (b === undefined || p.importedAtMs > b.importedAtMs || (p.importedAtMs === b.importedAtMs && p.source > b.source)) {
      best.set(p.billingPeriod, p);
    }
  }
  return [...best.values()].sort((a, b) => a.billingPeriod.localeCompare(b.billingPeriod));
}

/** Where the figures come from, for the response and the page. */
export function curSourceInfo(chosen: readonly CurPeriodRef[], replaced: number): CurSourceInfo {
  if (chosen.length === 0) {
    return {
      sources: [],
      billingPeriods: [],
      importedAt: null,
      text: 'No Cost and Usage Report imported (nodepool-ledger cur import PATH|s3://bucket/prefix).',
    };
  }
  const sources = [...new Set(chosen.map((p) => p.source))];
  const billingPeriods = chosen.map((p) => p.billingPeriod);
  const importedAtMs = Math.max(...chosen.map((p) => p.importedAtMs));
  const importedAt = new Date(importedAtMs).toISOString();
  const also = replaced > 0 ? ` (${replaced} older import${replaced === 1 ? '' : 's'} of the same periods not added)` : '';
  return {
    sources,
    billingPeriods,
    importedAt,
    text: `CUR 2.0 ${sources.join(', ')}, billing period${billingPeriods.length === 1 ? '' : 's'} ${billingPeriods.join(', ')}, imported ${importedAt.slice(0, 16)}Z${also}.`,
  };
}
