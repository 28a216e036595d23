import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../db/open-db.js';
import { createAlertRepository } from '../../db/repositories/alert-repository.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { createAlertDelivery } from '../../server/services/alert-delivery.js';
import { evaluateAlerts } from '../../server/services/alert-evaluation.js';
import { createAlertStage } from '../../server/services/alert-stage.js';
import { snapshotWrite } from '../fixtures/snapshots.js';

/**
 * Alert delivery through real HTTP on loopback: a receiver that answers what each test tells it (or never answers),
 * the deliveries queued by a real evaluation over a real SQLite file (collector-stale: a snapshot at 00:00 and an
 * evaluation at 00:20 with 5-minute intervals, three missed).
 */

const T0 = Date.parse('2026-11-10T00:00:00Z');
const MIN = 60_000;

interface Receiver {
  url: string;
  bodies: unknown[];
  server: Server;
}

async function receiver(answer: (n: number, req: IncomingMessage, res: ServerResponse) => void): Promise<Receiver> {
  const bodies: unknown[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      bodies.push(JSON.parse(text));
      answer(bodies.length, req, res);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies, server };
}

const close = (s: Server): Promise<void> =>
  new Promise((ok) => {
    s.closeAllConnections();
    s.close(() => ok());
  });

let dir: string;
let db: Db;
const servers: Server[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'alert-delivery-'));
  db = openDb({ path: join(dir, 'ledger.db') });
  createKubeRepository(db).writeSnapshot(
    snapshotWrite(T0, [
      {
        name: 'n1',
        nodePool: 'general',
        capacityType: 'on-demand',
        cpuMillicores: 4000,
        memoryBytes: 16e9,
        requestedCpuMillicores: 3000,
        requestedMemoryBytes: 8e9,
        usdPerHour: 0.192,
      },
    ]),
  );
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map(close));
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('alert delivery over loopback HTTP', () => {
  it('retries a 503 with backoff (t, t+100 ms, t+300 ms) until 200, each attempt recorded', async () => {
    const r = await receiver((n, _req, res) => res.writeHead(n < 3 ? 503 : 200).end());
    servers.push(r.server);
    let clock = T0 + 20 * MIN;
    const fired = evaluateAlerts(db, { atMs: clock, targets: [{ url: r.url, format: 'json' }] });
    expect(fired.transitions.map((t) => `${t.kind} ${t.state.rule}`)).toEqual(['firing collector-stale']);

    const delivery = createAlertDelivery(db, { backoffMs: 100, maxAttempts: 5, now: () => clock });
    const repo = createAlertRepository(db);
    await delivery.runOnce();
    clock += 99; // not due yet: the backoff holds it
    expect((await delivery.runOnce()).attempted).toBe(0);
    clock += 1;
    await delivery.runOnce();
    clock += 200;
    await delivery.runOnce();
    await delivery.stop();

    const [d] = repo.deliveries();
    expect(d).toMatchObject({ status: 'delivered', attempts: 3, format: 'json' });
    expect(repo.attempts(d.id).map((a) => [a.atMs - (T0 + 20 * MIN), a.httpStatus, a.error])).toEqual([
      [0, 503, 'HTTP 503'],
      [100, 503, 'HTTP 503'],
      [300, 200, null],
    ]);
    expect(r.bodies).toHaveLength(3);
    expect(r.bodies[2]).toMatchObject({
      version: 1,
      status: 'firing',
      rule: 'collector-stale',
      subject: 'collector',
      sentence: 'No snapshot since 2026-11-10T00:00Z, 20 min ago: 4 snapshot intervals of 5 min missed (the alert is at 3).',
    });
  });

  it('gives up after its bound of 3 attempts on a 500, and says so; no attempt after that', async () => {
    const r = await receiver((_n, _req, res) => res.writeHead(500).end());
    servers.push(r.server);
    let clock = T0 + 20 * MIN;
    evaluateAlerts(db, { atMs: clock, targets: [{ url: r.url, format: 'slack' }] });
    const log: string[] = [];
    const delivery = createAlertDelivery(db, { backoffMs: 10, maxAttempts: 3, now: () => clock, log: (l) => log.push(l) });
    for (let i = 0; i < 6; i++) {
      await delivery.runOnce();
      clock += 1000;
    }
    await delivery.stop();
    const repo = createAlertRepository(db);
    const [d] = repo.deliveries();
    expect(d).toMatchObject({ status: 'failed', attempts: 3 });
    expect(repo.attempts(d.id).map((a) => a.httpStatus)).toEqual([500, 500, 500]);
    expect(r.bodies).toHaveLength(3);
    expect(log).toEqual([`! alert delivery to ${r.url} given up after 3 attempts: HTTP 500`]);
    // The Slack payload: text (the notification) and blocks.
    expect(r.bodies[0]).toMatchObject({
      text: expect.stringMatching(/^\[FIRING\] No snapshot since/) as unknown,
      blocks: expect.any(Array) as unknown,
    });
  });

  it('a receiver that never answers does not hold the next snapshot: evaluation returns at once, the attempt times out', async () => {
    const hung: ServerResponse[] = [];
    const r = await receiver((_n, _req, res) => hung.push(res)); // never answers
    servers.push(r.server);
    const log: string[] = [];
    const stage = createAlertStage(db, {
      targets: [{ url: r.url, format: 'json' }],
      timeoutMs: 800,
      backoffMs: 60_000,
      log: (l) => log.push(l),
    });

    const t1 = performance.now();
    stage.evaluateAlerts(T0 + 20 * MIN); // fires collector-stale, kicks the delivery in the background
    const firstMs = performance.now() - t1;
    await new Promise((ok) => setTimeout(ok, 100));
    expect(r.bodies).toHaveLength(1); // the request is at the receiver, unanswered

    // The next snapshot is written and evaluated while that request hangs.
    const t2 = performance.now();
    createKubeRepository(db).writeSnapshot(
      snapshotWrite(T0 + 25 * MIN, [
        {
          name: 'n1',
          nodePool: 'general',
          capacityType: 'on-demand',
          cpuMillicores: 4000,
          memoryBytes: 16e9,
          requestedCpuMillicores: 3000,
          requestedMemoryBytes: 8e9,
          usdPerHour: 0.192,
        },
      ]),
    );
    stage.evaluateAlerts(T0 + 25 * MIN); // resolves it
    const secondMs = performance.now() - t2;
    expect(firstMs).toBeLessThan(300);
    expect(secondMs).toBeLessThan(300);
    expect(log.filter((l) => l.startsWith('alert '))).toEqual([
      'alert firing: No snapshot since 2026-11-10T00:00Z, 20 min ago: 4 snapshot intervals of 5 min missed (the alert is at 3).',
      'alert resolved: No snapshot since 2026-11-10T00:00Z, 20 min ago: 4 snapshot intervals of 5 min missed (the alert is at 3).',
    ]);
    const repo = createAlertRepository(db);
    expect(repo.deliveries().map((d) => d.transition)).toEqual(['firing', 'resolved']);

    await stage.stop(); // the round in flight ends at its timeout
    const [first] = repo.deliveries();
    expect(repo.attempts(first.id)).toMatchObject([{ httpStatus: null, error: 'no answer in 800 ms' }]);
    expect(first).toMatchObject({ status: 'pending', attempts: 1 }); // retried later (after its backoff)
    for (const res of hung) res.destroy();
  });
});
