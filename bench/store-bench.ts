import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openDb } from '../db/open-db.js';
import { createDisruptionsRepository } from '../db/repositories/disruptions-repository.js';
import { createKubeRepository } from '../db/repositories/kube-repository.js';
import { buildApp } from '../server/app.js';
import { type BenchCacheEntry, benchCache } from './cache.js';
import type { BenchContext, BenchResult } from './context.js';
import { type BenchRow, figure } from './report.js';
import { fillStore, STEP_MS } from './store-fill.js';
import { DAY_MS } from '../core/time.js';
import { type Latency, tailNote, timeEach } from './route-timing.js';
import { allClustersOverviewRows } from './clusters-overview.js';

export { percentile } from './tail.js';

/**
 * Store and query: a month of 5-minute snapshots of a 1,000-node cluster, generated in bulk but for its last day, which
 * is written through the kube repository (writeSnapshot, rollups included) and its Cost Explorer bill through the real
 * collector (bench/store-fill.ts); then every GET route
 * of the API (read from its OpenAPI document, so routes added later are measured too) asked in a bounded loop on
 * loopback, for a 1-day, a 30-day and (where the store holds it) a 90-day range, the ranges asked in turns. Targets: p99
 * <= 100 ms at every range (from 200 samples; --quick's 40 support a p95, and its rows say so), and the longer answers'
 * p50 within 2x of the 1-day one where they are the same size (read from rollups, not scans of raw rows).
 */

const P99_BOUND_MS = 100;
/** The ranges every ranged GET route is asked for, ending where the dashboard's presets end. */
const RANGE_DAYS = [1, 30, 90] as const;

interface Param {
  name: string;
  in: string;
  required?: boolean;
}

/** Routes worth timing: GET /api/... without path parameters, CSV twins left out (same query, another encoding). */
export function timedRoutes(doc: {
  paths?: Record<string, Record<string, { parameters?: Param[] }>>;
}): { path: string; params: string[]; required: string[] }[] {
  const out: { path: string; params: string[]; required: string[] }[] = [];
  for (const [path, ops] of Object.entries(doc.paths ?? {})) {
    const get = ops.get;
    if (!get || !path.startsWith('/api/') || path.includes('{') || path.endsWith('.csv')) continue;
    const query = (get.parameters ?? []).filter((p) => p.in === 'query');
    out.push({ path, params: query.map((p) => p.name), required: query.filter((p) => p.required).map((p) => p.name) });
  }
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

/** One request, its wall time in ms (it must answer 200). */
async function timeOnce(url: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url);
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return performance.now() - t0;
}

/** The quick store's size: a month of 40 nodes' 5-minute snapshots (the full run's is 1,000 nodes). */
const storeSize = (quick: boolean) => ({ nodes: quick ? 40 : 1000, podsPerNode: 30, days: 30 });

interface KeptStore {
  endMs: number;
  fill: unknown;
  bill: unknown;
}

/** Quick runs keep the filled store (a few hundred MB) between runs; the full one (gigabytes) fills it every time. */
function storeCache(quick: boolean): BenchCacheEntry<KeptStore> | null {
  if (!quick) return null;
  const { nodes, podsPerNode, days } = storeSize(quick);
  return benchCache<KeptStore>('store', { nodes, podsPerNode, days, stepMs: STEP_MS }, [
    'bench/store-fill.ts',
    'bench/scale-history.ts',
    'core',
    'db',
    'collectors',
    'sandbox',
  ]);
}

/** The store filled in a scratch file of the run and kept in `cache`'s folder. */
async function keepStore(ctx: BenchContext, cache: BenchCacheEntry<KeptStore>): Promise<KeptStore & { keptAt: string }> {
  const scratch = join(ctx.tmp, 'store-fill.db');
  const details: Record<string, unknown> = {};
  // The simulation (about 250 MB of JavaScript objects at 1,000 nodes) lives only while the store is filled: the
  // API is then timed in a process holding what `serve` holds, not a heap whose every major GC marks the scenario too.
  const fillDb = openDb({ path: scratch });
  try {
    const endMs = await fillStore(ctx, fillDb, storeSize(ctx.quick), details);
    await fillDb.backup(join(cache.dir, 'store.db'));
    return cache.keep({ endMs, fill: details.fill, bill: details.bill });
  } finally {
    fillDb.close();
    for (const f of [scratch, `${scratch}-wal`, `${scratch}-shm`]) rmSync(f, { force: true });
  }
}

