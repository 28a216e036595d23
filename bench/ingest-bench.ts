import { join } from 'node:path';
import { buildSnapshotRows } from '../core/rollup.js';
import { openDb } from '../db/open-db.js';
import { createBareIngest, flattenSnapshot, rowsOf } from '../db/repositories/bare-ingest.js';
import { createKubeRepository, type SnapshotWrite } from '../db/repositories/kube-repository.js';
import { scaleScenario } from '../sandbox/scale/scale-scenario.js';
import type { BenchContext, BenchResult } from './context.js';
import { figure } from './report.js';
import { scaleHistory, scenarioPrices } from './scale-history.js';

/**
 * Ingest: consecutive 5-minute snapshots of a cluster (every node, NodeClaim and pod upserted, the snapshot, its
 * per-node rows and rollups) written by the kube repository, one transaction each, beside a bare better-sqlite3
 * loop writing the same rows into the same schema (db/repositories/bare-ingest.ts). Rows per second; >= 0.5x.
 * Both get the rows prepared before their clock starts; each writes into a fresh database file; best of 2.
 */

export async function ingestBench(ctx: BenchContext): Promise<BenchResult> {
  const nodes = ctx.quick ? 200 : 1000;
  const count = ctx.quick ? 12 : 36;
  const sc = scaleScenario({ nodes, podsPerNode: 30, days: 1, seed: 21, meanNodeLifetimeDays: 5 });
  const prices = scenarioPrices(sc);
  const writes: SnapshotWrite[] = [];
  for (const step of scaleHistory(sc, 5 * 60_000)) {
    writes.push({ snapshot: step.snapshot, ...buildSnapshotRows(step.snapshot, prices.price, prices.onDemand), runId: null });
    if (writes.length === count) break;
  }
  const bare = writes.map(flattenSnapshot);
  const rows = bare.reduce((s, b) => s + rowsOf(b), 0);
  ctx.log(
    `ingest: ${count} snapshots of ${nodes} nodes and ${writes[0].snapshot.pods.length.toLocaleString('en-US')} pods, ${rows.toLocaleString('en-US')} rows`,
  );

  /** Seconds spent writing, the database already open and migrated (opening it is not ingest). */
  const timeOnce = (name: string, prepare: (db: ReturnType<typeof openDb>) => () => void): number => {
    const db = openDb({ path: join(ctx.tmp, `${name}-${Math.random().toString(36).slice(2)}.db`) });
    try {
      const write = prepare(db);
      const t0 = performance.now();
      write();
      return (performance.now() - t0) / 1000;
    } finally {
      db.close();
    }
  };
  const repository = (db: ReturnType<typeof openDb>) => {
    const kube = createKubeRepository(db);
    return () => {
      for (const w of writes) kube.writeSnapshot(w);
    };
  };
  const bareLoop = (db: ReturnType<typeof openDb>) => {
    const ingest = createBareIngest(db);
    return () => {
      for (const b of bare) ingest.write(b);
    };
  };
  const runs = { ours: [] as number[], bare: [] as number[] };
  for (let i = 0; i < 2; i++) {
    runs.bare.push(timeOnce('bare', bareLoop));
    runs.ours.push(timeOnce('ours', repository));
  }
  const ours = rows / Math.min(...runs.ours);
  const peer = rows / Math.min(...runs.bare);
  ctx.log(
    `ingest: repository ${Math.round(ours).toLocaleString('en-US')} rows/s, bare loop ${Math.round(peer).toLocaleString('en-US')} rows/s`,
  );
  return {
    rows: [
      figure({
        bench: 'ingest',
        figure: `ingest ${nodes} nodes x ${count} snapshots: rows/s`,
        unit: 'rows/s',
        ours,
        peerLabel: 'bare better-sqlite3 loop',
        peer,
        target: { kind: 'at-least', min: 0.5 },
        note: 'ours also keeps the hour/day range rollups and marks gone nodes; best of 2',
      }),
    ],
    details: { nodes, snapshots: count, rows, seconds: runs },
  };
}
