import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeKubeconfig } from '../sandbox/kubeconfig.js';
import { awsHandlers } from '../sandbox/index.js';
import { scaleScenario } from '../sandbox/scale/scale-scenario.js';
import { SandboxClock, type SandboxContext } from '../sandbox/serve/context.js';
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
  });
  const ctx: SandboxContext = { scenario, clock: new SandboxClock(scenario.end), requestLog: [], faults: [] };
  // metrics-server too (the default usage profile for every pod): the usage rows of the bench read PodMetrics.
  const kube = createKubeHandler(scenario, null, { podDetail, usage: usageModelFor(scenario, null) });
  const srv = await startSandboxServer(ctx, [kube, ...awsHandlers()], 0);
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
  const alive = (d: number | null) => d === null || d > scenario.end;
  console.log(
    JSON.stringify({
      url: srv.url,
      kubeconfig,
      scenario: scenario.name,
      nodes: scenario.nodes.filter((n) => alive(n.deletedAt)).length,
      pods: scenario.pods.filter((p) => alive(p.deletedAt)).length,
      listBytes,
    }),
  );
  const stop = () => void srv.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack : String(err));
  process.exit(1);
});
