import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDb, type Db } from '../../db/open-db.js';
import { createAlertRepository } from '../../db/repositories/alert-repository.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { declareClusters } from '../../test/fixtures/cluster-declaration.js';
import { nodePoolRecord, snapshotWrite, type NodeSpec } from '../../test/fixtures/snapshots.js';
import { evaluateAlerts } from './alert-evaluation.js';
import { budgetStatusesAt } from './budget-service.js';

/**
 * The evaluation over a real SQLite file, as the collector runs it after each snapshot, with the collector restarted
 * (the file closed and opened again) in the middle of the episode. general allows spot; one on-demand node at 0.10/h
 * and three spot nodes at 0.10/h each (on-demand share 25 %) until 01:00; then spot runs short: four on-demand nodes
 * and one spot node (0.40 of 0.50/h: 80 %, 55 points up, over the 30-point threshold) until 02:30, then back.
 * With a 1 h hold, spot-fallback fires at 02:00 and resolves at 02:30: once each, one delivery each.
 */
const T0 = Date.parse('2026-11-10T00:00:00Z');
const MIN = 60_000;
const general = nodePoolRecord('general', ['on-demand', 'spot']);

const node = (name: string, capacityType: 'spot' | 'on-demand'): NodeSpec => ({
  name,
  nodePool: 'general',
  capacityType,
  cpuMillicores: 4000,
  memoryBytes: 16e9,
  requestedCpuMillicores: 3600,
  requestedMemoryBytes: 14e9,
  usdPerHour: 0.1,
  onDemandUsdPerHour: 0.192,
});

const nodesAt = (t: number): NodeSpec[] =>
  t >= T0 + 60 * MIN && t < T0 + 150 * MIN
    ? [node('od-1', 'on-demand'), node('od-2', 'on-demand'), node('od-3', 'on-demand'), node('od-4', 'on-demand'), node('spot-1', 'spot')]
    : [node('od-1', 'on-demand'), node('spot-1', 'spot'), node('spot-2', 'spot'), node('spot-3', 'spot')];

let dir: string;
let path: string;
let db: Db;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'alert-eval-'));
  path = join(dir, 'ledger.db');
  db = openDb({ path });
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const target = { url: 'http://127.0.0.1:9/hook', format: 'json' as const };

function collectAndEvaluate(t: number): string[] {
  createKubeRepository(db).writeSnapshot(snapshotWrite(t, nodesAt(t), [general]));
  return evaluateAlerts(db, { atMs: t, targets: [target] })
    .transitions.filter((x) => x.state.rule === 'spot-fallback')
    .map((x) => `${x.kind} ${(x.atMs - T0) / MIN}`);
}

