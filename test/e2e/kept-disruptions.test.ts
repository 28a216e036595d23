import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedFromSandbox } from '../../cli/seed-sandbox.js';
import { buildDisruptions, DISRUPTION_EDGE_MS } from '../../core/karpenter/disruptions.js';
import { openDb } from '../../db/open-db.js';
import { createAnalyticsEventsRepository } from '../../db/repositories/analytics-events-repository.js';
import { createDisruptionsRepository } from '../../db/repositories/disruptions-repository.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { type SeededSandbox, seededSandbox } from '../fixtures/seeded-api.js';
import { DAY_MS, HOUR_MS } from '../../core/time.js';

/**
 * Kept disruptions (migrations 0009, 0011): the collector keeps them current snapshot by snapshot, in the snapshot's
 * transaction. What it keeps must equal the disruptions built whole from the stored events and NodeClaims, on every
 * range, after more collection, and after events written late; a read-only reader never writes them. The sandbox's
 * first three days through the real collectors, with usage: the seeded-database cache's copy of the ledger the
 * browser pages and several e2e files read (seeded once for all of them), then more collected here beside a sandbox.
 */

describe('kept disruptions', () => {
  let s: SeededSandbox;
  let firstEndMs: number;

  beforeAll(async () => {
    s = await seededSandbox({ prefix: 'ledger-kept-', days: 3, usage: true });
    firstEndMs = s.endMs;
    // As node-intervals': a cold run may seed the three days with usage here, or wait for another file's seeding of
    // them (over 240 s alone at load average 12 to 13).
  }, 900_000);
  afterAll(async () => s?.close());

  /** Built whole from what is stored, for [fromMs, toMs), as a reader would have built them before. */
  const builtWhole = (fromMs: number, toMs: number) => {
    const sources = createAnalyticsEventsRepository(s.db);
    const read = { fromMs: fromMs - DISRUPTION_EDGE_MS, toMs: toMs + DISRUPTION_EDGE_MS };
    return buildDisruptions(sources.disruptionEvents(read), sources.nodeClaims(read)).filter((d) => d.atMs >= fromMs && d.atMs < toMs);
  };

  it('is up to date when the seeding ends, and equals the disruptions built whole on every range', () => {
    const repo = createDisruptionsRepository(s.db);
    expect(repo.dirtyFromMs()).toBeNull();
    const all = repo.inRange({ fromMs: s.startMs, toMs: firstEndMs });
    expect(all.length).toBeGreaterThan(20);
    expect(all.some((d) => d.replacements.length > 0)).toBe(true);
    expect(all).toEqual(builtWhole(s.startMs, firstEndMs));
    // The watch saw each disrupted NodeClaim's last state, between two snapshots: its DisruptionReason condition (v1.2+).
    const marked = s.db
      .prepare(
        "SELECT COUNT(*) FROM nodeclaims WHERE deleted_at IS NOT NULL AND disruption_reason IN ('Underutilized', 'Empty', 'Drifted') AND disruption_at IS NOT NULL",
      )
      .pluck()
      .get() as number;
    expect(marked).toBeGreaterThan(10);
    // Ranges that cut through the days at odd places.
    for (let from = s.startMs + 5 * 60_000; from < firstEndMs; from += 7 * HOUR_MS + 13 * 60_000) {
      const to = Math.min(firstEndMs, from + 5 * HOUR_MS);
      expect(repo.inRange({ fromMs: from, toMs: to }), new Date(from).toISOString()).toEqual(builtWhole(from, to));
    }
  });

  it('after more collection, still equal, and nothing left to rebuild', async () => {
    const endMs = firstEndMs + 12 * HOUR_MS;
    await seedFromSandbox({
      db: s.db,
      sandboxUrl: s.sandbox.url,
      kubeconfigPath: s.sandbox.kubeconfigPath,
      clusterName: s.sandbox.scenario.clusterName,
      region: s.sandbox.scenario.region,
      startMs: s.startMs,
      endMs,
      stepMs: 3 * s.sandbox.scenario.stepMs,
      quiet: true,
    });
    const repo = createDisruptionsRepository(s.db);
    expect(repo.dirtyFromMs()).toBeNull();
    expect(repo.inRange({ fromMs: s.startMs, toMs: endMs })).toEqual(builtWhole(s.startMs, endMs));
  }, 120_000);

  it('an event written later, however old, is a disruption as soon as it is written; others change nothing', () => {
    const repo = createDisruptionsRepository(s.db);
    const kube = createKubeRepository(s.db);
    const at = s.startMs + 3 * HOUR_MS + 17;
    const late = { type: 'Normal', kind: 'Node', namespace: null };
    kube.upsertEvents([
      { ...late, uid: 'late-1', at, reason: 'DisruptionTerminating', message: 'Disrupting Node: Empty', name: 'node-late' },
    ]);
    expect(repo.dirtyFromMs()).toBeNull();
    const found = repo.inRange({ fromMs: at, toMs: at + 1 });
    expect(found.map((d) => [d.nodeName, d.reason, d.action])).toEqual([['node-late', 'Empty', 'Delete']]);
    const before = repo.inRange({ fromMs: s.startMs, toMs: firstEndMs });
    kube.upsertEvents([{ ...late, uid: 'late-2', at, reason: 'Nominated', message: 'x', kind: 'Pod', name: 'p' }]);
    expect(repo.inRange({ fromMs: s.startMs, toMs: firstEndMs })).toEqual(before);
  });

  it('counts a NodeClaim deleted days after its DisruptionTerminating once, at the event', () => {
    const repo = createDisruptionsRepository(s.db);
    const eventAt = s.startMs + 2 * HOUR_MS + 11;
    const deletedAt = eventAt + 2 * DAY_MS;
    const ofClaim = () =>
      repo
        .inRange({ fromMs: s.startMs, toMs: deletedAt + HOUR_MS })
        .filter((d) => d.nodeClaim === 'slow-drain-x1')
        .map((d) => [d.atMs, d.source]);
    s.db.transaction(() => {
      s.db
        .prepare(
          `INSERT INTO nodeclaims (name, nodepool, node_name, instance_type, capacity_type, created_at, first_seen, last_seen, deleted_at, disruption_reason)
        VALUES ('slow-drain-x1', 'general', 'node-slow-drain', 'm5.large', 'on-demand', ?, ?, ?, ?, 'Underutilized')`,
        )
        .run(s.startMs, s.startMs, deletedAt, deletedAt);
      s.db
        .prepare(
          `INSERT INTO events (uid, at, type, reason, message, kind, name) VALUES ('slow-drain-ev', ?, 'Normal', 'DisruptionTerminating',
        'Disrupting NodeClaim: Underutilized', 'NodeClaim', 'slow-drain-x1')`,
        )
        .run(eventAt);
      repo.refresh();
    })();
    expect(ofClaim()).toEqual([[eventAt, 'event']]);
    // A rebuild that starts after the event (the deletion alone marked as changed) does not count it again.
    s.db.transaction(() => {
      s.db.prepare('UPDATE disruptions_state SET dirty_from_ms = ? WHERE id = 1').run(deletedAt);
      repo.refresh();
    })();
    expect(ofClaim()).toEqual([[eventAt, 'event']]);
    // Without the event, the deletion is the disruption, at its own time.
    s.db.transaction(() => {
      s.db.prepare("DELETE FROM events WHERE uid = 'slow-drain-ev'").run();
      repo.refresh();
    })();
    expect(ofClaim()).toEqual([[deletedAt, 'nodeclaim']]);
    s.db.prepare("DELETE FROM nodeclaims WHERE name = 'slow-drain-x1'").run();
    repo.refresh();
  });

  it('a first build on a big file goes a week at a time; a spot interruption across the week boundary stays whole', () => {
    const repo = createDisruptionsRepository(s.db);
    // The rebuild of everything starts at the oldest event and cuts weeks from there: put the pair across such a cut.
    const oldest = s.db
      .prepare('SELECT MIN(t) FROM (SELECT MIN(at) AS t FROM events UNION ALL SELECT MIN(deleted_at) FROM nodeclaims)')
      .pluck()
      .get() as number;
    const cut = oldest + 7 * DAY_MS;
    const ins = s.db.prepare('INSERT INTO events (uid, at, type, reason, message, kind, name) VALUES (?, ?, ?, ?, ?, ?, ?)');
    ins.run(
      'edge-spot-1',
      cut - 3 * 60_000,
      'Warning',
      'SpotInterrupted',
      'Spot interruption warning was triggered',
      'Node',
      'node-edge-spot',
    );
    ins.run(
      'edge-spot-2',
      cut + 60_000,
      'Warning',
      'TerminatingOnInterruption',
      'Interruption triggered termination for the Node',
      'Node',
      'node-edge-spot',
    );
    s.db.prepare('UPDATE disruptions_state SET dirty_from_ms = 0 WHERE id = 1').run();
    expect(repo.refresh()?.rebuiltFromMs).toBe(oldest);
    expect(
      repo
        .inRange({ fromMs: oldest, toMs: cut + DAY_MS })
        .filter((d) => d.nodeName === 'node-edge-spot')
        .map((d) => [d.atMs, d.reason, d.action, d.spotInterrupted]),
    ).toEqual([[cut + 60_000, 'Interrupted', 'Delete', true]]);
    s.db.prepare("DELETE FROM events WHERE uid LIKE 'edge-spot-%'").run();
    repo.refresh();
  });

  it('a read-only reader reads what is kept and never writes, even when a change is pending', () => {
    s.db.prepare('UPDATE disruptions_state SET dirty_from_ms = ? WHERE id = 1').run(s.startMs);
    const before = s.db.prepare('SELECT COUNT(*) FROM disruptions').pluck().get();
    const ro = openDb({ path: s.db.name, readonly: true });
    try {
      const repo = createDisruptionsRepository(ro);
      expect(repo.inRange({ fromMs: s.startMs, toMs: s.startMs + DAY_MS }).length).toBeGreaterThan(0);
      expect(repo.dirtyFromMs()).toBe(s.startMs);
    } finally {
      ro.close();
    }
    expect(s.db.prepare('SELECT COUNT(*) FROM disruptions').pluck().get()).toBe(before);
    createDisruptionsRepository(s.db).refresh();
  });
});
