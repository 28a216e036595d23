import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeKubeconfig } from '../sandbox/kubeconfig.js';
import { awsHandlers } from '../sandbox/index.js';
import { scaleScenario } from '../sandbox/scale/scale-scenario.js';
import { SandboxClock, type SandboxContext, type SandboxHandler } from '../sandbox/serve/context.js';
import { MINUTE_MS } from '../core/time.js';
import { createKubeHandler } from '../sandbox/serve/kube.js';
import type { PodDetail } from '../sandbox/serve/pod-detail.js';
import { startSandboxServer } from '../sandbox/serve/server.js';
import { usageModelFor } from '../sandbox/scenario/usage.js';

/**
 * The sandbox serving a scale scenario, in its own process so that the collector's time and peak RSS measured
 * beside it are the collector's alone. Builds the scenario, serialises every object once (the warm-up is not
 * what is measured), then prints one JSON line — {url, kubeconfig, nodes, pods, bytes} — and serves until killed.
 *
 * The Kubernetes API answers without a token here: kubectl sends credentials only over TLS, and the sandbox
 * speaks plain HTTP on loopback.
 */

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '5000' },
    'pods-per-node': { type: 'string', default: '30' },
    days: { type: 'string', default: '1' },
    seed: { type: 'string', default: '6' },
    'pod-detail': { type: 'string', default: 'realistic' },
    // Churn (bench/watch-bench.ts): the mean life of a general or spot-batch node, and how many simulated minutes
    // before the scenario's end the clock starts (it stands still until POST /bench/clock sets it moving).
    'mean-node-lifetime-days': { type: 'string' },
    'clock-lead-minutes': { type: 'string', default: '0' },
  },
});

const int = (name: string, v: string | undefined): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, got ${v}`);
  return n;
};

async function main(): Promise<void> {
  const podDetail = values['pod-detail'] as PodDetail;
  if (podDetail !== 'lean' && podDetail !== 'realistic') throw new Error(`--pod-detail must be lean or realistic, got ${podDetail}`);
  const scenario = scaleScenario({
    nodes: int('nodes', values.nodes),
    podsPerNode: int('pods-per-node', values['pods-per-node']),
    days: int('days', values.days),
    seed: int('seed', values.seed),
    ...(values['mean-node-lifetime-days'] === undefined ? {} : { meanNodeLifetimeDays: Number(values['mean-node-lifetime-days']) }),
  });
  const startsAt = scenario.end - Number(values['clock-lead-minutes']) * MINUTE_MS;
  const ctx: SandboxContext = { scenario, clock: new SandboxClock(startsAt), requestLog: [], faults: [] };
  // metrics-server too (the default usage profile for every pod): the usage rows of the bench read PodMetrics.
  const kube = createKubeHandler(scenario, null, { podDetail, usage: usageModelFor(scenario, null) });
  // AWS answers as of the clock's start: the bill and prices do not change within a bench's half hour, and the
  // sandbox's Cost Explorer would otherwise work its whole bill out again for every new time of a moving clock.
  const awsCtx: SandboxContext = { ...ctx, clock: new SandboxClock(startsAt) };
  const aws = awsHandlers().map(
    (h): SandboxHandler =>
      (req) =>
        h(req, awsCtx),
  );
  const srv = await startSandboxServer(ctx, [clockControl(ctx, startsAt, scenario.end), kube, ...aws], 0);
  // The first page of a list builds and serialises every object once; the pages after it, and the
  // clients measured later, read the cache. Paging through here also counts the bytes a full list sends.
  const warm = (path: string): number => {
    let bytes = 0;
    let cont = '';
    do {
      const out = kube(
        {
          method: 'GET',
          url: new URL(`${path}?limit=500${cont ? `&continue=${cont}` : ''}`, 'http://sandbox'),
          headers: {},
          body: Buffer.alloc(0),
        },
        ctx,
      );
      if (!out || !('body' in out) || out.status !== 200) throw new Error(`warming ${path} failed`);
      bytes += Buffer.byteLength(out.body);
      cont =
        (
          JSON.parse(
            out.body
              .toString()
              .slice(0, 4096)
              .replace(/,"items":\[.*$/s, '}'),
          ) as { metadata?: { continue?: string } }
        ).metadata?.continue ?? '';
    } while (cont);
    return bytes;
  };
  const paths = [
    '/api/v1/pods',
    '/api/v1/nodes',
    '/api/v1/namespaces',
    '/api/v1/events',
    '/apis/karpenter.sh/v1/nodepools',
    '/apis/karpenter.sh/v1/nodeclaims',
    '/apis/metrics.k8s.io/v1beta1/pods',
    '/apis/metrics.k8s.io/v1beta1/nodes',
  ];
  const listBytes = Object.fromEntries(paths.map((p) => [p, warm(p)]));
  ctx.requestLog.length = 0;
  const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-sandbox-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeKubeconfig(kubeconfig, srv.url, 'bench-sandbox-accepts-any-token', scenario.clusterName);
  const alive = (o: { createdAt: number; deletedAt: number | null }) =>
    o.createdAt <= startsAt && (o.deletedAt === null || o.deletedAt > startsAt);
  console.log(
    JSON.stringify({
      url: srv.url,
      kubeconfig,
      scenario: scenario.name,
      clockMs: startsAt,
      endMs: scenario.end,
      clusterName: scenario.clusterName,
      region: scenario.region,
      nodes: scenario.nodes.filter(alive).length,
      pods: scenario.pods.filter(alive).length,
      listBytes,
    }),
  );
  const stop = () => void srv.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/**
 * POST /bench/clock {realEpochMs, speed}: from then on the clock reads `startsAt + (now - realEpochMs) x speed`
 * (at most the scenario's end), moved every 20 ms; Kubernetes watchers hear of every change as it is passed.
 */
function clockControl(ctx: SandboxContext, startsAt: number, endMs: number): SandboxHandler {
  let timer: NodeJS.Timeout | null = null;
  return (req) => {
    if (req.url.pathname !== '/bench/clock' || req.method !== 'POST') return null;
    const { realEpochMs, speed } = JSON.parse(req.body.toString()) as { realEpochMs: number; speed: number };
    if (timer) clearInterval(timer);
    timer = setInterval(() => ctx.clock.set(Math.min(endMs, Math.round(startsAt + (Date.now() - realEpochMs) * speed))), 20);
    timer.unref();
    return { status: 204, headers: {}, body: '' };
  };
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack : String(err));
  process.exit(1);
});
