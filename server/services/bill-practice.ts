import type { Db } from '../../db/open-db.js';
import { createRunsRepository } from '../../db/repositories/runs-repository.js';
import { parseInstant, QueryParamError } from '../analytics/range.js';
import { parseCostExplorerCsv } from '../explain/csv-import.js';
import type { LineFact } from '../explain/facts.js';
import { nodePoolLabel, usd } from '../explain/format.js';
import type { Perturbation, PracticeAnswers, PracticeQuery, PracticeQuestion } from '../schemas/bill.js';
import type { BillService } from './bill-service.js';
import { toBillLine, toLineFact } from './bill-lines.js';
import { DAY_MS } from '../../core/time.js';

/**
 * Practice mode: a hypothetical bill made by the sandbox for one day of the scenario the database was seeded
 * from, perhaps perturbed, read back through the CSV import path and explained from the stored cluster data.
 * The question (the bill and what to work out) and the answers (explanations and what the sandbox changed) are
 * separate calls, so a page can hide the answers until asked.
 *
 * The bills come from a provider: `demo` passes the sandbox's (sandbox/practice-bills.ts); `serve` passes none, so
 * a server on a real account never loads the simulator, and the practice routes answer 501 saying why.
 */

/** What practice mode needs from the simulator. */
export interface PracticeBillProvider {
  /** Perturbations in the order practice seeds cycle through them. */
  readonly perturbations: readonly Perturbation[];
  /** The scenario behind a demo database: its days are [startMs, endMs). */
  scenario(name: string, seed: number, karpenterVersion?: string): { name: string; startMs: number; endMs: number };
  /** A hypothetical bill for whole UTC days [fromMs, toMs) of that scenario, perturbed as asked. */
  bill(scenario: SeededScenario, window: { fromMs: number; toMs: number; perturbation: Perturbation; seed: number }): PracticeBill;
}

export interface PracticeBill {
  /** The Cost Explorer console's "Download CSV" of the bill. */
  csv: string;
  /** What was changed, in words: the answer, not the question. */
  whatChanged: string;
  /** The NodePool tag value of what the perturbation touched, if it touched one NodeClaim. */
  touchedNodePool: string | null;
}

/** Set by `demo` once its database holds a scenario: "<scenario>|<seed>|v1". */
export const DEMO_SEEDED_SETTING = 'demo.seeded';

export class PracticeUnavailableError extends Error {
  readonly statusCode = 409;
}

/** This server was started without the simulator (`serve`): practice bills are for `demo`. */
export class PracticeNotServedError extends Error {
  readonly statusCode = 501;
}

export const PRACTICE_NOT_SERVED =
  'Practice bills are made by the sandbox, which only the demo loads (npm start, or nodepool-ledger demo); this server was started with serve, for real data.';

/** The scenario a demo database was seeded with, and the Karpenter release its sandbox imitated (when stamped). */
export interface SeededScenario {
  name: string;
  seed: number;
  karpenterVersion?: string;
}

/** The scenario behind a demo database, or null for a database filled from a real account. */
export function seededScenario(db: Db): SeededScenario | null {
  const stamp = createRunsRepository(db).getSetting(DEMO_SEEDED_SETTING);
  const m = stamp === null ? null : /^([A-Za-z0-9_-]+)\|(\d+)\|/.exec(stamp);
  if (!m || stamp === null) return null;
  // Each release decides differently (v1.14 consolidates later): the bill must be of the history the database holds.
  const version = /\|karpenter=([0-9][0-9.]*)$/.exec(stamp)?.[1];
  return { name: m[1], seed: Number(m[2]), ...(version === undefined ? {} : { karpenterVersion: version }) };
}

interface Plan {
  seed: number;
  dayMs: number;
  perturbation: Perturbation;
  scenario: { name: string; startMs: number; endMs: number };
  bill: PracticeBill;
  lines: LineFact[];
  focusLine: number;
}

/**
 * The cluster a practice bill is of: the demo's scenario, the ledger's first cluster (id 1, the one every writer
 * defaults to; the demo's second cluster is collected beside it). Its lines are explained by that cluster's NodeClaims.
 */
export const PRACTICE_CLUSTER_ID = 1;

export function createBillPractice(db: Db, bill: BillService, provider: PracticeBillProvider | undefined) {
  function plan(q: PracticeQuery, clusterId: number | null): Plan {
    if (provider === undefined) throw new PracticeNotServedError(PRACTICE_NOT_SERVED);
    if (clusterId !== null && clusterId !== PRACTICE_CLUSTER_ID) {
      throw new PracticeUnavailableError(
        "Practice bills are of the demo's scenario, the ledger's first cluster: ask without ?cluster= or with that cluster's name.",
      );
    }
    const seeded = seededScenario(db);
    if (seeded === null) {
      throw new PracticeUnavailableError(
        'Practice bills need a database seeded from the sandbox (npm start, or nodepool-ledger demo): this one holds no sandbox scenario.',
      );
    }
    const scenario = provider.scenario(seeded.name, seeded.seed, seeded.karpenterVersion);
    const seed = q.seed ?? 1;
    const days = Math.round((scenario.endMs - scenario.startMs) / DAY_MS);
    let dayMs: number;
    if (q.day === undefined) dayMs = scenario.startMs + (seed % days) * DAY_MS;
    else {
      dayMs = parseInstant('day', q.day);
      if (dayMs < scenario.startMs || dayMs >= scenario.endMs) {
        throw new QueryParamError(
          'day',
          `must be a day of scenario ${scenario.name}: ${new Date(scenario.startMs).toISOString().slice(0, 10)} to ${new Date(scenario.endMs - DAY_MS).toISOString().slice(0, 10)}`,
        );
      }
    }
    const perturbation = q.perturbation ?? provider.perturbations[seed % provider.perturbations.length];
    const made = provider.bill(seeded, { fromMs: dayMs, toMs: dayMs + DAY_MS, perturbation, seed });
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
        ? (made.touchedNodePool ?? '')
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
    question(q: PracticeQuery, clusterId: number | null = null): PracticeQuestion {
      const p = plan(q, clusterId);
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

    answers(q: PracticeQuery, clusterId: number | null = null): PracticeAnswers {
      const p = plan(q, clusterId);
      return {
        seed: p.seed,
        day: new Date(p.dayMs).toISOString().slice(0, 10),
        perturbation: p.perturbation,
        whatChanged: p.bill.whatChanged,
        explanations: bill.explainFacts(p.lines, PRACTICE_CLUSTER_ID),
      };
    },
  };
}

export type BillPractice = ReturnType<typeof createBillPractice>;
