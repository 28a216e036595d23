import type { BillGranularity } from '../schemas/bill.js';
import { BillImportError, cellName, decodeUtf8Csv, parseCsvRows } from './csv-syntax.js';

/**
 * Pure: a Cost Explorer console "Download CSV" of a report grouped by the karpenter.sh/nodepool tag -> bill lines.
 *
 * That file is a pivot table: the header names the grouping (the tag key) and then one column per group with
 * "($)" appended — a tag value such as "general($)" (older exports "karpenter.sh/nodepool$general($)"), untagged
 * cost as "No tag key: karpenter.sh/nodepool($)" — and "Total costs($)" last; a "<grouping> total" row; then one
 * row per period, the first cell its start ("2026-11-05"), empty cells where a group had no cost:
 *
 *   "karpenter.sh/nodepool","general($)","No tag key: karpenter.sh/nodepool($)","Total costs($)"
 *   "karpenter.sh/nodepool total","30.5","4.608","35.108"
 *   "2026-11-05","15.25","2.304","17.554"
 *
 * Refused, with a message that says why and what to do: anything over 5 MB; other encodings than UTF-8; Cost and
 * Usage Report / Data Exports files; exports grouped by something else; cells starting with a spreadsheet formula
 * character (= + - @, tab, CR) that are not plain numbers; totals that do not add up (a file cut short). Nothing
 * is kept from a refused file.
 */

export const MAX_IMPORT_BYTES = 5 * 1024 * 1024;
export const NODEPOOL_TAG = 'karpenter.sh/nodepool';
const MAX_COLUMNS = 1000;
/** How far a total row may differ from its cells: Cost Explorer prints 10 decimals; keep well under a cent. */
const TOTAL_TOLERANCE_USD = 0.005;

export interface ImportedLine {
  /** As written in the file: 2026-11-05 (DAILY, MONTHLY) or 2026-11-05T10:00:00Z (HOURLY). */
  periodStart: string;
  periodStartMs: number;
  nodePool: string;
  unblendedUsd: number;
}

export interface ImportedBill {
  layout: 'ce-console-tag';
  granularity: BillGranularity;
  lines: ImportedLine[];
  periods: number;
  /** Sorted; '' = untagged. */
  nodePools: string[];
  totalUsd: number;
  fileTotalUsd: number | null;
  warnings: string[];
}

const CUR_MARKERS = [
  'identity/lineitemid',
  'lineitem/unblendedcost',
  'lineitem/usagestartdate',
  'bill/billingperiodstartdate',
  'line_item_unblended_cost',
  'line_item_usage_start_date',
  'bill_billing_period_start_date',
  'identity_line_item_id',
];
const DIMENSION_NAMES = [
  'service',
  'usage type',
  'instance type',
  'purchase option',
  'linked account',
  'region',
  'availability zone',
  'api operation',
  'instance type family',
  'platform',
  'tenancy',
  'charge type',
  'resource',
  'cost category',
  'usage type group',
  'legal entity',
];
const FORMULA_START = /^[=+\-@\t\r]/;
const NUMBER = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;
const NAME = /^[A-Za-z0-9]([-A-Za-z0-9._]*[A-Za-z0-9])?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?(Z|\+00:00)?$/;

const unit = (header: string): string | null => {
  const m = /^(.*)\(\$\)$/.exec(header.trim());
  return m ? m[1].trim() : null;
};

/** The NodePool a column stands for: '' for untagged, the tag value otherwise; null if it is not a group column. */
function nodePoolOfColumn(label: string, column: number): string {
  const lower = label.toLowerCase();
  if (lower === `no tag key: ${NODEPOOL_TAG}` || lower === `${NODEPOOL_TAG}$` || lower === 'no tag key') return '';
  const value = label.startsWith(`${NODEPOOL_TAG}$`) ? label.slice(NODEPOOL_TAG.length + 1) : label;
  if (!NAME.test(value) || value.length > 253) {
    throw new BillImportError(
      422,
      `Column ${cellName(column, 0)} "${label.slice(0, 80)}($)" is not a NodePool name (tag values of karpenter.sh/nodepool are Kubernetes names).`,
    );
  }
  return value;
}

