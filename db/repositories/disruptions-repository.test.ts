import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DISRUPTION_EVENT_REASONS } from '../../core/karpenter/events.js';
import type { EventRecord, KubeSnapshot, NodeClaimRecord, NodeRecord } from '../../core/model.js';
import { buildSnapshotRows } from '../../core/rollup.js';
import { loadMigrations, migrate, openDb, SCHEMA_VERSION, SchemaVersionError } from '../open-db.js';
import { createDisruptionsRepository } from './disruptions-repository.js';
import { createKubeRepository } from './kube-repository.js';
import { HOUR_MS } from '../../core/time.js';

const T = Date.parse('2026-11-02T10:00:00Z');
const MIN = 60_000;
const tmp = () => join(mkdtempSync(join(tmpdir(), 'ledger-disruptions-')), 'ledger.db');

const node = (name: string, claim: string): NodeRecord => ({
  name,
  nodeClaim: claim,
  nodePool: 'general',
  instanceType: 'm5.large',
  capacityType: 'on-demand',
  zone: 'us-east-1a',
  instanceId: null,
  createdAt: T - HOUR_MS,
  allocatable: { cpuMillicores: 1930, memoryBytes: 7 * 2 ** 30, pods: 29, gpu: 0 },
  labels: {},
});
const claim = (n: NodeRecord): NodeClaimRecord => ({
  name: n.nodeClaim ?? '',
  nodePool: n.nodePool,
  nodeName: n.name,
  instanceType: n.instanceType,
  capacityType: n.capacityType,
  zone: n.zone,
  instanceId: null,
  createdAt: n.createdAt,
  disruptionReason: null,
  conditions: [],
});
const terminating = (uid: string, at: number, name: string, kind = 'Node'): EventRecord => ({
  uid,
  at,
  type: 'Normal',
  reason: 'DisruptionTerminating',
  message: `Disrupting ${kind}: Underutilized`,
  kind,
  name,
  namespace: null,
});
const snapshot = (takenAt: number, nodes: NodeRecord[], events: EventRecord[]): KubeSnapshot => ({
  takenAt,
  nodePools: [],
  namespaces: [],
  nodes,
  nodeClaims: nodes.map(claim),
  pods: [],
  events,
});
const write = (db: ReturnType<typeof openDb>, s: KubeSnapshot) =>
  createKubeRepository(db).writeSnapshot({
    snapshot: s,
    ...buildSnapshotRows(s, () => ({ pricePerHour: 0.1, currency: 'USD', source: 'pricing-api' })),
    runId: null,
  });

describe('migration 0011', () => {
  it('marks disruptions stale on exactly the event reasons the Karpenter model reads', () => {
    const sql = readFileSync(
      join(dirname(fileURLToPath(import.meta.url)), '..', 'migrations', '0011-disruptions-by-collector.sql'),
      'utf8',
    );
    const list = /AFTER INSERT ON events\s+WHEN NEW\.reason IN \(([^)]*)\)/.exec(sql)?.[1] ?? '';
    const reasons = [...list.matchAll(/'([^']+)'/g)].map((m) => m[1]);
    expect(reasons.sort()).toEqual([...DISRUPTION_EVENT_REASONS].sort());
  });

  it('a file migrated from schema 9 has its disruptions built once by the writer that opens it, with the new model', () => {
    const path = tmp();
    const old = new Database(path);
    migrate(
      old,
      loadMigrations().filter((m) => m.version <= 9),
    );
    // What a v1.6+ cluster left: a termination without "/Replace" and the launch of its replacement.
    const ins = old.prepare('INSERT INTO events (uid, at, type, reason, message, kind, name) VALUES (?, ?, ?, ?, ?, ?, ?)');
    ins.run('e1', T - MIN, 'Normal', 'DisruptionLaunching', 'Launching NodeClaim: Underutilized', 'NodeClaim', 'general-new');
    ins.run('e2', T, 'Normal', 'DisruptionTerminating', 'Disrupting NodeClaim: Underutilized', 'NodeClaim', 'general-old');
    old
      .prepare(
        `INSERT INTO nodeclaims (name, nodepool, created_at, first_seen, last_seen) VALUES ('general-old', 'general', 0, 0, 0), ('general-new', 'general', ?, ?, ?)`,
      )
      .run(T - MIN, T, T);
    old.close();

    // serve never writes: it refuses the old schema and says what to run.
    expect(() => openDb({ path, readonly: true })).toThrow(SchemaVersionError);
    expect(() => openDb({ path, readonly: true })).toThrow(
      `was written by an older nodepool-ledger (schema 9; this one reads ${SCHEMA_VERSION}) and serve never writes: run 'nodepool-ledger collect' (or 'demo') on it once`,
    );
    const db = openDb({ path });
    const repo = createDisruptionsRepository(db);
    expect(repo.dirtyFromMs()).toBeNull();
    expect(repo.inRange({ fromMs: 0, toMs: T + 1 }).map((d) => [d.nodeClaim, d.reason, d.action, d.replacements])).toEqual([
      ['general-old', 'Underutilized', 'Replace', ['general-new']],
    ]);
    db.close();
    // Now current: a read-only open reads it.
    const ro = openDb({ path, readonly: true });
    expect(createDisruptionsRepository(ro).inRange({ fromMs: 0, toMs: T + 1 })).toHaveLength(1);
    ro.close();
  });
});

