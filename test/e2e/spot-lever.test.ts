import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PriceCollector } from '../../cli/price-collector.js';
import { createEc2Client } from '../../collectors/spot/client.js';
import { LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE, LABEL_NODEPOOL, LABEL_ZONE } from '../../core/labels.js';
import type { KubeSnapshot } from '../../core/model.js';
import { buildSnapshotRows } from '../../core/rollup.js';
import { openDb, type Db } from '../../db/open-db.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { createPricesRepository } from '../../db/repositories/prices-repository.js';
import { ec2Handler } from '../../sandbox/serve/ec2.js';
import { buildApp } from '../../server/app.js';
import type { HeadroomResponse, NodePoolEditResponse } from '../../server/schemas/whatif.js';
import { newContext, serveHandlers, type ServedHandlers, useDummyAwsCredentials } from '../fixtures/serve-handlers.js';
import { T, tinyScenario } from '../fixtures/tiny-scenario.js';

/*
 * Issue 21 item 4, through the path a user takes: an on-demand-only NodePool, its spot history fetched by the
 * collector's PriceCollector through the real EC2 SDK client from the sandbox (at prices set here), the snapshot
 * written by the collector's repository into a SQLite file, and the what-if routes over it. Before the fix spot
 * history was fetched for spot nodes' types only, so this NodePool's spot lever was $0 and an edit to spot left
 * its pod unschedulable.
 *
 * Hand-worked: NodePool `od` admits m5.large only (node.kubernetes.io/instance-type In [m5.large]) in us-east-1a
 * and us-east-1b, on-demand only. One m5.large on demand at Karpenter's us-east-1 table price, 0.096 USD/h, holds one
 * pod of 1 vCPU / 2 GiB (m5.large allocatable 1930m / 6903 MiB: one node). Spot m5.large is set at 0.040 in
 * us-east-1a, 0.035 in us-east-1b and 0.030 in us-east-1c (a zone the NodePool does not name, so never asked for).
 * Best = today = 1 x 0.096. Spot: 1 x m5.large spot in us-east-1b, 0.035. Spot lever = (0.096 - 0.035) x 730
 * = 0.061 x 730 = 44.53 USD/month; the edit capacityTypes=spot saves the same.
 */

useDummyAwsCredentials();

const AT = T('2026-11-10T00:00:00Z');
const GiB = 1024 ** 3;

function scenario() {
  const s = tinyScenario();
  const od = { ...s.nodePools[0], name: 'od', instanceTypes: ['m5.large'] };
  return {
    ...s,
    nodePools: [od],
    spotPrices: [
      ...s.spotPrices,
      { instanceType: 'm5.large', zone: 'us-east-1a', at: T('2026-11-01T00:00:00Z'), usdPerHour: 0.04 },
      { instanceType: 'm5.large', zone: 'us-east-1b', at: T('2026-11-01T00:00:00Z'), usdPerHour: 0.035 },
      { instanceType: 'm5.large', zone: 'us-east-1c', at: T('2026-11-01T00:00:00Z'), usdPerHour: 0.03 },
    ].sort((a, b) => a.instanceType.localeCompare(b.instanceType) || a.zone.localeCompare(b.zone) || a.at - b.at),
  };
}