function checkFormula(cell: string, column: number, row: number): void {
  if (FORMULA_START.test(cell) && !NUMBER.test(cell)) {
    throw new BillImportError(
      422,
      `Cell ${cellName(column, row)} starts with "${cell[0] === '\t' ? '\\t' : cell[0] === '\r' ? '\\r' : cell[0]}": spreadsheet formulas are refused. Upload the CSV as Cost Explorer saved it.`,
    );
  }
}

function amountOf(cell: string, column: number, row: number): number | null {
  const text = cell.trim();
  if (text === '') return null;
  if (!NUMBER.test(text))
    throw new BillImportError(
      422,
      `Cell ${cellName(column, row)} "${text.slice(0, 40)}" is not an amount in dollars (expected digits like 12.3456789012).`,
    );
  return Number(text);
}

/** Epoch ms of a period start, or null when the cell is not a date Cost Explorer writes. */
function periodStartMsOf(text: string): { ms: number; hourly: boolean } | null {
  const d = DATE.exec(text) ?? DATE_TIME.exec(text);
  if (!d) return null;
  const [y, mo, day] = [Number(d[1]), Number(d[2]), Number(d[3])];
  const hourly = d.length > 4 && d[4] !== undefined;
  const ms = Date.UTC(
    y,
    mo - 1,
    day,
    hourly ? Number(d[4]) : 0,
    hourly ? Number(d[5]) : 0,
    hourly && d[6] !== undefined ? Number(d[6]) : 0,
  );
  const back = new Date(ms);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== day) return null;
  if (hourly && (Number(d[4]) > 23 || Number(d[5]) > 59)) return null;
  return { ms, hourly };
}

function refuseOtherLayouts(header: string[]): void {
  const lower = header.map((h) => h.trim().toLowerCase());
  if (lower.some((h) => CUR_MARKERS.includes(h))) {
    throw new BillImportError(
      422,
      'This is an AWS Cost and Usage Report (CUR or Data Exports) file, which is not supported yet. In Cost Explorer, group by Tag karpenter.sh/nodepool and use "Download CSV".',
    );
  }
  const first = lower[0] ?? '';
  if (DIMENSION_NAMES.includes(first)) {
    throw new BillImportError(
      422,
      `This export is grouped by ${header[0].trim()}; the explainer needs it grouped by Tag ${NODEPOOL_TAG}. In Cost Explorer set Group by: Tag -> ${NODEPOOL_TAG}, then "Download CSV".`,
    );
  }
}

function inferGranularity(
  starts: { ms: number; hourly: boolean }[],
  asked: BillGranularity | undefined,
  warnings: string[],
): BillGranularity {
  const hourly = starts.filter((s) => s.hourly).length;
  if (hourly > 0 && hourly < starts.length)
    throw new BillImportError(422, 'The period column mixes dates and date-times: export one granularity at a time.');
  if (hourly > 0) {
    if (asked !== undefined && asked !== 'HOURLY')
      throw new BillImportError(422, `granularity=${asked} was asked for, but the periods are hours.`);
    return 'HOURLY';
  }
  const firsts = starts.every((s) => new Date(s.ms).getUTCDate() === 1);
  if (asked === 'HOURLY') throw new BillImportError(422, 'granularity=HOURLY was asked for, but the periods are dates without a time.');
  if (asked === 'MONTHLY') {
    if (!firsts)
      throw new BillImportError(422, 'granularity=MONTHLY was asked for, but some periods do not start on the first of a month.');
    return 'MONTHLY';
  }
  if (asked === 'DAILY') return 'DAILY';
  const sorted = starts.map((s) => s.ms).sort((a, b) => a - b);
  const gapsOverAMonth = sorted.slice(1).every((ms, i) => ms - sorted[i] >= 28 * 86_400_000);
  if (firsts && sorted.length >= 2 && gapsOverAMonth) return 'MONTHLY';
  if (firsts && sorted.length === 1)
    warnings.push('One period on the first of a month: read as a DAILY line; pass granularity=MONTHLY if the export was monthly.');
  return 'DAILY';
}

