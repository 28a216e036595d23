import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { seedFromSandbox } from '../../cli/seed-sandbox.js';
import { parseBaseUnits, parseCpuMillicores, quantityFromJson } from '../../core/quantity.js';
import { openDb, type Db } from '../../db/open-db.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { loadCatalog } from '../../sandbox/scenario/catalog.js';
import { nodeAliveAt } from '../../sandbox/serve/kube-objects.js';
import { buildApp } from '../../server/app.js';
import type { NodePoolCompareResponse, NodePoolsResponse } from '../../server/schemas/nodepools.js';
import { HOUR_MS } from '../../core/time.js';

/**
 * week4's NodePools carry limits written as Karpenter's examples write them, cpu and nodes as JSON numbers and memory
 * as a string (system cpu 16 / memory 64Gi, general 400 / 1600Gi / 50 nodes, spot-batch 256 / 1024Gi / 10 nodes),
 * and general's requirements use Gte and Lte (the sandbox serves Karpenter v1.14.1 by default).
 * Two simulated hours through the real Kubernetes client, then /api/nodepools over HTTP against the scenario
 * itself: the NodePool specs, and the capacity of the nodes alive at the last snapshot summed from the
 * instance-type catalogue (vCPUs and MiB), not from what the collector stored.
 */
/** A limit as the scenario writes it (int-or-string), in the string form the API reports. */
const text = (q: string | number | undefined): string => quantityFromJson(q) ?? 'missing';
let sb: RunningSandbox;
let dir: string;
let db: Db;
let app: FastifyInstance;
let body: NodePoolsResponse;
let compare: NodePoolCompareResponse;
let lastSnapshotMs: number;
const saved = { ...process.env };

beforeAll(async () => {
  sb = await startSandbox({});
  Object.assign(process.env, sb.awsEnv);
  dir = mkdtempSync(join(tmpdir(), 'ledger-limits-e2e-'));
  db = openDb({ path: join(dir, 'ledger.db') });
  const sc = sb.scenario;
  const endMs = sc.start + 2 * HOUR_MS;
  await seedFromSandbox({
    db,
    sandboxUrl: sb.url,
    kubeconfigPath: sb.kubeconfigPath,
    clusterName: sc.clusterName,
    region: sc.region,
    startMs: sc.start,
    endMs,
    stepMs: sc.stepMs,
    quiet: true,
    usage: false, // usage is not what this test looks at, and reading it doubles the seeding time
  });
  lastSnapshotMs = endMs - sc.stepMs;
  app = buildApp({ db, now: () => endMs });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  body = (await (await fetch(`${url}/api/nodepools`)).json()) as NodePoolsResponse;
  const range = `from=${new Date(sc.start).toISOString()}&to=${new Date(endMs).toISOString()}`;
  compare = (await (await fetch(`${url}/api/nodepools/compare?${range}`)).json()) as NodePoolCompareResponse;
}, 120_000);

afterAll(async () => {
  await app?.close();
  db?.close();
  await sb?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  process.env = saved;
});