/**
 * The quick store filled into its cache entry (bench/cache.ts) unless it is kept already: what the run's preparation
 * (bench/prepare.ts) does ahead, beside other work, so that the bench only copies it.
 */
/** Whether the store is kept (or there is nowhere to keep it): nothing for a preparation to do. */
export function storeKept(quick: boolean): boolean {
  const cache = storeCache(quick);
  return cache === null || cache.kept !== null;
}

export async function prepareStore(ctx: BenchContext): Promise<void> {
  const cache = storeCache(ctx.quick);
  if (cache !== null && cache.kept === null) await keepStore(ctx, cache);
}

export async function storeBench(ctx: BenchContext): Promise<BenchResult> {
  const { nodes, podsPerNode, days } = storeSize(ctx.quick);
  const path = join(ctx.tmp, 'store.db');
  const details: Record<string, unknown> = { nodes, podsPerNode, days, stepMinutes: STEP_MS / 60_000 };
  const cache = storeCache(ctx.quick);
  let endMs: number;
  if (cache) {
    const kept = cache.kept ?? (await keepStore(ctx, cache));
    copyFileSync(join(cache.dir, 'store.db'), path);
    endMs = kept.endMs;
    details.fill = kept.fill;
    details.bill = kept.bill;
    details.keptAt = kept.keptAt;
    ctx.log(`store: ${days} days of 5-minute snapshots of ${nodes} nodes kept from ${kept.keptAt}; timing the API…`);
  } else {
    const fillDb = openDb({ path });
    try {
      endMs = await fillStore(ctx, fillDb, { nodes, podsPerNode, days }, details);
    } finally {
      fillDb.close();
    }
  }
  const db = openDb({ path });
  try {
    return { rows: await queries(ctx, db, endMs, days, details, createKubeRepository(db)), details };
  } finally {
    db.close();
  }
}

