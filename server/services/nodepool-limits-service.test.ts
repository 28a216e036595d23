import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { LABEL_CAPACITY_TYPE } from '../../core/labels.js';
import type { NodePoolRecord } from '../../core/model.js';
import { openDb, type Db } from '../../db/open-db.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { createReportsRepository } from '../../db/repositories/reports-repository.js';
import { GiB, nodePoolRecord, snapshotWrite, type NodeSpec } from '../../test/fixtures/snapshots.js';
import { buildApp } from '../app.js';
import type { NodePoolsResponse } from '../schemas/nodepools.js';
import { createReportsService } from './reports-service.js';

const T1 = Date.parse('2026-11-01T10:00:00Z');
const T2 = Date.parse('2026-11-01T10:05:00Z');

// status.capacity as the kubelet reports it (allocatable is less: kube-reserved, eviction threshold).
const M5_XLARGE = { cpu: '4', memory: '16092956Ki', pods: '58', 'ephemeral-storage': '20959212Ki' };
const C5_2XLARGE = { cpu: '8', memory: '15896988Ki', pods: '58', 'ephemeral-storage': '20959212Ki' };
const M5_24XLARGE = { cpu: '96', memory: '395910712Ki', pods: '737' };
const CAPACITY: Record<string, Record<string, string> | undefined> = {
  'general-a': M5_XLARGE,
  'general-b': M5_XLARGE,
  'general-c': C5_2XLARGE,
  'general-big': M5_24XLARGE,
  'batch-a': undefined, // collected before capacity was recorded: its allocatable counts instead
  'batch-b': {}, // an empty capacity says nothing either
};

const node = (name: string, nodePool: string | null, cpuMillicores: number, memoryBytes: number): NodeSpec => ({
  name,
  nodePool,
  capacityType: 'on-demand',
  cpuMillicores,
  memoryBytes,
  requestedCpuMillicores: 0,
  requestedMemoryBytes: 0,
  usdPerHour: 0.1,
});

