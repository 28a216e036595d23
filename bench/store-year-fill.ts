import { parseArgs } from 'node:util';
import { periodStartMs, retentionSettings } from '../core/retention.js';
import { DAY_MS, HOUR_MS } from '../core/time.js';
import { openDb } from '../db/open-db.js';
import { fillEnvelopeStore } from '../db/repositories/retention-envelope-store.js';
import { createRunsRepository } from '../db/repositories/runs-repository.js';
import { DEFAULT_USAGE_RETENTION_MS } from '../db/repositories/usage-repository.js';

/**
 * `tsx bench/store-year-fill.ts --db FILE [--nodes 1000]`: the store-year bench's 13-month store (14 days at 5 minutes,
 * hourly to 90 days, daily before) at fewer nodes, for a reproduction with bench/route-latency.ts (`--days`), not
 * a bench row.
 */
const { values } = parseArgs({ options: { db: { type: 'string' }, nodes: { type: 'string' } } });
if (values.db === undefined) throw new Error('--db FILE');
const nodes = Number(values.nodes ?? 1000);
if (!Number.isInteger(nodes) || nodes < 10) throw new Error(`--nodes ${values.nodes}: a whole number from 10`);
const endMs = Date.UTC(2026, 10, 1);
const days = Math.round((endMs - Math.floor(periodStartMs(endMs, retentionSettings('14d', '13mo').keep) / DAY_MS) * DAY_MS) / DAY_MS);
const db = openDb({ path: values.db });
db.pragma('synchronous = OFF');
const { seconds } = fillEnvelopeStore(
  db,
  {
    nodes,
    podsPerNode: 30,
    workloads: Math.max(12, Math.round((240 * nodes) / 5000)),
    namespaces: 42,
    endMs,
    days,
    rawDays: 14,
    hourlyDays: retentionSettings(undefined, undefined).hourly.ms / DAY_MS,
    sampleHours: DEFAULT_USAGE_RETENTION_MS / HOUR_MS,
  },
  (m) => console.error(m),
);
const runs = createRunsRepository(db);
runs.finishRun(runs.startRun('kubernetes', 'aws', endMs - HOUR_MS), 'ok', 1, null, endMs - 60_000);
db.pragma('wal_checkpoint(TRUNCATE)');
db.close();
console.log(`filled ${values.db} with ${nodes} nodes in ${seconds.toFixed(0)} s`);
