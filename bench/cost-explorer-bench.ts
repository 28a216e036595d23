import { join } from 'node:path';
import { createCostExplorerClient } from '../collectors/cost-explorer/client.js';
import {
  clusterComputeFilter,
  collectCostExplorer,
  type CostCollectResult,
  EC2_COMPUTE_SERVICE,
  EC2_OTHER_SERVICE,
} from '../collectors/cost-explorer/collect.js';
import { TAG_NODEPOOL } from '../core/labels.js';
import { openDb } from '../db/open-db.js';
import { scaleScenario } from '../sandbox/scale/scale-scenario.js';
import type { EpochMs, Scenario } from '../sandbox/scenario/types.js';
import { SandboxClock, type SandboxContext } from '../sandbox/serve/context.js';
import { createCostExplorerHandler } from '../sandbox/serve/cost-explorer.js';
import { evaluate, isEstimatedPeriod, usageRecords } from '../sandbox/serve/ce-query.js';
import { parseCeQuery } from '../sandbox/serve/ce-request.js';
import { startSandboxServer } from '../sandbox/serve/server.js';
import type { BenchContext, BenchResult } from './context.js';
import { type BenchRow, figure } from './report.js';
import { DAY_MS, HOUR_MS } from '../core/time.js';

/**
 * Cost Explorer requests (USD 0.01 each): a 90-day backfill, then the next day's re-sync, by the collector
 * against the sandbox's Cost Explorer over a 92-day synthetic bill — beside the fewest requests that can fetch
 * what is needed. Needed: for the backfill, every period asked for (90 days DAILY x purchase type, x instance type
 * and, for EC2 - Other (volumes, data transfer), x usage type; the last 14 days HOURLY x purchase type and per
 * instance), each request asking for all four cost metrics; for the re-sync, only the periods
 * Cost Explorer had not called final at the backfill, and the new ones. Fewest requests for a run of periods =
 * ceil(result slots / page size), a slot being one (period, group), or a period with no group. Target: equal.
 */

const PAGE_SIZE = 50;
const WINDOW_DAYS = 90;
const RECENT_DAYS = 14;
const METRICS = ['UnblendedCost', 'AmortizedCost', 'NetUnblendedCost', 'NetAmortizedCost', 'UsageQuantity'];
const DUMMY_AWS = {
  AWS_ACCESS_KEY_ID: 'AKIABENCHEXAMPLE0000',
  AWS_SECRET_ACCESS_KEY: 'bench-secret-not-a-real-key',
  AWS_REGION: 'us-east-1',
};

interface Need {
  api: 'GetCostAndUsage' | 'GetCostAndUsageWithResources';
  service: string;
  granularity: 'DAILY' | 'HOURLY';
  groupBy: string;
  /** Period starts to fetch. */
  periods: EpochMs[];
}

const dayFloor = (t: EpochMs): EpochMs => Math.floor(t / DAY_MS) * DAY_MS;
const fmt = (t: EpochMs, g: 'DAILY' | 'HOURLY'): string =>
  g === 'DAILY' ? new Date(t).toISOString().slice(0, 10) : `${new Date(t).toISOString().slice(0, 19)}Z`;

/** What a sync at `now` must fetch, given the sync before it (null: a backfill, everything). */
function needs(now: EpochMs, previousNow: EpochMs | null): Need[] {
  const today = dayFloor(now);
  const periods = (from: EpochMs, to: EpochMs, unit: number) =>
    Array.from({ length: Math.max(0, (to - from) / unit) }, (_, i) => from + i * unit);
  const daily = periods(today - (WINDOW_DAYS - 1) * DAY_MS, today + DAY_MS, DAY_MS);
  const recentDays = periods(today - (RECENT_DAYS - 1) * DAY_MS, today + DAY_MS, DAY_MS);
  const hours = periods(today - (RECENT_DAYS - 1) * DAY_MS, Math.floor(now / HOUR_MS) * HOUR_MS + HOUR_MS, HOUR_MS);
  // A period fetched by the previous sync and final then is never needed again.
  const open = (unit: number) => (p: EpochMs) =>
    previousNow === null ||
    p >= previousNow ||
    isEstimatedPeriod(p + unit, previousNow) ||
    p < dayFloor(previousNow) - (unit === HOUR_MS ? RECENT_DAYS - 1 : WINDOW_DAYS - 1) * DAY_MS;
  return [
    {
      api: 'GetCostAndUsage',
      service: EC2_COMPUTE_SERVICE,
      granularity: 'DAILY',
      groupBy: 'PURCHASE_TYPE',
      periods: daily.filter(open(DAY_MS)),
    },
    {
      api: 'GetCostAndUsage',
      service: EC2_COMPUTE_SERVICE,
      granularity: 'DAILY',
      groupBy: 'INSTANCE_TYPE',
      periods: daily.filter(open(DAY_MS)),
    },
    {
      api: 'GetCostAndUsage',
      service: EC2_OTHER_SERVICE,
      granularity: 'DAILY',
      groupBy: 'USAGE_TYPE',
      periods: daily.filter(open(DAY_MS)),
    },
    {
      api: 'GetCostAndUsage',
      service: EC2_COMPUTE_SERVICE,
      granularity: 'HOURLY',
      groupBy: 'PURCHASE_TYPE',
      periods: hours.filter(open(HOUR_MS)),
    },
    {
      api: 'GetCostAndUsageWithResources',
      service: EC2_COMPUTE_SERVICE,
      granularity: 'DAILY',
      groupBy: 'RESOURCE_ID',
      periods: recentDays.filter(open(DAY_MS)),
    },
  ];
}

