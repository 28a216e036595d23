import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lastJsonLine, measure, startHelper } from './child.js';
import { compiledScript } from './compiled.js';
import { type BenchContext, type BenchResult, MB } from './context.js';
import { type BenchRow, figure } from './report.js';
import { openDb } from '../db/open-db.js';
import { evaluateAlerts } from '../server/services/alert-evaluation.js';

/**
 * Issue 25: collection of several clusters in one process (`collect --clusters`) beside one cluster of as many
 * nodes in all: 10 clusters of 500 nodes beside one of 5,000, 30 pods a node (--quick: 3 of 60 beside one of 180,
 * 10 pods a node). Each side is one
 * `collect` (snapshot, prices, the bill, retention; no usage: the sandbox runs no metrics-server, and --clusters
 * reads none in the bench) in its own process against one sandbox process serving every cluster; time is the process's wall time, peak RSS
 * its own, requests those it sent (Kubernetes, AWS). The several clusters' bill is one account's: its DAILY lines in
 * one Cost Explorer query sequence for all of them, the instance-type, hourly and per-instance lines one sequence per
 * cluster (collectors/cost-explorer/collect-account.ts). The sandbox has built every list and the account's bill
 * before either side starts (bench/clusters-sandbox-process.ts), so neither side pays for the other's.
 */

const SANDBOX = fileURLToPath(new URL('./clusters-sandbox-process.ts', import.meta.url));

interface SandboxInfo {
  awsUrl: string;
  kubeconfig: string;
  clockMs: number;
  region: string;
  clusters: { name: string; context: string; nodes: number; pods: number }[];
}

interface CollectOutput {
  totalMs: number;
  ok: boolean;
  failures: string[];
  snapshots: number;
  kubeRequests: number;
  awsRequests: number;
  awsByOperation: Record<string, number>;
  costExplorerRequests: number;
  costLines: number;
  maxRssBytes: number;
}

interface Side {
  clusters: number;
  nodes: number;
  pods: number;
  wallMs: number;
  maxRssBytes: number;
  out: CollectOutput;
}

/** One collect of the clusters named (each its own context) against the sandbox, in its own process. */
async function side(ctx: BenchContext, info: SandboxInfo, names: readonly string[], tag: string, timeoutMs: number): Promise<Side> {
  const mine = info.clusters.filter((c) => names.includes(c.name));
  const clusters = mine.length;
  const env = {
    ...process.env,
    AWS_ENDPOINT_URL_COST_EXPLORER: info.awsUrl,
    AWS_ENDPOINT_URL_PRICING: info.awsUrl,
    AWS_ENDPOINT_URL_EC2: info.awsUrl,
    AWS_ACCESS_KEY_ID: 'AKIASANDBOXEXAMPLE00',
    AWS_SECRET_ACCESS_KEY: 'sandbox-secret-not-a-real-key',
    AWS_REGION: info.region,
  };
  // Compiled once per run, as the Deployment runs it: no TypeScript loader in what is timed (bench/compiled.ts).
  const collect = await compiledScript('bench/clusters-collect-process.ts', ctx.tmp);
  const m = await measure(
    process.execPath,
    [
      collect,
      '--kubeconfig',
      info.kubeconfig,
      '--db',
      join(ctx.tmp, `clusters-${tag}.db`),
      '--clusters',
      mine.map((c) => `${c.name}=${c.context}`).join(','),
      '--clock-ms',
      String(info.clockMs),
      '--region',
      info.region,
    ],
    { timeoutMs, env },
  );
  if (m.code !== 0) throw new Error(`the collector failed (${m.code}): ${m.stderr.slice(-800)}`);
  const out = lastJsonLine<CollectOutput>(m.stdout);
  if (!out.ok || out.snapshots !== clusters) throw new Error(`the collect of ${clusters} cluster(s) failed: ${out.failures.join('; ')}`);
  const nodes = mine.reduce((s, c) => s + c.nodes, 0);
  const pods = mine.reduce((s, c) => s + c.pods, 0);
  const rss = m.maxRssBytes ?? out.maxRssBytes;
  ctx.log(
    `clusters: ${clusters} cluster(s), ${nodes} nodes, ${pods} pods: ${(m.wallMs / 1000).toFixed(1)} s, peak RSS ${Math.round(rss / MB)} MB, ${out.kubeRequests} Kubernetes + ${out.awsRequests} AWS requests (${out.costExplorerRequests} Cost Explorer)`,
  );
  return { clusters, nodes, pods, wallMs: m.wallMs, maxRssBytes: rss, out };
}

/** Repeats of one ledger's alert evaluation; the median is the figure (the first, which fires, is left out). */
const EVALUATIONS = 9;

/**
 * One alert evaluation (server/services/alert-evaluation.ts, as the collector runs it after each snapshot and bill
 * refresh) over a ledger a side wrote, at the collect's clock: the median of EVALUATIONS after a first that steps
 * the alerts (later ones find nothing to change). In this process, both ledgers the same way.
 */
function evaluationMs(path: string, atMs: number): number {
  const db = openDb({ path });
  try {
    evaluateAlerts(db, { atMs });
    const ms: number[] = [];
    for (let i = 0; i < EVALUATIONS; i += 1) ms.push(evaluateAlerts(db, { atMs }).ms);
    ms.sort((a, b) => a - b);
    return ms[Math.floor(ms.length / 2)];
  } finally {
    db.close();
  }
}

