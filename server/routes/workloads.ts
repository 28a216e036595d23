import type { FastifyInstance } from 'fastify';
import type { EngineRunner } from '../engine-pool/engine-runner.js';
import type { WorkloadsService } from '../services/workloads-service.js';
import { RecommendationRowSchema } from '../schemas/workloads.js';
import { apiRoutes } from './api-route.js';

/** Workloads: what they request beside what they use, and what right-sized requests would change. */
export async function workloadsRoutes(app: FastifyInstance, opts: { workloads: WorkloadsService; engine: EngineRunner }): Promise<void> {
  const { workloads, engine } = opts;
  const routes = apiRoutes(app, 'workloads');

  routes.get(
    '/api/workloads/recommendations',
    {
      summary:
        'Right-sized requests per workload and container over a usage window (CPU at p95, memory at peak + 15 %, floors 10m / 20 MiB), their monthly USD effect through an engine re-pack of the NodePool (request share as the fallback), usage ÷ request and ÷ allocatable, workload and infrastructure idle',
      description:
        '`window` (1h–90d, default 14d) of hourly usage rollups ending at `at` (default: the newest snapshot); `namespace`. Flags: short-history (under a day), throttled (p95 at or near the CPU limit, or the peak at it: only a limit throttles), above-request (p95 above the request; `throttledBy` lists both causes), oom-killed (memory not lowered), no-request. The USD effect: the NodePool’s pods at the newest snapshot re-packed from scratch by the scheduling engine with current and with recommended requests, the difference × 730 h (`dollarMethod` engine-repack); by request share of the node cost where the engine cannot price it (request-share). `capacity`: per node, NodePool and cluster at that snapshot, usage ÷ request and ÷ allocatable and the node cost split into used, workload idle and infrastructure idle. CSV: one line per workload container, biggest saving first. Computed off the API’s thread; not finished within the time bound: 503 with Retry-After.',
      errors: [503],
      engineAnswer: true,
      csv: {
        fileName: 'workload-recommendations',
        // The columns named, so a window without usage still downloads its header.
        // `cluster` only when the answer spans several clusters (a one-cluster ledger's download is as before).
        table: (b) => ({
          columns: Object.keys(RecommendationRowSchema.properties).filter(
            (k) => k !== 'cluster' || b.rows.some((r) => r.cluster !== undefined),
          ),
          rows: b.rows,
        }),
      },
    },
    // Its dollar effects re-pack NodePools through the engine: off the API's thread (server/engine-pool/).
    (q, ctx) => engine.run('workloads', 'recommendations', [q, ctx.clusterId], { signal: ctx.signal }),
  );

  routes.get(
    '/api/workloads/usage',
    {
      summary: 'One workload container’s hourly usage (CPU p95 and max, memory max) beside its request and CPU limit, for its chart',
      description:
        '`namespace`, `kind`, `name`, `container` name the workload container (as the recommendations list them); `window` (1h–90d, default 14d) ending at `at` (default: the newest snapshot). Hours oldest first; the open hour is computed from the samples kept.',
    },
    (q, ctx) => workloads.usage(q, ctx.clusterId),
  );
}
