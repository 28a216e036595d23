import { runRetentionPass } from '../retention-stage.js';
import type { CollectContext } from './context.js';
import type { Stage } from './stage.js';

const NAME = 'retention';

/**
 * The retention stage, every cycle (cli/retention-stage.ts): folds, deletes and vacuums for up to `budgetMs`, right
 * after the snapshot so it is done (or paused) well before the next one is due, one short transaction at a time;
 * what is left is done by the next pass.
 */
export function retentionStage(ctx: CollectContext, budgetMs: number): Stage {
  return {
    name: NAME,
    due: () => true,
    async run() {
      if (ctx.retentionSettings === null || !ctx.stillHeld()) return;
      const r = await runRetentionPass(ctx.db, ctx.retentionSettings, { now: ctx.now(), budgetMs });
      ctx.summary.retention = r;
      if (r.error !== null) ctx.fail(NAME, 'retention (each step its own transaction: the file stays sound)', new Error(r.error));
    },
  };
}