describe('a snapshot and its disruptions', () => {
  it('land together or not at all: a fault while writing the disruptions leaves neither', () => {
    const db = openDb({ path: tmp() });
    const a = node('node-a', 'general-a');
    const b = node('node-b', 'general-b');
    write(db, snapshot(T - 5 * MIN, [a, b], []));
    const count = (sql: string) => db.prepare(sql).pluck().get() as number;
    // The disk fills, or anything else fails, just as the disruption of general-a is written.
    db.exec(`CREATE TEMP TRIGGER fail_disruption BEFORE INSERT ON disruptions WHEN NEW.nodeclaim = 'general-a'
      BEGIN SELECT RAISE(ABORT, 'injected fault'); END`);
    expect(() =>
      write(db, snapshot(T + 5 * MIN, [b], [terminating('t1', T, 'node-a'), terminating('t2', T, 'general-a', 'NodeClaim')])),
    ).toThrow('injected fault');
    expect([
      count('SELECT COUNT(*) FROM snapshots'),
      count('SELECT COUNT(*) FROM events'),
      count('SELECT COUNT(*) FROM disruptions'),
    ]).toEqual([1, 0, 0]);
    expect(count('SELECT COUNT(*) FROM disruption_quarters')).toBe(0);
    expect(count('SELECT COUNT(*) FROM nodeclaims WHERE deleted_at IS NOT NULL')).toBe(0);
    expect(createDisruptionsRepository(db).dirtyFromMs()).toBeNull();

    db.exec('DROP TRIGGER fail_disruption');
    write(db, snapshot(T + 5 * MIN, [b], [terminating('t1', T, 'node-a'), terminating('t2', T, 'general-a', 'NodeClaim')]));
    expect([
      count('SELECT COUNT(*) FROM snapshots'),
      count('SELECT COUNT(*) FROM events'),
      count('SELECT COUNT(*) FROM disruptions'),
    ]).toEqual([2, 2, 1]);
    expect(createDisruptionsRepository(db).inRange({ fromMs: T, toMs: T + 1 })[0]).toMatchObject({
      nodeClaim: 'general-a',
      reason: 'Underutilized',
      action: 'Delete',
      nodeDeletedAtMs: T + 5 * MIN,
    });
    // Counted in its quarter day (migration 0033) by the same rebuild: T is 10:00, its quarter 06:00.
    expect(
      db.prepare('SELECT bucket_ms, cluster_id, nodepool, reason, disruptions, first_at, last_at FROM disruption_quarters').raw().all(),
    ).toEqual([[T - 4 * HOUR_MS, 1, 'general', 'Underutilized', 1, T, T]]);
    db.close();
  });

  it('a snapshot without anything about disruption rebuilds nothing', () => {
    const db = openDb({ path: tmp() });
    const a = node('node-a', 'general-a');
    write(db, snapshot(T - 5 * MIN, [a], []));
    db.exec(`CREATE TEMP TRIGGER no_rebuild BEFORE DELETE ON disruptions BEGIN SELECT RAISE(ABORT, 'rebuilt'); END`);
    expect(() => write(db, snapshot(T, [a], []))).not.toThrow();
    db.close();
  });
});