describe('evaluateAlerts over the database, across a collector restart', () => {
  it('spot-fallback fires at 02:00 and resolves at 02:30, once each, one delivery each, though the collector restarted at 01:30 and 02:00', () => {
    const said: string[] = [];
    for (let t = T0; t <= T0 + 180 * MIN; t += 5 * MIN) {
      if (t === T0 + 90 * MIN) {
        db.close(); // the collector restarts: nothing but the file carries over
        db = openDb({ path });
      }
      said.push(...collectAndEvaluate(t));
      if (t === T0 + 120 * MIN) {
        // ...and evaluates the snapshot it last wrote once more after a restart
        db.close();
        db = openDb({ path });
        said.push(
          ...evaluateAlerts(db, { atMs: t, targets: [target] })
            .transitions.filter((x) => x.state.rule === 'spot-fallback')
            .map((x) => `${x.kind} ${(x.atMs - T0) / MIN}`),
        );
      }
    }
    expect(said).toEqual(['firing 120', 'resolved 150']);

    const repo = createAlertRepository(db);
    const episodes = repo.list({ rule: 'spot-fallback' });
    expect(episodes).toHaveLength(1);
    expect(episodes[0]).toMatchObject({
      phase: 'resolved',
      pendingSinceMs: T0 + 60 * MIN,
      firingSinceMs: T0 + 120 * MIN,
      resolvedAtMs: T0 + 150 * MIN,
      // Each node at its on-demand price, 0.192/h: 4 x 0.192 = 0.768 of 5 x 0.192 = 0.96.
      figures: { onDemandShare: 0.8, lowestOnDemandShare: 0.25, onDemandPerHour: 0.768, costPerHour: 0.96 },
      sentence:
        'NodePool general allows spot, yet 80 % of its cost per hour at on-demand prices (USD 0.77 of USD 0.96) is on-demand, up from 25 % at its lowest in the previous 24 h: spot capacity fell back to on-demand.',
    });
    expect(repo.deliveries(episodes[0].id).map((d) => [d.transition, (d.atMs - T0) / MIN, d.status])).toEqual([
      ['firing', 120, 'pending'],
      ['resolved', 150, 'pending'],
    ]);
  });

  it('spot shrinking with on-demand flat is no fallback: the earlier snapshots are read per hour, as the newest is', () => {
    // 00:00-00:55 od-1, od-2 and six spot: on-demand 0.20 of 0.80/h, 25 %; from 01:00 od-1, od-2 and one spot: 0.20 of
    // 0.30/h, 67 %, 42 points up, but on-demand is 0.20/h as before: nothing launched on-demand. Read as USD per
    // 5-minute bucket (0.20 / 12), the earlier on-demand spend looked 12 times smaller than the newest's USD/h: it
    // "grew", and the alert fired at 02:00.
    const shrinking = (t: number): NodeSpec[] => {
      const spot = (n: number) => Array.from({ length: n }, (_x, k) => node(`spot-${k + 1}`, 'spot'));
      return [node('od-1', 'on-demand'), node('od-2', 'on-demand'), ...spot(t < T0 + 60 * MIN ? 6 : 1)];
    };
    const said: string[] = [];
    for (let t = T0; t <= T0 + 180 * MIN; t += 5 * MIN) {
      createKubeRepository(db).writeSnapshot(snapshotWrite(t, shrinking(t), [general]));
      said.push(
        ...evaluateAlerts(db, { atMs: t })
          .transitions.filter((x) => x.state.rule === 'spot-fallback')
          .map((x) => `${x.kind} ${(x.atMs - T0) / MIN}`),
      );
    }
    expect(said).toEqual([]);
  });

  it("cheap spot lost whole is a fallback: the shares are of capacity (on-demand prices), as week4's general on 2026-11-11", () => {
    // od-1, od-2 at 0.192/h and three spot at 0.03/h (on-demand 0.192) until 01:00: 0.384 of 0.474/h spent, 81 %
    // on-demand; at on-demand prices 0.384 of 0.96, 40 %. From 01:00 to 02:30 no spot, four on-demand: 100 %. Spend's
    // share rose 19 points (under 30: nothing said); capacity's 60: pending 01:00, fires 02:00, resolves 02:30.
    const priced = (name: string, capacityType: 'spot' | 'on-demand'): NodeSpec => ({
      ...node(name, capacityType),
      usdPerHour: capacityType === 'spot' ? 0.03 : 0.192,
    });
    const short = (t: number) => t >= T0 + 60 * MIN && t < T0 + 150 * MIN;
    const nodes = (t: number): NodeSpec[] =>
      short(t)
        ? ['od-1', 'od-2', 'od-3', 'od-4'].map((n) => priced(n, 'on-demand'))
        : [priced('od-1', 'on-demand'), priced('od-2', 'on-demand'), ...['spot-1', 'spot-2', 'spot-3'].map((n) => priced(n, 'spot'))];
    const said: string[] = [];
    for (let t = T0; t <= T0 + 180 * MIN; t += 5 * MIN) {
      createKubeRepository(db).writeSnapshot(snapshotWrite(t, nodes(t), [general]));
      said.push(
        ...evaluateAlerts(db, { atMs: t })
          .transitions.filter((x) => x.state.rule === 'spot-fallback')
          .map((x) => `${x.kind} ${(x.atMs - T0) / MIN}`),
      );
    }
    expect(said).toEqual(['firing 120', 'resolved 150']);
  });

  it("three clusters in one ledger: each cluster's alerts judged on its own rows, the same NodePool name kept apart", () => {
    // alpha: general as in the first test (fires 02:00, resolves 02:30: 80 % on-demand at on-demand prices, from 25 %).
    // beta: batch, two on-demand and three spot (each 0.192/h at on-demand prices: 0.384 of 0.96, 40 %) until 01:00,
    //   then four on-demand (0.768 of 0.768, 100 %, 60 points up) until 02:30: pending 01:00, fires 02:00, resolves 02:30.
    // gamma: general too (the name alpha's NodePool has), one on-demand and three spot nodes throughout: 25 %, nothing
    //   to say. Judged with alpha's rows (or alpha's with gamma's), the shares and their timing would differ.
    const [alpha, beta, gamma] = declareClusters(db, ['alpha', 'beta', 'gamma'], T0);
    const batch = nodePoolRecord('batch', ['on-demand', 'spot']);
    const inBatch = (n: NodeSpec): NodeSpec => ({ ...n, nodePool: 'batch' });
    const betaNodes = (t: number): NodeSpec[] =>
      (t >= T0 + 60 * MIN && t < T0 + 150 * MIN
        ? ['od-1', 'od-2', 'od-3', 'od-4'].map((n) => node(n, 'on-demand'))
        : [node('od-1', 'on-demand'), node('od-2', 'on-demand'), ...['spot-1', 'spot-2', 'spot-3'].map((n) => node(n, 'spot'))]
      ).map(inBatch);
    const said: string[] = [];
    for (let t = T0; t <= T0 + 180 * MIN; t += 5 * MIN) {
      const kube = createKubeRepository(db);
      kube.writeSnapshot({ ...snapshotWrite(t, nodesAt(t), [general]), clusterId: alpha });
      kube.writeSnapshot({ ...snapshotWrite(t, betaNodes(t), [batch]), clusterId: beta });
      kube.writeSnapshot({ ...snapshotWrite(t, nodesAt(T0), [general]), clusterId: gamma });
      const { transitions } = evaluateAlerts(db, { atMs: t, targets: [target] });
      said.push(
        ...transitions.filter((x) => x.state.rule === 'spot-fallback').map((x) => `${x.kind} ${(x.atMs - T0) / MIN} ${x.state.subject}`),
      );
    }
    expect(said).toEqual(['firing 120 general', 'firing 120 batch', 'resolved 150 general', 'resolved 150 batch']);
    const repo = createAlertRepository(db);
    const of = (clusterId: number) => repo.list({ rule: 'spot-fallback', clusterId });
    expect(of(alpha)).toHaveLength(1);
    expect(of(alpha)[0]).toMatchObject({
      subject: 'general',
      firingSinceMs: T0 + 120 * MIN,
      resolvedAtMs: T0 + 150 * MIN,
      // 4 x 0.192 = 0.768 of 5 x 0.192 = 0.96 on-demand; 1 of 4 nodes at its lowest.
      figures: { onDemandShare: 0.8, lowestOnDemandShare: 0.25, onDemandPerHour: 0.768, costPerHour: 0.96 },
    });
    expect(of(beta)).toHaveLength(1);
    expect(of(beta)[0]).toMatchObject({
      subject: 'batch',
      pendingSinceMs: T0 + 60 * MIN,
      firingSinceMs: T0 + 120 * MIN,
      resolvedAtMs: T0 + 150 * MIN,
      // 4 x 0.192 = 0.768 of 0.768; 2 x 0.192 = 0.384 of 5 x 0.192 = 0.96 (40 %) at its lowest.
      figures: { onDemandShare: 1, lowestOnDemandShare: 0.4, onDemandPerHour: 0.768, costPerHour: 0.768 },
    });
    // gamma's general ran one on-demand and three spot nodes throughout (25 %): nothing, though alpha's general fell back.
    expect(of(gamma)).toEqual([]);
  });
});

describe('the repositories an evaluation reads', () => {
  it('are made once per connection: evaluating again prepares no statement; the file opened again makes its own', () => {
    const evaluate = (t: number) => evaluateAlerts(db, { atMs: t, targets: [target], budgetStatuses: budgetStatusesAt });
    createKubeRepository(db).writeSnapshot(snapshotWrite(T0, nodesAt(T0), [general]));
    evaluate(T0);
    createKubeRepository(db).writeSnapshot(snapshotWrite(T0 + 5 * MIN, nodesAt(T0 + 5 * MIN), [general]));
    const again = vi.spyOn(db, 'prepare');
    try {
      evaluate(T0 + 5 * MIN);
      expect(again).not.toHaveBeenCalled();
    } finally {
      again.mockRestore();
    }
    db.close();
    db = openDb({ path });
    const reopened = vi.spyOn(db, 'prepare');
    try {
      evaluate(T0 + 10 * MIN);
      expect(reopened).toHaveBeenCalled();
    } finally {
      reopened.mockRestore();
    }
  });
});
