import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeSnapshot, NodeRecord } from '../../core/model.js';
import { buildSnapshotRows } from '../../core/rollup.js';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../core/time.js';
import { openDb, type Db } from '../../db/open-db.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { createRetentionFoldRepository } from '../../db/repositories/retention-fold-repository.js';
import { buildApp } from '../../server/app.js';
import type { ConsolidationTimelineResponse } from '../../server/schemas/consolidation.js';
import type { EfficiencyResponse } from '../../server/schemas/efficiency.js';

/*
 * A 90-day chart's buckets (12 hours for the consolidation timeline, 6 for the efficiency series) read the quarter-day
 * rollups of migration 0033 for whole quarters, hours and snapshots at the ragged end; here across the 5-minute/hourly
 * boundary: two days of 5-minute snapshots, the first folded into hourly ones by the collector's fold (as a raw
 * retention of a day leaves it), asked for 90 days ending at 10:10 on the second.
 *
 * general (on-demand): node-a always, node-b from 31 Oct 09:00 to 1 Nov 03:00 (snapshots taken in between hold it),
 * both 4 vCPU / 16 GiB at $0.20/h; web-1 asks 1 vCPU + 2 GiB on node-a. Snapshots every 5 minutes from 31 Oct 00:00
 * to 1 Nov 10:05 (each stands for 5 minutes, the newest for nothing). Hand-worked:
 *   Timeline, 12-hour buckets (sums over time, / the hours covered):
 *     31 Oct 00–12: 12 h covered; node-hours 12 (a) + 3 (b) = 15 -> 1.25 nodes, $0.25/h; cpu 1000 x 12 / (4000 x 15) = 0.2
 *     31 Oct 12–24: 12 h; 2 nodes throughout -> 2 nodes, $0.40/h; cpu 1000 / 8000 = 0.125
 *     1 Nov 00–12: 10 h 05 min covered (00:00 to the newest, 10:05) = 121/12 h; node-hours 121/12 + 3 = 157/12 ->
 *       157/121 = 1.297521 nodes, $0.2 x 157/121 = $0.259504/h; cpu 1000 x 121/12 / (4000 x 157/12) = 121/628 = 0.192675
 *   Efficiency, 6-hour buckets (plain sums over the snapshots taken in the bucket, / their number):
 *     31 Oct 00–06: 72 snapshots of 1 node -> 1 node, $0.20/h, cpu 0.25
 *     31 Oct 06–12: 36 of 1 node (06:00–08:55), 36 of 2 -> 108 / 72 = 1.5 nodes, $0.30/h; cpu 72 x 1000 / (108 x 4000) = 1/6
 *     31 Oct 12–18, 18–24: 2 nodes, $0.40/h, cpu 0.125
 *     1 Nov 00–06: 36 of 2 (00:00–02:55), 36 of 1 -> 1.5 nodes, $0.30/h, cpu 1/6
 *     1 Nov 06–12: 50 snapshots (06:00 to 10:05) of 1 node -> 1 node, $0.20/h, cpu 0.25
 */

const GiB = 1024 ** 3;
const DAY1 = Date.parse('2026-10-31T00:00:00Z');
const DAY2 = DAY1 + DAY_MS;
const NEWEST = DAY2 + 10 * HOUR_MS + 5 * MINUTE_MS;
const TO = DAY2 + 10 * HOUR_MS + 10 * MINUTE_MS;
const FROM = TO - 90 * DAY_MS;
const B_FROM = DAY1 + 9 * HOUR_MS;
const B_TO = DAY2 + 3 * HOUR_MS;

function node(name: string): NodeRecord {
  return {
    name,
    nodeClaim: `general-${name.slice(-1)}`,
    nodePool: 'general',
    instanceType: 'm5.xlarge',
    capacityType: 'on-demand',
    zone: 'us-east-1a',
    instanceId: `i-${name}`,
    createdAt: DAY1 - HOUR_MS,
    allocatable: { cpuMillicores: 4000, memoryBytes: 16 * GiB, pods: 58, gpu: 0 },
    labels: {},
  };
}

function snapshotAt(t: number): KubeSnapshot {
  const nodes = t >= B_FROM && t < B_TO ? [node('node-a'), node('node-b')] : [node('node-a')];
  return {
    takenAt: t,
    nodePools: [],
    namespaces: [{ name: 'web', team: 'web', labels: { team: 'web' } }],
    nodes,
    nodeClaims: [],
    pods: [
      {
        uid: 'uid-web-1',
        namespace: 'web',
        name: 'web-1',
        nodeName: 'node-a',
        phase: 'Running',
        ownerKind: 'ReplicaSet',
        ownerName: 'web',
        team: 'web',
        requests: { cpuMillicores: 1000, memoryBytes: 2 * GiB, pods: 1, gpu: 0 },
        doNotDisrupt: false,
        createdAt: DAY1 - HOUR_MS,
        labels: {},
      },
    ],
    events: [],
  };
}

