import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lastJsonLine, measure } from './child.js';
import { type BenchContext, type BenchResult, MB } from './context.js';
import { type BenchRow, figure } from './report.js';

/**
 * The Karpenter scheduling engine at the envelope (issue 14): re-pack every Karpenter pod of the 5,000-node scale
 * scenario from scratch over the full built-in catalogue, and predict one pending pod against the prepared
 * 5,000-node cluster. Each in its own process (bench/engine-process.ts) so time and peak RSS are the engine's and
 * its parsed input's; the input is generated beforehand by a third process and not measured.
 */

const PROCESS = fileURLToPath(new URL('./engine-process.ts', import.meta.url));
const REPACK_BOUND_MS = 15_000;
const RSS_BOUND_BYTES = 1024 * MB;
const PREDICT_P99_BOUND_MS = 50;

interface Repack {
  pods: number;
  catalogueTypes: number;
  nodeClaims: number;
  unschedulable: number;
  engineMs: number;
  engineCpuMs: number;
  podsPerSecond: number;
}

interface Consolidation {
  nodes: number;
  pods: number;
  consolidateMs: number;
  command: string | null;
  verdicts: number;
}

interface Predict {
  nodes: number;
  pods: number;
  prepareMs: number;
  firstMs: number;
  runs: number;
  p50Ms: number;
  p99Ms: number;
}

const run = (args: string[], timeoutMs: number) => measure(process.execPath, ['--import', 'tsx', PROCESS, ...args], { timeoutMs });

/** The envelope input (a scale scenario's snapshot as the engine reads it) written into the run's scratch folder. */
async function writeInput(ctx: BenchContext): Promise<{ input: string; nodes: number; ms: number }> {
  const nodes = ctx.quick ? 500 : 5000;
  const input = join(ctx.tmp, 'engine-envelope.json');
  const made = await run(['--mode', 'input', '--nodes', String(nodes), '--out', input], 600_000);
  if (made.code !== 0) throw new Error(`building the envelope input failed (${made.code}): ${made.stderr.slice(-800)}`);
  return { input, nodes, ms: made.wallMs };
}

/** Written by the run's preparation (bench/prepare.ts), not measured. */
let writtenAhead: ReturnType<typeof writeInput> | null = null;

/** --quick's preparation: the input written while nothing is measured. */
export async function prepareEngine(ctx: BenchContext): Promise<void> {
  if (!ctx.quick) return;
  writtenAhead = writeInput(ctx);
  await writtenAhead;
}

export async function engineBench(ctx: BenchContext): Promise<BenchResult> {
  const ahead = writtenAhead === null ? null : await writtenAhead.catch(() => null);
  writtenAhead = null;
  const { input, nodes, ms } = ahead ?? (await writeInput(ctx));
  ctx.log(
    `engine: envelope input of ${nodes} nodes written in ${(ms / 1000).toFixed(1)} s${ahead === null ? '' : ' (by the preparation)'}`,
  );

  const rp = await run(['--mode', 'repack', '--input', input], 600_000);
  if (rp.code !== 0) throw new Error(`the repack failed (${rp.code}): ${rp.stderr.slice(-800)}`);
  const repack = lastJsonLine<Repack>(rp.stdout);
  ctx.log(
    `engine: re-packed ${repack.pods} pods into ${repack.nodeClaims} NodeClaims in ${(repack.engineMs / 1000).toFixed(1)} s (CPU ${(repack.engineCpuMs / 1000).toFixed(1)} s), peak RSS ${rp.maxRssBytes === null ? '?' : Math.round(rp.maxRssBytes / MB)} MB`,
  );

  const pr = await run(['--mode', 'predict', '--input', input, '--runs', ctx.quick ? '50' : '200'], 600_000);
  if (pr.code !== 0) throw new Error(`the predict run failed (${pr.code}): ${pr.stderr.slice(-800)}`);
  const predict = lastJsonLine<Predict>(pr.stdout);
  ctx.log(`engine: predict p50 ${predict.p50Ms.toFixed(1)} ms, p99 ${predict.p99Ms.toFixed(1)} ms over ${predict.runs} runs`);

  const co = await run(['--mode', 'consolidate', '--input', input], 1_200_000);
  if (co.code !== 0) throw new Error(`the consolidation run failed (${co.code}): ${co.stderr.slice(-800)}`);
  const consolidation = lastJsonLine<Consolidation>(co.stdout);
  ctx.log(
    `engine: consolidation round over ${consolidation.nodes} nodes in ${(consolidation.consolidateMs / 1000).toFixed(1)} s: ${consolidation.command ?? 'no command'}`,
  );

  const scale = `${repack.pods.toLocaleString('en-US')} pods, ${repack.catalogueTypes.toLocaleString('en-US')} types`;
  const rows: BenchRow[] = [
    figure({
      bench: 'engine',
      figure: `re-pack ${scale}: engine time`,
      unit: 'ms',
      ours: repack.engineMs,
      peerLabel: 'bound',
      peer: REPACK_BOUND_MS,
      target: { kind: 'at-most', max: 1 },
      note: 'prepare (normalise pods, compile the catalogue) + one scheduling round, wall time in the process',
    }),
    figure({
      bench: 'engine',
      figure: `re-pack ${scale}: pods per second`,
      unit: 'pods/s',
      ours: repack.podsPerSecond,
      peerLabel: "Karpenter's Go scheduler, 5,000 pods / 400 types / 12 cores",
      peer: 1700,
      target: { kind: 'info' },
    }),
    figure({
      bench: 'engine',
      figure: `re-pack ${scale}: peak RSS`,
      unit: 'MB',
      ours: rp.maxRssBytes === null ? null : rp.maxRssBytes / MB,
      peerLabel: 'bound',
      peer: RSS_BOUND_BYTES / MB,
      target: { kind: 'at-most', max: 1 },
      note: 'the whole process: Node, tsx, the parsed input and the engine',
      skipped: rp.maxRssBytes === null,
    }),
    figure({
      bench: 'engine',
      figure: `predict one pod on ${predict.nodes.toLocaleString('en-US')} nodes / ${predict.pods.toLocaleString('en-US')} pods: p99`,
      unit: 'ms',
      ours: predict.p99Ms,
      peerLabel: 'bound',
      peer: PREDICT_P99_BOUND_MS,
      target: { kind: 'at-most', max: 1 },
      note: `p50 ${predict.p50Ms.toFixed(1)} ms; the cluster prepared once (${(predict.prepareMs / 1000).toFixed(1)} s), the first predict after it ${predict.firstMs.toFixed(0)} ms`,
    }),
    figure({
      bench: 'engine',
      figure: `consolidation round on ${consolidation.nodes.toLocaleString('en-US')} nodes, every node's reason`,
      unit: 'ms',
      ours: consolidation.consolidateMs,
      peerLabel: 'no bound set',
      peer: null,
      target: { kind: 'info' },
      note: `${consolidation.command ?? 'no command'}; ${consolidation.verdicts} nodes given a reason (each evaluated as single-node consolidation)`,
    }),
  ];
  return {
    rows,
    details: {
      repack,
      predict,
      consolidation,
      repackRssBytes: rp.maxRssBytes,
      consolidateRssBytes: co.maxRssBytes,
      inputSeconds: ms / 1000,
    },
  };
}