function checkTotal(what: string, cells: number, total: number): void {
  if (Math.abs(cells - total) > TOTAL_TOLERANCE_USD) {
    throw new BillImportError(
      422,
      `${what} says ${total} but its cells add up to ${Number(cells.toFixed(10))}: the file looks edited or cut short. Nothing was imported.`,
    );
  }
}

/** Parses the file's bytes. Throws BillImportError (with the HTTP status) for anything it does not accept. */
export function parseCostExplorerCsv(bytes: Uint8Array, opts: { granularity?: BillGranularity } = {}): ImportedBill {
  if (bytes.length > MAX_IMPORT_BYTES) {
    throw new BillImportError(
      413,
      `The file is ${bytes.length} bytes; the limit is ${MAX_IMPORT_BYTES} bytes (5 MB). Export a shorter date range.`,
    );
  }
  const text = decodeUtf8Csv(bytes);
  if (text.trim() === '') throw new BillImportError(400, 'The file is empty: upload the CSV that Cost Explorer\'s "Download CSV" saved.');
  const rows = parseCsvRows(text);
  const header = rows[0] ?? [];
  if (header.length > MAX_COLUMNS)
    throw new BillImportError(422, `The header has ${header.length} columns; at most ${MAX_COLUMNS} are read.`);
  refuseOtherLayouts(header);
  header.forEach((h, c) => checkFormula(h, c, 0));
  if (header.length < 3) {
    throw new BillImportError(
      422,
      `Expected a grouping column, at least one group column ending in "($)" and "Total costs($)"; the header has ${header.length} column${header.length === 1 ? '' : 's'}${header.length === 1 && header[0].includes(';') ? ' (semicolons: re-save with commas)' : ''}.`,
    );
  }
  const last = header[header.length - 1].trim().toLowerCase().replace(/\s+/g, ' ');
  if (last !== 'total costs($)' && last !== 'total cost($)' && last !== 'total cost ($)' && last !== 'total costs ($)') {
    throw new BillImportError(
      422,
      `The last column is "${header[header.length - 1].slice(0, 60)}", expected "Total costs($)": this is not a Cost Explorer console export.`,
    );
  }
  const groupLabels = header.slice(1, -1).map((h, i) => {
    const label = unit(h);
    if (label === null)
      throw new BillImportError(
        422,
        `Column ${cellName(i + 1, 0)} "${h.slice(0, 60)}" does not end in "($)": expected one cost column per group.`,
      );
    return label;
  });
  const grouping = header[0].trim();
  const taggedByName = grouping.toLowerCase() === NODEPOOL_TAG || grouping.toLowerCase() === `tag: ${NODEPOOL_TAG}`;
  const taggedByColumns = groupLabels.some((l) => l.toLowerCase() === `no tag key: ${NODEPOOL_TAG}` || l.startsWith(`${NODEPOOL_TAG}$`));
  if (!taggedByName && !taggedByColumns) {
    const noTag = /^no tag key: (.+)$/i.exec(groupLabels.find((l) => /^no tag key: /i.test(l)) ?? '');
    const other = noTag ? `tag ${noTag[1]}` : `"${grouping.slice(0, 60)}"`;
    throw new BillImportError(
      422,
      `This export is grouped by ${other}; the explainer needs Group by: Tag ${NODEPOOL_TAG} (its first column named "${NODEPOOL_TAG}").`,
    );
  }
  const nodePools = groupLabels.map((l, i) => nodePoolOfColumn(l, i + 1));
  const seen = new Set<string>();
  nodePools.forEach((p, i) => {
    if (seen.has(p))
      throw new BillImportError(422, `NodePool "${p === '' ? 'untagged' : p}" has two columns (${cellName(i + 1, 0)} and another).`);
    seen.add(p);
  });

  const warnings: string[] = [];
  let fileTotals: number[] | null = null;
  const periodRows: {
    start: string;
    at: { ms: number; hourly: boolean };
    amounts: (number | null)[];
    total: number | null;
    row: number;
  }[] = [];
  for (let r = 1; r < rows.length; r += 1) {
    const cells = rows[r];
    if (cells.length !== header.length) {
      throw new BillImportError(422, `Row ${r + 1} has ${cells.length} cells; the header has ${header.length}.`);
    }
    cells.forEach((c, col) => checkFormula(c.trim(), col, r));
    const first = cells[0].trim();
    const amounts = cells.slice(1).map((c, i) => amountOf(c, i + 1, r));
    if (/ total$/i.test(first) || /^total/i.test(first)) {
      if (r !== 1 || fileTotals !== null)
        throw new BillImportError(
          422,
          `Row ${r + 1} "${first.slice(0, 60)}" is a total row out of place (Cost Explorer writes it right under the header).`,
        );
      fileTotals = amounts.map((a) => a ?? 0);
      continue;
    }
    const at = periodStartMsOf(first);
    if (at === null)
      throw new BillImportError(
        422,
        `Cell ${cellName(0, r)} "${first.slice(0, 40)}" is not a period start (expected a date like 2026-11-05).`,
      );
    if (periodRows.some((p) => p.at.ms === at.ms)) throw new BillImportError(422, `Period ${first} appears twice (row ${r + 1}).`);
    periodRows.push({ start: first, at, amounts: amounts.slice(0, -1), total: amounts[amounts.length - 1], row: r });
  }
  if (periodRows.length === 0) throw new BillImportError(422, 'The file has a header but no period rows (dates with amounts).');

  const granularity = inferGranularity(
    periodRows.map((p) => p.at),
    opts.granularity,
    warnings,
  );
  const lines: ImportedLine[] = [];
  const columnSums = nodePools.map(() => 0);
  for (const p of periodRows) {
    let rowSum = 0;
    p.amounts.forEach((a, i) => {
      if (a === null) return;
      rowSum += a;
      columnSums[i] += a;
      // A zero cell is a group with no cost that period: nothing to explain.
      if (a !== 0)
        lines.push({
          periodStart: granularity === 'HOURLY' ? new Date(p.at.ms).toISOString().replace('.000Z', 'Z') : p.start,
          periodStartMs: p.at.ms,
          nodePool: nodePools[i],
          unblendedUsd: a,
        });
    });
    if (p.total !== null) checkTotal(`The total of ${p.start} (cell ${cellName(header.length - 1, p.row)})`, rowSum, p.total);
  }
  const totalUsd = columnSums.reduce((a, b) => a + b, 0);
  let fileTotalUsd: number | null = null;
  if (fileTotals !== null) {
    nodePools.forEach((p, i) =>
      checkTotal(`The total row for ${p === '' ? 'untagged' : p} (cell ${cellName(i + 1, 1)})`, columnSums[i], fileTotals?.[i] ?? 0),
    );
    fileTotalUsd = fileTotals[fileTotals.length - 1];
    checkTotal('The total row\'s "Total costs($)"', totalUsd, fileTotalUsd);
  } else {
    warnings.push("No total row: the file's sums could not be checked against Cost Explorer's.");
  }
  lines.sort((a, b) => a.periodStartMs - b.periodStartMs || a.nodePool.localeCompare(b.nodePool));
  return {
    layout: 'ce-console-tag',
    granularity,
    lines,
    periods: periodRows.length,
    nodePools: [...seen].sort(),
    totalUsd,
    fileTotalUsd,
    warnings,
  };
}