const general: NodePoolRecord = {
  ...nodePoolRecord('general'),
  weight: 50,
  consolidateAfter: '30m',
  requirements: [
    { key: LABEL_CAPACITY_TYPE, operator: 'In', values: ['spot', 'on-demand'] },
    { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lt', values: ['17'] },
    { key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'DoesNotExist', values: [] },
  ],
  limits: { cpu: '1000', memory: '1000Gi' },
  budgets: [{ nodes: '10%' }, { nodes: '0', reasons: ['Underutilized', 'Drifted'], schedule: '0 9 * * mon-fri', duration: '8h' }],
  expireAfter: '720h',
};
const batch: NodePoolRecord = { ...nodePoolRecord('batch', ['spot']), limits: { cpu: '2' } };
const legacy: NodePoolRecord = nodePoolRecord('legacy'); // no limits, no expireAfter (collected before it was recorded)

function write(db: Db, at: number, nodes: NodeSpec[]) {
  const w = snapshotWrite(at, nodes, [general, batch, legacy]);
  w.snapshot.nodes = w.snapshot.nodes.map((n) => ({ ...n, capacity: CAPACITY[n.name] }));
  createKubeRepository(db).writeSnapshot(w);
}

let dir: string;
let db: Db;
let app: FastifyInstance;
let baseUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-limits-'));
  db = openDb({ path: join(dir, 'ledger.db') });
  // T1: a 96-vCPU node that is gone by T2 (only the newest snapshot counts).
  write(db, T1, [node('general-a', 'general', 3920, 15 * GiB), node('general-big', 'general', 95_690, 370 * GiB)]);
  write(db, T2, [
    node('general-a', 'general', 3920, 15 * GiB),
    node('general-b', 'general', 3920, 15 * GiB),
    node('general-c', 'general', 7910, 14 * GiB),
    node('batch-a', 'batch', 1930, 3 * GiB),
    node('batch-b', 'batch', 50, 1 * GiB),
    node('mng-a', null, 2000, 8 * GiB),
  ]);
  app = buildApp({ db });
  baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await app?.close();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('NodePool limits against the capacity of the newest snapshot', () => {
  const service = () => createReportsService(createReportsRepository(db));
  const pool = (name: string) => {
    const p = service()
      .nodePools()
      .items.find((i) => i.name === name);
    if (p === undefined) throw new Error(`no NodePool ${name}`);
    return p;
  };

  it('general: cpu 4 + 4 + 8 = 16 vCPU of 1000; memory (2 x 16092956 + 15896988) Ki = 48082900 Ki of 1000Gi', () => {
    const p = pool('general');
    // By hand: 48082900 Ki x 1024 = 49,236,889,600 bytes; 1000Gi = 1000 x 1024^3 = 1,073,741,824,000 bytes.
    expect(p.limits).toEqual({
      cpu: '1000',
      cpuMillicores: 1_000_000,
      memory: '1000Gi',
      memoryBytes: 1_073_741_824_000,
      resources: [
        { resource: 'cpu', quantity: '1000', unit: 'millicores', limit: 1_000_000, used: 16_000, usedFraction: 0.016 },
        {
          resource: 'memory',
          quantity: '1000Gi',
          unit: 'bytes',
          limit: 1_073_741_824_000,
          used: 49_236_889_600,
          usedFraction: 49_236_889_600 / 1_073_741_824_000,
        },
      ],
    });
    expect(p.limits.resources[1].usedFraction).toBeCloseTo(0.045855, 6);
    expect(p.usage).toEqual({
      at: '2026-11-01T10:05:00.000Z',
      nodes: 3,
      cpuMillicores: 16_000,
      memoryBytes: 49_236_889_600,
      nodesWithoutCapacity: 0,
    });
  });

  it('batch: nodes without recorded (or with empty) capacity count their allocatable (1930m + 50m = 1980m of 2 vCPU) and are counted as such', () => {
    const p = pool('batch');
    expect(p.limits.resources).toEqual([
      { resource: 'cpu', quantity: '2', unit: 'millicores', limit: 2000, used: 1980, usedFraction: 0.99 },
    ]);
    expect(p.limits.memory).toBeNull();
    expect(p.usage).toMatchObject({ nodes: 2, cpuMillicores: 1980, memoryBytes: 4 * GiB, nodesWithoutCapacity: 2 });
  });

  it('legacy: no limits, no nodes, expireAfter unknown', () => {
    const p = pool('legacy');
    expect(p.limits).toEqual({ cpu: null, cpuMillicores: null, memory: null, memoryBytes: null, resources: [] });
    expect(p.usage).toMatchObject({ nodes: 0, cpuMillicores: 0, memoryBytes: 0 });
    expect(p.expireAfter).toBeNull();
  });

  it('carries requirements, budgets, weight, consolidation and expireAfter as collected', () => {
    const p = pool('general');
    expect(p).toMatchObject({
      weight: 50,
      consolidationPolicy: 'WhenEmptyOrUnderutilized',
      consolidateAfter: '30m',
      expireAfter: '720h',
      nodeClass: 'default',
    });
    expect(p.requirements).toEqual([
      {
        key: LABEL_CAPACITY_TYPE,
        operator: 'In',
        values: ['spot', 'on-demand'],
        minValues: null,
        text: 'karpenter.sh/capacity-type In [spot, on-demand]',
      },
      {
        key: 'karpenter.k8s.aws/instance-cpu',
        operator: 'Lt',
        values: ['17'],
        minValues: null,
        text: 'karpenter.k8s.aws/instance-cpu Lt 17',
      },
      {
        key: 'karpenter.k8s.aws/instance-gpu-count',
        operator: 'DoesNotExist',
        values: [],
        minValues: null,
        text: 'karpenter.k8s.aws/instance-gpu-count DoesNotExist',
      },
    ]);
    expect(p.budgets).toEqual([
      { nodes: '10%', reasons: [], schedule: null, duration: null },
      { nodes: '0', reasons: ['Underutilized', 'Drifted'], schedule: '0 9 * * mon-fri', duration: '8h' },
    ]);
  });

  it('GET /api/nodepools over HTTP answers the same figures (nothing dropped by the response schema)', async () => {
    const res = await fetch(`${baseUrl}/api/nodepools`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as NodePoolsResponse;
    expect(body).toEqual(service().nodePools());
    expect(body.items.map((i) => i.name)).toEqual(['batch', 'general', 'legacy']);
  });

  it('a later write of a node without capacity keeps the capacity recorded earlier', () => {
    const row = () => db.prepare("SELECT capacity_json FROM nodes WHERE name = 'general-a'").pluck().get();
    expect(JSON.parse(String(row()))).toEqual(M5_XLARGE);
    const w = snapshotWrite(T2 + 300_000, [node('general-a', 'general', 3920, 15 * GiB)], [general]);
    createKubeRepository(db).writeSnapshot(w); // fixture nodes carry no capacity
    expect(JSON.parse(String(row()))).toEqual(M5_XLARGE);
    expect(pool('general').usage).toMatchObject({ nodes: 1, cpuMillicores: 4000, nodesWithoutCapacity: 0 });
  });
});
