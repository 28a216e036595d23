import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCurMonth, type CurMonthWritten } from '../../bench/cur-generator.js';
import { AWS_EKS_EXAMPLE } from '../../test/fixtures/aws-split-examples.js';
import { awsExampleCurRows } from '../../test/fixtures/cur/aws-split-cur.js';
import { CUR2_SAMPLE, type CurSampleRow } from '../../test/fixtures/cur/cur2-sample.js';
import { duckDbPerFile } from '../../test/fixtures/cur/duckdb-per-file.js';
import { loadCurTable } from '../../test/fixtures/cur/write-export.js';
import {
  curAggregateParts,
  curAggregateStatement,
  rowFromRecord,
  SPLIT_HASH_COLLISION,
  type CurAggregateRow,
  type CurSqlDialect,
  type CurStatementOptions,
} from './aggregate-statement.js';
import { CurEngine, rowsOfNestedChunk } from './duckdb-reader.js';

/*
 * The statement in DuckDB's dialect, and its two parts as `cur import` runs them in process, give the rows of the
 * portable statement (what `cur athena` sends to Athena, and the sandbox's Athena runs with DuckDB): every text and
 * count equal, every amount equal to a billionth (the import stores amounts rounded so; DuckDB may add a group's lines
 * in another order from one plan to the other). Over AWS-shaped sample lines, AWS's split example, hand-made pod lines
 * whose counts are worked out below, and a generated month with 30 pods a node.
 */

const duck = duckDbPerFile('cur-dialects-');
const { scratch } = duck;

const read = async (sql: string): Promise<CurAggregateRow[]> =>
  (await duck.c.runAndReadAll(sql)).getRowObjectsJS().map((r) => rowFromRecord(r));
/** The resource part's nested form (`notSplitNested`) read as the import reads it, chunk by chunk; and its chunks. */
async function readNested(sql: string): Promise<{ rows: CurAggregateRow[]; chunks: number }> {
  const rows: CurAggregateRow[] = [];
  let chunks = 0;
  for await (const chunk of await duck.c.stream(sql)) {
    if (chunk.rowCount === 0) continue;
    chunks++;
    rows.push(...rowsOfNestedChunk(chunk));
  }
  return { rows, chunks };
}
const rowsOf = (table: string, billingPeriod: string, dialect: CurSqlDialect): Promise<CurAggregateRow[]> =>
  read(curAggregateStatement({ table, billingPeriod, dialect }));
const fine = (n: number): number => Math.round(n * 1e9) / 1e9;
const stored = (rows: CurAggregateRow[]) =>
  rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'number' ? fine(v) : v])));

/** A resource and unresourced row's key in the order the import's first part returns them: by resource, then day. */
const byResource = (r: CurAggregateRow): string =>
  [
    r.resourceId,
    r.lineItemType,
    r.usageType,
    r.productCode,
    r.operation,
    r.commitmentArn,
    r.rowKind,
    r.cluster,
    r.nodePool,
    r.nodeClaim,
    r.usageDay,
  ].join('\u0000');

/**
 * Both dialects' rows over `table`: equal; and the DuckDB statement's two parts as the import runs them are the
 * portable statement's rows of those kinds: the resource and unresourced rows by resource then day, then the split rows
 * in the statement's order. Returned for the test's own figures.
 */
async function bothDialects(table: string, billingPeriod: string): Promise<CurAggregateRow[]> {
  const portable = await rowsOf(table, billingPeriod, 'portable');
  const duck = await rowsOf(table, billingPeriod, 'duckdb');
  expect(stored(duck)).toEqual(stored(portable));
  const parts = curAggregateParts({ table, billingPeriod, dialect: 'duckdb' });
  const split = (r: CurAggregateRow): boolean => r.rowKind === 'split';
  const notSplit = portable
    .filter((r) => !split(r))
    .sort((a, b) => (byResource(a) < byResource(b) ? -1 : byResource(a) > byResource(b) ? 1 : 0));
  expect(stored(await read(parts.notSplit))).toEqual(stored(notSplit));
  // Nested as the import reads it: the same rows in the same order (by resource, then day).
  expect(stored((await readNested(parts.notSplitNested)).rows)).toEqual(stored(notSplit));
  expect(stored(await read(parts.split))).toEqual(stored(portable.filter(split)));
  expect(stored(await read(parts.splitExact))).toEqual(stored(portable.filter(split)));
  return duck;
}

