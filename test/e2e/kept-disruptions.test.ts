import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedFromSandbox } from '../../cli/seed-sandbox.js';
import { openDb } from '../../db/open-db.js';
import { createAnalyticsEventsRepository } from '../../db/repositories/analytics-events-repository.js';
import { createDisruptionsRepository } from '../../db/repositories/disruptions-repository.js';
import { builtDisruptions, keptDisruptions, REBUILD_LOOKBACK_MS } from '../../server/services/disruption-source.js';
import { type SeededSandbox, seedSandboxDb } from '../fixtures/seeded-api.js';
import { DAY_MS, HOUR_MS } from '../../core/time.js';

/**
 * Kept disruptions (migration 0009) against the same disruptions built from the raw events for the range asked:
 * equal on every range, after more collection (the triggers mark what changed), and built for the range when the
 * database cannot be written. The sandbox's first days through the real collectors.
 */

describe('kept disruptions', () => {
  let s: SeededSandbox;
  let firstEndMs: number;

  beforeAll(async () => {
    s = await seedSandboxDb({ prefix: 'ledger-kept-', days: 3, stepFactor: 3 });
    firstEndMs = s.endMs;
  }, 120_000);
  afterAll(async () => s?.close());

  const sources = () => {
    const events = createAnalyticsEventsRepository(s.db);
    const repo = createDisruptionsRepository(s.db);
    const refreshes: { rebuiltFromMs: number; rows: number }[] = [];
    const kept = keptDisruptions(events, repo, {
      onError: (err) => {
        throw err;
      },
      onRefresh: (r) => refreshes.push(r),
    });
    return { repo, kept, built: builtDisruptions(events), refreshes };
  };

  it('equals the disruptions built for each range asked, and is up to date after the first read', () => {
    const { repo, kept, built } = sources();
    expect(repo.dirtyFromMs()).not.toBeNull();
    const all = kept.inRange(s.startMs, firstEndMs);
    expect(repo.dirtyFromMs()).toBeNull();
    expect(all.length).toBeGreaterThan(20);
    expect(all.some((d) => d.replacements.length > 0)).toBe(true);
    expect(all).toEqual(built.inRange(s.startMs, firstEndMs));
    // Timeline markers from the kept rows equal those of the built ones: all of them, thinned per hour, for one NodePool.
    for (const q of [
      { bucketMs: HOUR_MS, max: 10_000 },
      { bucketMs: HOUR_MS, max: 10 },
      { bucketMs: 3 * HOUR_MS, max: 5, nodePool: 'general' },
    ]) {
      const range = { fromMs: s.startMs, toMs: firstEndMs, ...q };
      const got = kept.markers(range);
      expect(got, JSON.stringify(q)).toEqual(built.markers(range));
      expect(got.reduce((n, m) => n + m.count, 0)).toBe(
        all.filter((d) => !d.blocked && (q.nodePool === undefined || d.nodePool === q.nodePool)).length,
      );
    }
    expect(kept.markers({ fromMs: s.startMs, toMs: firstEndMs, bucketMs: HOUR_MS, max: 10 }).some((m) => m.count > 1)).toBe(true);
    // Pages from SQL equal the in-memory filter, count and slice.
    const pages = [
      { kind: 'disruption' as const, offset: 0, limit: 5 },
      { kind: 'disruption' as const, offset: 7, limit: 10, nodePool: 'general' },
      { kind: 'all' as const, offset: 0, limit: null },
      { kind: 'blocked' as const, offset: 0, limit: 3 },
      { kind: 'disruption' as const, offset: 2, limit: 4, reason: 'Underutilized' },
      { kind: 'disruption' as const, offset: 10_000, limit: 5 },
    ];
    for (const q of pages) {
      const range = { fromMs: s.startMs + 3 * HOUR_MS, toMs: firstEndMs, ...q };
      const got = kept.page(range);
      expect(got, JSON.stringify(q)).toEqual(built.page(range));
      if (q.limit === 5 && q.offset === 0) expect(got.rows).toHaveLength(5);
    }
    expect(kept.page({ fromMs: s.startMs, toMs: firstEndMs, kind: 'all', offset: 0, limit: null }).total).toBe(all.length);
    // Ranges that cut through the days at odd places.
    for (let from = s.startMs + 5 * 60_000; from < firstEndMs; from += 7 * HOUR_MS + 13 * 60_000) {
      const to = Math.min(firstEndMs, from + 5 * HOUR_MS);
      expect(kept.inRange(from, to), `${new Date(from).toISOString()}`).toEqual(built.inRange(from, to));
    }
  });

  it('rebuilds only from a day before what more collection changed, and still equals the built ones', async () => {
    const { repo, kept, built, refreshes } = sources();
    kept.inRange(s.startMs, firstEndMs);
    expect(repo.dirtyFromMs()).toBeNull();
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
    const dirty = repo.dirtyFromMs();
    expect(dirty).not.toBeNull();
    // The new snapshots' events and deletions, not the old days, are what changed.
    expect(dirty as number).toBeGreaterThan(firstEndMs - 2 * HOUR_MS);
    const got = kept.inRange(s.startMs, endMs);
    expect(refreshes).toHaveLength(1);
    // From the UTC day that holds (earliest change − REBUILD_LOOKBACK_MS), not from the start.
    expect(refreshes[0].rebuiltFromMs).toBe(Math.floor(((dirty as number) - REBUILD_LOOKBACK_MS) / DAY_MS) * DAY_MS);
    expect(refreshes[0].rebuiltFromMs).toBeGreaterThan(s.startMs);
    expect(got).toEqual(built.inRange(s.startMs, endMs));
  }, 120_000);

  it('marks the time of an event written later, however old', () => {
    const { repo, kept } = sources();
    kept.inRange(s.startMs, s.startMs + HOUR_MS);
    expect(repo.dirtyFromMs()).toBeNull();
    const at = s.startMs + 3 * HOUR_MS + 17;
    s.db
      .prepare(
        `INSERT INTO events (uid, at, type, reason, message, kind, name) VALUES ('late-1', ?, 'Normal', 'DisruptionTerminating',
      'Disrupting Node: Empty/Delete', 'Node', 'node-late')`,
      )
      .run(at);
    expect(repo.dirtyFromMs()).toBe(at);
    const found = kept.inRange(at, at + 1);
    expect(found.map((d) => [d.nodeName, d.reason, d.action])).toEqual([['node-late', 'Empty', 'Delete']]);
    // An event that is not about disruption changes nothing.
    s.db
      .prepare(
        `INSERT INTO events (uid, at, type, reason, message, kind, name) VALUES ('late-2', ?, 'Normal', 'Nominated', 'x', 'Pod', 'p')`,
      )
      .run(at);
    expect(repo.dirtyFromMs()).toBeNull();
  });

  it('counts a NodeClaim deleted days after its DisruptionTerminating once, at the event, in any range and rebuild', () => {
    const { repo, kept, built } = sources();
    kept.inRange(s.startMs, firstEndMs);
    const eventAt = s.startMs + 2 * HOUR_MS + 11;
    const deletedAt = eventAt + 2 * DAY_MS;
    s.db
      .prepare(
        `INSERT INTO nodeclaims (name, nodepool, node_name, instance_type, capacity_type, created_at, first_seen, last_seen, deleted_at, disruption_reason)
      VALUES ('slow-drain-x1', 'general', 'node-slow-drain', 'm5.large', 'on-demand', ?, ?, ?, ?, 'Underutilized')`,
      )
      .run(s.startMs, s.startMs, deletedAt, deletedAt);
    s.db
      .prepare(
        `INSERT INTO events (uid, at, type, reason, message, kind, name) VALUES ('slow-drain-ev', ?, 'Normal', 'DisruptionTerminating',
      'Disrupting NodeClaim: Underutilized/Delete', 'NodeClaim', 'slow-drain-x1')`,
      )
      .run(eventAt);
    // The rebuild starts a day before the deletion, which the event is long before.
    expect(repo.dirtyFromMs()).toBe(eventAt);
    const ofClaim = (ds: readonly { nodeClaim: string | null; atMs: number; source: string }[]) =>
      ds.filter((d) => d.nodeClaim === 'slow-drain-x1').map((d) => [d.atMs, d.source]);
    const wholeRange = [s.startMs, deletedAt + HOUR_MS] as const;
    expect(ofClaim(kept.inRange(...wholeRange))).toEqual([[eventAt, 'event']]);
    expect(ofClaim(built.inRange(...wholeRange))).toEqual([[eventAt, 'event']]);
    // A range holding the deletion and not the event shows nothing of it (before: a second disruption "without events").
    expect(ofClaim(built.inRange(deletedAt - HOUR_MS, deletedAt + HOUR_MS))).toEqual([]);
    // Nor does a rebuild that starts after the event: mark the deletion alone as changed.
    s.db.prepare('UPDATE disruptions_state SET dirty_from_ms = ? WHERE id = 1').run(deletedAt);
    expect(ofClaim(kept.inRange(...wholeRange))).toEqual([[eventAt, 'event']]);
    // Without the event, the deletion is the disruption, at its own time.
    s.db.prepare("DELETE FROM events WHERE uid = 'slow-drain-ev'").run();
    s.db.prepare('UPDATE disruptions_state SET dirty_from_ms = ? WHERE id = 1').run(eventAt);
    expect(ofClaim(kept.inRange(...wholeRange))).toEqual([[deletedAt, 'nodeclaim']]);
    s.db.prepare("DELETE FROM nodeclaims WHERE name = 'slow-drain-x1'").run();
  });

  it('pairs a spot interruption with the termination minutes later across a range edge, on both sides of it', () => {
    const { kept, built } = sources();
    kept.inRange(s.startMs, firstEndMs);
    // 4 minutes apart (Karpenter's 2-minute spot notice, then the drain), a range edge between them.
    const edge = s.startMs + 6 * HOUR_MS;
    const warnedAt = edge - 3 * 60_000;
    const goneAt = edge + 60_000;
    const ins = s.db.prepare('INSERT INTO events (uid, at, type, reason, message, kind, name) VALUES (?, ?, ?, ?, ?, ?, ?)');
    ins.run('edge-spot-1', warnedAt, 'Warning', 'SpotInterrupted', 'Spot interruption warning was triggered', 'Node', 'node-edge-spot');
    ins.run('edge-spot-2', goneAt, 'Normal', 'DisruptionTerminating', 'Disrupting Node: Empty/Delete', 'Node', 'node-edge-spot');
    const ofNode = (ds: readonly { nodeName: string | null; atMs: number; reason: string; spotInterrupted: boolean }[]) =>
      ds.filter((d) => d.nodeName === 'node-edge-spot').map((d) => [d.atMs, d.reason, d.spotInterrupted]);
    const one = [[goneAt, 'Empty', true]];
    expect(ofNode(built.inRange(s.startMs, firstEndMs))).toEqual(one);
    expect(ofNode([...built.inRange(s.startMs, edge), ...built.inRange(edge, firstEndMs)])).toEqual(one);
    expect(ofNode(kept.inRange(s.startMs, firstEndMs))).toEqual(one);
  });

  it('builds for the range asked when the database is read-only', () => {
    s.db
      .prepare(
        `INSERT INTO events (uid, at, type, reason, message, kind, name) VALUES ('late-3', ?, 'Normal', 'DisruptionTerminating',
      'Disrupting Node: Drifted/Delete', 'Node', 'node-late-3')`,
      )
      .run(s.startMs + 5 * HOUR_MS);
    const ro = openDb({ path: s.db.name, readonly: true });
    try {
      const errors: unknown[] = [];
      const events = createAnalyticsEventsRepository(ro);
      const kept = keptDisruptions(events, createDisruptionsRepository(ro), { onError: (err) => errors.push(err) });
      const got = kept.inRange(s.startMs, s.startMs + DAY_MS);
      expect(errors).toHaveLength(1);
      expect(String(errors[0])).toMatch(/readonly|read-only/i);
      expect(got).toEqual(builtDisruptions(events).inRange(s.startMs, s.startMs + DAY_MS));
      expect(got.some((d) => d.nodeName === 'node-late-3')).toBe(true);
    } finally {
      ro.close();
    }
  });
});
