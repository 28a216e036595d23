import { fileURLToPath } from 'node:url';
import { startHelper } from './child.js';

/**
 * The scale sandbox (bench/sandbox-process.ts) kept running for every bench of a run that asks for the same one:
 * `--quick`'s snapshot rows read the 100-node sandbox its preparation started (bench/prepare.ts), its build and
 * warm-up seconds of CPU. The run stops them all at its end (stopSharedSandboxes, bench/run.ts). The watch rows start
 * one of their own (the clock they set moving would change what the snapshot rows list).
 */

const SANDBOX = fileURLToPath(new URL('./sandbox-process.ts', import.meta.url));

export interface SandboxInfo {
  url: string;
  kubeconfig: string;
  clockMs: number;
  endMs: number;
  clusterName: string;
  region: string;
  nodes: number;
  pods: number;
  listBytes: Record<string, number>;
}

export interface SandboxArgs {
  nodes: number;
  podsPerNode: number;
  meanNodeLifetimeDays?: number;
  clockLeadMinutes?: number;
}

const running = new Map<string, Promise<{ info: SandboxInfo; stop: () => Promise<void> }>>();

const argv = (a: SandboxArgs): string[] => [
  // A 150,000-pod sandbox keeps 1.8 GB of serialised pods: more heap than Node's default.
  '--max-old-space-size=8192',
  '--import',
  'tsx',
  SANDBOX,
  '--nodes',
  String(a.nodes),
  '--pods-per-node',
  String(a.podsPerNode),
  ...(a.meanNodeLifetimeDays === undefined ? [] : ['--mean-node-lifetime-days', String(a.meanNodeLifetimeDays)]),
  ...(a.clockLeadMinutes === undefined ? [] : ['--clock-lead-minutes', String(a.clockLeadMinutes)]),
];

/** A sandbox of these arguments, started once per run (`shared`) or for the caller alone (stop it yourself). */
export async function scaleSandbox(
  a: SandboxArgs,
  readyMs: number,
  shared: boolean,
): Promise<{ info: SandboxInfo; stop: () => Promise<void> }> {
  if (!shared) return startHelper<SandboxInfo>(process.execPath, argv(a), readyMs);
  const key = JSON.stringify(a);
  let sb = running.get(key);
  if (sb === undefined) {
    sb = startHelper<SandboxInfo>(process.execPath, argv(a), readyMs);
    running.set(key, sb);
    sb.catch(() => running.delete(key));
  }
  const { info } = await sb;
  // Stopped at the end of the run, not by the bench that asked for it.
  return { info, stop: async () => {} };
}

export async function stopSharedSandboxes(): Promise<void> {
  const all = [...running.values()];
  running.clear();
  await Promise.all(all.map((p) => p.then((s) => s.stop()).catch(() => {})));
}

/**
 * `--quick`'s sandbox for the snapshot rows, and the shape of the watch rows' own: 100 nodes of 30 pods, six-hour node
 * lives, 35 minutes to go.
 */
export const QUICK_SANDBOX: SandboxArgs = { nodes: 100, podsPerNode: 30, meanNodeLifetimeDays: 0.25, clockLeadMinutes: 35 };
/**
 * The full run's envelope sandbox (5,000 nodes, 150,000 pods) in the watch rows' shape, for the snapshot rows too: the
 * snapshot reads it before the watch sets its clock moving, as --quick's rows share theirs. Its build is minutes of CPU;
 * started once when every bench asking for it passes `shared`.
 */
export const ENVELOPE_SANDBOX: SandboxArgs = { nodes: 5000, podsPerNode: 30, meanNodeLifetimeDays: 0.25, clockLeadMinutes: 35 };
