import { copyFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../db/open-db.js';
import { OPEN_LAST_SEEN } from '../../db/repositories/pod-rows.js';
import { sandboxPracticeBills } from '../../sandbox/practice-bills.js';
import { buildApp } from '../../server/app.js';
import { getEveryRoute } from '../fixtures/every-get-route.js';
import { type SeededDb, seededDb } from '../fixtures/seeded-api.js';

/*
 * Issue 24: nodes' and NodeClaims' last_seen left open while the newest snapshot lists them (db/repositories/
 * node-sightings.ts). Three simulated days of the sandbox through the real collectors (the shared seeded ledger: nodes
 * come and go), and a copy of its file holding what the writer before this change left: it set last_seen to the
 * instant of every snapshot that listed the row, so a row the newest snapshot lists held that snapshot's instant, and
 * a row it does not (closed) the same value it holds now. Every GET route of the API answers both with the same body.
 */

let seeded: SeededDb;
let old: Db;
const apps: FastifyInstance[] = [];
let newBase: string;
let oldBase: string;

async function serve(db: Db, nowMs: number): Promise<string> {
  const app = buildApp({ db, webRoot: join(seeded.dir, 'no-web'), now: () => nowMs, practiceBills: sandboxPracticeBills });
  apps.push(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** [open, closed] rows of a table. */
const counts = (db: Db, table: string): number[] =>
  db
    .prepare(`SELECT COUNT(*) FILTER (WHERE last_seen = ?), COUNT(*) FILTER (WHERE last_seen <> ?) FROM ${table}`)
    .raw()
    .get(OPEN_LAST_SEEN, OPEN_LAST_SEEN) as number[];

beforeAll(async () => {
  seeded = await seededDb({ prefix: 'ledger-node-intervals-', days: 3, usage: true });
  seeded.db.pragma('wal_checkpoint(TRUNCATE)');
  const path = join(seeded.dir, 'old-writer.db');
  copyFileSync(join(seeded.dir, 'ledger.db'), path);
  old = openDb({ path });
  for (const table of ['nodes', 'nodeclaims'])
    old
      .prepare(
        `UPDATE ${table} SET last_seen = (SELECT MAX(taken_at) FROM snapshots s WHERE s.cluster_id = ${table}.cluster_id) WHERE last_seen = ?`,
      )
      .run(OPEN_LAST_SEEN);
  newBase = await serve(seeded.db, seeded.endMs);
  oldBase = await serve(old, seeded.endMs);
}, 900_000);

afterAll(async () => {
  for (const app of apps) await app.close();
  old?.close();
  await seeded?.close();
});

describe("nodes' and NodeClaims' last sighting left open", () => {
  it('holds open rows (listed by the newest snapshot) and closed ones (gone before it) in both tables', () => {
    for (const table of ['nodes', 'nodeclaims']) {
      const [open, closed] = counts(seeded.db, table);
      expect({ table, open: open > 0, closed: closed > 0 }).toEqual({ table, open: true, closed: true });
      // The old writer's copy: no open row, as many rows.
      expect(counts(old, table)).toEqual([0, open + closed]);
    }
    // Every open row is not gone; every closed one is gone at a snapshot after its last sighting.
    for (const table of ['nodes', 'nodeclaims'])
      expect(
        seeded.db
          .prepare(`SELECT COUNT(*) FROM ${table} WHERE (last_seen = ?) = (deleted_at IS NOT NULL) OR deleted_at <= last_seen`)
          .pluck()
          .get(OPEN_LAST_SEEN),
      ).toBe(0);
  });

  it('answers every GET route of the API with the same body as the old writer`s file', async () => {
    const routes = await getEveryRoute(newBase, { fromMs: seeded.startMs, toMs: seeded.endMs });
    expect(routes.length).toBeGreaterThanOrEqual(40);
    const differing: string[] = [];
    let explained = 0;
    for (const { url, status } of routes) {
      const [a, b] = await Promise.all([fetch(`${oldBase}${url}`), fetch(`${newBase}${url}`)]);
      // /api/status's store figures are each file's bytes.
      const [bodyA, bodyB] = (await Promise.all([a.text(), b.text()])).map((t) =>
        t.replace(/"fileBytes":\d+,"freeBytes":\d+/, '"fileBytes":0,"freeBytes":0'),
      );
      expect({ url, status: b.status }).toEqual({ url, status: a.status });
      expect(status).toBe(a.status);
      if (url.startsWith('/api/bill/explain') && a.status === 200) explained += 1;
      if (bodyA !== bodyB) {
        let at = 0;
        while (bodyA[at] === bodyB[at]) at += 1;
        differing.push(`${url} at ${at}: ${bodyA.slice(at - 80, at + 80)} | ${bodyB.slice(at - 80, at + 80)}`);
      }
    }
    // The bill line explained (its nodes' last sightings read through the bill context) answered on both.
    expect(explained).toBeGreaterThanOrEqual(1);
    expect(differing).toEqual([]);
  });
});
