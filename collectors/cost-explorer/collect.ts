import {
  type CostExplorerClient, type Expression, GetCostAndUsageCommand, type GetCostAndUsageCommandOutput, type ResultByTime,
} from '@aws-sdk/client-cost-explorer';
import { TAG_CLUSTER_NAME, TAG_NODEPOOL } from '../../core/labels';
import { createApiRequestsRepository } from '../../db/repositories/api-requests-repository';
import { type CostGroupBy, createCostLinesRepository } from '../../db/repositories/cost-lines-repository';
import type { Db } from '../../db/open-db';
import { mapCostPeriods, mergePages } from './map';

/**
 * Daily Cost Explorer lines for the cluster's EC2 compute, per NodePool tag x purchase type and per NodePool tag x
 * instance type. Every request costs USD 0.01, so days Cost Explorer already called final are never asked for
 * again: each query starts at the first day of the window not stored as final (estimated days are refreshed).
 */

export const COST_EXPLORER_SOURCE = 'cost-explorer';
export const EC2_COMPUTE_SERVICE = 'Amazon Elastic Compute Cloud - Compute';
const METRICS = ['UnblendedCost', 'AmortizedCost', 'UsageQuantity'];
const QUERIES: readonly CostGroupBy[] = ['PURCHASE_TYPE', 'INSTANCE_TYPE'];
const DAY_MS = 86_400_000;

export interface CostExplorerDeps {
  db: Db;
  ce: CostExplorerClient;
  clusterName: string;
  /** The collection time (epoch ms): days after it are not asked for. */
  now: number;
  runId?: number | null;
}

/** [startMs, endMs) in epoch ms; widened to whole UTC days. */
export interface CostWindow {
  startMs: number;
  endMs: number;
}

export interface CostQueryResult {
  groupBy: CostGroupBy;
  /** The days requested, or null when every day of the window was already final. */
  requested: { start: string; end: string } | null;
  requests: number;
  lines: number;
}

export interface CostCollectResult {
  requests: number;
  linesWritten: number;
  queries: CostQueryResult[];
}

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The cluster's EC2 compute: what Karpenter and managed node groups launch, tagged with the cluster name. */
export const clusterComputeFilter = (clusterName: string): Expression => ({
  And: [
    { Tags: { Key: TAG_CLUSTER_NAME, Values: [clusterName] } },
    { Dimensions: { Key: 'SERVICE', Values: [EC2_COMPUTE_SERVICE] } },
  ],
});

export async function collectCostExplorer(deps: CostExplorerDeps, window: CostWindow): Promise<CostCollectResult> {
  const lines = createCostLinesRepository(deps.db);
  const requests = createApiRequestsRepository(deps.db);
  const startMs = Math.floor(window.startMs / DAY_MS) * DAY_MS;
  // Nothing after today exists yet; today itself is a partial, estimated day.
  const endMs = Math.min(Math.ceil(window.endMs / DAY_MS) * DAY_MS, Math.floor(deps.now / DAY_MS) * DAY_MS + DAY_MS);
  const result: CostCollectResult = { requests: 0, linesWritten: 0, queries: [] };

  for (const groupBy of QUERIES) {
    const query: CostQueryResult = { groupBy, requested: null, requests: 0, lines: 0 };
    result.queries.push(query);
    const final = lines.finalPeriodStarts({ source: COST_EXPLORER_SOURCE, granularity: 'DAILY', groupBy, fromMs: startMs, toMs: endMs });
    let firstMs = startMs;
    while (firstMs < endMs && final.has(day(firstMs))) firstMs += DAY_MS;
    if (firstMs >= endMs) continue;

    query.requested = { start: day(firstMs), end: day(endMs) };
    const pages: ResultByTime[][] = [];
    let token: string | undefined;
    do {
      const detail = { groupBy, ...query.requested, page: pages.length + 1 };
      const record = (error?: string): void => {
        requests.recordApiRequest({
          runId: deps.runId ?? null, at: deps.now, service: 'ce', operation: 'GetCostAndUsage',
          detail: JSON.stringify(error === undefined ? detail : { ...detail, error }),
        });
        query.requests += 1;
        result.requests += 1;
      };
      let out: GetCostAndUsageCommandOutput;
      try {
        out = await deps.ce.send(new GetCostAndUsageCommand({
          TimePeriod: { Start: query.requested.start, End: query.requested.end },
          Granularity: 'DAILY',
          Metrics: METRICS,
          Filter: clusterComputeFilter(deps.clusterName),
          GroupBy: [{ Type: 'TAG', Key: TAG_NODEPOOL }, { Type: 'DIMENSION', Key: groupBy }],
          NextPageToken: token,
        }));
      } catch (err) {
        // A failed call is counted too (with its error), then the run fails: nothing half-fetched is stored.
        record(err instanceof Error ? err.name : String(err));
        throw err;
      }
      record();
      pages.push(out.ResultsByTime ?? []);
      token = out.NextPageToken;
    } while (token);

    // All pages first: a period's groups can span pages, and a period is replaced whole.
    const mapped = mapCostPeriods(mergePages(pages), { source: COST_EXPLORER_SOURCE, granularity: 'DAILY', groupBy, fetchedAt: deps.now });
    query.lines = lines.replaceCostPeriods({
      source: COST_EXPLORER_SOURCE, granularity: 'DAILY', groupBy, fetchedAt: deps.now, periods: mapped.periods, lines: mapped.lines,
    });
    result.linesWritten += query.lines;
  }
  return result;
}
