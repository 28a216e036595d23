import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAlertSink, type AlertSink } from '../../cli/demo-alert-sink.js';
import { seedFromSandbox } from '../../cli/seed-sandbox.js';
import { openDb, type Db } from '../../db/open-db.js';
import { createAlertRepository } from '../../db/repositories/alert-repository.js';
import { startSandbox } from '../../sandbox/index.js';
import type { AlertWebhookPayload } from '../../server/services/alert-payload.js';
import { createAlertDelivery } from '../../server/services/alert-delivery.js';
import { replayAlerts } from '../../server/services/alert-replay.js';
import { applyBudgetFile } from '../../server/services/budget-file.js';
import { budgetStatusesAt } from '../../server/services/budget-service.js';

/**
 * week4 drives the alerts end to end: its spot shortage (sandbox/scenarios/week4.json: general, 2026-11-11T14:00Z,
 * 4 hours) makes general fall back to on-demand. Cheap: the scenario simulated to the end of day 12 only, and only
 * the 36 hours around the shortage collected (from 2026-11-10T12:00Z: the 24 h spot baseline before it, to
 * 2026-11-12T00:00Z), a snapshot every 15 minutes, through the real collectors; then the rules evaluated after each
 * snapshot as the collector does, and delivered over loopback HTTP to the demo's webhook sink.
 *
 * The budget: cli/demo-budgets.yaml's general-monthly (300) is crossed on ~Nov 12 by the whole month's bill, but these
 * 36 hours hold no bill and no day before 11-10T12:00, so general's spent here is the estimate of the window only
 * (44.41 by 23:45; it never reaches 240). The test declares general-window, 39.50 a month with thresholds 80 % and
 * 100 %, worked out from general's collected cost (the estimate summed from 11-10T12:00, read off the collected file):
 * 31.37 at 11-11T15:45 and 31.86 at 16:00 around 80 % (31.60); 39.31 at 20:00 and 39.70 at 20:15 around 100 % (39.50).
 * Since general's consolidation stops at 19:00 (below), one of its nodes at 19:30 is on-demand where the history without
 * the edit has it on spot (7 of 9 on-demand there, 8 of 9 here, the same allocatable), to 19:45: 20:15's spent is a
 * fraction of a cent more, still 39.70 but now at least 39.6975, so its share of 39.50 is 1.0051 and the sentence says
 * 101 % (100 % before the edit was in week4).
 * Its forecast (spent plus the run-rate to Nov 30) is 0 at 12:00 (nothing spent yet) and over 300 from 12:15 on.
 *
 * Packing: week4's operator sets general's consolidationPolicy from WhenEmptyOrUnderutilized to WhenEmpty at
 * 2026-11-11T19:00Z (sandbox/scenarios/week4.json, a nodepool-disruption incident; back at 11-12T07:00, past this
 * window). The snapshot at 19:00 is the first to see the new NodePool version (kept by migration 0019's versions), so
 * the change is at 19:00. General's CPU packing (requested / allocatable, from the simulated history's nodes and pods
 * at each 15-min snapshot): 18:30 83.7 %, 18:45 82.6 % (before: 83.15 %); then 20:45 75.5, 21:00 71.3, 21:15 68.7,
 * 21:30 67.1, 21:45 69.3, 22:00 67.0. The last 30 min (two snapshots) against 83.15 %: 21:00 73.4 % (9.75 points, under
 * the 10), 21:15 70.0 % (13.15: pending), held 30 min to 21:45 (68.2 %: firing), judged while the change is in the 3 h
 * window, so resolved at 22:15. The same history without the edit (the policy left as it was) has 78.4 and 75.6 % at
 * 21:00 and 21:15 (its consolidation deletes a seventh node at 21:00): the last 30 min stay within 10 points of
 * 83.15 % until 22:00 (73.5 %, 9.65 points), so without the edit the drop would not have tripped the rule in the window.
 */
const BUDGETS_YAML = `budgets:
  - name: general-window
    scope: { kind: nodepool, name: general }
    period: monthly
    amount: 39.5
    thresholds: [0.8, 1]
`;
const SHORTAGE_MS = Date.parse('2026-11-11T14:00:00Z');
const HOUR = 3_600_000;
const FROM_MS = Date.parse('2026-11-10T12:00:00Z');
const EDIT_MS = Date.parse('2026-11-11T19:00:00Z');
const TO_MS = Date.parse('2026-11-12T00:00:00Z');