/**
 * Key hashes that collide on purpose (CurStatementOptions.keyHash): every pod ARN to one value, every split group's
 * key to one value, or both. The fast split part must refuse each (its counts would be wrong) rather than answer.
 */
const COLLIDING: readonly [string, NonNullable<CurStatementOptions['keyHash']>][] = [
  ['pod ARNs', (e) => (e.includes(',') ? `hash(${e})` : 'CAST(0 AS UBIGINT)')],
  ['split groups', (e) => (e.includes(',') ? 'CAST(0 AS UBIGINT)' : `hash(${e})`)],
  ['both', () => 'CAST(0 AS UBIGINT)'],
];

/** The fast split part over `table` with each colliding hash: refused by name, never rows. */
async function collisionsRefused(table: string, billingPeriod: string): Promise<void> {
  for (const [, keyHash] of COLLIDING) {
    const { split } = curAggregateParts({ table, billingPeriod, dialect: 'duckdb', keyHash });
    await expect(read(split)).rejects.toThrow(SPLIT_HASH_COLLISION);
  }
}

let month: Promise<CurMonthWritten> | undefined;
/** A month of 10 nodes and 300 pods (bench/cur-generator.ts), written once for the tests that read it. */
const generatedMonth = (): Promise<CurMonthWritten> => (month ??= writeCurMonth(join(scratch, 'month'), { nodes: 10, pods: 300 }));

const DAY2 = { bill_billing_period_start_date: '2026-11-01T00:00:00Z', line_item_usage_start_date: '2026-11-02T00:00:00Z' };
const DAY3 = { ...DAY2, line_item_usage_start_date: '2026-11-03T00:00:00Z' };
const arn = (namespace: string, pod: string): string => `arn:aws:eks:us-east-2:111122223333:pod/prod/${namespace}/${pod}/uid-${pod}`;
const instanceLine = (id: string, tags: Record<string, string>): CurSampleRow => ({
  ...DAY2,
  line_item_line_item_type: 'Usage',
  line_item_usage_type: 'USE2-BoxUsage:m6i.large',
  line_item_resource_id: id,
  line_item_unblended_cost: 2.304,
  resource_tags: tags,
});
const podLine = (
  day: CurSampleRow,
  parent: string,
  resourceId: string | undefined,
  usage: 'vCPU' | 'GB',
  tags?: Record<string, string>,
) => ({
  ...day,
  line_item_line_item_type: 'Usage',
  line_item_usage_type: `USE2-EKS-EC2-${usage}-Hours`,
  ...(resourceId !== undefined ? { line_item_resource_id: resourceId } : {}),
  split_line_item_parent_resource_id: parent,
  split_line_item_split_usage: 1,
  split_line_item_split_cost: 0.01,
  ...(tags !== undefined ? { resource_tags: tags } : {}),
});
const ns = (namespace: string) => ({ aws_eks_cluster_name: 'prod', aws_eks_namespace: namespace });

/**
 * i-a carries its NodePool tag, i-b is untagged, i-c has no line of its own. pod1: vCPU and GB on day 2; pod2: both on
 * day 2 and vCPU on day 3; pod3 (on i-b): no tags, namespace and cluster from its ARN; pod4 (on i-c): an empty tag map;
 * pod5: its vCPU line tagged web and its GB line api; pod6: vCPU on i-a, GB on i-b the same day; a line without a
 * resource id ('' counts as one value, as COUNT(DISTINCT '') does); an October line of pod1 left out.
 */
