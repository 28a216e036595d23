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

/**
 * week4 drives the alerts end to end: its spot shortage (sandbox/scenarios/week4.json: general, 2026-11-11T14:00Z,
 * 4 hours) makes general fall back to on-demand. Cheap: the scenario simulated to the end of day 12 only, and only
 * the 36 hours around the shortage collected (from 2026-11-10T12:00Z: the 24 h spot baseline before it, to
 * 2026-11-12T00:00Z), a snapshot every 15 minutes, through the real collectors; then the rules evaluated after each
 * snapshot as the collector does, and delivered over loopback HTTP to the demo's webhook sink.
 */
const SHORTAGE_MS = Date.parse('2026-11-11T14:00:00Z');
const HOUR = 3_600_000;
const FROM_MS = Date.parse('2026-11-10T12:00:00Z');
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

describe("week4's spot shortage raises spot-fallback", () => {
  it('fires once, an hour after the shortage began, resolves after it ends, and reaches the sink once each', async () => {
    const times = createAlertRepository(db).snapshotTimes(FROM_MS, TO_MS);
    const target = [{ url: sink.url, format: 'json' as const }];
    // The collector stops at 15:30 (after the alert fired) and starts again: the file is all that carries over, and
    // the first snapshot it evaluates is the last one evaluated before the stop.
    const restartMs = SHORTAGE_MS + 1.5 * HOUR;
    replayAlerts(db, { snapshotTimes: times.filter((t) => t <= restartMs), everyMs: 0, targets: target });
    db.close();
    db = openDb({ path: join(dir, 'ledger.db') });
    replayAlerts(db, { snapshotTimes: times.filter((t) => t >= restartMs), everyMs: 0, targets: target });
    const delivery = createAlertDelivery(db);
    await delivery.runOnce();
    await delivery.stop();

    const all = createAlertRepository(db).list({});
    // Everything that fired over these 36 hours, for the log (the shortage's alert is what is asserted).
    console.log(all.map((x) => `${new Date(x.firingSinceMs ?? 0).toISOString()} ${x.rule} ${x.subject}: ${x.sentence}`).join('\n'));

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
  });
});
