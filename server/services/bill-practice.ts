import type { Db } from '../../db/open-db.js';
import { createRunsRepository } from '../../db/repositories/runs-repository.js';
import { loadScenario } from '../../sandbox/index.js';
import { type HypotheticalBill, hypotheticalBill, PERTURBATIONS } from '../../sandbox/scenario/hypothetical-bill.js';
import type { Scenario } from '../../sandbox/scenario/types.js';
import { parseInstant, QueryParamError } from '../analytics/range.js';
import { parseCostExplorerCsv } from '../explain/csv-import.js';
import type { LineFact } from '../explain/facts.js';
import { nodePoolLabel, usd } from '../explain/format.js';
import type { Perturbation, PracticeAnswers, PracticeQuery, PracticeQuestion } from '../schemas/bill.js';
import type { BillService } from './bill-service.js';
import { toBillLine, toLineFact } from './bill-lines.js';

/**
 * Practice mode: a hypothetical bill made by the sandbox for one day of the scenario the database was seeded
 * from, perhaps perturbed, read back through the CSV import path and explained from the stored cluster data.
 * The question (the bill and what to work out) and the answers (explanations and what the sandbox changed) are
 * separate calls, so a page can hide the answers until asked.
 */

const DAY_MS = 86_400_000;
/** Set by `demo` once its database holds a scenario: "<scenario>|<seed>|v1". */
export const DEMO_SEEDED_SETTING = 'demo.seeded';

export class PracticeUnavailableError extends Error {
  readonly statusCode = 409;
}

/** The scenario behind a demo database, or null for a database filled from a real account. */
export function seededScenario(db: Db): { name: string; seed: number } | null {
  const stamp = createRunsRepository(db).getSetting(DEMO_SEEDED_SETTING);
  const m = stamp === null ? null : /^([A-Za-z0-9_-]+)\|(\d+)\|/.exec(stamp);
  return m ? { name: m[1], seed: Number(m[2]) } : null;
}

interface Plan {
  seed: number;
  dayMs: number;
  perturbation: Perturbation;
  scenario: Scenario;
  bill: HypotheticalBill;
  lines: LineFact[];
  focusLine: number;
}

export function createBillPractice(db: Db, bill: BillService, scenarioOf: (name: string, seed: number) => Scenario = loadScenario) {
  function plan(q: PracticeQuery): Plan {
    const seeded = seededScenario(db);
    if (seeded === null) {
      throw new PracticeUnavailableError(
        'Practice bills need a database seeded from the sandbox (npm start, or nodepool-ledger demo): this one holds no sandbox scenario.',
      );
    }
    const scenario = scenarioOf(seeded.name, seeded.seed);
    const seed = q.seed ?? 1;
    const days = Math.round((scenario.end - scenario.start) / DAY_MS);
    let dayMs: number;
    if (q.day === undefined) dayMs = scenario.start + (seed % days) * DAY_MS;
    else {
      dayMs = parseInstant('day', q.day);
      if (dayMs < scenario.start || dayMs >= scenario.end) {
        throw new QueryParamError(
          'day',
          `must be a day of scenario ${scenario.name}: ${new Date(scenario.start).toISOString().slice(0, 10)} to ${new Date(scenario.end - DAY_MS).toISOString().slice(0, 10)}`,
        );
      }
    }
    const perturbation = q.perturbation ?? PERTURBATIONS[seed % PERTURBATIONS.length];
    const made = hypotheticalBill(scenario, { fromMs: dayMs, toMs: dayMs + DAY_MS, perturbation, seed });
    // Through the import path, as a downloaded export would go.
    const parsed = parseCostExplorerCsv(new TextEncoder().encode(made.csv));
    const source = `practice:${seed}`;
    const lines = parsed.lines.map((l) =>
      toLineFact(
        {
          id: null,
          source,
          granularity: parsed.granularity,
          periodStart: l.periodStart,
          periodStartMs: l.periodStartMs,
          groupBy: 'NONE',
          nodePool: l.nodePool,
          dimensionValue: '',
          unblendedUsd: l.unblendedUsd,
          amortizedUsd: null,
          usageQuantity: null,
          usageUnit: null,
          estimated: false,
        },
        null,
      ),
    );
    const focusPool =
      perturbation === 'untagged-node'
        ? (made.touched?.nodePool ?? '')
        : perturbation === 'tags-inactive'
          ? ''
          : perturbation === 'spot-hourly-price'
            ? (lines.find((l) => l.nodePool === 'spot-batch')?.nodePool ?? '')
            : ([...lines].sort((a, b) => b.unblendedUsd - a.unblendedUsd)[0]?.nodePool ?? '');
    const focusLine = Math.max(
      0,
      lines.findIndex((l) => l.nodePool === focusPool),
    );
    return { seed, dayMs, perturbation, scenario, bill: made, lines, focusLine };
  }

  return {
    question(q: PracticeQuery): PracticeQuestion {
      const p = plan(q);
      const day = new Date(p.dayMs).toISOString().slice(0, 10);
      const focus = p.lines[p.focusLine];
      const prompt = focus
        ? `Cost Explorer shows these EC2 costs for ${day}, grouped by karpenter.sh/nodepool. Explain the ${nodePoolLabel(focus.nodePool)} line (${usd(focus.unblendedUsd)}): which NodeClaims make it up, why each has its instance type, size and capacity type, and whether anything does not add up.`
        : `Cost Explorer shows no EC2 cost for ${day}: why?`;
      return {
        seed: p.seed,
        day,
        scenario: p.scenario.name,
        prompt,
        lines: p.lines.map(toBillLine),
        focusLine: p.focusLine,
        csv: p.bill.csv,
      };
    },

    answers(q: PracticeQuery): PracticeAnswers {
      const p = plan(q);
      return {
        seed: p.seed,
        day: new Date(p.dayMs).toISOString().slice(0, 10),
        perturbation: p.perturbation,
        whatChanged: p.bill.whatChanged,
        explanations: bill.explainFacts(p.lines),
      };
    },
  };
}

export type BillPractice = ReturnType<typeof createBillPractice>;