const POD_LINES: CurSampleRow[] = [
  instanceLine('i-a', { user_karpenter_sh_nodepool: 'general', user_eks_eks_cluster_name: 'prod' }),
  instanceLine('i-b', { user_eks_eks_cluster_name: 'prod' }),
  podLine(DAY2, 'i-a', arn('web', 'pod1'), 'vCPU', ns('web')),
  podLine(DAY2, 'i-a', arn('web', 'pod1'), 'GB', ns('web')),
  podLine(DAY2, 'i-a', arn('web', 'pod2'), 'vCPU', ns('web')),
  podLine(DAY2, 'i-a', arn('web', 'pod2'), 'GB', ns('web')),
  podLine(DAY3, 'i-a', arn('web', 'pod2'), 'vCPU', ns('web')),
  podLine(DAY2, 'i-b', arn('batch', 'pod3'), 'vCPU'),
  podLine(DAY2, 'i-b', arn('batch', 'pod3'), 'GB'),
  podLine(DAY2, 'i-c', arn('web', 'pod4'), 'vCPU', {}),
  podLine(DAY2, 'i-a', arn('web', 'pod5'), 'vCPU', ns('web')),
  podLine(DAY2, 'i-a', arn('web', 'pod5'), 'GB', ns('api')),
  podLine(DAY2, 'i-a', arn('web', 'pod6'), 'vCPU', ns('web')),
  podLine(DAY2, 'i-b', arn('web', 'pod6'), 'GB', ns('web')),
  podLine(DAY2, 'i-a', undefined, 'vCPU', ns('web')),
  { ...podLine(DAY2, 'i-a', arn('web', 'pod1'), 'vCPU', ns('web')), bill_billing_period_start_date: '2026-10-01T00:00:00Z' },
];

