import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { ParseArgsConfig } from 'node:util';
import type { S3Client } from '@aws-sdk/client-s3';
import { createS3Client } from '../collectors/cur/s3-client.js';
import { parquetBytes } from '../collectors/org/parquet-table.js';
import { putObject } from '../collectors/org/s3-put.js';
import { checkClusterName, destinationUrl, parseS3Destination, partitionKey, type S3Destination } from '../collectors/org/s3-layout.js';
import { DAY_MS } from '../core/time.js';
import { openDb, type Db } from '../db/open-db.js';
import { createClustersRepository } from '../db/repositories/clusters-repository.js';
import { createOrgExportRepository } from '../db/repositories/org-export-repository.js';
import { DEFAULT_DB_PATH } from './default-db-path.js';
import { createExportReader } from './export-tables.js';
import { UsageError } from './usage-error.js';

export const EXPORT_HELP = `Usage: nodepool-ledger export --to s3://BUCKET/PREFIX [--cluster NAME] [--days YYYY-MM-DD[..YYYY-MM-DD]] [--db .ledger/ledger.db]

Writes the ledger's rollups to S3 as Parquet, one object per table, cluster and UTC day, in the Hive layout Athena
reads as partitions (the tables of deploy/athena/):
  PREFIX/table=nodepool_hour/cluster=NAME/day=YYYY-MM-DD/part-0.parquet
Tables: nodepool_hour (cost and packing sums per hour, NodePool and capacity type), namespace_hour (each attribution
method's cost per hour, namespace and NodePool), node_day, disruptions, rightsizing (the Workloads recommendations at
the day's end).

Incremental: the ledger remembers, per destination, each day it wrote and a digest of what it wrote; a run reads again
only the days not written yet and the days from the newest snapshot the last run saw, and uploads only a day whose
tables changed. Idempotent: a day is rewritten whole (same rows in, same bytes out), so a re-run, or --days, replaces
its objects with equal ones.

  --to URI       where to write (s3://bucket/prefix)
  --cluster NAME the cluster's partition name (its EKS name, as in the eks:eks-cluster-name tag); default the name the
                 ledger records, else required. A ledger of several clusters (collect --clusters): each is exported
                 under its own name, or only the one named here
  --days D[..D]  export these UTC days again, changed or not (inclusive)
  --db PATH      the ledger (default ${DEFAULT_DB_PATH})

Credentials: the standard chain; AWS_ENDPOINT_URL_S3 points the client elsewhere. It needs s3:PutObject on its
clusters' partitions only, PREFIX/table=*/cluster=NAME/* (deploy/athena/export-role-policy.json; the CronJob that runs
it beside the collector: deploy/org/cluster/).`;

export const EXPORT_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  to: { type: 'string' },
  cluster: { type: 'string' },
  days: { type: 'string' },
  db: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