const snapshot: KubeSnapshot = {
  takenAt: AT,
  nodePools: [
    {
      name: 'od',
      weight: null,
      consolidationPolicy: 'WhenEmptyOrUnderutilized',
      consolidateAfter: '1m',
      capacityTypes: ['on-demand'],
      requirements: [
        { key: LABEL_CAPACITY_TYPE, operator: 'In', values: ['on-demand'] },
        { key: LABEL_INSTANCE_TYPE, operator: 'In', values: ['m5.large'] },
        { key: LABEL_ZONE, operator: 'In', values: ['us-east-1a', 'us-east-1b'] },
      ],
      limits: {},
      budgets: [],
      nodeClass: 'default',
    },
  ],
  namespaces: [{ name: 'shop', team: null, labels: {} }],
  nodes: [
    {
      name: 'ip-10-0-1-10.ec2.internal',
      nodeClaim: 'od-abcde',
      nodePool: 'od',
      instanceType: 'm5.large',
      capacityType: 'on-demand',
      zone: 'us-east-1a',
      instanceId: 'i-0000000000000000a',
      createdAt: AT - 3_600_000,
      allocatable: { cpuMillicores: 1930, memoryBytes: 6903 * 2 ** 20, pods: 29, gpu: 0 },
      labels: {
        [LABEL_NODEPOOL]: 'od',
        [LABEL_CAPACITY_TYPE]: 'on-demand',
        [LABEL_INSTANCE_TYPE]: 'm5.large',
        [LABEL_ZONE]: 'us-east-1a',
        'kubernetes.io/arch': 'amd64',
      },
    },
  ],
  nodeClaims: [],
  pods: [
    {
      uid: 'uid-web-1',
      namespace: 'shop',
      name: 'web-5d9c-aaaaa',
      nodeName: 'ip-10-0-1-10.ec2.internal',
      phase: 'Running',
      ownerKind: 'ReplicaSet',
      ownerName: 'web-5d9c',
      team: null,
      requests: { cpuMillicores: 1000, memoryBytes: 2 * GiB, pods: 1, gpu: 0 },
      doNotDisrupt: false,
      createdAt: AT - 3_600_000,
      labels: { app: 'web' },
    },
  ],
  events: [],
};

let dir: string;
let db: Db;
let served: ServedHandlers;
let app: FastifyInstance;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-spot-lever-'));
  db = openDb({ path: join(dir, 'ledger.db') });
  served = await serveHandlers([ec2Handler], newContext(scenario(), AT));
  const ec2 = createEc2Client({ region: 'us-east-1', endpoint: served.url });
  const prices = new PriceCollector(db, 'us-east-1', null, { ec2 });
  await prices.ensureSpotMarkets(snapshot, AT);
  ec2.destroy();
  const rows = buildSnapshotRows(
    snapshot,
    (n, at) => prices.quote(n, at),
    (n, at) => prices.onDemandPricePerHour(n, at),
  );
  createKubeRepository(db).writeSnapshot({ snapshot, ...rows, runId: null });
  app = buildApp({ db, webRoot: join(dir, 'no-web'), now: () => AT });
});

afterAll(async () => {
  await app?.close();
  await served?.close();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the spot lever of an on-demand-only NodePool (issue 21 item 4)', () => {
  it('the collector stored spot history for the type the NodePool admits, in the zones it names, though nothing runs as spot', () => {
    const p = createPricesRepository(db);
    expect(p.spotPriceAt('us-east-1', 'm5.large', 'us-east-1a', AT)?.pricePerHour).toBe(0.04);
    expect(p.spotPriceAt('us-east-1', 'm5.large', 'us-east-1b', AT)?.pricePerHour).toBe(0.035);
    expect(p.spotPriceAt('us-east-1', 'm5.large', 'us-east-1c', AT)).toBeNull();
  });

  it('headroom: best 0.096 USD/h on demand, spot 1 x m5.large in us-east-1b at 0.035: the lever is 0.061 x 730 = 44.53 USD/month', async () => {
    const res = await app.inject({ url: '/api/whatif/headroom' });
    expect(res.statusCode).toBe(200);
    const body = res.json<HeadroomResponse>();
    const od = body.rows.find((r) => r.nodePool === 'od');
    expect(od?.best.usdPerHour).toBeCloseTo(0.096, 9);
    expect(od?.spot.mix).toEqual([expect.objectContaining({ instanceType: 'm5.large', capacityType: 'spot', nodes: 1 })]);
    expect(od?.spot.usdPerHour).toBeCloseTo(0.035, 9);
    expect(od?.spotUsdPerMonth).toBeCloseTo(44.53, 6);
  });

  it('the edit capacityTypes=spot schedules the pod and saves the same 44.53 USD/month', async () => {
    const res = await app.inject({ url: '/api/whatif/nodepool-edit?nodepool=od&capacityTypes=spot' });
    expect(res.statusCode).toBe(200);
    const body = res.json<NodePoolEditResponse>();
    expect(body.unschedulable).toEqual([]);
    expect(body.after.usdPerHour).toBeCloseTo(0.035, 9);
    expect(body.savingsUsdPerMonth).toBeCloseTo(44.53, 6);
  });
});