describe('the statement in DuckDB’s dialect gives the portable statement’s rows', () => {
  it('over the AWS-shaped sample lines (usage, Savings Plan, reservation, volume, credit, split lines)', async () => {
    await loadCurTable(duck.c, 'sample', CUR2_SAMPLE, scratch);
    const rows = await bothDialects('sample', '2026-11');
    expect(rows.some((r) => r.rowKind === 'split')).toBe(true);
    expect(rows.some((r) => r.rowKind === 'unresourced')).toBe(true);
  });

  it("over AWS's split example (six pods on one instance, one namespace each)", async () => {
    await loadCurTable(
      duck.c,
      'aws_example',
      awsExampleCurRows(AWS_EKS_EXAMPLE, (p) => p.name.toLowerCase()),
      scratch,
    );
    const rows = await bothDialects('aws_example', '2026-10');
    expect(rows.filter((r) => r.rowKind === 'split').map((r) => r.podCount)).toEqual(AWS_EKS_EXAMPLE.pods.map(() => 1));
  });

  it('counts each split row’s pods as worked out by hand: several groups a pod, untagged and unknown parents', async () => {
    await loadCurTable(duck.c, 'pods', POD_LINES, scratch);
    const rows = await bothDialects('pods', '2026-11');
    await collisionsRefused('pods', '2026-11');
    expect(
      rows
        .filter((r) => r.rowKind === 'split')
        .map((r) => [r.usageDay, r.resourceId, r.cluster, r.nodePool, r.namespace, r.podCount, r.lineCount]),
    ).toEqual([
      // i-a's web on day 2: pod1 (2 lines), pod2 (2), pod5's vCPU, pod6's vCPU and the line without id: 5 pods, 7 lines.
      ['2026-11-02', '', 'prod', 'general', 'api', 1, 1],
      ['2026-11-02', '', 'prod', 'general', 'web', 5, 7],
      // Untagged i-b: kept by id for the importer; pod3's namespace and cluster from its ARN.
      ['2026-11-02', 'i-b', 'prod', '', 'batch', 1, 2],
      ['2026-11-02', 'i-b', 'prod', '', 'web', 1, 1],
      ['2026-11-02', 'i-c', 'prod', '', 'web', 1, 1],
      ['2026-11-03', '', 'prod', 'general', 'web', 1, 1],
    ]);
  });

  it('over a generated month: 10 nodes, 300 pods (30 a node, as at the envelope), a month of daily lines', async () => {
    const month = await generatedMonth();
    await duck.c.run(`CREATE OR REPLACE VIEW month AS SELECT * FROM read_parquet('${month.dataFile}')`);
    const rows = await bothDialects('month', '2026-11');
    await collisionsRefused('month', '2026-11');
    // Pod p is on node p mod 10 in team-(p mod 40) and runs from day p mod 8 to day 30 - (7p mod 8): on day 1 (index
    // 0) the pods p ≡ 0 mod 8 run, 38 of 300 (0, 8, …, 296); they are in teams 0, 8, 16, 24, 32 (p mod 40).
    const day1 = rows.filter((r) => r.rowKind === 'split' && r.usageDay === '2026-11-01');
    expect(day1.reduce((n, r) => n + r.podCount, 0)).toBe(38);
    expect(new Set(day1.map((r) => r.namespace))).toEqual(new Set(['team-0', 'team-8', 'team-16', 'team-24', 'team-32']));
  });

  it('nested over several of DuckDB’s chunks, each resource’s days stored newest first: the flat part’s rows', async () => {
    // The sample's lines (2026-11-01 and 02) and the same again a day later, for 300 copies of each resource
    // (more groups than DuckDB's 2,048 rows a chunk; its unresourced lines once), stored newest day first so that a
    // group's days come out of list() in no useful order unless the reader puts them in order.
    await loadCurTable(duck.c, 'sample_one', CUR2_SAMPLE, scratch);
    await duck.c.run(`CREATE OR REPLACE TABLE sample_many AS
      SELECT * REPLACE (CASE WHEN line_item_resource_id IS NULL OR line_item_resource_id = '' THEN line_item_resource_id
        ELSE line_item_resource_id || '-' || CAST(i AS VARCHAR) END AS line_item_resource_id,
        line_item_usage_start_date + to_days(CAST(shift AS INTEGER)) AS line_item_usage_start_date)
      FROM sample_one, range(300) t(i), range(2) d(shift)
      WHERE i = 0 OR (line_item_resource_id IS NOT NULL AND line_item_resource_id <> '')
      ORDER BY line_item_usage_start_date + to_days(CAST(shift AS INTEGER)) DESC, i`);
    const parts = curAggregateParts({ table: 'sample_many', billingPeriod: '2026-11', dialect: 'duckdb' });
    const flat = await read(parts.notSplit);
    const nested = await readNested(parts.notSplitNested);
    expect(nested.chunks).toBeGreaterThan(1);
    // Some resource has several days, so their order is seen.
    expect(flat.some((r, i) => i > 0 && flat[i - 1]?.resourceId === r.resourceId && flat[i - 1]?.usageDay !== r.usageDay)).toBe(true);
    expect(nested.rows.length).toBe(flat.length);
    expect(stored(nested.rows)).toEqual(stored(flat));
  });

  it.each(COLLIDING)('the import’s engine, its hashed keys colliding (%s), gives the rows of the exact form', async (_, keyHash) => {
    const { dataFile } = await generatedMonth();
    const rowsOf = async (engine: CurEngine): Promise<CurAggregateRow[]> => {
      const rows: CurAggregateRow[] = [];
      try {
        await engine.aggregate('2026-11', 'parquet', [dataFile], (chunk) => rows.push(...chunk));
      } finally {
        engine.close();
      }
      return rows;
    };
    const hashed = await rowsOf(await CurEngine.open());
    const colliding = await rowsOf(await CurEngine.open({ keyHash }));
    // 300 pods over 30 days: several split rows a day, so every colliding hash merges something.
    expect(hashed.filter((r) => r.rowKind === 'split').length).toBeGreaterThan(30);
    expect(stored(colliding)).toEqual(stored(hashed));
  });
});
