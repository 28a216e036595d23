import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../db/open-db.js';
import { createAlertRepository } from '../../db/repositories/alert-repository.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { buildApp } from '../../server/app.js';
import type { AlertsResponse, AlertSettingsResponse } from '../../server/schemas/alerts.js';
import { evaluateAlerts } from '../../server/services/alert-evaluation.js';
import { snapshotWrite, type NodeSpec } from '../fixtures/snapshots.js';

/**
 * GET /api/alerts, /api/alerts/settings and the alert gauges of /metrics over a file where the collector's
 * evaluation fired two alerts: idle-share on general (one 4-vCPU node at 0.40/h with 1 vCPU requested: 75 % idle
 * by cpu and memory alike, over 50 %, held 2 h from 00:00, fired at 02:00) and collector-stale (the last snapshot at
 * 02:00, evaluated at 02:20: four 5-minute intervals missed), the stale one resolved again at 02:25.
 */
const T0 = Date.parse('2026-11-10T00:00:00Z');
const MIN = 60_000;
const idleNode: NodeSpec = {
  name: 'n1',
  nodePool: 'general',
  capacityType: 'on-demand',
  cpuMillicores: 4000,
  memoryBytes: 16 * 2 ** 30,
  requestedCpuMillicores: 1000,
  requestedMemoryBytes: 4 * 2 ** 30,
  usdPerHour: 0.4,
};

let dir: string;
let db: Db;
let app: FastifyInstance;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'alerts-api-'));
  db = openDb({ path: join(dir, 'ledger.db') });
  const target = [{ url: 'https://hooks.slack.com/services/T000/B000/secret', format: 'slack' as const }];
  for (let t = T0; t <= T0 + 120 * MIN; t += 5 * MIN) {
    createKubeRepository(db).writeSnapshot(snapshotWrite(t, [idleNode]));
    evaluateAlerts(db, { atMs: t, targets: target });
  }
  evaluateAlerts(db, { atMs: T0 + 140 * MIN, targets: target }); // no snapshot since 02:00
  createKubeRepository(db).writeSnapshot(snapshotWrite(T0 + 145 * MIN, [idleNode]));
  evaluateAlerts(db, { atMs: T0 + 145 * MIN, targets: target });
  app = buildApp({ db });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the alerts API', () => {
  it('lists what fired, newest first, with its sentence, link and deliveries (the webhook by origin only)', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/alerts' });
    expect(res.statusCode).toBe(200);
    const body = res.json<AlertsResponse>();
    expect(body.open).toBe(1);
    expect(body.alerts.map((a) => [a.rule, a.subject, a.state, a.firingSince, a.resolvedAt])).toEqual([
      ['collector-stale', 'collector', 'resolved', '2026-11-10T02:20:00.000Z', '2026-11-10T02:25:00.000Z'],
      ['idle-share', 'general', 'firing', '2026-11-10T02:00:00.000Z', null],
    ]);
    const idle = body.alerts[1];
    expect(idle.sentence).toBe(
      'NodePool general spends USD 0.30 of its USD 0.40 per hour, 75 %, on capacity no pod requests (above 50 %).',
    );
    expect(idle.link).toEqual({
      href: '/nodepools?from=2026-11-09&to=2026-11-10&nodepool=general',
      label: 'NodePool general, packing and idle',
    });
    expect(idle.deliveries).toEqual([
      {
        transition: 'firing',
        target: 'https://hooks.slack.com',
        format: 'slack',
        status: 'pending',
        attempts: 0,
        lastHttpStatus: null,
        lastError: null,
      },
    ]);
    const open = (await app.inject({ method: 'GET', url: '/api/alerts?state=open' })).json<AlertsResponse>();
    expect(open.alerts.map((a) => a.rule)).toEqual(['idle-share']);
    const bad = await app.inject({ method: 'GET', url: '/api/alerts?rule=nope' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json<{ message: string }>().message).toContain('rule');
  });

  it('settings: every rule with its threshold and hold time; a stored override applies and a bad field is named', async () => {
    createAlertRepository(db).putSettingsJson(JSON.stringify({ rules: { 'idle-share': { threshold: 0.6, holdMs: -1 } } }));
    const s = (await app.inject({ method: 'GET', url: '/api/alerts/settings' })).json<AlertSettingsResponse>();
    expect(s.rules.find((r) => r.rule === 'idle-share')).toMatchObject({ threshold: 0.6, holdMinutes: 120, enabled: true });
    expect(s.rules.find((r) => r.rule === 'spot-fallback')).toMatchObject({ threshold: 0.3, holdMinutes: 60 });
    expect(s.problems).toEqual(['rules.idle-share.holdMs: -1 is not a number >= 0 (kept 7200000)']);
    createAlertRepository(db).putSettingsJson('{}');
  });

  it('/metrics carries the alert state: 1 per firing alert, a count per rule', async () => {
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(text).toContain('nodepool_ledger_alert_firing{rule="idle-share",subject="general"} 1');
    expect(text).not.toContain('nodepool_ledger_alert_firing{rule="collector-stale"');
    expect(text).toContain('nodepool_ledger_alerts_firing{rule="idle-share"} 1');
    expect(text).toContain('nodepool_ledger_alerts_firing{rule="collector-stale"} 0');
  });
});
