import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureSandboxCurExport, type SandboxCurExport } from './cur-export-at-start.js';
import { writeKubeconfigContexts } from './kubeconfig.js';
import { karpenterProfile } from './scenario/karpenter-profile.js';
import { simulate } from './scenario/simulate.js';
import { cachedSimulation } from './scenario/scenario-cache.js';
import { loadScenarioFile } from './scenario/scenario-file.js';
import type { Scenario } from './scenario/types.js';
import { sandboxCertificate } from './serve/certificate.js';
import { SandboxClock, type SandboxContext, type SandboxHandler } from './serve/context.js';
import { createCostExplorerHandler } from './serve/cost-explorer.js';
import { curHandlers, type SandboxCurLocation, sandboxCurLocation } from './serve/cur-endpoints.js';
import { ec2Handler } from './serve/ec2.js';
import { createKubeHandler } from './serve/kube.js';
import { pricingHandler } from './serve/pricing.js';
import { stsHandler } from './serve/sts.js';
import { startSandboxServer } from './serve/server.js';
import { createPrometheusHandler, PROMETHEUS_PREFIX } from './serve/prometheus.js';
import { type UsageModel, usageModelFor } from './scenario/usage.js';

export const DEFAULT_SCENARIO = 'week4';
export const DEFAULT_SEED = 42;

export interface SandboxOptions {
  scenario?: string;
  seed?: number;
  /**
   * The Karpenter release to imitate (scenario/karpenter-profile.ts): its objects, event wording and NodeClaim
   * conditions. Default: the scenario file's, else the current one.
   */
  karpenterVersion?: string;
  /**
   * Simulate only the first days of the scenario (tests that need what week4 holds, not its two weeks): a history of
   * its own, cached like the whole one.
   */
  days?: number;
  /** Initial clock; default: the end of the scenario (all history visible). */
  at?: number;
  port?: number;
  /** Where to write the kubeconfig; default: a fresh temp dir. */
  dir?: string;
  /**
   * false: the Kubernetes API takes requests without a bearer token and the kubeconfig carries none, for a client
   * that cannot send one; it names the plain-HTTP address. It still listens on 127.0.0.1 only. Default true.
   */
  auth?: boolean;
  /** false: a cluster without metrics-server (metrics.k8s.io answers 404 and is not discovered). Default true. */
  metricsServer?: boolean;
  /**
   * The scrape jobs reading cAdvisor in the sandbox's Prometheus (serve/prometheus.ts), e.g. ['kubelet',
   * 'kubernetes-cadvisor']: a cluster whose kubelets two jobs scrape. Default none: one unlabelled set of series.
   */
  prometheusCadvisorJobs?: readonly string[];
  /**
   * Write the Cost and Usage Report 2.0 export of the history into the folder served as an S3 bucket (Athena reads
   * it too): true keeps one already written for the same history, 'force' rewrites it. Default false (an empty bucket):
   * it takes seconds, and most uses of the sandbox do not read it.
   */
  curExport?: boolean | 'force';
  /**
   * A second cluster (issue 25): its scenario (e.g. 'staging', its own NodePools and Karpenter release) served on
   * a second Kubernetes endpoint, a second context (`sandbox-<its clusterName>`) in the same kubeconfig, billed to
   * the same account (Cost Explorer's lines carry both clusters' `eks:eks-cluster-name`). Absent (the default): the
   * one cluster, as before.
   */
  secondCluster?: { scenario: string; days?: number; seed?: number };
}

/** The sandbox's second cluster: its own Kubernetes API (same token and CA as the first), its own clock. */
export interface SandboxSecondCluster {
  url: string;
  kubeUrl: string;
  scenario: Scenario;
  ctx: SandboxContext;
  /** Its kubeconfig context (in RunningSandbox.kubeconfigPath). */
  context: string;
  /** Its own Prometheus-compatible API (its containers' usage), on its endpoint. */
  prometheusUrl: string;
  /** Stops its API server (an outage of this cluster alone); close() stops it too. */
  close: () => Promise<void>;
}

