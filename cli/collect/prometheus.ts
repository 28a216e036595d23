import { createPrometheusClient } from '../../collectors/prometheus/client.js';
import { backfillPrometheus } from '../../collectors/prometheus/collect.js';
import { DAY_MS } from '../../core/time.js';
import { createRunsRepository } from '../../db/repositories/runs-repository.js';
import { ProgressBar } from '../progress.js';
import { type CollectContext, errorText } from './context.js';
import { once, type Stage } from './stage.js';

const NAME = 'prometheus';

/**
 * The Prometheus stage (--prometheus), once per invocation: usage history from a Prometheus-compatible API, the
 * closed hours of --prometheus-since not asked for before, in one transaction; a failure writes nothing, is
 * reported, and the next run asks again.
 */
export function prometheusStage(ctx: CollectContext): Stage {
  const cadence = once();
  return {
    name: NAME,
    due: (t) => ctx.o.prometheusUrl !== undefined && cadence.due(t),
    async run(t) {
      cadence.ran(t);
      const url = ctx.o.prometheusUrl;
      if (url === undefined || !ctx.stillHeld()) return;
      const runs = createRunsRepository(ctx.db);
      // A cluster of --clusters marks its run as its own; a one-cluster collect's run stays ledger-wide, as before.
      const runId = runs.startRun('prometheus', ctx.source, Date.now(), ctx.o.clusters === undefined ? null : ctx.clusterId);
      const client = createPrometheusClient({ url });
      const bar = ctx.o.quiet ? null : new ProgressBar('prometheus', 1);
      try {
        const result = await backfillPrometheus({
          db: ctx.db,
          client,
          now: ctx.now(),
          stepMs: ctx.o.intervalMs,
          sinceMs: ctx.o.prometheusSinceMs ?? 14 * DAY_MS,
          runId,
          clusterId: ctx.clusterId,
          onChunk: (done, total) => bar?.update(done / total, `${done}/${total} chunks of ${client.url}`),
        });
        bar?.update(1, result.upToDate ? 'up to date' : `${result.series} series, ${result.rollupsWritten} workload-hours`);
        ctx.summary.prometheusRollups += result.rollupsWritten;
        runs.finishRun(runId, 'ok', result.rollupsWritten);
      } catch (err) {
        runs.finishRun(runId, 'failed', 0, errorText(err));
        ctx.fail(NAME, 'prometheus (nothing written)', err);
      } finally {
        ctx.summary.prometheusRequests += client.attempts();
      }
    },
  };
}