async function queries(
  ctx: BenchContext,
  db: ReturnType<typeof openDb>,
  endMs: number,
  storedDays: number,
  details: Record<string, unknown>,
  kube: ReturnType<typeof createKubeRepository>,
): Promise<BenchRow[]> {
  // The query itself: a response cache (when the server has one) would answer repeats of the same URL from memory,
  // but the first viewer after each collection pays for the query.
  const app = buildApp({ db, now: () => endMs, cacheResponses: false });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const rows: BenchRow[] = [];
  const timings: Record<string, unknown> = {};
  try {
    const docs = await fetch(`${base}/docs/json`);
    // Without the OpenAPI document, the two routes the overview page reads.
    const routes = docs.ok
      ? timedRoutes((await docs.json()) as Parameters<typeof timedRoutes>[0])
      : ['/api/cost/nodepools/daily', '/api/efficiency/nodepools'].map((path) => ({ path, params: ['from', 'to'], required: [] }));
    const iso = (ms: number) => new Date(ms).toISOString();
    // Ranges end where the dashboard's presets end: the status route's defaultRange.to (the UTC midnight after the
    // newest data), so day and week rollups line up as they do for a viewer.
    const status = await fetch(`${base}/api/status`);
    const rangeEndMs = status.ok ? Date.parse(((await status.json()) as { defaultRange: { to: string } }).defaultRange.to) : endMs;
    details.rangeEnd = iso(rangeEndMs);
    // Disruptions are kept current by the writer, snapshot by snapshot, in the snapshot's transaction (measured during
    // the fill); a reader only reads them. Shown: that cost per snapshot beside the whole write, the one whole rebuild
    // a writer makes after an upgrade (what the first reader used to pay), and the first answers, which now only read.
    const fill = details.fill as {
      snapshots: number;
      writeMsTotal: number;
      disruptions: { msTotal: number; p50Ms: number; maxMs: number };
    };
    const monthEvents = `${base}/api/consolidation/events?from=${iso(rangeEndMs - 30 * DAY_MS)}&to=${iso(rangeEndMs)}`;
    const firstMs = await timeOnce(monthEvents);
    db.prepare('UPDATE disruptions_state SET dirty_from_ms = 0 WHERE id = 1').run();
    const wholeRebuildMs = createDisruptionsRepository(db).refresh()?.ms ?? Number.NaN;
    const lateT0 = performance.now();
    kube.upsertEvents([
      {
        uid: 'bench-late-disruption',
        at: endMs - 2 * 60_000,
        type: 'Normal',
        reason: 'DisruptionTerminating',
        message: 'Disrupting Node: Underutilized',
        kind: 'Node',
        name: 'bench-late-node',
        namespace: null,
      },
    ]);
    const lateEventWriteMs = performance.now() - lateT0;
    const afterCollectionMs = await timeOnce(monthEvents);
    ctx.log(
      `store: disruptions kept by the writer ${(fill.disruptions.msTotal / fill.snapshots).toFixed(2)} ms a snapshot (p50 ${fill.disruptions.p50Ms.toFixed(2)}, max ${fill.disruptions.maxMs.toFixed(1)}) of ${(fill.writeMsTotal / fill.snapshots).toFixed(1)} ms a write; the month rebuilt whole ${wholeRebuildMs.toFixed(0)} ms; first /api/consolidation/events 30 d ${firstMs.toFixed(0)} ms, after one more collection ${afterCollectionMs.toFixed(0)} ms (its write ${lateEventWriteMs.toFixed(0)} ms)`,
    );
    rows.push(
      figure({
        bench: 'store',
        figure: 'disruptions kept by the writer, of each snapshot write',
        unit: 'ms',
        ours: fill.disruptions.msTotal / fill.snapshots,
        peerLabel: 'the whole write',
        peer: fill.writeMsTotal / fill.snapshots,
        target: { kind: 'info' },
        note: `p50 ${fill.disruptions.p50Ms.toFixed(2)} ms, max ${fill.disruptions.maxMs.toFixed(1)} ms; ${(fill.disruptions.msTotal / 1000).toFixed(1)} s over the ${fill.snapshots} snapshots written through the repository (the last day)`,
      }),
      figure({
        bench: 'store',
        figure: 'disruptions: the month rebuilt whole (once, by the writer after an upgrade)',
        unit: 'ms',
        ours: wholeRebuildMs,
        peerLabel: '-',
        peer: null,
        target: { kind: 'info' },
      }),
      figure({
        bench: 'store',
        figure: 'disruptions: first answer after a collection (a read)',
        unit: 'ms',
        ours: afterCollectionMs,
        peerLabel: 'first answer after the fill',
        peer: firstMs,
        target: { kind: 'info' },
        note: `the collection's write, disruptions included: ${lateEventWriteMs.toFixed(0)} ms`,
      }),
    );
    details.disruptions = { firstAfterFillMs: firstMs, wholeRebuildMs, lateEventWriteMs, firstAfterCollectionMs: afterCollectionMs };
    // 1, 30 and 90 days, each where the store holds that much (this bench's store is a month of 5-minute snapshots:
    // 90 days asks for a 13-month store, 14 days at 5 minutes and hourly rows behind, as retention keeps them).
    const rangeDays = RANGE_DAYS.filter((d) => d <= storedDays);
    details.rangeDays = rangeDays;
    // A p99 needs over 100 samples: the full run takes 200 per range; --quick 40 (a p95, said so in each row) within
    // 1.2 s a range, so its ~45 cases stay near a minute even when the machine is loaded.
    const n = ctx.quick ? 40 : 200;
    const budgetMs = ctx.quick ? 1_200 : 20_000;
    const skipped: string[] = [];
    for (const r of routes) {
      const ranged = r.params.includes('from') && r.params.includes('to');
      const pointed = r.params.includes('at');
      const unfillable = r.required.filter((p) => !['from', 'to', 'at'].includes(p));
      if (unfillable.length) {
        skipped.push(`${r.path} (needs ${unfillable.join(', ')})`);
        continue;
      }
      if (ranged) {
        const timed = await timeEach(
          rangeDays.map((d) => `${base}${r.path}?from=${iso(rangeEndMs - d * DAY_MS)}&to=${iso(rangeEndMs)}`),
          n,
          budgetMs * rangeDays.length,
        );
        const at: Record<number, Latency> = Object.fromEntries(rangeDays.map((d, i) => [d, timed[i]]));
        timings[r.path] = Object.fromEntries(rangeDays.map((d) => [`${d}d`, at[d]]));
        const refused = rangeDays.filter((d) => at[d].status !== 200);
        if (refused.length > 0) {
          skipped.push(`${r.path} (answers ${rangeDays.map((d) => at[d].status).join('/')})`);
          continue;
        }
        ctx.log(
          `store: GET ${r.path}: ${rangeDays.map((d) => `${d} d p50 ${at[d].p50Ms.toFixed(1)} ms ${at[d].tail} ${at[d].tailMs.toFixed(1)} ms of ${at[d].n} (${(at[d].bytes / 1024).toFixed(0)} KB)`).join('; ')}`,
        );
        const one = at[1];
        for (const d of rangeDays) {
          const l = at[d];
          rows.push(
            figure({
              bench: 'store',
              figure: `GET ${r.path} ${d} d: ${l.tail}`,
              unit: 'ms',
              ours: l.tailMs,
              peerLabel: 'p99 bound',
              peer: P99_BOUND_MS,
              target: { kind: 'at-most', max: 1 },
              note: `${tailNote(l)}; p50 ${l.p50Ms.toFixed(1)} ms, ${(l.bytes / 1024).toFixed(0)} KB`,
            }),
          );
          if (d === 1) continue;
          // An answer that is itself bigger for the longer range (a list of days or events) costs what it carries: the
          // 2x target is for answers of the same size, where only the reading can differ.
          const growth = l.bytes / Math.max(1, one.bytes);
          const perKb = (x: Latency) => (x.p50Ms / Math.max(1, x.bytes / 1024)).toFixed(3);
          rows.push(
            figure({
              bench: 'store',
              figure: `GET ${r.path} ${d} d vs 1 d: p50`,
              unit: 'ms',
              ours: l.p50Ms,
              peerLabel: '1 d',
              peer: one.p50Ms,
              target: growth > 2 ? { kind: 'info' } : { kind: 'at-most', max: 2 },
              note:
                growth > 2
                  ? `the ${d}-day answer is ${growth.toFixed(1)}x the 1-day one (${(l.bytes / 1024).toFixed(0)} KB): ${perKb(l)} vs ${perKb(one)} ms per KB`
                  : undefined,
            }),
          );
        }
      } else {
        const q = pointed ? `?at=${iso(endMs - STEP_MS)}` : '';
        const [t] = await timeEach([`${base}${r.path}${q}`], n, budgetMs);
        timings[r.path] = t;
        if (t.status !== 200) {
          skipped.push(`${r.path} (answers ${t.status})`);
          continue;
        }
        ctx.log(
          `store: GET ${r.path}${q ? ' at the last snapshot' : ''}: p50 ${t.p50Ms.toFixed(1)} ms ${t.tail} ${t.tailMs.toFixed(1)} ms of ${t.n}`,
        );
        rows.push(
          figure({
            bench: 'store',
            figure: `GET ${r.path}${pointed ? ' (at)' : ''}: ${t.tail}`,
            unit: 'ms',
            ours: t.tailMs,
            peerLabel: 'p99 bound',
            peer: P99_BOUND_MS,
            target: { kind: 'at-most', max: 1 },
            note: tailNote(t),
          }),
        );
      }
    }
    if (rangeDays.includes(30)) {
      const overview = await allClustersOverviewRows(base, rangeEndMs, { n, budgetMs, boundMs: P99_BOUND_MS });
      rows.push(...overview.rows);
      ctx.log(overview.log);
    }
    details.queries = { samplesPerCase: n, budgetMsPerCase: budgetMs, timings, skipped };
    if (skipped.length) ctx.log(`store: not timed: ${skipped.join('; ')}`);
  } finally {
    await app.close();
  }
  return rows;
}
