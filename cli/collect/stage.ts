import { eachBounded } from '../../collectors/each-bounded.js';
import { UsageError } from '../usage-error.js';
import type { CollectContext } from './context.js';

/**
 * One source of the collector (cli/collect/*.ts): its own cadence (`due`) and its own error budget (its failures
 * counted under its name in the summary's `stages`, each one reported as a `failed:` line). A stage records its own
 * failures and goes on; what one throws anyway is recorded against it and the next stage runs all the same.
 */
export interface Stage {
  /** Its key in CollectSummary.stages, e.g. 'cost-explorer'. */
  readonly name: string;
  /** Whether its cadence has it run in the cycle that starts at `t` (the collection clock). */
  due(t: number): boolean;
  run(t: number): Promise<void>;
}

/** A cadence: due at the first cycle, then again once `ms` have passed since the last run began. */
export function every(ms: number): { due(t: number): boolean; ran(t: number): void } {
  let nextAt = -Infinity;
  return {
    due: (t) => t >= nextAt,
    ran: (t) => {
      nextAt = t + ms;
    },
  };
}

/** A cadence: due at the first cycle only. */
export function once(): { due(t: number): boolean; ran(t: number): void } {
  let done = false;
  return {
    due: () => !done,
    ran: () => {
      done = true;
    },
  };
}

/**
 * Runs the stages due at `t`, in their order. A usage error (a region or currency the user must fix) ends the run
 * as it always has; anything else a stage lets out counts against that stage and the others still run.
 */
export async function runDueStages(ctx: CollectContext, stages: readonly Stage[], t: number): Promise<void> {
  for (const stage of stages) {
    if (!stage.due(t)) continue;
    (ctx.summary.stages[stage.name] ??= { runs: 0, failures: 0 }).runs += 1;
    try {
      await stage.run(t);
    } catch (err) {
      if (err instanceof UsageError) throw err;
      ctx.fail(stage.name, stage.name, err);
    }
  }
}

/**
 * Runs the stages due at `t`, at most `limit` at once (independent sources: each account's Cost Explorer). Each
 * stage's failure is its own, as in runDueStages: it counts against that stage and the others run to their end. A
 * usage error ends the run as it always has, once the stages already started have finished (nothing left writing).
 */
export async function runDueStagesBounded(ctx: CollectContext, stages: readonly Stage[], t: number, limit: number): Promise<void> {
  const due = stages.filter((s) => s.due(t));
  let usage: UsageError | null = null;
  await eachBounded(due, limit, async (stage) => {
    (ctx.summary.stages[stage.name] ??= { runs: 0, failures: 0 }).runs += 1;
    try {
      await stage.run(t);
    } catch (err) {
      if (!(err instanceof UsageError)) ctx.fail(stage.name, stage.name, err);
      else usage ??= err;
    }
  });
  if (usage !== null) throw usage;
}

export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((done) => {
    if (signal?.aborted) return done();
    const finish = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', finish);
      done();
    };
    const timer = setTimeout(finish, ms);
    signal?.addEventListener('abort', finish, { once: true });
  });

/** The watch loop: every `intervalMs`, the stages due, until the signal or until the collector lock is lost. */
export async function watchLoop(ctx: CollectContext, stages: readonly Stage[], intervalMs: number): Promise<void> {
  while (!ctx.io.signal?.aborted) {
    const t = ctx.now();
    if (!ctx.stillHeld()) break;
    await runDueStages(ctx, stages, t);
    await sleep(intervalMs, ctx.io.signal);
  }
}
