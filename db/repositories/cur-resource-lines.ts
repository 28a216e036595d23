import type { Statement } from 'better-sqlite3';
import type { Db } from '../open-db.js';
import type { CurResourceDay } from './cur-repository.js';

/**
 * A resource's key in a period, by the resource id's index (a resource is in a few periods): `+` keeps the planner off
 * the period's and the NodePool's indexes, which without statistics it took, reading every key of the period (or the
 * NodePool) for each new one: the envelope's 15,001 keys read about 100 million rows, most of the import's time.
 */
export const FIND_RESOURCE_KEY = `SELECT id FROM cur_resource_keys WHERE resource_id = ? AND +period_id = ? AND cluster = ? AND +nodepool = ?
  AND nodeclaim = ? AND attributed_by = ? ORDER BY id LIMIT 1`;

/**
 * The CUR importer's writer of resource days in migration 0031's narrow layout: the period, each kind of line item and
 * each resource's attribution looked up (or made) once per import and kept in maps, then one cur_resource_lines row per
 * resource-day. It stores exactly what the cur_resource_daily view's INSERT trigger stores — a figure equal to the one
 * it usually equals as NULL, a day that is its day_ms's date as NULL — without the trigger's four lookups a row (at the
 * quick bench's 0.7 million rows the trigger made the import 18x DuckDB's bare query; the bound is 10x). It writes a
 * chunk of rows at a time, the lines by multi-row INSERTs.
 */
