import { DAY_MS } from '../core/time.js';
import { type BenchRow, figure } from './report.js';
import { tailNote, timeEach } from './route-timing.js';

/**
 * Issue 25's row: the Overview of "All clusters" over 30 days (no ?cluster=, every cluster's rows summed), beside the
 * same with ?cluster= naming one. The Overview's range routes are timed in turns; the row is the slowest route's tail
 * (what a viewer waits for), against the 100 ms p99 bound of every route. On a one-cluster store the two read the
 * same rows: the difference is the filter's cost.
 */
const OVERVIEW_ROUTES = ['/api/cost/nodepools/daily', '/api/efficiency/summary', '/api/efficiency/nodepools', '/api/reconciliation/daily'];

export async function allClustersOverviewRows(
  base: string,
  rangeEndMs: number,
  opts: { n: number; budgetMs: number; boundMs: number },
): Promise<{ rows: BenchRow[]; log: string }> {
  const clusters = (await (await fetch(`${base}/api/clusters`)).json()) as { clusters: { name: string }[] };
  const one = clusters.clusters[0]?.name;
  const iso = (ms: number) => new Date(ms).toISOString();
  const range = `from=${iso(rangeEndMs - 30 * DAY_MS)}&to=${iso(rangeEndMs)}`;
  const all = OVERVIEW_ROUTES.map((p) => `${base}${p}?${range}`);
  const named = one === undefined ? [] : OVERVIEW_ROUTES.map((p) => `${base}${p}?${range}&cluster=${encodeURIComponent(one)}`);
  const timed = await timeEach([...all, ...named], opts.n, opts.budgetMs * 2);
  const slowest = (from: number, to: number) => timed.slice(from, to).reduce((a, b) => (b.tailMs > a.tailMs ? b : a));
  const a = slowest(0, all.length);
  const c = named.length === 0 ? null : slowest(all.length, timed.length);
  const row = figure({
    bench: 'store',
    figure: `Overview, All clusters, 30 d: ${a.tail} of its slowest route`,
    unit: 'ms',
    ours: a.tailMs,
    peerLabel: 'p99 bound',
    peer: opts.boundMs,
    target: { kind: 'at-most', max: 1 },
    note: `${tailNote(a)}; ${clusters.clusters.length} cluster(s); ?cluster=${one ?? '-'}: ${c === null ? '-' : `${c.tail} ${c.tailMs.toFixed(1)} ms`}`,
  });
  const log = `store: Overview 30 d, All clusters (${clusters.clusters.length}): ${a.tail} ${a.tailMs.toFixed(1)} ms; ?cluster=${one ?? '-'}: ${c === null ? '-' : `${c.tail} ${c.tailMs.toFixed(1)} ms`}`;
  return { rows: [row], log };
}
