import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { awsHandlers } from '../sandbox/index.js';
import { writeKubeconfigContexts } from '../sandbox/kubeconfig.js';
import { scaleScenario } from '../sandbox/scale/scale-scenario.js';
import { SandboxClock, type SandboxContext, type SandboxHandler } from '../sandbox/serve/context.js';
import { createKubeHandler } from '../sandbox/serve/kube.js';
import { startSandboxServer } from '../sandbox/serve/server.js';
import { DAY_MS } from '../core/time.js';

/**
 * Scale clusters of `--sizes` nodes (e.g. 500,…,500,5000; bench/clusters-bench.ts), in one process: one Kubernetes
 * API server per cluster (its own port, its own context `sandbox-scale-<i>` in one kubeconfig) and one AWS
 * account (Cost Explorer, Pricing, EC2 on the first server) whose bill carries every cluster's lines, each tagged
 * with its own eks:eks-cluster-name. Every list is served once, and the account's bill, price list and spot markets
 * built (warmAws), before the JSON line is printed: the build and serialisation are not what is measured. No
 * metrics-server: the one-cluster and the several-cluster collect then do the same work.
 */

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '500' },
    'pods-per-node': { type: 'string', default: '30' },
  },
});

/**
 * The AWS side's one-time work, done once before the JSON line as the lists are: the account's bill as Cost
 * Explorer's usage records (every cluster's, the big one's included: sandbox/serve/ce-query.ts builds them at the
 * first query and keeps them), the price list's catalogue and the spot markets. Left to the first request, it was
 * paid by whichever side collected first (the several clusters': 2.9 CPU s of the sandbox's at --quick, against
 * 1.2 s for that side's own requests once built), which no real Cost Explorer or Pricing endpoint charges a client.
 */
function warmAws(handlers: readonly SandboxHandler[], ctx: SandboxContext, at: number): void {
  const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
  const json = (target: string, body: unknown) => ({
    method: 'POST',
    url: new URL('/', 'http://sandbox'),
    headers: { 'x-amz-target': target, 'content-type': 'application/x-amz-json-1.1' },
    body: Buffer.from(JSON.stringify(body)),
  });
  const requests = [
    json('AWSInsightsIndexService.GetCostAndUsage', {
      TimePeriod: { Start: day(at - 2 * DAY_MS), End: day(at) },
      Granularity: 'DAILY',
      Metrics: ['UnblendedCost'],
    }),
    json('AWSPriceListService.GetProducts', {
      ServiceCode: 'AmazonEC2',
      Filters: [{ Type: 'TERM_MATCH', Field: 'regionCode', Value: ctx.scenario.region }],
      MaxResults: 1,
    }),
    {
      method: 'POST',
      url: new URL('/', 'http://sandbox'),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: Buffer.from('Action=DescribeSpotPriceHistory&Version=2016-11-15&MaxResults=5'),
    },
  ];
  for (const req of requests) {
    let out: ReturnType<SandboxHandler> = null;
    for (const h of handlers) if ((out = h(req, ctx)) !== null) break;
    if (!out || !('body' in out) || out.status !== 200)
      throw new Error(
        `warming the AWS side failed: ${req.body.toString('utf8')} answered ${out && 'status' in out ? out.status : 'nothing'}`,
      );
  }
  ctx.requestLog.length = 0;
}

const int = (name: string, v: string | undefined): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, got ${v}`);
  return n;
};

async function main(): Promise<void> {
  const sizes = (values.sizes ?? '').split(',').map((v) => int('sizes', v));
  const podsPerNode = int('pods-per-node', values['pods-per-node']);
  // Distinct seeds (different nodes and pods), the same days: one clock for all.
  const scenarios = sizes.map((nodes, i) => ({
    ...scaleScenario({ nodes, podsPerNode, days: 1, seed: 6 + i }),
    clusterName: `scale-${i}`,
  }));
  const at = Math.min(...scenarios.map((s) => s.end));
  const clock = new SandboxClock(at);
  const servers: { url: string; close: () => Promise<void> }[] = [];
  const warm = (kube: SandboxHandler, ctx: SandboxContext): void => {
    for (const path of ['/api/v1/pods', '/api/v1/nodes', '/apis/karpenter.sh/v1/nodeclaims']) {
      const out = kube({ method: 'GET', url: new URL(`${path}?limit=500`, 'http://sandbox'), headers: {}, body: Buffer.alloc(0) }, ctx);
      if (!out || !('body' in out) || out.status !== 200) throw new Error(`warming ${path} failed`);
    }
    ctx.requestLog.length = 0;
  };
  for (const [i, scenario] of scenarios.entries()) {
    const ctx: SandboxContext = { scenario, clock, requestLog: [], faults: [] };
    const kube = createKubeHandler(scenario, null, { podDetail: 'realistic' });
    warm(kube, ctx);
    const handlers: SandboxHandler[] = [kube];
    if (i === 0) {
      const awsCtx: SandboxContext = { scenario, clock, requestLog: [], faults: [], billedClusters: scenarios.slice(1) };
      const aws = awsHandlers();
      warmAws(aws, awsCtx, at);
      handlers.push(
        ...aws.map(
          (h): SandboxHandler =>
            (req) =>
              h(req, awsCtx),
        ),
      );
    }
    servers.push(await startSandboxServer(ctx, handlers, 0));
  }
  const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-clusters-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeKubeconfigContexts(
    kubeconfig,
    scenarios.map((s, i) => ({ server: servers[i].url, token: null, clusterName: s.clusterName })),
  );
  const alive = (o: { createdAt: number; deletedAt: number | null }) => o.createdAt <= at && (o.deletedAt === null || o.deletedAt > at);
  console.log(
    JSON.stringify({
      awsUrl: servers[0].url,
      kubeconfig,
      clockMs: at,
      region: scenarios[0].region,
      clusters: scenarios.map((s) => ({
        name: s.clusterName,
        context: `sandbox-${s.clusterName}`,
        nodes: s.nodes.filter(alive).length,
        pods: s.pods.filter(alive).length,
      })),
    }),
  );
  const stop = () => void Promise.all(servers.map((s) => s.close())).then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack : String(err));
  process.exit(1);
});