describe('week4 NodePools through the collector', () => {
  it('every NodePool of the scenario, with its spec as the sandbox serves it', () => {
    expect(body.items.map((p) => p.name)).toEqual(sb.scenario.nodePools.map((p) => p.name).sort());
    for (const pool of sb.scenario.nodePools) {
      const got = body.items.find((p) => p.name === pool.name);
      expect(got, pool.name).toMatchObject({
        // a static NodePool (load-test, spec.replicas) is served without a weight and with limits.nodes only
        weight: pool.replicas === undefined ? pool.weight : null,
        consolidationPolicy: pool.consolidationPolicy,
        consolidateAfter: pool.consolidateAfter,
        expireAfter: pool.expireAfter,
        nodeClass: pool.nodeClassName,
        ...(pool.limits.cpu === undefined
          ? {}
          : {
              limits: {
                cpu: text(pool.limits.cpu),
                cpuMillicores: parseCpuMillicores(text(pool.limits.cpu)),
                memory: text(pool.limits.memory),
                memoryBytes: parseBaseUnits(text(pool.limits.memory)),
              },
            }),
      });
      // As the scenario wrote them (the one-line text is checked by hand below).
      expect(got?.requirements.map(({ text: _text, ...r }) => r)).toEqual(
        pool.requirements.map((r) => ({ key: r.key, operator: r.operator, values: r.values, minValues: r.minValues ?? null })),
      );
      expect(got?.budgets).toEqual(pool.budgets.map((b) => ({ nodes: b.nodes, reasons: b.reasons ?? [], schedule: null, duration: null })));
    }
  });

  it('limits written as JSON numbers come out as quantities, not "no limit" (cpu 16, nodes 50)', () => {
    const byName = new Map(body.items.map((p) => [p.name, p]));
    expect(byName.get('system')?.limits).toMatchObject({ cpu: '16', cpuMillicores: 16_000, memory: '64Gi', memoryBytes: 64 * 1024 ** 3 });
    expect(byName.get('general')?.limits.resources.map((r) => [r.resource, r.quantity, r.limit])).toEqual([
      ['cpu', '400', 400_000],
      ['memory', '1600Gi', 1600 * 1024 ** 3],
      ['nodes', '50', 50],
    ]);
    expect(byName.get('general')?.requirements.map((r) => r.text)).toEqual([
      'karpenter.sh/capacity-type In [on-demand, spot]',
      'karpenter.k8s.aws/instance-category In [c, m, r]',
      'karpenter.k8s.aws/instance-generation Gte 6',
      'karpenter.k8s.aws/instance-cpu Lte 16',
      'karpenter.k8s.aws/instance-hypervisor In [nitro]',
      'kubernetes.io/arch In [amd64]',
    ]);
    expect(byName.get('spot-batch')?.requirements.find((r) => r.minValues !== null)).toMatchObject({
      key: 'karpenter.k8s.aws/instance-family',
      minValues: 5,
    });
  });

  it('usage = Σ capacity (vCPUs, MiB) of the scenario nodes alive at the last snapshot, per NodePool', () => {
    const catalog = loadCatalog();
    for (const pool of sb.scenario.nodePools) {
      const alive = sb.scenario.nodes.filter((n) => n.nodePool === pool.name && nodeAliveAt(n, lastSnapshotMs));
      const cpuMillicores = alive.reduce((s, n) => s + (catalog.get(n.instanceType)?.vcpu ?? Number.NaN) * 1000, 0);
      const memoryBytes = alive.reduce((s, n) => s + (catalog.get(n.instanceType)?.memoryMiB ?? Number.NaN) * 1024 * 1024, 0);
      const got = body.items.find((p) => p.name === pool.name);
      expect(got?.usage, pool.name).toEqual({
        at: new Date(lastSnapshotMs).toISOString(),
        nodes: alive.length,
        cpuMillicores,
        memoryBytes,
        nodesWithoutCapacity: 0,
      });
      expect(got?.limits.resources.map((r) => [r.resource, r.used, r.usedFraction])).toEqual([
        ...(pool.limits.cpu === undefined ? [] : [['cpu', cpuMillicores, cpuMillicores / parseCpuMillicores(text(pool.limits.cpu))]]),
        ...(pool.limits.memory === undefined ? [] : [['memory', memoryBytes, memoryBytes / parseBaseUnits(text(pool.limits.memory))]]),
        // the nodes limit counts the NodePool's nodes
        ...(pool.limits.nodes === undefined ? [] : [['nodes', alive.length, alive.length / Number(pool.limits.nodes)]]),
      ]);
    }
    // The cluster has nodes in at least one NodePool, so the sums above are not all zero.
    expect(body.items.some((p) => p.usage.nodes > 0)).toBe(true);
  });

  it('the system NodePool allows reserved capacity: its nodes run in the capacity reservation, billed at the on-demand rate', () => {
    const system = body.items.find((p) => p.name === 'system');
    expect(system?.capacityTypes).toEqual(['reserved', 'on-demand']);
    expect(system?.requirements[0]?.text).toBe('karpenter.sh/capacity-type In [reserved, on-demand]');
    // The scenario's truth: week4's one reservation holds 2 m6i.large in us-east-1b (sandbox/scenarios/week4.json
    // capacityReservations); coredns' zone spread puts the two system nodes in us-east-1a and us-east-1b, so the
    // one in us-east-1b runs in the reservation and the one in us-east-1a on-demand (since issue 21's zone spread).
    const reservation = { id: 'cr-0a1b2c3d4e5f60718', zone: 'us-east-1b' };
    const alive = sb.scenario.nodes.filter((n) => n.nodePool === 'system' && nodeAliveAt(n, lastSnapshotMs));
    expect(alive.map((n) => [n.zone, n.instanceType, n.capacityType, n.capacityReservationId])).toEqual([
      ['us-east-1a', 'm6i.large', 'on-demand', undefined],
      [reservation.zone, 'm6i.large', 'reserved', reservation.id],
    ]);
    // Through the collector: system's node-hours, reserved and on-demand, at m6i.large's on-demand 0.096 USD/h, no savings.
    const rows = compare.rows.filter((r) => r.nodePool === 'system');
    expect(rows.map((r) => r.capacityType).sort()).toEqual(['on-demand', 'reserved']);
    for (const row of rows) {
      expect(row.nodeHours).toBeGreaterThan(0);
      expect(row.costUsd).toBeCloseTo(row.nodeHours * 0.096, 6);
      expect(row.onDemandEquivalentUsd).toBeCloseTo(row.costUsd, 6);
      expect(row.savingsUsd).toBeCloseTo(0, 6);
    }
  });
});