export interface ExportOptions {
  destination: S3Destination;
  cluster?: string;
  /** Days to write again whatever the ledger remembers, epoch ms of their starts [from, to]. */
  forceDays?: { fromMs: number; toMs: number };
  dbPath: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const dayMsOf = (text: string): number => {
  const ms = Date.parse(`${text}T00:00:00Z`);
  if (!DAY.test(text) || Number.isNaN(ms)) throw new UsageError(`--days takes YYYY-MM-DD or YYYY-MM-DD..YYYY-MM-DD, not ${text}`);
  return ms;
};
export const dayText = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

export function exportOptionsFrom(v: Record<string, string | boolean | undefined>): ExportOptions {
  const to = v.to;
  if (typeof to !== 'string' || to === '') throw new UsageError('export needs --to s3://BUCKET/PREFIX');
  let destination: S3Destination;
  try {
    destination = parseS3Destination(to);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const cluster = typeof v.cluster === 'string' ? v.cluster : undefined;
  if (cluster !== undefined) {
    try {
      checkClusterName(cluster);
    } catch (err) {
      throw new UsageError(`--cluster: ${(err as Error).message}`);
    }
  }
  let forceDays: ExportOptions['forceDays'];
  if (typeof v.days === 'string') {
    const [a, b = a] = v.days.split('..');
    forceDays = { fromMs: dayMsOf(a), toMs: dayMsOf(b) };
    if (forceDays.toMs < forceDays.fromMs) throw new UsageError(`--days ends before it starts: ${v.days}`);
  }
  return { destination, cluster, forceDays, dbPath: typeof v.db === 'string' ? v.db : DEFAULT_DB_PATH };
}

export interface ExportSummary {
  /** The clusters exported (partition names), in the ledger's order. */
  clusters: string[];
  destination: string;
  /** Cluster-days read from the ledger, and found unchanged (not uploaded). */
  daysRead: number;
  /** The days written (each once, whichever clusters), ascending. */
  daysWritten: string[];
  /** Cluster-days written. */
  clusterDaysWritten: number;
  daysUnchanged: number;
  objectsWritten: number;
  bytesWritten: number;
}

/** A cluster to export: its partition name, and its id in a ledger of several (null: the ledger's one cluster, every row). */
interface ExportScope {
  name: string;
  clusterId: number | null;
}

/**
 * Which clusters a run exports. A ledger of one cluster: that one, named by --cluster, else by the name the ledger
 * records (the clusters table's, unless a placeholder; or the older `cluster.name` setting). A ledger of several
 * (`collect --clusters`): each, by its name, or only the one --cluster names.
 */
function scopesOf(db: Db, cluster: string | undefined): ExportScope[] {
  const known = createClustersRepository(db).list();
  if (known.length > 1) {
    const chosen = cluster === undefined ? known : known.filter((c) => c.name === cluster);
    if (chosen.length === 0) throw new UsageError(`--cluster ${cluster}: the ledger's clusters are ${known.map((c) => c.name).join(', ')}`);
    for (const c of chosen) checkClusterName(c.name);
    return chosen.map((c) => ({ name: c.name, clusterId: c.id }));
  }
  const named = known.length === 1 && known[0].namedFrom !== 'placeholder' ? known[0].name : null;
  const name = cluster ?? createOrgExportRepository(db).clusterName() ?? named;
  if (name === null) throw new UsageError('this ledger does not record its cluster name: pass --cluster NAME (its EKS name)');
  checkClusterName(name);
  return [{ name, clusterId: null }];
}

/** Exports one ledger's days, per cluster, to S3 (the ledger keeps what it wrote: db/repositories/org-export-repository.ts). */
export async function exportLedger(
  db: Db,
  options: Omit<ExportOptions, 'dbPath'>,
  deps: { s3: S3Client; log?: (line: string) => void },
): Promise<ExportSummary> {
  const repo = createOrgExportRepository(db);
  const scopes = scopesOf(db, options.cluster);
  const where = destinationUrl(options.destination);
  const summary: ExportSummary = {
    clusters: scopes.map((s) => s.name),
    destination: where,
    daysRead: 0,
    daysWritten: [],
    clusterDaysWritten: 0,
    daysUnchanged: 0,
    objectsWritten: 0,
    bytesWritten: 0,
  };
  const reader = createExportReader(db);
  const state = repo.state(where);
  const forced = (dayMs: number): boolean =>
    options.forceDays !== undefined && dayMs >= options.forceDays.fromMs && dayMs <= options.forceDays.toMs;
  const written = new Set<string>();
  for (const { name: cluster, clusterId } of scopes) {
    const span = repo.dataSpan(clusterId);
    if (span === null) continue;
    const newest = repo.newestSnapshotMs(clusterId);
    const seen = clusterId === null ? state.newestSnapshotMs : (state.newestSnapshotMsByCluster[cluster] ?? null);
    const watermarkDayMs = seen === null ? null : Math.floor(seen / DAY_MS) * DAY_MS;
    for (let dayMs = Math.floor(span.firstMs / DAY_MS) * DAY_MS; dayMs <= span.lastMs; dayMs += DAY_MS) {
      const day = dayText(dayMs);
      const stateKey = `${cluster}|${day}`;
      const known = state.days[stateKey];
      // Days before the newest snapshot the last run saw were final then: not read again unless asked.
      if (!forced(dayMs) && known !== undefined && watermarkDayMs !== null && dayMs < watermarkDayMs) continue;
      summary.daysRead += 1;
      const objects: { key: string; body: Buffer }[] = [];
      const digest = createHash('sha256');
      for (const t of reader.day(dayMs, clusterId)) {
        const body = await parquetBytes(t.columns, t.rows);
        objects.push({ key: partitionKey(options.destination, t.table, cluster, day), body });
        digest.update(`${t.table}\u0000`).update(body);
      }
      const hex = digest.digest('hex');
      if (!forced(dayMs) && known === hex) {
        summary.daysUnchanged += 1;
        continue;
      }
      for (const o of objects) {
        await putObject(deps.s3, options.destination.bucket, o.key, o.body);
        summary.objectsWritten += 1;
        summary.bytesWritten += o.body.length;
      }
      state.days[stateKey] = hex;
      // Remembered day by day: a run stopped part way carries on after the last day it wrote.
      repo.saveState(where, state);
      written.add(day);
      summary.clusterDaysWritten += 1;
      deps.log?.(`${cluster} ${day}: ${objects.length} objects, ${objects.reduce((t, o) => t + o.body.length, 0)} bytes`);
    }
    if (clusterId === null) state.newestSnapshotMs = newest;
    else state.newestSnapshotMsByCluster[cluster] = newest;
  }
  repo.saveState(where, state);
  summary.daysWritten = [...written].sort();
  return summary;
}

export async function runExport(v: Record<string, string | boolean | undefined>): Promise<number> {
  const options = exportOptionsFrom(v);
  if (!existsSync(options.dbPath)) throw new UsageError(`no database at ${options.dbPath}: run 'collect' first`);
  const db = openDb({ path: options.dbPath });
  try {
    const summary = await exportLedger(db, options, { s3: createS3Client(), log: (line) => console.log(line) });
    console.log(
      `Exported ${summary.clusters.join(', ')} to ${summary.destination}: ${summary.clusterDaysWritten} cluster-days written ` +
        `(${summary.objectsWritten} objects, ${summary.bytesWritten} bytes), ${summary.daysUnchanged} unchanged of ${summary.daysRead} read.`,
    );
    return 0;
  } finally {
    db.close();
  }
}