let dir: string;
let db: Db;
let app: FastifyInstance;
const iso = (ms: number): string => new Date(ms).toISOString();
const get = async <T>(url: string): Promise<T> => {
  const res = await app.inject({ url });
  if (res.statusCode !== 200) throw new Error(`${url}: HTTP ${res.statusCode} ${res.body.slice(0, 300)}`);
  return res.json<T>();
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-quarter-days-'));
  db = openDb({ path: join(dir, 'ledger.db') });
  const kube = createKubeRepository(db);
  for (let t = DAY1; t <= NEWEST; t += 5 * MINUTE_MS) {
    const s = snapshotAt(t);
    kube.writeSnapshot({
      snapshot: s,
      ...buildSnapshotRows(s, () => ({ pricePerHour: 0.2, currency: 'USD', source: 'pricing-api' })),
      runId: null,
    });
  }
  // The first day past a raw retention of one day: folded into hourly snapshots, as the collector's retention does.
  const fold = createRetentionFoldRepository(db);
  while (fold.foldOne(DAY2) !== null);
  app = buildApp({ db, webRoot: join(dir, 'no-web'), now: () => TO });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('90 days across the 5-minute/hourly boundary', () => {
  it('leaves the first day hourly and the second at 5 minutes', () => {
    const count = (where: string) => db.prepare(`SELECT COUNT(*) FROM snapshots WHERE ${where}`).pluck().get();
    expect(count(`taken_at < ${DAY2}`)).toBe(24);
    expect(count(`taken_at < ${DAY2} AND fold_ms IS NULL`)).toBe(0);
    // 00:00 to 10:05 every 5 minutes: 10 x 12 + 2.
    expect(count(`taken_at >= ${DAY2} AND fold_ms IS NULL`)).toBe(122);
  });

  it('the consolidation timeline: 12-hour points, time-weighted', async () => {
    const body = await get<ConsolidationTimelineResponse>(`/api/consolidation/timeline?from=${iso(FROM)}&to=${iso(TO)}`);
    expect(body.bucketMs).toBe(12 * HOUR_MS);
    const general = body.series.find((s) => s.nodePool === 'general');
    expect(general?.points.map((p) => p.tMs)).toEqual([DAY1, DAY1 + 12 * HOUR_MS, DAY2]);
    const want = [
      { nodesAvg: 1.25, usdPerHourAvg: 0.25, cpu: 0.2 },
      { nodesAvg: 2, usdPerHourAvg: 0.4, cpu: 0.125 },
      { nodesAvg: 157 / 121, usdPerHourAvg: (0.2 * 157) / 121, cpu: 121 / 628 },
    ];
    general?.points.forEach((p, i) => {
      expect(p.nodesAvg).toBeCloseTo(want[i].nodesAvg, 9);
      expect(p.usdPerHourAvg).toBeCloseTo(want[i].usdPerHourAvg, 9);
      expect(p.cpu).toBeCloseTo(want[i].cpu, 9);
    });
    // One NodePool: the cluster's series is the same.
    expect(body.series[0].points.map((p) => p.nodesAvg)).toEqual(general?.points.map((p) => p.nodesAvg));
  });

  it('the efficiency series: 6-hour points, over the snapshots taken in each', async () => {
    const body = await get<EfficiencyResponse>(`/api/efficiency/nodepools?from=${iso(FROM)}&to=${iso(TO)}`);
    expect(body.bucketMs).toBe(6 * HOUR_MS);
    const general = body.series.find((s) => s.nodePool === 'general');
    expect(general?.points.map((p) => (p.bucketStartMs - DAY1) / HOUR_MS)).toEqual([0, 6, 12, 18, 24, 30]);
    const want = [
      { nodesAvg: 1, usdPerHourAvg: 0.2, cpu: 0.25 },
      { nodesAvg: 1.5, usdPerHourAvg: 0.3, cpu: 1 / 6 },
      { nodesAvg: 2, usdPerHourAvg: 0.4, cpu: 0.125 },
      { nodesAvg: 2, usdPerHourAvg: 0.4, cpu: 0.125 },
      { nodesAvg: 1.5, usdPerHourAvg: 0.3, cpu: 1 / 6 },
      { nodesAvg: 1, usdPerHourAvg: 0.2, cpu: 0.25 },
    ];
    general?.points.forEach((p, i) => {
      expect(p.nodesAvg).toBeCloseTo(want[i].nodesAvg, 9);
      expect(p.usdPerHourAvg).toBeCloseTo(want[i].usdPerHourAvg, 9);
      expect(p.cpu).toBeCloseTo(want[i].cpu, 9);
    });
  });
});
