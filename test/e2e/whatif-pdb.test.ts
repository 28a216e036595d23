import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedFromSandbox } from '../../cli/seed-sandbox.js';
import { openDb, type Db } from '../../db/open-db.js';
import { awsHandlers } from '../../sandbox/index.js';
import { writeKubeconfig } from '../../sandbox/kubeconfig.js';
import { SandboxClock } from '../../sandbox/serve/context.js';
import { createKubeHandler } from '../../sandbox/serve/kube.js';
import { startSandboxServer, type SandboxServer } from '../../sandbox/serve/server.js';
import { buildApp } from '../../server/app.js';
import type { WhyNotResponse } from '../../server/schemas/whatif.js';
import { M5_LARGE_USD_PER_HOUR, OTHER_NODE, PDB_END, PDB_NODE, PDB_START, pdbScenario } from '../fixtures/pdb-scenario.js';

/*
 * Issue 21 item 2 (PodDisruptionBudgets) through the path a user takes: a hand-made two-node cluster
 * (test/fixtures/pdb-scenario.ts) served by the sandbox's Kubernetes API and AWS endpoints, read by the real
 * collectors (seedFromSandbox: the watch cache, the price collector, the snapshot writer) into a SQLite file over its
 * two hours, a snapshot every 15 minutes, and /api/whatif/why-not over it on 127.0.0.1. On week4 the payments-api
 * pods always share a node with a do-not-disrupt pod, whose reason comes first; here only the PDB holds the node.
 */

const savedEnv = { ...process.env };
let dir: string;
let sandbox: SandboxServer;
let db: Db;
let app: FastifyInstance;
let base: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-whatif-pdb-'));
  const scenario = pdbScenario();
  const ctx = { scenario, clock: new SandboxClock(PDB_START), requestLog: [], faults: [] };
  sandbox = await startSandboxServer(ctx, [createKubeHandler(scenario, null), ...awsHandlers()]);
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeKubeconfig(kubeconfigPath, sandbox.url, null, scenario.clusterName);
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_COST_EXPLORER: sandbox.url,
    AWS_ENDPOINT_URL_PRICING: sandbox.url,
    AWS_ENDPOINT_URL_EC2: sandbox.url,
    AWS_ACCESS_KEY_ID: 'AKIASANDBOXEXAMPLE00',
    AWS_SECRET_ACCESS_KEY: 'sandbox-secret-not-a-real-key',
    AWS_REGION: scenario.region,
  });
  db = openDb({ path: join(dir, 'ledger.db') });
  await seedFromSandbox({
    db,
    sandboxUrl: sandbox.url,
    kubeconfigPath,
    clusterName: scenario.clusterName,
    region: scenario.region,
    startMs: PDB_START,
    endMs: PDB_END,
    stepMs: 15 * 60_000,
    quiet: true,
    usage: false,
  });
  app = buildApp({ db, webRoot: join(dir, 'no-web'), now: () => PDB_END });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await app?.close();
  db?.close();
  await sandbox?.close();
  process.env = savedEnv;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('why-not-consolidated with a PodDisruptionBudget (issue 21 item 2), sandbox -> collectors -> SQLite -> API', () => {
  it('keeps the node whose pods a PDB with minAvailable = replicas guards, in Karpenter v1.14.1 wording (pkg/controllers/disruption/suite_test.go:1158), at its price 0.096 USD/h = 70.08 USD/month', async () => {
    const res = await fetch(`${base}/api/whatif/why-not`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as WhyNotResponse;
    const held = body.nodes.find((n) => n.node === PDB_NODE);
    expect(held).toMatchObject({
      nodePool: 'general',
      instanceType: 'm5.large',
      capacityType: 'on-demand',
      pods: 2,
      decision: 'keep',
      reason: 'Pdb prevents pod evictions (PodDisruptionBudget=[shop/payments])',
      wording: 'karpenter',
    });
    // m5.large on demand in us-east-1: 0.096 USD/h (Karpenter's table); 0.096 x 730 h = 70.08 USD/month.
    expect(held?.usdPerHour).toBeCloseTo(M5_LARGE_USD_PER_HOUR, 9);
    expect(held?.usdPerMonth).toBeCloseTo(70.08, 6);
    // The other node, unguarded, is the one Karpenter empties: its one web pod fits beside the payments pods.
    expect(body.nodes.find((n) => n.node === OTHER_NODE)?.decision).toBe('delete');
    expect(body.command).toMatchObject({ action: 'delete', candidates: [OTHER_NODE] });
  });
});
