import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CurFileError } from '../collectors/cur/duckdb-reader.js';
import { CurLayoutError } from '../collectors/cur/export-layout.js';
import { importCurFolder, type CurImportProgress, type CurImportResult } from '../collectors/cur/import-folder.js';
import { S3SourceError } from '../collectors/cur/s3-source.js';
import { parseCalendarDuration } from '../core/duration.js';
import { acquireCollectorLock } from '../db/lock.js';
import { openDb } from '../db/open-db.js';
import { DEFAULT_DB_PATH } from './default-db-path.js';
import { ProgressBar } from './progress.js';
import { CUR_ATHENA_HELP, CUR_ATHENA_OPTIONS, runCurAthenaCommand } from './cur-athena.js';
import { CUR_S3_HELP, CUR_S3_OPTIONS, importCurFromS3Command } from './cur-s3.js';
import { UsageError } from './usage-error.js';

/**
 * `nodepool-ledger cur …`: the Cost and Usage Report 2.0. Each subcommand is one entry of SUBCOMMANDS.
 */

export const CUR_HELP = `Usage: nodepool-ledger cur import PATH|s3://bucket/prefix [--since 90d] [--db .ledger/ledger.db] [--quiet]
       nodepool-ledger cur athena --database D --table T --workgroup W [--output s3://…] (see below)

Imports a Cost and Usage Report 2.0 export (AWS Data Exports, Parquet or gzip CSV) from a local folder: the export's
folder (<export-name>/, holding data/BILLING_PERIOD=YYYY-MM/ and metadata/), or any folder above it. Each billing
period becomes per NodePool per day rows (instances, volumes, data transfer, other; unblended, amortized, net
unblended and net amortized cost), per namespace per day rows of AWS's split cost allocation for EKS, and per resource
per day rows for "Explain this bill". The NodePool comes from the karpenter.sh/nodepool tag (user_karpenter_sh_nodepool
in the CUR, once activated as a cost allocation tag), else from the NodeClaim collect saw with that instance id.

Incremental: a billing period whose files are unchanged (same names, sizes and sha256) is skipped; one whose files
changed (AWS re-states a month for weeks) is read again and replaced whole, in one transaction. A truncated or
malformed file is refused by name and nothing of its billing period is written.

  --since 90d   only billing periods that end within this long before now (Go-style units plus d and w)
  --db PATH     the database (created if missing; default ${DEFAULT_DB_PATH})
  --quiet       no progress bar

${CUR_S3_HELP}

${CUR_ATHENA_HELP}`;

export const CUR_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  since: { type: 'string' },
  db: { type: 'string' },
  quiet: { type: 'boolean' },
  ...CUR_S3_OPTIONS,
  ...CUR_ATHENA_OPTIONS,
} as const;

type Values = Record<string, string | boolean | undefined>;

const usd = (n: number): string => `$${n.toFixed(2)}`;
const plural = (n: number, one: string, many = `${one}s`): string => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** One line per billing period: what was read, what was written, and what stayed without a NodePool. */
export function formatCurImport(result: CurImportResult): string[] {
  return result.periods.map((p) => {
    if (p.status === 'before-since') return `${p.billingPeriod}  skipped: ends before --since`;
    if (p.status === 'unchanged')
      return `${p.billingPeriod}  unchanged: ${plural(p.files, 'file')} as last imported (${plural(p.curRows, 'CUR line')})`;
    const filled = p.nodeClaimFilledLines > 0 ? `; ${plural(p.nodeClaimFilledLines, 'line')} got the NodePool from our NodeClaims` : '';
    return (
      `${p.billingPeriod}  imported ${plural(p.files, 'file')}, ${plural(p.curRows, 'CUR line')} (${plural(p.splitLines, 'pod split line')}) -> ` +
      `${plural(p.nodePoolRows, 'NodePool-day row')}, ${plural(p.namespaceRows, 'namespace-day row')}, ${plural(p.resourceRows, 'resource-day row')}${filled}; ` +
      `${plural(p.unattributedLines, 'instance/volume/transfer line')} without a NodePool (${usd(p.unattributedUsd)} unblended)`
    );
  });
}

async function runImport(v: Values, args: readonly string[]): Promise<number> {
  const [path, ...extra] = args;
  if (path === undefined) throw new UsageError('cur import needs PATH: the folder of a CUR 2.0 export');
  if (extra.length > 0) throw new UsageError(`cur import takes one PATH, got also: ${extra.join(' ')}`);
  let sinceMs: number | undefined;
  if (typeof v.since === 'string') {
    const ms = parseCalendarDuration(v.since);
    if (ms === null || ms <= 0) throw new UsageError(`--since must be a positive duration such as 90d or 12w, got "${v.since}"`);
    sinceMs = ms;
  }
  const dbPath = resolve(typeof v.db === 'string' ? v.db : DEFAULT_DB_PATH);
  mkdirSync(dirname(dbPath), { recursive: true });
  const db = openDb({ path: dbPath });
  try {
    // A writer: one at a time on a file, like collect and demo. Each period is written in one transaction, so the lock
    // cannot change hands during one; lost between two (this process silent past the stale limit), the import stops.
    const stop = new AbortController();
    const lock = acquireCollectorLock(db, {
      command: 'cur import',
      dbPath,
      onLost: () => stop.abort(new Error('cur import: the collector lock was taken over by another writer; stopped')),
    });
    try {
      let bar: ProgressBar | null = null;
      const onProgress = (p: CurImportProgress): void => {
        if (v.quiet === true) return;
        bar ??= new ProgressBar('cur import', p.total);
        bar.update(p.done, `${p.billingPeriod} ${p.phase} ${p.note}`.slice(0, 60));
      };
      const result = path.startsWith('s3://')
        ? await importCurFromS3Command(db, path, { v, dbPath, sinceMs, onProgress, signal: stop.signal })
        : await importCurFolder(db, path, { sinceMs, onProgress, signal: stop.signal });
      for (const line of formatCurImport(result)) console.log(line);
      console.log(`CUR rows are in ${dbPath}`);
      return 0;
    } finally {
      lock.release();
    }
  } catch (err) {
    if (err instanceof CurFileError || err instanceof CurLayoutError || err instanceof S3SourceError) {
      console.error(`cur import: ${err.message}`);
      return 1;
    }
    throw err;
  } finally {
    db.close();
  }
}

/** `cur <subcommand> …`: one entry per subcommand. */
const SUBCOMMANDS: Record<string, (v: Values, args: readonly string[]) => Promise<number>> = {
  import: runImport,
  athena: runCurAthenaCommand,
};

export async function runCur(v: Values, positionals: readonly string[]): Promise<number> {
  const [sub, ...args] = positionals;
  const run = sub === undefined ? undefined : SUBCOMMANDS[sub];
  if (run === undefined) throw new UsageError(sub === undefined ? 'cur needs a subcommand' : `unknown cur subcommand "${sub}"`);
  return run(v, args);
}