export interface RunningSandbox {
  /** http://127.0.0.1:<port>: the AWS endpoints, the clock, and the Kubernetes API for plain-HTTP clients. */
  url: string;
  /** https://127.0.0.1:<port>, the same port over TLS: the kubeconfig's server (http:// with auth: false). */
  kubeUrl: string;
  /** The CA certificate (PEM) that signed the sandbox's certificate, written next to the kubeconfig: curl's --cacert. */
  caCertPath: string;
  scenario: Scenario;
  ctx: SandboxContext;
  kubeconfigPath: string;
  /** Base URL of the sandbox's Prometheus-compatible API (what `collect --prometheus` takes). */
  prometheusUrl: string;
  /** What the simulated containers use (both metrics-server and Prometheus answer from it). */
  usage: UsageModel;
  /** The standard knobs that point the AWS SDK at the sandbox, with dummy credentials. */
  awsEnv: Record<string, string>;
  /** Where the sandbox's Cost and Usage Report is served (S3 address, Athena database/table/workgroup/output). */
  cur: SandboxCurLocation;
  /** What `curExport` did (null: not asked). */
  curExport: SandboxCurExport | null;
  /** The first cluster's kubeconfig context. */
  context: string;
  /** The second cluster, when `secondCluster` asked for one. */
  second: SandboxSecondCluster | null;
  close: () => Promise<void>;
}

const cache = new Map<string, Scenario>();
const usageModels = new Map<string, UsageModel>();

/** The usage model of a scenario and seed: the profiles its file declares per workload. */
export function loadUsageModel(name = DEFAULT_SCENARIO, seed = DEFAULT_SEED): UsageModel {
  const key = `${name}|${seed}`;
  let m = usageModels.get(key);
  if (!m) {
    m = usageModelFor({ seed }, loadScenarioFile(name));
    usageModels.set(key, m);
  }
  return m;
}

/**
 * The simulated history for a scenario and seed (computed once per process, and kept on disk between the test
 * suite's workers: scenario-cache.ts), imitating `karpenterVersion` (default:
 * the file's, else the current release). A version that is not a Karpenter v1 release throws KarpenterVersionError.
 */
export function loadScenario(name = DEFAULT_SCENARIO, seed = DEFAULT_SEED, karpenterVersion?: string, days?: number): Scenario {
  const file = loadScenarioFile(name);
  const version = karpenterProfile(karpenterVersion ?? file.karpenterVersion).version;
  const key = `${name}|${seed}|${version}|${days ?? ''}`;
  let s = cache.get(key);
  if (!s) {
    const input = { ...file, karpenterVersion: version, ...(days !== undefined ? { days } : {}) };
    s = cachedSimulation({ input, seed }, () => simulate(input, seed));
    cache.set(key, s);
  }
  return s;
}

/**
 * Keeps a history simulated elsewhere (the demo simulates in a worker thread, cli/demo-scenario.ts) as loadScenario's
 * for the same name, seed and release, so startSandbox does not simulate it again.
 */
export function primeScenario(scenario: Scenario, name: string, seed: number, karpenterVersion: string, days?: number): void {
  const version = karpenterProfile(karpenterVersion).version;
  cache.set(`${name}|${seed}|${version}|${days ?? ''}`, scenario);
}

/** Extra protocol adapters (AWS) registered by their modules; the Kubernetes API is always there. */
export function awsHandlers(): SandboxHandler[] {
  return [createCostExplorerHandler(), pricingHandler, stsHandler, ec2Handler];
}

