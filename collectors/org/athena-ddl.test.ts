import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  DISRUPTION_COLUMNS,
  EXPORT_TABLES,
  NAMESPACE_HOUR_COLUMNS,
  NODE_DAY_COLUMNS,
  NODEPOOL_HOUR_COLUMNS,
  RIGHTSIZING_COLUMNS,
} from '../../cli/export-tables.js';
import { ORG_TABLES } from '../../sandbox/serve/org-endpoints.js';
import type { ParquetColumnType } from './parquet-table.js';

/*
 * deploy/athena/tables.sql declares each exported table as export writes it: the same columns, in the same order, at
 * the Hive type of each Parquet type, partitioned by cluster and day, located under its table= folder and projected
 * onto the layout export writes (collectors/org/s3-layout.ts).
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DDL = readFileSync(join(ROOT, 'deploy', 'athena', 'tables.sql'), 'utf8');
const HIVE: Record<ParquetColumnType, string> = {
  varchar: 'string',
  double: 'double',
  bigint: 'bigint',
  boolean: 'boolean',
  timestamp: 'timestamp',
};
const WRITTEN = {
  nodepool_hour: NODEPOOL_HOUR_COLUMNS,
  namespace_hour: NAMESPACE_HOUR_COLUMNS,
  node_day: NODE_DAY_COLUMNS,
  disruptions: DISRUPTION_COLUMNS,
  rightsizing: RIGHTSIZING_COLUMNS,
} as const;

function declared(table: string): { columns: string[]; rest: string } {
  const m = new RegExp(`CREATE EXTERNAL TABLE IF NOT EXISTS \`ledger_org\`\\.\`${table}\` \\(([^)]*)\\)([^;]*);`).exec(DDL);
  if (!m) throw new Error(`no CREATE EXTERNAL TABLE for ${table}`);
  return { columns: m[1].split(',').map((c) => c.trim().replace(/`/g, '')), rest: m[2] };
}

describe('deploy/athena/tables.sql', () => {
  it('declares every exported table, and the sandbox serves the same', () => {
    expect([...ORG_TABLES]).toEqual([...EXPORT_TABLES]);
    expect([...DDL.matchAll(/CREATE EXTERNAL TABLE IF NOT EXISTS `ledger_org`\.`(\w+)`/g)].map((m) => m[1])).toEqual([...EXPORT_TABLES]);
  });

  it.each(EXPORT_TABLES)('%s: the columns export writes, partitioned by cluster and day in its Hive folders', (table) => {
    const { columns, rest } = declared(table);
    const written = WRITTEN[table] as readonly { name: string; type: ParquetColumnType }[];
    expect(columns).toEqual(written.map((c) => `${c.name} ${HIVE[c.type]}`));
    expect(rest).toContain('PARTITIONED BY (`cluster` string, `day` string)');
    expect(rest).toContain(`LOCATION 's3://__BUCKET__/__PREFIX__/table=${table}/'`);
    expect(rest).toContain(`'storage.location.template' = 's3://__BUCKET__/__PREFIX__/table=${table}/cluster=\${cluster}/day=\${day}/'`);
  });
});