const sizeOf = (quick: boolean): [clusters: number, nodesEach: number, podsPerNode: number] => (quick ? [3, 60, 10] : [10, 500, 30]);

type Sandbox = Awaited<ReturnType<typeof startHelper<SandboxInfo>>>;

/**
 * One sandbox process serves both sides: the n small clusters and the big one (each side's Cost Explorer filter
 * names its own clusters only). It is idle once ready (its clock stands still), so it can be started ahead.
 */
function startClustersSandbox(ctx: BenchContext): Promise<Sandbox> {
  const [n, each, podsPerNode] = sizeOf(ctx.quick);
  const sizes = [...Array.from({ length: n }, () => each), n * each];
  return startHelper<SandboxInfo>(
    process.execPath,
    ['--max-old-space-size=8192', '--import', 'tsx', SANDBOX, '--sizes', sizes.join(','), '--pods-per-node', String(podsPerNode)],
    ctx.quick ? 300_000 : 1_800_000,
  );
}

/** The sandbox started by the run's preparation (bench/prepare.ts), taken by the bench. */
let startedAhead: Promise<Sandbox> | null = null;

/** --quick's preparation: the sandbox started (and its bill built) while nothing is measured; the bench stops it. */
export async function prepareClusters(ctx: BenchContext): Promise<void> {
  if (!ctx.quick) return;
  startedAhead = startClustersSandbox(ctx);
  await startedAhead;
}

export async function clustersBench(ctx: BenchContext): Promise<BenchResult> {
  const [n, each, podsPerNode] = sizeOf(ctx.quick);
  const timeoutMs = ctx.quick ? 300_000 : 1_800_000;
  const ahead = startedAhead === null ? null : await startedAhead.catch(() => null);
  startedAhead = null;
  ctx.log(
    `clusters: ${ahead === null ? 'starting the sandbox' : 'the sandbox started by the preparation'}: ${n} clusters of ${each} nodes and one of ${n * each}, ${podsPerNode} pods a node…`,
  );
  const sb = ahead ?? (await startClustersSandbox(ctx));
  let several: Side;
  let one: Side;
  try {
    const names = sb.info.clusters.map((c) => c.name);
    several = await side(ctx, sb.info, names.slice(0, n), 'several', timeoutMs);
    one = await side(ctx, sb.info, names.slice(n), 'one', timeoutMs);
  } finally {
    await sb.stop();
  }
  // Each side's ledger evaluated in turn, in this process, once the sandbox is gone (nothing else of the bench runs).
  const severalEvalMs = evaluationMs(join(ctx.tmp, 'clusters-several.db'), sb.info.clockMs);
  const oneEvalMs = evaluationMs(join(ctx.tmp, 'clusters-one.db'), sb.info.clockMs);
  ctx.log(`clusters: one alert evaluation: ${severalEvalMs.toFixed(1)} ms over ${n} clusters, ${oneEvalMs.toFixed(1)} ms over one`);
  const what = `${n} clusters x ${each} nodes in one collect`;
  const peer = `one cluster of ${(n * each).toLocaleString('en-US')} nodes`;
  const rows: BenchRow[] = [
    figure({
      bench: 'clusters',
      figure: `${what}: time`,
      unit: 's',
      ours: several.wallMs / 1000,
      peerLabel: peer,
      peer: one.wallMs / 1000,
      target: { kind: 'at-most', max: 1.5 },
      note: 'one process each (compiled JS, Node start-up included); snapshot, prices, the bill, retention; no usage on either side',
    }),
    figure({
      bench: 'clusters',
      figure: `${what}: peak RSS`,
      unit: 'MB',
      ours: several.maxRssBytes / MB,
      peerLabel: peer,
      peer: one.maxRssBytes / MB,
      target: { kind: 'at-most', max: 1.5 },
    }),
    figure({
      bench: 'clusters',
      figure: `${what}: Kubernetes requests`,
      unit: 'requests',
      ours: several.out.kubeRequests,
      peerLabel: peer,
      peer: one.out.kubeRequests,
      target: { kind: 'info' },
      note: "each cluster's API is listed in full: the lists' fixed calls (discovery, one list per kind) are paid per cluster",
    }),
    figure({
      bench: 'clusters',
      figure: `${what}: AWS requests`,
      unit: 'requests',
      ours: several.out.awsRequests,
      peerLabel: peer,
      peer: one.out.awsRequests,
      target: { kind: 'info' },
      note: `Cost Explorer ${several.out.costExplorerRequests} (the account's DAILY by [cluster, NodePool] once; the instance-type, hourly and per-instance lines per cluster) vs ${one.out.costExplorerRequests} (the one cluster's DAILY, HOURLY and per-instance queries); prices once per region`,
    }),
    figure({
      bench: 'clusters',
      figure: `${n} clusters x ${each} nodes: one alert evaluation`,
      unit: 'ms',
      ours: severalEvalMs,
      peerLabel: peer,
      peer: oneEvalMs,
      target: { kind: 'info' },
      note: `median of ${EVALUATIONS} over the ledger each side wrote (one snapshot a cluster); ${n} clusters judge each cluster's rules on its own rows and the ledger-wide ones once`,
    }),
  ];
  return { rows, details: { several, one, evaluationMs: { several: severalEvalMs, one: oneEvalMs } } };
}
