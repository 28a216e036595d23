import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeKubeconfig } from './kubeconfig.js';
import { simulate } from './scenario/simulate.js';
import { loadScenarioFile } from './scenario/scenario-file.js';
import type { Scenario } from './scenario/types.js';
import { SandboxClock, type SandboxContext, type SandboxHandler } from './serve/context.js';
import { createCostExplorerHandler } from './serve/cost-explorer.js';
import { ec2Handler } from './serve/ec2.js';
import { createKubeHandler } from './serve/kube.js';
import { pricingHandler } from './serve/pricing.js';
import { startSandboxServer } from './serve/server.js';

export const DEFAULT_SCENARIO = 'week4';
export const DEFAULT_SEED = 42;

export interface SandboxOptions {
  scenario?: string;
  seed?: number;
  /** Initial clock; default: the end of the scenario (all history visible). */
  at?: number;
  port?: number;
  /** Where to write the kubeconfig; default: a fresh temp dir. */
  dir?: string;
  /**
   * false: the Kubernetes API takes requests without a bearer token and the kubeconfig carries none (kubectl sends
   * tokens only over TLS, and the sandbox speaks plain HTTP). It still listens on 127.0.0.1 only. Default true.
   */
  auth?: boolean;
}

export interface RunningSandbox {
  url: string;
  scenario: Scenario;
  ctx: SandboxContext;
  kubeconfigPath: string;
  /** The standard knobs that point the AWS SDK at the sandbox, with dummy credentials. */
  awsEnv: Record<string, string>;
  close: () => Promise<void>;
}

const cache = new Map<string, Scenario>();

/** The simulated history for a scenario and seed (computed once per process). */
export function loadScenario(name = DEFAULT_SCENARIO, seed = DEFAULT_SEED): Scenario {
  const key = `${name}|${seed}`;
  let s = cache.get(key);
  if (!s) {
    s = simulate(loadScenarioFile(name), seed);
    cache.set(key, s);
  }
  return s;
}

/** Extra protocol adapters (AWS) registered by their modules; the Kubernetes API is always there. */
export function awsHandlers(): SandboxHandler[] {
  return [createCostExplorerHandler(), pricingHandler, ec2Handler];
}

/** Starts the simulated cluster and AWS account on 127.0.0.1. */
export async function startSandbox(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  const scenario = loadScenario(opts.scenario, opts.seed);
  const ctx: SandboxContext = { scenario, clock: new SandboxClock(opts.at ?? scenario.end), requestLog: [], faults: [] };
  const token = opts.auth === false ? null : randomBytes(24).toString('hex');
  const srv = await startSandboxServer(ctx, [createKubeHandler(scenario, token), ...awsHandlers()], opts.port ?? 0);
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'ledger-sandbox-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeKubeconfig(kubeconfigPath, srv.url, token, scenario.clusterName);
  return {
    url: srv.url,
    scenario,
    ctx,
    kubeconfigPath,
    awsEnv: {
      AWS_ENDPOINT_URL_COST_EXPLORER: srv.url,
      AWS_ENDPOINT_URL_PRICING: srv.url,
      AWS_ENDPOINT_URL_EC2: srv.url,
      AWS_ACCESS_KEY_ID: 'AKIASANDBOXEXAMPLE00',
      AWS_SECRET_ACCESS_KEY: 'sandbox-secret-not-a-real-key',
      AWS_REGION: scenario.region,
    },
    close: srv.close,
  };
}
