import type { CollectContext } from './context.js';
import { costExplorerStage } from './cost-explorer.js';
import { KubeWatchStage, kubeListStage } from './kube-snapshot.js';
import { PricesStage } from './prices.js';
import { prometheusStage } from './prometheus.js';
import { retentionStage } from './retention.js';
import { runDueStages, type Stage, watchLoop } from './stage.js';

/** The most a retention pass takes at once (a backlog, e.g. after an upgrade, is folded over several passes). */
const RETENTION_BUDGET_MS = 60_000;

/**
 * The stages of one collection cycle, in the order they run (each decides by its cadence whether it is due). The
 * prices stage is not among them: it runs with each snapshot, whose rows it prices.
 *
 * One more stage goes into this list: e.g. alert evaluation after each snapshot and bill refresh is a Stage whose
 * `due` compares ctx.summary.snapshots and ctx.summary.costRuns.length with what it saw at its last run, placed
 * after the cost-explorer stage and before retention.
 */
function cycleStages(ctx: CollectContext, snapshot: Stage, retentionBudgetMs: number): Stage[] {
  return [snapshot, prometheusStage(ctx), costExplorerStage(ctx), retentionStage(ctx, retentionBudgetMs)];
}

/** collect without --watch: one cycle, every stage once. */
export async function collectOnce(ctx: CollectContext): Promise<void> {
  const prices = new PricesStage(ctx);
  await runDueStages(ctx, cycleStages(ctx, kubeListStage(ctx, prices), RETENTION_BUDGET_MS), ctx.now());
  prices.finish();
}

/** collect --watch: a watch cache, then a cycle every --interval until the signal or the lock is lost. */
export async function collectWatch(ctx: CollectContext): Promise<void> {
  const prices = new PricesStage(ctx);
  const kube = new KubeWatchStage(ctx, prices);
  try {
    await kube.start();
    // Retention right after the snapshot, so it is done (or paused) well before the next one is due.
    const stages = cycleStages(ctx, kube, Math.min(ctx.o.intervalMs / 2, RETENTION_BUDGET_MS));
    await watchLoop(ctx, stages, ctx.o.intervalMs);
    kube.finished();
  } catch (err) {
    kube.failed(err);
  } finally {
    kube.stop();
  }
  prices.finish();
}