let dir: string;
let db: Db;
let sink: AlertSink;
let close: () => Promise<void>;
const savedEnv = { ...process.env };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-alerts-week4-'));
  const sandbox = await startSandbox({ days: 12, dir });
  Object.assign(process.env, sandbox.awsEnv);
  db = openDb({ path: join(dir, 'ledger.db') });
  const sc = sandbox.scenario;
  await seedFromSandbox({
    db,
    sandboxUrl: sandbox.url,
    kubeconfigPath: sandbox.kubeconfigPath,
    clusterName: sc.clusterName,
    region: sc.region,
    startMs: FROM_MS,
    endMs: TO_MS,
    stepMs: 3 * sc.stepMs,
    quiet: true,
    usage: false,
  });
  sink = await startAlertSink();
  close = async () => {
    await sink.close();
    db.close();
    await sandbox.close();
  };
}, 600_000);

afterAll(async () => {
  await close?.();
  process.env = savedEnv;
  rmSync(dir, { recursive: true, force: true });
});

describe("week4 raises spot-fallback, budget-threshold, and packing-drop after general's consolidation policy is set to WhenEmpty", () => {
  it('fires once, an hour after the shortage began, resolves after it ends, and reaches the sink once each', async () => {
    const times = createAlertRepository(db).snapshotTimes(FROM_MS, TO_MS);
    const target = [{ url: sink.url, format: 'json' as const }];
    applyBudgetFile(db, 'week4-budgets.yaml', BUDGETS_YAML, FROM_MS);
    const budgetStatuses = budgetStatusesAt;
    // The collector stops at 15:30 (after the alert fired) and starts again: the file is all that carries over, and
    // the first snapshot it evaluates is the last one evaluated before the stop.
    // It stops again at 22:00, while the packing-drop alert fires (from 21:45, resolving at 22:15).
    const restarts = [SHORTAGE_MS + 1.5 * HOUR, EDIT_MS + 3 * HOUR];
    const bounds = [-Infinity, ...restarts, Infinity];
    for (let i = 0; i + 1 < bounds.length; i++) {
      if (i > 0) {
        db.close();
        db = openDb({ path: join(dir, 'ledger.db') });
      }
      const part = times.filter((t) => t >= bounds[i] && t <= bounds[i + 1]);
      replayAlerts(db, { snapshotTimes: part, everyMs: 0, targets: target, budgetStatuses });
    }
    const delivery = createAlertDelivery(db);
    await delivery.runOnce();
    await delivery.stop();

    const all = createAlertRepository(db).list({});
    // Everything that fired over these 36 hours, for the log (the shortage's alert is what is asserted).
    console.log(
      all
        .map((x) => `${new Date(x.firingSinceMs ?? 0).toISOString()} ${x.rule} ${x.subject}: ${x.sentence} ${JSON.stringify(x.figures)}`)
        .join('\n'),
    );

    // The shortage's episode: opened at 14:00 (the first snapshot after its spot nodes were reclaimed), fired after the
    // 1 h hold, resolved after the shortage ended; one episode for it, though the collector restarted while it fired.
    const spot = all.filter(
      (a) => a.rule === 'spot-fallback' && a.pendingSinceMs >= SHORTAGE_MS && a.pendingSinceMs < SHORTAGE_MS + 4 * HOUR,
    );
    expect(spot.map((a) => [a.subject, new Date(a.pendingSinceMs).toISOString(), new Date(a.firingSinceMs ?? 0).toISOString()])).toEqual([
      ['general', '2026-11-11T14:00:00.000Z', '2026-11-11T15:00:00.000Z'],
    ]);
    const [a] = spot;
    expect(a.resolvedAtMs ?? 0).toBeGreaterThanOrEqual(SHORTAGE_MS + 4 * HOUR);
    expect(a.sentence).toMatch(
      /^NodePool general allows spot, yet \d+ % of its cost per hour .* is on-demand, up from \d+ % at its lowest in the previous 24 h/,
    );

    // Delivered to the sink once each: fired, then resolved.
    const received = sink.received.map((r) => r.body as AlertWebhookPayload).filter((b) => b.alertId === a.id);
    expect(received.map((b) => [b.status, b.rule, b.subject, b.at])).toEqual([
      ['firing', 'spot-fallback', 'general', '2026-11-11T15:00:00.000Z'],
      ['resolved', 'spot-fallback', 'general', new Date(a.resolvedAtMs ?? 0).toISOString()],
    ]);
    expect(received[0].link.href).toBe('/nodepools?from=2026-11-10&to=2026-11-11&nodepool=general');

    // The budget: each of its four alerts fired once at the snapshot that crossed (hold 0), none resolved (spent only
    // grows, the forecast stays over 300), the two spent ones after the restart, the forecast ones before it.
    const budget = all.filter((x) => x.rule === 'budget-threshold');
    const fired = (xs: typeof all) =>
      xs
        .map((x) => [x.subject, new Date(x.firingSinceMs ?? 0).toISOString(), x.resolvedAtMs])
        .sort((p, q) => String(p[0]).localeCompare(String(q[0])));
    expect(fired(budget)).toEqual([
      ['budget/general-window/forecast/0.8', '2026-11-10T12:15:00.000Z', null],
      ['budget/general-window/forecast/1', '2026-11-10T12:15:00.000Z', null],
      ['budget/general-window/spent/0.8', '2026-11-11T16:00:00.000Z', null],
      ['budget/general-window/spent/1', '2026-11-11T20:15:00.000Z', null],
    ]);
    expect(budget.find((x) => x.subject === 'budget/general-window/spent/1')?.sentence).toMatch(
      /^Budget general-window \(nodepool general, monthly\) has spent USD 39\.70 of USD 39\.50, 101 %, at or above its 100 % threshold\.$/,
    );
    const budgetIds = new Set(budget.map((x) => x.id ?? -1));
    const budgetReceived = sink.received.map((r) => r.body as AlertWebhookPayload).filter((b) => budgetIds.has(b.alertId ?? -2));
    expect(budgetReceived.map((b) => [b.status, b.subject, b.at]).sort((p, q) => p[1].localeCompare(q[1]))).toEqual([
      ['firing', 'budget/general-window/forecast/0.8', '2026-11-10T12:15:00.000Z'],
      ['firing', 'budget/general-window/forecast/1', '2026-11-10T12:15:00.000Z'],
      ['firing', 'budget/general-window/spent/0.8', '2026-11-11T16:00:00.000Z'],
      ['firing', 'budget/general-window/spent/1', '2026-11-11T20:15:00.000Z'],
    ]);
    // Packing (worked above from the simulated history): one episode, on general, pending at 21:15, firing at 21:45,
    // resolved at 22:15 though the collector restarted at 22:00, naming the edit at 19:00.
    const packing = all.filter((x) => x.rule === 'packing-drop');
    const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());
    expect(packing.map((x) => [x.subject, iso(x.pendingSinceMs), iso(x.firingSinceMs), iso(x.resolvedAtMs)])).toEqual([
      ['general', '2026-11-11T21:15:00.000Z', '2026-11-11T21:45:00.000Z', '2026-11-11T22:15:00.000Z'],
    ]);
    expect(packing[0].figures).toMatchObject({ changeAtMs: EDIT_MS, change: 'consolidationPolicy WhenEmptyOrUnderutilized -> WhenEmpty' });
    expect(Number(packing[0].figures.cpuPackingBefore)).toBeCloseTo(0.8315, 2);
    expect(Number(packing[0].figures.cpuPackingAfter)).toBeCloseTo(0.682, 2);
    expect(packing[0].sentence).toBe(
      "NodePool general's CPU packing fell from 83 % in the 30 min before consolidationPolicy WhenEmptyOrUnderutilized -> WhenEmpty at 2026-11-11T19:00Z to 68 % in the last 30 min.",
    );
    const packingReceived = sink.received.map((r) => r.body as AlertWebhookPayload).filter((b) => b.alertId === packing[0].id);
    expect(packingReceived.map((b) => [b.status, b.rule, b.subject, b.at])).toEqual([
      ['firing', 'packing-drop', 'general', '2026-11-11T21:45:00.000Z'],
      ['resolved', 'packing-drop', 'general', '2026-11-11T22:15:00.000Z'],
    ]);
    // Nothing at all was delivered twice across the restart.
    const keys = sink.received.map((r) => {
      const b = r.body as AlertWebhookPayload;
      return `${b.alertId} ${b.status}`;
    });
    expect(keys.length).toBe(new Set(keys).size);
  });
});
