import type { CsvTable } from '../csv/write-csv.js';
import type { BillLine, Explanation } from '../schemas/bill.js';

/**
 * Pure: the bill tables for CSV download (written by server/csv/write-csv.ts, which defuses formula cells), with the
 * snake_case columns these files have always had, so a spreadsheet built on them keeps working.
 */

type Cell = string | number | boolean | null;

const rowsOf = (columns: readonly string[], rows: readonly (readonly Cell[])[]): CsvTable => ({
  columns,
  rows: rows.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i] ?? null]))),
});

export function linesTable(lines: readonly BillLine[]): CsvTable {
  return rowsOf(
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
      'currency',
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
      l.currency,
    ]),
  );
}

/** One row per NodeClaim behind each line, then one row per line with its remainder and status. */
export function explanationsTable(explanations: readonly Explanation[]): CsvTable {
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
  const rows: Cell[][] = [];
  for (const e of explanations) {
    const key: Cell[] = [e.line.id, e.line.periodStart, e.line.nodePool, e.line.dimensionValue];
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
  return rowsOf(header, rows);
}