/** Starts the simulated cluster and AWS account on 127.0.0.1. */
export async function startSandbox(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  const scenario = loadScenario(opts.scenario, opts.seed, opts.karpenterVersion, opts.days);
  const ctx: SandboxContext = { scenario, clock: new SandboxClock(opts.at ?? scenario.end), requestLog: [], faults: [] };
  const token = opts.auth === false ? null : randomBytes(24).toString('hex');
  const certificate = await sandboxCertificate();
  const usage = loadUsageModel(opts.scenario, opts.seed);
  const dir = opts.dir === undefined ? mkdtempSync(join(tmpdir(), 'ledger-sandbox-')) : resolve(opts.dir);
  mkdirSync(dir, { recursive: true });
  const cur = sandboxCurLocation(dir);
  const curExport =
    opts.curExport === undefined || opts.curExport === false
      ? null
      : await ensureSandboxCurExport(scenario, usage, cur, { force: opts.curExport === 'force' });
  const srv = await startSandboxServer(
    ctx,
    [
      createPrometheusHandler(scenario, usage, { cadvisorJobs: opts.prometheusCadvisorJobs }),
      createKubeHandler(scenario, token, { usage, metricsServer: opts.metricsServer !== false }),
      ...awsHandlers(),
      ...curHandlers(cur),
    ],
    opts.port ?? 0,
    '127.0.0.1',
    certificate,
  );
  // Without a token there is nothing to keep secret on the wire, and kubectl on https with no credential at all
  // prompts for a username: the kubeconfig then names the plain-HTTP address, as before TLS.
  const kubeUrl = token === null ? srv.url : (srv.httpsUrl ?? srv.url);
  const kubeconfigPath = join(dir, 'kubeconfig');
  const caCertPath = join(dir, 'ca.crt');
  writeFileSync(caCertPath, certificate.caCertPem);
  const ca = token === null ? undefined : certificate.caCertPem;
  let second: SandboxSecondCluster | null = null;
  if (opts.secondCluster !== undefined) {
    const seed = opts.secondCluster.seed ?? opts.seed;
    const s2 = loadScenario(opts.secondCluster.scenario, seed, undefined, opts.secondCluster.days);
    const ctx2: SandboxContext = { scenario: s2, clock: new SandboxClock(opts.at ?? s2.end), requestLog: [], faults: [] };
    const usage2 = loadUsageModel(opts.secondCluster.scenario, seed);
    const srv2 = await startSandboxServer(
      ctx2,
      [
        createPrometheusHandler(s2, usage2, {}),
        createKubeHandler(s2, token, { usage: usage2, metricsServer: opts.metricsServer !== false }),
      ],
      0,
      '127.0.0.1',
      certificate,
    );
    // One account's bill: the sandbox's Cost Explorer carries the second cluster's lines beside week4's.
    ctx.billedClusters = [s2];
    let open = true;
    second = {
      url: srv2.url,
      kubeUrl: token === null ? srv2.url : (srv2.httpsUrl ?? srv2.url),
      scenario: s2,
      ctx: ctx2,
      context: `sandbox-${s2.clusterName}`,
      prometheusUrl: `${srv2.url}${PROMETHEUS_PREFIX}`,
      close: async () => {
        if (!open) return;
        open = false;
        await srv2.close();
      },
    };
  }
  writeKubeconfigContexts(kubeconfigPath, [
    { server: kubeUrl, token, clusterName: scenario.clusterName, caCertPem: ca },
    ...(second === null ? [] : [{ server: second.kubeUrl, token, clusterName: second.scenario.clusterName, caCertPem: ca }]),
  ]);
  const closeSecond = second === null ? async () => {} : second.close;
  return {
    context: `sandbox-${scenario.clusterName}`,
    second,
    url: srv.url,
    kubeUrl,
    caCertPath,
    scenario,
    ctx,
    kubeconfigPath,
    prometheusUrl: `${srv.url}${PROMETHEUS_PREFIX}`,
    usage,
    cur,
    curExport,
    awsEnv: {
      AWS_ENDPOINT_URL_COST_EXPLORER: srv.url,
      AWS_ENDPOINT_URL_PRICING: srv.url,
      AWS_ENDPOINT_URL_EC2: srv.url,
      AWS_ENDPOINT_URL_S3: srv.url,
      AWS_ENDPOINT_URL_ATHENA: srv.url,
      AWS_ENDPOINT_URL_STS: srv.url,
      AWS_ACCESS_KEY_ID: 'AKIASANDBOXEXAMPLE00',
      AWS_SECRET_ACCESS_KEY: 'sandbox-secret-not-a-real-key',
      AWS_REGION: scenario.region,
    },
    close: async () => {
      await closeSecond();
      await srv.close();
    },
  };
}