export function createResourceLinesWriter(db: Db, key: { source: string; billingPeriod: string }) {
  db.prepare('INSERT INTO cur_period_keys (source, billing_period) VALUES (?, ?) ON CONFLICT DO NOTHING').run(
    key.source,
    key.billingPeriod,
  );
  const periodId = db
    .prepare('SELECT id FROM cur_period_keys WHERE source = ? AND billing_period = ?')
    .pluck()
    .get(key.source, key.billingPeriod) as number;
  const findKind = db
    .prepare(
      `SELECT id FROM cur_line_kinds WHERE line_item_type = ? AND usage_type = ? AND product_code = ? AND operation = ? AND category = ?
         AND commitment_arn = ?`,
    )
    .pluck();
  const insertKind = db.prepare(
    'INSERT INTO cur_line_kinds (line_item_type, usage_type, product_code, operation, category, commitment_arn) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const findResource = db.prepare(FIND_RESOURCE_KEY).pluck();
  const insertResource = db.prepare(
    'INSERT INTO cur_resource_keys (period_id, resource_id, cluster, nodepool, nodeclaim, attributed_by) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const insertLines = (rows: number): Statement =>
    db.prepare(
      `INSERT INTO cur_resource_lines (resource_key, day_ms, line_kind, day, unblended_usd, amortized_usd, net_unblended_usd,
       net_amortized_usd, usage_amount, public_on_demand_usd, line_count) VALUES ${Array.from({ length: rows }, () => LINE_VALUES).join(', ')}`,
    );
  // Lines go in LINES_A_STATEMENT at a time (one statement's step for many rows: most of a row's cost was the call and
  // the statement's step, not SQLite's insert), the rest of a chunk one by one.
  const insertLine = insertLines(1);
  const insertBatch = insertLines(LINES_A_STATEMENT);
  const batch: unknown[] = [];
  const kinds = new Map<string, number>();
  const resources = new Map<string, number>();
  const orNull = (value: number, usual: number): number | null => (value === usual ? null : value);
  /** strftime('%Y-%m-%d', day_ms / 1000, 'unixepoch') of each day_ms seen (whole seconds, UTC): a period has ~31. */
  const dates = new Map<number, string>();
  // The rows come by resource, then line kind, then day (collectors/cur/aggregate-statement.ts): most have the kind and
  // resource key of the row before, compared field by field rather than looked up by a key made for each row.
  let last: CurResourceDay | null = null;
  let lastKind = 0;
  let lastResource = 0;

  const kindOf = (r: CurResourceDay, operation: string, commitment: string): number => {
    if (
      last !== null &&
      r.lineItemType === last.lineItemType &&
      r.usageType === last.usageType &&
      r.productCode === last.productCode &&
      operation === (last.operation ?? '') &&
      r.category === last.category &&
      commitment === (last.commitmentArn ?? '')
    )
      return lastKind;
    const kindKey = JSON.stringify([r.lineItemType, r.usageType, r.productCode, operation, r.category, commitment]);
    let kind = kinds.get(kindKey);
    if (kind === undefined) {
      const args = [r.lineItemType, r.usageType, r.productCode, operation, r.category, commitment] as const;
      kind = (findKind.get(...args) as number | undefined) ?? Number(insertKind.run(...args).lastInsertRowid);
      kinds.set(kindKey, kind);
    }
    return kind;
  };
  const resourceOf = (r: CurResourceDay, cluster: string, nodePool: string, nodeClaim: string): number => {
    if (
      last !== null &&
      r.resourceId === last.resourceId &&
      cluster === (last.cluster ?? '') &&
      nodePool === (last.nodePool ?? '') &&
      nodeClaim === (last.nodeClaim ?? '') &&
      r.attributedBy === last.attributedBy
    )
      return lastResource;
    const resourceKey = JSON.stringify([r.resourceId, cluster, nodePool, nodeClaim, r.attributedBy]);
    let resource = resources.get(resourceKey);
    if (resource === undefined) {
      resource =
        (findResource.get(r.resourceId, periodId, cluster, nodePool, nodeClaim, r.attributedBy) as number | undefined) ??
        Number(insertResource.run(periodId, r.resourceId, cluster, nodePool, nodeClaim, r.attributedBy).lastInsertRowid);
      resources.set(resourceKey, resource);
    }
    return resource;
  };

  /** Writes a chunk of resource days (each line once its kind and resource key exist: the keys are written first). */
  return (rows: readonly CurResourceDay[]): void => {
    for (const r of rows) {
      // The view's NOT NULL columns, as the trigger checks them (one comparison each: this runs per row).
      if (
        r.day == null ||
        r.dayMs == null ||
        r.resourceId == null ||
        r.lineItemType == null ||
        r.usageType == null ||
        r.productCode == null ||
        r.category == null ||
        r.attributedBy == null ||
        r.unblendedUsd == null ||
        r.amortizedUsd == null ||
        r.netUnblendedUsd == null ||
        r.netAmortizedUsd == null ||
        r.usageAmount == null ||
        r.publicOnDemandUsd == null ||
        r.lineCount == null
      )
        throw new Error('NOT NULL constraint failed: cur_resource_daily');
      lastKind = kindOf(r, r.operation ?? '', r.commitmentArn ?? '');
      lastResource = resourceOf(r, r.cluster ?? '', r.nodePool ?? '', r.nodeClaim ?? '');
      last = r;
      let dateOfMs = dates.get(r.dayMs);
      if (dateOfMs === undefined) {
        dateOfMs = new Date(Math.trunc(r.dayMs / 1000) * 1000).toISOString().slice(0, 10);
        dates.set(r.dayMs, dateOfMs);
      }
      batch.push(
        lastResource,
        r.dayMs,
        lastKind,
        r.day === dateOfMs ? null : r.day,
        r.unblendedUsd,
        orNull(r.amortizedUsd, r.unblendedUsd),
        orNull(r.netUnblendedUsd, r.unblendedUsd),
        orNull(r.netAmortizedUsd, r.amortizedUsd),
        r.usageAmount,
        orNull(r.publicOnDemandUsd, r.unblendedUsd),
        r.lineCount,
      );
      if (batch.length === LINE_VALUES_COUNT * LINES_A_STATEMENT) {
        insertBatch.run(batch);
        batch.length = 0;
      }
    }
    for (let i = 0; i < batch.length; i += LINE_VALUES_COUNT) insertLine.run(batch.slice(i, i + LINE_VALUES_COUNT));
    batch.length = 0;
  };
}

/** A cur_resource_lines row's parameters. */
const LINE_VALUES_COUNT = 11;
const LINE_VALUES = `(${Array.from({ length: LINE_VALUES_COUNT }, () => '?').join(', ')})`;
/** Lines a multi-row INSERT writes. */
const LINES_A_STATEMENT = 64;

/** cur_resource_daily's columns, in the view's order. */
const DAY_COLUMNS = [
  'source',
  'billing_period',
  'day',
  'day_ms',
  'resource_id',
  'line_item_type',
  'usage_type',
  'product_code',
  'operation',
  'category',
  'cluster',
  'nodepool',
  'nodeclaim',
  'attributed_by',
  'commitment_arn',
  'unblended_usd',
  'amortized_usd',
  'net_unblended_usd',
  'net_amortized_usd',
  'usage_amount',
  'public_on_demand_usd',
  'line_count',
] as const;
/** The view's NOT NULL columns, as its INSERT trigger checks them. */
const REQUIRED = DAY_COLUMNS.filter((c) => !['operation', 'cluster', 'nodepool', 'nodeclaim', 'commitment_arn'].includes(c));

/**
 * Resource days in bulk (the bench's generated store, db/repositories/retention-envelope-store.ts): the rows of `table`
 * (cur_resource_daily's columns, any order) written into migration 0031's narrow tables with four INSERT…SELECTs, as
 * the cur_resource_daily view's INSERT trigger writes them fed the rows in rowid order — the same period, line kind and
 * resource keys (an existing one reused, a new one made in the order the rows first name it), the same figures (NULL
 * when equal to the one it usually equals, day NULL when it is day_ms's UTC date, '' for a text left NULL).
 * A row the trigger would refuse (a NOT NULL column NULL) fails the whole write; a row whose key is already stored fails
 * on cur_resource_lines' primary key, as the trigger's INSERT does. Returns the rows written.
 */
export function writeResourceDaysInBulk(db: Db, table: string): number {
  const bad = db.prepare(`SELECT 1 FROM ${table} WHERE ${REQUIRED.map((c) => `${c} IS NULL`).join(' OR ')} LIMIT 1`).get();
  if (bad !== undefined) throw new Error('NOT NULL constraint failed: cur_resource_daily');
  const op = `COALESCE(x.operation, '')`;
  const commitment = `COALESCE(x.commitment_arn, '')`;
  const cluster = `COALESCE(x.cluster, '')`;
  const pool = `COALESCE(x.nodepool, '')`;
  const claim = `COALESCE(x.nodeclaim, '')`;
  const kind = `x.line_item_type, x.usage_type, x.product_code, ${op}, x.category, ${commitment}`;
  const sameKind = `t.line_item_type = x.line_item_type AND t.usage_type = x.usage_type AND t.product_code = x.product_code
    AND t.operation = ${op} AND t.category = x.category AND t.commitment_arn = ${commitment}`;
  // By resource id (cur_resource_keys_resource): the other terms kept off their indexes (the planner, without statistics,
  // takes cur_resource_keys_period or _nodepool, a scan of a month's or a NodePool's resources a row).
  const sameResource = `r.resource_id = x.resource_id AND +r.period_id = p.id AND +r.cluster = ${cluster} AND +r.nodepool = ${pool}
    AND +r.nodeclaim = ${claim} AND +r.attributed_by = x.attributed_by`;
  const period = `p.source = x.source AND p.billing_period = x.billing_period`;
  db.exec(`
    INSERT INTO cur_period_keys (source, billing_period)
    SELECT x.source, x.billing_period FROM ${table} x WHERE NOT EXISTS (SELECT 1 FROM cur_period_keys p WHERE ${period})
    GROUP BY x.source, x.billing_period ORDER BY MIN(x.rowid);
    INSERT INTO cur_line_kinds (line_item_type, usage_type, product_code, operation, category, commitment_arn)
    SELECT ${kind} FROM ${table} x WHERE NOT EXISTS (SELECT 1 FROM cur_line_kinds t WHERE ${sameKind})
    GROUP BY ${kind} ORDER BY MIN(x.rowid);
    INSERT INTO cur_resource_keys (period_id, resource_id, cluster, nodepool, nodeclaim, attributed_by)
    SELECT p.id, x.resource_id, ${cluster}, ${pool}, ${claim}, x.attributed_by
    FROM ${table} x JOIN cur_period_keys p ON ${period}
    WHERE NOT EXISTS (SELECT 1 FROM cur_resource_keys r WHERE ${sameResource})
    GROUP BY p.id, x.resource_id, ${cluster}, ${pool}, ${claim}, x.attributed_by ORDER BY MIN(x.rowid)`);
  const orNull = (c: string, usual: string): string => `CASE WHEN x.${c} = x.${usual} THEN NULL ELSE x.${c} END`;
  return db
    .prepare(
      `INSERT INTO cur_resource_lines (resource_key, day_ms, line_kind, day, unblended_usd, amortized_usd, net_unblended_usd, net_amortized_usd,
         usage_amount, public_on_demand_usd, line_count)
       SELECT (SELECT MIN(r.id) FROM cur_resource_keys r WHERE ${sameResource}), x.day_ms, t.id,
         CASE WHEN x.day = strftime('%Y-%m-%d', x.day_ms / 1000, 'unixepoch') THEN NULL ELSE x.day END, x.unblended_usd,
         ${orNull('amortized_usd', 'unblended_usd')}, ${orNull('net_unblended_usd', 'unblended_usd')},
         ${orNull('net_amortized_usd', 'amortized_usd')}, x.usage_amount, ${orNull('public_on_demand_usd', 'unblended_usd')}, x.line_count
       FROM ${table} x JOIN cur_period_keys p ON ${period} JOIN cur_line_kinds t ON ${sameKind}
       ORDER BY x.rowid`,
    )
    .run().changes;
}
