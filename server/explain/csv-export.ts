import type { BillLine, Explanation } from '../schemas/bill.js';

/**
 * Pure: the bill tables as CSV for download (RFC 4180, CRLF). Text cells that a spreadsheet would run as a
 * formula (starting with = + - @, tab or CR) get a leading apostrophe, so a NodePool or pod name can never
 * become a formula in the reader's spreadsheet; numbers are written as numbers.
 */

export type CsvValue = string | number | boolean | null;

export function csvCell(value: CsvValue): string {
  if (value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${safe.replaceAll('"', '""')}"`;
}

export const toCsv = (header: readonly string[], rows: readonly (readonly CsvValue[])[]): string =>
  [header.map(csvCell), ...rows.map((r) => r.map(csvCell))].map((r) => r.join(',')).join('\r\n') + '\r\n';

export function linesToCsv(lines: readonly BillLine[]): string {
  return toCsv(
    [
      'id',
      'source',
      'granularity',
      'period_start',
      'period_end',
      'nodepool',
      'group_by',
      'dimension_value',
      'unblended_usd',
      'amortized_usd',
      'estimated',
    ],
    lines.map((l) => [
      l.id,
      l.source,
      l.granularity,
      l.periodStart,
      l.periodEnd,
      l.nodePool,
      l.groupBy,
      l.dimensionValue,
      l.unblendedUsd,
      l.amortizedUsd,
      l.estimated,
    ]),
  );
}

/** One row per NodeClaim behind each line, then one row per line with its remainder and status. */
export function explanationsToCsv(explanations: readonly Explanation[]): string {
  const header = [
    'line_id',
    'period_start',
    'line_nodepool',
    'line_dimension',
    'row',
    'node',
    'nodeclaim',
    'nodepool',
    'instance_id',
    'instance_type',
    'capacity_type',
    'zone',
    'from',
    'to',
    'hours',
    'usd_per_hour',
    'price_source',
    'usd',
    'created',
    'removed',
    'why_instance_type',
    'why_size',
    'why_capacity_type',
  ];
  const rows: CsvValue[][] = [];
  for (const e of explanations) {
    const key: CsvValue[] = [e.line.id, e.line.periodStart, e.line.nodePool, e.line.dimensionValue];
    for (const n of e.nodeClaims) {
      rows.push([
        ...key,
        'nodeclaim',
        n.nodeName,
        n.nodeClaim,
        n.nodePool,
        n.instanceId,
        n.instanceType,
        n.capacityType,
        n.zone,
        n.from,
        n.to,
        n.hours,
        n.unitPriceUsdPerHour,
        n.priceSource,
        n.computedUsd,
        n.reasons.created.summary,
        n.reasons.removed.summary,
        n.reasons.instanceType.summary,
        n.reasons.size.summary,
        n.reasons.capacityType.summary,
      ]);
    }
    rows.push([
      ...key,
      'line',
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      e.lineUsd,
      e.status,
      null,
      null,
      null,
      null,
    ]);
    rows.push([
      ...key,
      'remainder',
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      e.remainderUsd,
      e.remainderCauses.map((c) => c.message).join(' '),
      null,
      null,
      null,
      null,
    ]);
  }
  return toCsv(header, rows);
}
