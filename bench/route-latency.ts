import { parseArgs } from 'node:util';
import { openDb } from '../db/open-db.js';
import { createClusterSnapshotRepository } from '../db/repositories/cluster-snapshot-repository.js';
import { buildApp } from '../server/app.js';
import { percentile } from './tail.js';

/**
 * `tsx bench/route-latency.ts --db FILE [--n 200] [--route /api/whatif/headroom] [--days D] [--verbose]`: one GET route
 * asked `n` times in a row on loopback over a ledger file, as the store bench asks a route with `at` (--days: with
 * `from` D days before `to` instead, as the store-year bench asks a ranged route; the engine on the API's
 * thread, no response cache, `at` the newest snapshot); prints the p50 and p99 (--verbose: every sample's time too). A
 * reproduction small enough to run under `node --cpu-prof` or `--trace-gc` (`node --trace-gc --import tsx
 * bench/route-latency.ts ...`), not a bench row: figures to compare come from `npm run bench`.
 */
const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    n: { type: 'string' },
    route: { type: 'string' },
    days: { type: 'string' },
    verbose: { type: 'boolean' },
  },
});
if (values.db === undefined) throw new Error('--db FILE');
const db = openDb({ path: values.db, readonly: true });
const newest = createClusterSnapshotRepository(db).snapshotAt();
if (newest === null) throw new Error(`${values.db} holds no snapshot`);
const app = buildApp({ db, now: () => newest.takenAt + 60_000, cacheResponses: false });
const base = await app.listen({ host: '127.0.0.1', port: 0 });
const iso = (ms: number): string => new Date(ms).toISOString();
let query = `at=${iso(newest.takenAt)}`;
if (values.days !== undefined) {
  const days = Number(values.days);
  if (!(days > 0)) throw new Error(`--days ${values.days}: a positive number of days`);
  // As the store-year bench asks: `days` back from where the dashboard's presets end.
  const status = (await (await fetch(`${base}/api/status`)).json()) as { defaultRange: { to: string } };
  const toMs = Date.parse(status.defaultRange.to);
  query = `from=${iso(toMs - days * 86_400_000)}&to=${iso(toMs)}`;
}
const url = `${base}${values.route ?? '/api/whatif/headroom'}?${query}`;
const n = Number(values.n ?? 200);
const samples: number[] = [];
for (let i = 0; i < n + 3; i++) {
  const t0 = performance.now();
  const res = await fetch(url);
  const body = await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${Buffer.from(body).toString().slice(0, 300)}`);
  const ms = performance.now() - t0;
  if (values.verbose) console.error(`${i} ${ms.toFixed(1)} ms ${body.byteLength} B`);
  if (i >= 3) samples.push(ms);
}
await app.close();
db.close();
const sorted = [...samples].sort((a, b) => a - b);
console.log(
  JSON.stringify({ url, n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1), min: sorted[0] }),
);
