import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../db/open-db.js';
import { createCostLinesRepository } from '../../db/repositories/cost-lines-repository.js';
import type { SandboxHandler } from '../../sandbox/serve/context.js';
import { createCostExplorerHandler } from '../../sandbox/serve/cost-explorer.js';
import { newContext, serveHandlers, type ServedHandlers, useDummyAwsCredentials } from '../../test/fixtures/serve-handlers.js';
import { T, TINY_END, tinyScenario } from '../../test/fixtures/tiny-scenario.js';
import { createCostExplorerClient } from './client.js';
import { collectCostExplorer } from './collect.js';
import { DAY_MS } from '../../core/time.js';

useDummyAwsCredentials();

/** What the server received: each GetCostAndUsage's group and time period, with the run it belonged to. */
interface Seen {
  run: number;
  groupBy: string;
  start: string;
  end: string;
}

describe('incremental Cost Explorer sync over a week of runs (requests seen by the server)', () => {
  let served: ServedHandlers;
  const seen: Seen[] = [];
  let run = 0;
  const spy: SandboxHandler = (req) => {
    if (req.headers['x-amz-target'] === 'AWSInsightsIndexService.GetCostAndUsage') {
      const body = JSON.parse(req.body.toString('utf8')) as { TimePeriod: { Start: string; End: string }; GroupBy: { Key: string }[] };
      seen.push({ run, groupBy: body.GroupBy[1].Key, start: body.TimePeriod.Start, end: body.TimePeriod.End });
    }
    return null;
  };

  beforeAll(async () => {
    served = await serveHandlers([spy, createCostExplorerHandler({ pageSize: 5 })], newContext(tinyScenario(), TINY_END));
  });
  afterAll(async () => served.close());

  it('asks for a day while it is estimated, once more when it has become final, and never after', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-ce-incr-'));
    const db = openDb({ path: join(dir, 'ledger.db') });
    const ce = createCostExplorerClient({ endpoint: served.url });
    const window = { startMs: T('2026-11-01T00:00:00Z'), endMs: TINY_END };
    const times = [
      '2026-11-10T12:00:00Z',
      '2026-11-11T12:00:00Z',
      '2026-11-12T12:00:00Z',
      '2026-11-13T12:00:00Z',
      '2026-11-13T18:00:00Z',
      '2026-11-15T00:00:00Z',
      '2026-11-15T00:00:00Z',
    ];
    for (const [i, iso] of times.entries()) {
      run = i + 1;
      served.ctx.clock.set(T(iso));
      await collectCostExplorer({ db, ce, clusterName: 'tiny-cluster', now: T(iso) }, window);
    }

    // A day is estimated while it ends after the start of the day before yesterday (the sandbox follows Cost
    // Explorer here): at 11-10 12:00 the days 11-08..11-10 are estimated. Worked by hand, the runs that must ask for
    // each day: until and including the first run at which it is final, then none.
    const expected: Record<string, number[]> = {
      '2026-11-01': [1],
      '2026-11-02': [1],
      '2026-11-03': [1],
      '2026-11-04': [1],
      '2026-11-05': [1],
      '2026-11-06': [1],
      '2026-11-07': [1],
      '2026-11-08': [1, 2],
      '2026-11-09': [1, 2, 3],
      '2026-11-10': [1, 2, 3, 4],
      '2026-11-11': [2, 3, 4, 5, 6],
      '2026-11-12': [3, 4, 5, 6],
      '2026-11-13': [4, 5, 6, 7],
      '2026-11-14': [6, 7],
    };
    // The EC2 - Other query (volumes, data transfer) follows the same rule: no final day is asked for twice.
    for (const groupBy of ['PURCHASE_TYPE', 'INSTANCE_TYPE', 'USAGE_TYPE']) {
      const runsByDay: Record<string, number[]> = {};
      for (const s of seen.filter((x) => x.groupBy === groupBy)) {
        for (let t = T(`${s.start}T00:00:00Z`); t < T(`${s.end}T00:00:00Z`); t += DAY_MS) {
          const day = new Date(t).toISOString().slice(0, 10);
          const runs = (runsByDay[day] ??= []);
          if (!runs.includes(s.run)) runs.push(s.run);
        }
      }
      expect(runsByDay, groupBy).toEqual(expected);
    }
    // The stored bill is whole: 14 days of the managed node, general and spot-batch once each.
    const days = createCostLinesRepository(db).costPerNodePoolPerDay({ fromMs: window.startMs, toMs: window.endMs });
    expect(days.reduce((sum, d) => sum + d.unblendedUsd, 0)).toBeCloseTo(336 * 0.192 + 0.96 + 0.87, 8);
    expect(days.filter((d) => d.estimated).map((d) => d.day)).toEqual(['2026-11-13', '2026-11-14']);
    ce.destroy();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