/** Fewest requests: per run of consecutive needed periods, ceil(slots / page size). */
function fewestRequests(sc: Scenario, now: EpochMs, need: Need): number {
  const unit = need.granularity === 'DAILY' ? DAY_MS : HOUR_MS;
  let requests = 0;
  const records = usageRecords(sc, now);
  for (let i = 0; i < need.periods.length;) {
    let j = i;
    while (j + 1 < need.periods.length && need.periods[j + 1] === need.periods[j] + unit) j += 1;
    const query = parseCeQuery(
      {
        TimePeriod: { Start: fmt(need.periods[i], need.granularity), End: fmt(need.periods[j] + unit, need.granularity) },
        Granularity: need.granularity,
        Metrics: METRICS,
        Filter: clusterComputeFilter(sc.clusterName, undefined, need.service),
        GroupBy: [
          { Type: 'TAG', Key: TAG_NODEPOOL },
          { Type: 'DIMENSION', Key: need.groupBy },
        ],
      },
      { withResources: need.api === 'GetCostAndUsageWithResources' },
    );
    const slots = evaluate(query, records, now).reduce((s, r) => s + Math.max(1, r.groups.length), 0);
    requests += Math.max(1, Math.ceil(slots / PAGE_SIZE));
    i = j + 1;
  }
  return requests;
}

export async function costExplorerBench(ctx: BenchContext): Promise<BenchResult> {
  const nodes = ctx.quick ? 30 : 80;
  const sc = scaleScenario({ nodes, podsPerNode: 10, days: WINDOW_DAYS + 2, seed: 90, meanNodeLifetimeDays: 4 });
  // The backfill runs at 06:00 UTC the day before the scenario ends; the re-sync a day later.
  const backfillAt = dayFloor(sc.end) - DAY_MS - 18 * HOUR_MS;
  const resyncAt = backfillAt + DAY_MS;
  const sandbox: SandboxContext = { scenario: sc, clock: new SandboxClock(backfillAt), requestLog: [], faults: [] };
  const server = await startSandboxServer(sandbox, [createCostExplorerHandler({ pageSize: PAGE_SIZE })]);
  Object.assign(process.env, DUMMY_AWS);
  const ce = createCostExplorerClient({ endpoint: server.url });
  const db = openDb({ path: join(ctx.tmp, 'cost-explorer.db') });
  const rows: BenchRow[] = [];
  const details: Record<string, unknown> = { nodes, nodesOverTime: sc.nodes.length, pageSize: PAGE_SIZE };
  try {
    const sync = async (name: string, now: EpochMs, previous: EpochMs | null): Promise<void> => {
      sandbox.clock.set(now);
      const before = sandbox.requestLog.length;
      const result: CostCollectResult = await collectCostExplorer(
        { db, ce, clusterName: sc.clusterName, now, hourly: true, resources: true },
        { startMs: dayFloor(now) - (WINDOW_DAYS - 1) * DAY_MS, endMs: dayFloor(now) + DAY_MS },
      );
      const served = sandbox.requestLog.slice(before).filter((r) => r.operation.startsWith('ce:GetCostAndUsage')).length;
      if (served !== result.requests) throw new Error(`the collector counted ${result.requests} requests, the sandbox served ${served}`);
      const fewest = needs(now, previous).map((n) => ({ ...n, fewest: fewestRequests(sc, now, n) }));
      const minimum = fewest.reduce((s, n) => s + n.fewest, 0);
      ctx.log(`cost-explorer: ${name}: ${served} requests, fewest possible ${minimum}`);
      details[name] = {
        at: new Date(now).toISOString(),
        requests: served,
        fewest: minimum,
        queries: result.queries.map((q) => ({
          query: `${q.api} ${q.granularity} x ${q.groupBy}`,
          requests: q.requests,
          ranges: q.ranges,
          lines: q.lines,
          unavailable: q.unavailable,
        })),
        needed: fewest.map((n) => ({ query: `${n.api} ${n.granularity} x ${n.groupBy}`, periods: n.periods.length, fewest: n.fewest })),
      };
      rows.push(
        figure({
          bench: 'cost-explorer',
          figure: `Cost Explorer ${name}: requests`,
          unit: 'requests',
          ours: served,
          peerLabel: 'fewest pages',
          peer: minimum,
          target: { kind: 'equal' },
          note: `USD ${(served * 0.01).toFixed(2)} on a real account; DAILY x purchase type, x instance type and EC2 - Other x usage type (four cost metrics a request), last 14 days HOURLY and per instance; page ${PAGE_SIZE} slots`,
        }),
      );
    };
    await sync(`${WINDOW_DAYS}-day backfill`, backfillAt, null);
    await sync('daily re-sync', resyncAt, backfillAt);
  } finally {
    ce.destroy();
    db.close();
    await server.close();
  }
  return { rows, details };
}
