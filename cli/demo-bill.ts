import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../db/open-db.js';
import { checkWindow, hypotheticalBill, type Perturbation, PERTURBATIONS } from '../sandbox/scenario/hypothetical-bill.js';
import type { Scenario } from '../sandbox/scenario/types.js';
import { createBillService } from '../server/services/bill-service.js';
import { DAY_MS } from '../core/time.js';

/**
 * `demo --bill DAY[..DAY][:PERTURBATION]`: after seeding, the sandbox makes a hypothetical bill for those days
 * (perturbed as asked), writes it as the Cost Explorer console's CSV download, and imports that file through the
 * same path a real export takes, so the dashboard's "Explain this bill" can explain it.
 */

export const BILL_USAGE = '--bill DAY[..DAY][:KIND]';
export const BILL_HELP = `--bill DAY[..DAY][:KIND] also makes a hypothetical bill for those days of the scenario (last day inclusive),
written as a Cost Explorer console CSV next to the database and imported as csv:hypothetical-…; KIND perturbs it:
${PERTURBATIONS.join(', ')} (default none). Example: --bill 2026-11-06:untagged-node`;

export interface BillSpec {
  fromMs: number;
  toMs: number;
  perturbation: Perturbation;
  label: string;
}

function parseDay(text: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text ? null : ms;
}

/** The flag's value, or an error message for the usage text. */
export function parseBillSpec(spec: string): BillSpec | { error: string } {
  const [range, kind = 'none'] = spec.split(':');
  if (!(PERTURBATIONS as readonly string[]).includes(kind))
    return { error: `--bill: unknown perturbation "${kind}" (one of ${PERTURBATIONS.join(', ')})` };
  const [first, last = first] = range.split('..');
  const fromMs = parseDay(first);
  const lastMs = parseDay(last);
  if (fromMs === null || lastMs === null) return { error: `--bill: "${range}" is not DAY or DAY..DAY (YYYY-MM-DD)` };
  if (lastMs < fromMs) return { error: `--bill: ${last} is before ${first}` };
  const label = `${first}${last === first ? '' : `..${last}`}`;
  return { fromMs, toMs: lastMs + DAY_MS, perturbation: kind as Perturbation, label };
}

export interface DemoBill {
  file: string;
  source: string;
  lines: number;
  totalUsd: number;
  whatChanged: string;
}

/** Why the days cannot be billed for this scenario, or null (checked before the long seeding). */
export function billWindowError(scenario: Scenario, spec: BillSpec): string | null {
  try {
    checkWindow(scenario, spec.fromMs, spec.toMs);
    return null;
  } catch (err) {
    return `--bill: ${(err as Error).message}`;
  }
}

/** Makes, writes and imports the bill. Throws RangeError for days outside the scenario. */
export function makeDemoBill(db: Db, scenario: Scenario, spec: BillSpec, dir: string): DemoBill {
  checkWindow(scenario, spec.fromMs, spec.toMs);
  const bill = hypotheticalBill(scenario, { fromMs: spec.fromMs, toMs: spec.toMs, perturbation: spec.perturbation, seed: scenario.seed });
  const name = `hypothetical-${spec.label.replace('..', '_')}-${spec.perturbation}`;
  const file = join(dir, `${name}.csv`);
  writeFileSync(file, bill.csv);
  const imported = createBillService(db).importCsv({ bytes: new TextEncoder().encode(bill.csv), fileName: `${name}.csv`, query: { name } });
  return { file, source: imported.source, lines: imported.lines, totalUsd: imported.totalUsd, whatChanged: bill.whatChanged };
}
