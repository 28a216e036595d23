import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate, openDb } from '../open-db.js';
import { createPodWriter, OPEN_LAST_SEEN, type PodSighting } from './pod-rows.js';

/*
 * Migration 0027 (narrow pod rows): a file written by the schema before it (0026) reads every pod back through the
 * pods view, value for value and type for type, NULLs included; the old INSERT, UPDATE and DELETE still work on the
 * view; and the collector's writer keeps what the old upsert kept (first-seen fields as first seen, last-seen ones as
 * last seen), compared with the old table's own ON CONFLICT clause run on the same sightings.
 */

const dir = mkdtempSync(join(tmpdir(), 'ledger-pod-rows-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const COLUMNS = [
  'uid',
  'namespace',
  'name',
  'node_name',
  'owner_kind',
  'owner_name',
  'team',
  'req_cpu_m',
  'req_memory_b',
  'req_gpu',
  'do_not_disrupt',
  'created_at',
  'first_seen',
  'last_seen',
  'labels_json',
  'phase',
  'finished_at',
  'scheduled_at',
  'started_at',
  'do_not_disrupt_value',
  'deletion_cost',
  'volumes_json',
  'spec_hash',
] as const;
const readPods = (db: Database.Database) =>
  db.prepare(`SELECT ${COLUMNS.map((c) => `${c}, typeof(${c}) AS ${c}_type`).join(', ')} FROM pods ORDER BY uid`).all();

const T = Date.parse('2026-03-02T10:00:00Z');
/** Pods as the collector and older writers left them: every shape a column can take. */
const OLD_PODS: unknown[][] = [
  // A Deployment's two replicas: one pod_dims row; names "<ReplicaSet>-<suffix>"; canonical UUIDs.
  [
    '0f8fad5b-d9cb-469f-a165-70867728950e',
    'shop',
    'web-7d9f8b6c5-x7k2p',
    'ip-10-0-0-1.ec2.internal',
    'ReplicaSet',
    'web-7d9f8b6c5',
    'team-a',
    250,
    268435456,
    0,
    0,
    T - 60_000,
    T,
    T + 300_000,
    '{"app":"web"}',
    'Running',
    null,
    T,
    T - 30_000,
    null,
    null,
    null,
    'h1',
  ],
  [
    '7c9e6679-7425-40de-944b-e07fc1f90ae7',
    'shop',
    'web-7d9f8b6c5-q9zzt',
    'ip-10-0-0-2.ec2.internal',
    'ReplicaSet',
    'web-7d9f8b6c5',
    'team-a',
    250,
    268435456,
    0,
    0,
    T - 50_000,
    T,
    T + 300_000,
    '{"app":"web"}',
    'Running',
    null,
    T,
    null,
    null,
    null,
    null,
    'h1',
  ],
  // Pending, no owner, no team, an uppercase uid (kept as text), a GPU, do-not-disrupt, a deletion cost, volumes.
  [
    'ABCDEF00-1111-2222-3333-444455556666',
    'batch',
    'trainer',
    null,
    null,
    null,
    null,
    4000,
    17179869184,
    1,
    1,
    T,
    T,
    T,
    '{}',
    'Pending',
    null,
    null,
    null,
    '30m',
    '-5',
    '[{"claim":"data-0"}]',
    null,
  ],
  // A uid that is no UUID, a name that does not start with its owner's, a finished Job pod bound late.
  [
    'p1',
    'batch',
    'report-28391',
    'ip-10-0-0-1.ec2.internal',
    'Job',
    'nightly',
    'team-b',
    100,
    1000,
    0,
    0,
    T,
    T,
    T + 600_000,
    '{"job":"nightly"}',
    'Succeeded',
    T + 500_000,
    T + 60_000,
    T + 61_000,
    null,
    null,
    null,
    'h2',
  ],
  // The owner's name exactly (nothing after the dash), and a name one character past it.
  [
    'p2',
    'shop',
    'db-',
    'ip-10-0-0-3.ec2.internal',
    'StatefulSet',
    'db',
    null,
    500,
    1,
    0,
    0,
    T,
    T,
    T,
    '{"n":"0"}',
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
  ],
  [
    'p3',
    'shop',
    'db-0',
    'ip-10-0-0-3.ec2.internal',
    'StatefulSet',
    'db',
    null,
    500,
    1,
    0,
    0,
    T,
    T,
    T,
    '{"n":"0"}',
    'Running',
    null,
    T,
    T,
    null,
    null,
    null,
    null,
  ],
];

const insertOld = (db: Database.Database, rows: unknown[][]) => {
  const st = db.prepare(`INSERT INTO pods (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`);
  for (const r of rows) st.run(...r);
};

describe('migration 0027: narrow pod rows', () => {
  it('migrates a file made by the schema before it: every pod reads back as it was, value for value and type for type', () => {
    const path = join(dir, 'old.db');
    const old = new Database(path);
    migrate(
      old,
      loadMigrations().filter((m) => m.version < 27),
    );
    insertOld(old, OLD_PODS);
    const before = readPods(old);
    expect(before).toHaveLength(OLD_PODS.length);
    old.close();

    const db = openDb({ path });
    expect(readPods(db)).toEqual(before);
    // What the pods share is stored once: the two web replicas have one pod_dims row, db- and db-0 one.
    expect(db.prepare('SELECT COUNT(*) FROM pod_dims').pluck().get()).toBe(4);
    // Canonical UUIDs as 16 bytes, the others as their text; the replicas' names as the part after "<owner>-".
    expect(db.prepare('SELECT typeof(uid) AS t, length(uid) AS n, name, name_suffix FROM pod_rows ORDER BY id').all()).toEqual([
      { t: 'blob', n: 16, name: null, name_suffix: 'x7k2p' },
      { t: 'blob', n: 16, name: null, name_suffix: 'q9zzt' },
      { t: 'text', n: 36, name: 'trainer', name_suffix: null },
      { t: 'text', n: 2, name: 'report-28391', name_suffix: null },
      { t: 'text', n: 2, name: 'db-', name_suffix: null },
      { t: 'text', n: 2, name: null, name_suffix: '0' },
    ]);
    db.close();
  });

  it('takes the old INSERT, UPDATE and DELETE on the view as the old table did', () => {
    const old = new Database(join(dir, 'old-dml.db'));
    migrate(
      old,
      loadMigrations().filter((m) => m.version < 27),
    );
    const db = openDb({ path: join(dir, 'new-dml.db') });
    for (const d of [old, db]) {
      insertOld(d, OLD_PODS);
      d.prepare(`UPDATE pods SET last_seen = last_seen + 1, node_name = 'ip-10-0-0-9.ec2.internal', req_cpu_m = 300 WHERE uid = ?`).run(
        '0f8fad5b-d9cb-469f-a165-70867728950e',
      );
      d.prepare('DELETE FROM pods WHERE uid = ?').run('p2');
    }
    expect(readPods(db)).toEqual(readPods(old));
    // A uid already stored is refused, as by the old primary key.
    expect(() => insertOld(db, [OLD_PODS[0]])).toThrow(/UNIQUE/);
    old.close();
    db.close();
  });

  it("writes the collector's sightings as the old upsert did", () => {
    const old = new Database(join(dir, 'old-upsert.db'));
    migrate(
      old,
      loadMigrations().filter((m) => m.version < 27),
    );
    // The old table's upsert (kube-repository.ts before migration 0027), run on the same sightings.
    const oldUpsert = old.prepare(`
      INSERT INTO pods (uid, namespace, name, node_name, owner_kind, owner_name, team, req_cpu_m, req_memory_b, req_gpu, do_not_disrupt, created_at,
        first_seen, last_seen, labels_json, phase, finished_at, scheduled_at, started_at, do_not_disrupt_value, deletion_cost, volumes_json, spec_hash)
      VALUES (@uid, @namespace, @name, @nodeName, @ownerKind, @ownerName, @team, @cpu, @mem, @gpu, @dnd, @createdAt, @at, @at, @labels,
        @phase, @finishedAt, @scheduledAt, @startedAt, @dndValue, @deletionCost, @volumes, @specHash)
      ON CONFLICT(uid) DO UPDATE SET last_seen=excluded.last_seen, node_name=excluded.node_name, phase=excluded.phase,
        finished_at=COALESCE(pods.finished_at, excluded.finished_at), scheduled_at=COALESCE(pods.scheduled_at, excluded.scheduled_at),
        started_at=COALESCE(excluded.started_at, pods.started_at), do_not_disrupt=excluded.do_not_disrupt,
        do_not_disrupt_value=excluded.do_not_disrupt_value, deletion_cost=excluded.deletion_cost,
        volumes_json=excluded.volumes_json, spec_hash=COALESCE(excluded.spec_hash, pods.spec_hash)`);
    const db = openDb({ path: join(dir, 'new-upsert.db') });
    const write = createPodWriter(db);
    const base: PodSighting = {
      uid: '0f8fad5b-d9cb-469f-a165-70867728950e',
      namespace: 'shop',
      name: 'web-7d9f8b6c5-x7k2p',
      nodeName: null,
      ownerKind: 'ReplicaSet',
      ownerName: 'web-7d9f8b6c5',
      team: 'team-a',
      cpu: 250,
      mem: 268435456,
      gpu: 0,
      dnd: 0,
      createdAt: T - 60_000,
      at: T,
      labels: '{"app":"web"}',
      phase: 'Pending',
      finishedAt: null,
      scheduledAt: null,
      startedAt: null,
      dndValue: null,
      deletionCost: null,
      volumes: null,
      specHash: 'h1',
    };
    const sightings: PodSighting[] = [
      base,
      // Bound and started; the requests, labels and team seen now differ (an in-place resize): kept as first seen.
      {
        ...base,
        at: T + 300_000,
        nodeName: 'ip-10-0-0-1.ec2.internal',
        phase: 'Running',
        scheduledAt: T + 300_000,
        startedAt: T + 290_000,
        cpu: 500,
        labels: '{"app":"web","x":"y"}',
        team: 'team-z',
        dnd: 1,
        dndValue: 'true',
        deletionCost: '3',
      },
      // Annotations gone, no spec hash this time (kept), no start time (kept), volumes now.
      {
        ...base,
        at: T + 600_000,
        nodeName: 'ip-10-0-0-1.ec2.internal',
        phase: 'Succeeded',
        finishedAt: T + 590_000,
        scheduledAt: T + 600_000,
        specHash: null,
        volumes: '[{"claim":"c"}]',
      },
      // Seen finished again later: its first finish kept.
      { ...base, at: T + 900_000, nodeName: 'ip-10-0-0-1.ec2.internal', phase: 'Succeeded', finishedAt: T + 900_000, specHash: 'h3' },
      // A second pod of the same workload, and one with a text uid.
      { ...base, uid: '7c9e6679-7425-40de-944b-e07fc1f90ae7', name: 'web-7d9f8b6c5-q9zzt', at: T + 900_000 },
      { ...base, uid: 'p1', name: 'report', ownerName: null, ownerKind: null, at: T + 900_000, nodeName: 'ip-10-0-0-2.ec2.internal' },
      // Each seen again as it was: the last sighting moves, nothing else.
      { ...base, at: T + 1_200_000, nodeName: 'ip-10-0-0-1.ec2.internal', phase: 'Succeeded', finishedAt: T + 900_000, specHash: 'h3' },
      { ...base, uid: 'p1', name: 'report', ownerName: null, ownerKind: null, at: T + 1_200_000, nodeName: 'ip-10-0-0-2.ec2.internal' },
    ];
    for (const s of sightings) {
      oldUpsert.run(s);
      db.transaction(() => write(s))();
    }
    // Every pod is still listed (no snapshot has left one out): its interval is open where the old upsert had moved
    // its last sighting to the latest; every other column as the old upsert left it.
    const open = (rows: unknown[]) => rows.map((r) => ({ ...(r as Record<string, unknown>), last_seen: OPEN_LAST_SEEN }));
    expect(readPods(db)).toEqual(open(readPods(old)));
    expect((readPods(old) as { last_seen: number }[]).map((r) => r.last_seen)).toEqual([T + 1_200_000, T + 900_000, T + 1_200_000]);
    old.close();
    db.close();
  });

  it('writes nothing for pods seen again as they were: their interval stays open', () => {
    // Issue 24: every snapshot sees every running pod again. Its row's last sighting moved every snapshot (every page
    // of pod_rows written: the old writer's WAL frames here were the table's 62 pages of 4 KiB for 3,000 pods, some
    // 3,100 for 150,000, 12 MiB a snapshot); now it is open and nothing is written. 3,000 pods on 100 nodes, seen twice; the WAL is
    // emptied between.
    const db = openDb({ path: join(dir, 'seen-again.db') });
    const write = createPodWriter(db);
    const pods = (at: number): PodSighting[] =>
      Array.from({ length: 3000 }, (_, i) => ({
        uid: `0f8fad5b-d9cb-469f-a165-${i.toString(16).padStart(12, '0')}`,
        namespace: `ns-${i % 7}`,
        name: `web-${i % 50}-7d9f8b6c5-${i}`,
        nodeName: `ip-10-0-${Math.floor(i / 30)}-1.ec2.internal`,
        ownerKind: 'ReplicaSet',
        ownerName: `web-${i % 50}-7d9f8b6c5`,
        team: null,
        cpu: 250,
        mem: 268435456,
        gpu: 0,
        dnd: 0,
        createdAt: T - 60_000,
        at,
        labels: '{"app":"web"}',
        phase: 'Running',
        finishedAt: null,
        scheduledAt: T,
        startedAt: T - 30_000,
        dndValue: null,
        deletionCost: null,
        volumes: null,
        specHash: 'h1',
      }));
    db.transaction(() => pods(T).forEach(write))();
    db.pragma('wal_checkpoint(TRUNCATE)');
    const pages = (name: string) => db.prepare('SELECT COUNT(*) FROM dbstat WHERE name = ?').pluck().get(name) as number;
    const tablePages = pages('pod_rows');
    const indexPages = pages('pod_rows_node') + pages('pod_rows_dims') + pages('sqlite_autoindex_pod_rows_1');
    expect(indexPages).toBeGreaterThan(20);
    db.transaction(() => pods(T + 300_000).forEach(write))();
    // One WAL frame per page the transaction changed (its first write of a page; none is written twice in one).
    const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
    expect(tablePages).toBe(62);
    expect(log).toBe(0);
    expect(db.prepare('SELECT COUNT(*) FROM pods WHERE last_seen = ?').pluck().get(OPEN_LAST_SEEN)).toBe(3000);
    db.close();
  });
});
