import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../db/open-db.js';
import { createCurRepository, type CurNodePoolDay } from '../../db/repositories/cur-repository.js';
import { AWS_EKS_EXAMPLE } from '../../test/fixtures/aws-split-examples.js';
import { awsExampleCurRows } from '../../test/fixtures/cur/aws-split-cur.js';
import { CUR2_SAMPLE, SAMPLE_KNOWN_NODECLAIM } from '../../test/fixtures/cur/cur2-sample.js';
import { writeCurExport, type WrittenExport } from '../../test/fixtures/cur/write-export.js';
import { importCurFolder } from './import-folder.js';

const dir = mkdtempSync(join(tmpdir(), 'cur-import-'));
let parquet: WrittenExport;
let csv: WrittenExport;
const ALL = { fromMs: 0, toMs: Date.UTC(2100, 0, 1) };
const NOW = Date.UTC(2026, 11, 3);

function freshDb(name: string): Db {
  const db = openDb({ path: join(dir, `${name}.db`) });
  const k = SAMPLE_KNOWN_NODECLAIM;
  db.prepare(`INSERT INTO nodeclaims (name, nodepool, instance_id, created_at, first_seen, last_seen) VALUES (?, ?, ?, 0, 0, 0)`).run(
    k.name,
    k.nodePool,
    k.instanceId,
  );
  return db;
}

/** Every CUR table's rows (source column left out: it names the folder), in a stable order. */
function dump(db: Db): string {
  const tables = ['cur_periods', 'cur_files', 'cur_nodepool_daily', 'cur_namespace_daily', 'cur_resource_daily'];
  return JSON.stringify(tables.map((t) => db.prepare(`SELECT * FROM ${t} ORDER BY 1, 2, 3, 4, 5, 6`).all()));
}
const rounded = (n: number): number => Math.round(n * 1e6) / 1e6;
const pick = (days: CurNodePoolDay[], day: string, nodePool: string, category: string) =>
  days
    .filter((d) => d.day === day && d.nodePool === nodePool && d.category === category)
    .map((d) => ({
      by: d.attributedBy,
      u: rounded(d.unblendedUsd),
      a: rounded(d.amortizedUsd),
      nu: rounded(d.netUnblendedUsd),
      na: rounded(d.netAmortizedUsd),
    }));

beforeAll(async () => {
  parquet = await writeCurExport(join(dir, 'pq'), CUR2_SAMPLE, { format: 'parquet', parts: 2, manifest: true });
  csv = await writeCurExport(join(dir, 'csv'), CUR2_SAMPLE, { format: 'csv.gz', parts: 2 });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cur import of a local CUR 2.0 export (Parquet and gzip CSV, real DuckDB and SQLite files)', () => {
  it('per NodePool per day and category, the four metrics worked by hand', async () => {
    const db = freshDb('figures');
    const result = await importCurFolder(db, parquet.exportRoot, { now: NOW });
    expect(result.periods.map((p) => [p.billingPeriod, p.status, p.files, p.curRows])).toEqual([['2026-11', 'imported', 2, 17]]);
    const days = createCurRepository(db).nodePoolDays(ALL);
    // SavingsPlanCoveredUsage 4.608 + SavingsPlanNegation -4.608 + DiscountedUsage 0 = 0 unblended;
    // amortized: SP effective 3.2256 + 0 + RI effective 1.92 = 5.1456; net amortized 3.06432 + 1.824 = 4.88832.
    expect(pick(days, '2026-11-02', 'general', 'instances')).toEqual([
      { by: 'nodeclaim', u: 0.96, a: 0.96, nu: 0.912, na: 0.912 }, // i-0bbb: no tag, our NodeClaim general-9qz4m
      { by: 'tag', u: 0, a: 5.1456, nu: 0, na: 4.88832 },
    ]);
    expect(pick(days, '2026-11-02', 'general', 'volumes')).toEqual([{ by: 'tag', u: 0.27, a: 0.27, nu: 0.2565, na: 0.2565 }]);
    expect(pick(days, '2026-11-02', 'general', 'data-transfer')).toEqual([{ by: 'tag', u: 0.1, a: 0.1, nu: 0.095, na: 0.095 }]);
    expect(pick(days, '2026-11-02', 'spot-batch', 'instances')).toEqual([{ by: 'tag', u: 0.85, a: 0.85, nu: 0.8075, na: 0.8075 }]);
    // Account lines: SP fee 3.60 (amortized: unused 3.60 - 3.2256 = 0.3744; net x 3.42/3.60 = 0.35568),
    // credit -5, tax 1 -> unblended -0.40, amortized -3.6256, net unblended -0.58, net amortized -3.64432.
    expect(pick(days, '2026-11-02', '', 'other')).toEqual([{ by: 'none', u: -0.4, a: -3.6256, nu: -0.58, na: -3.64432 }]);
    // RIFee: 43.80 billed, amortized = unused upfront 2 + unused recurring 3; net 1.9 + 2.85.
    expect(pick(days, '2026-11-01', '', 'other')).toEqual([{ by: 'none', u: 43.8, a: 5, nu: 41.61, na: 4.75 }]);
    const [period] = createCurRepository(db).periods();
    expect(period).toMatchObject({
      curRows: 17,
      files: 2,
      splitLines: 6,
      nodeClaimFilledLines: 1,
      unattributedLines: 0,
      manifestExecutionId: 'exec-2026-11',
    });
    db.close();
  });

  it('split lines per namespace, joined to the NodePool through the parent instance (tag, or our NodeClaim)', async () => {
    const db = freshDb('split');
    await importCurFolder(db, parquet.exportRoot, { now: NOW });
    const rows = createCurRepository(db)
      .namespaceDays(ALL)
      .map((n) => [
        n.day,
        n.cluster,
        n.nodePool,
        n.namespace,
        rounded(n.splitCostUsd),
        rounded(n.unusedCostUsd),
        rounded(n.netSplitCostUsd),
        n.vcpuHours,
        n.memoryGbHours,
        n.podCount,
      ]);
    // payments: pay-1 on i-0aaa (1.20 + 0.40 split, 0.10 + 0.05 unused) + pay-2 on i-0bbb (0.30 + 0.10): 2.00 / 0.15.
    // search: srch-1 on i-0aaa: 0.80 + 0.30 / 0.05 + 0.02.
    expect(rows).toEqual([
      ['2026-11-02', 'prod', 'general', 'payments', 2, 0.15, 1.9, 58, 232, 2],
      ['2026-11-02', 'prod', 'general', 'search', 1.1, 0.07, 1.045, 24, 96, 1],
    ]);
    db.close();
  });

  it('per resource per day for Explain: line item type, commitment, NodeClaim filled where the tag is missing', async () => {
    const db = freshDb('resource');
    await importCurFolder(db, parquet.exportRoot, { now: NOW });
    const lines = createCurRepository(db).resourceDays(ALL, { resourceId: 'i-0aaa1111aaaa1111a' });
    expect(
      lines.map((l) => [
        l.lineItemType,
        l.usageType,
        l.category,
        l.nodePool,
        l.nodeClaim,
        l.commitmentArn.slice(0, 25),
        rounded(l.amortizedUsd),
      ]),
    ).toEqual([
      ['SavingsPlanCoveredUsage', 'USE2-BoxUsage:m5.xlarge', 'instances', 'general', 'general-7xk2p', 'arn:aws:savingsplans::111', 3.2256],
      ['SavingsPlanNegation', 'USE2-BoxUsage:m5.xlarge', 'instances', 'general', 'general-7xk2p', 'arn:aws:savingsplans::111', 0],
      ['Usage', 'USE2-DataTransfer-Regional-Bytes', 'data-transfer', 'general', 'general-7xk2p', '', 0.1],
    ]);
    const filled = createCurRepository(db).resourceDays(ALL, { resourceId: 'i-0bbb2222bbbb2222b' });
    expect(filled.map((l) => [l.nodePool, l.nodeClaim, l.attributedBy])).toEqual([['general', 'general-9qz4m', 'nodeclaim']]);
    db.close();
  });

  it('gzip CSV (maps as JSON objects) imports to the same rows as Parquet', async () => {
    const a = freshDb('same-pq');
    const b = freshDb('same-csv');
    await importCurFolder(a, parquet.exportRoot, { now: NOW, source: 'one-export' });
    await importCurFolder(b, csv.exportRoot, { now: NOW, source: 'one-export' });
    const rows = (db: Db) => {
      const r = createCurRepository(db);
      return JSON.stringify([r.nodePoolDays(ALL), r.namespaceDays(ALL), r.resourceDays(ALL)]);
    };
    expect(rows(b)).toBe(rows(a));
    expect(createCurRepository(b).counts()).toEqual(createCurRepository(a).counts());
    a.close();
    b.close();
  });

  it('a re-import of the same files changes nothing, byte for byte; a changed file re-reads its period whole', async () => {
    const db = freshDb('again');
    await importCurFolder(db, csv.exportRoot, { now: NOW });
    const first = dump(db);
    const again = await importCurFolder(db, csv.exportRoot, { now: NOW + 86_400_000 });
    expect(again.periods.map((p) => p.status)).toEqual(['unchanged']);
    expect(dump(db)).toBe(first);
    // AWS re-states the period: one file loses its last line. The period is replaced, not added to.
    const [file] = csv.files['2026-11'] ?? [];
    if (file === undefined) throw new Error('no file written');
    const original = readFileSync(file);
    const lines = gunzipSync(original).toString().trimEnd().split('\n');
    writeFileSync(file, gzipSync(`${lines.slice(0, -1).join('\n')}\n`));
    try {
      const restated = await importCurFolder(db, csv.exportRoot, { now: NOW });
      expect(restated.periods.map((p) => [p.status, p.curRows])).toEqual([['imported', 16]]);
      expect(createCurRepository(db).counts().periods).toBe(1);
    } finally {
      writeFileSync(file, original);
    }
    db.close();
  });

  it('--since leaves older billing periods alone', async () => {
    const db = freshDb('since');
    const r = await importCurFolder(db, parquet.exportRoot, { now: Date.UTC(2027, 2, 15), sinceMs: 30 * 86_400_000 });
    expect(r.periods.map((p) => [p.billingPeriod, p.status])).toEqual([['2026-11', 'before-since']]);
    expect(createCurRepository(db).counts().periods).toBe(0);
    db.close();
  });
});

describe('cur import refuses a bad file by name and writes nothing of its period', () => {
  /** The Parquet file rewritten by DuckDB with `select` over its own rows. */
  const rewriteParquet = async (path: string, select: string): Promise<void> => {
    const duck = await DuckDBInstance.create(':memory:');
    const c = await duck.connect();
    try {
      await c.run(`COPY (SELECT ${select} FROM read_parquet('${path}')) TO '${path}.new' (FORMAT parquet)`);
    } finally {
      c.closeSync();
      duck.closeSync();
    }
    renameSync(`${path}.new`, path);
  };
  /** The CSV's lines, one of them changed by `edit`, gzipped again. */
  const editCsv = (path: string, edit: (lines: string[]) => string[]): void => {
    const lines = gunzipSync(readFileSync(path)).toString().trimEnd().split('\n');
    writeFileSync(path, gzipSync(`${edit(lines).join('\n')}\n`));
  };
  it.each([
    ['a truncated Parquet file', 'parquet' as const, (f: string) => truncateSync(f, 200)],
    ['a truncated gzip CSV', 'csv.gz' as const, (f: string) => truncateSync(f, Math.floor(readFileSync(f).length / 2))],
    [
      'a CSV row with extra fields',
      'csv.gz' as const,
      (f: string) => editCsv(f, (l) => [...l.slice(0, 2), `${l[2] ?? ''},x,y`, ...l.slice(3)]),
    ],
    [
      'a CSV cost that is not a number',
      'csv.gz' as const,
      (f: string) => editCsv(f, (l) => [l[0] ?? '', ...l.slice(1).map((line) => line.replace(',0.27,', ',0.27 USD,'))]),
    ],
    [
      // Its footer and schema are sound, so it passes the check before the statement; the statement's cast fails, and
      // the file that fails alone is named.
      'a Parquet cost that is not a number (written as text)',
      'parquet' as const,
      (f: string) => rewriteParquet(f, `* REPLACE (CAST(line_item_unblended_cost AS VARCHAR) || ' USD' AS line_item_unblended_cost)`),
    ],
  ])('%s', async (name, format, spoil) => {
    const db = freshDb(`bad-${name.replace(/\W+/g, '-')}`);
    const root = join(dir, `bad-${name.replace(/\W+/g, '-')}`);
    const written = await writeCurExport(root, CUR2_SAMPLE, { format, parts: 2 });
    // A good import first: the bad re-delivery must leave it as it was.
    await importCurFolder(db, written.exportRoot, { now: NOW });
    const before = dump(db);
    const files = written.files['2026-11'] ?? [];
    // The volume line (cost 0.27) is row 8 of 17: dealt to the second file (rows alternate).
    const second = files[1];
    if (second === undefined) throw new Error('no second file');
    await Promise.resolve(spoil(second));
    const refused: unknown = await importCurFolder(db, written.exportRoot, { now: NOW }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(Error);
    // The bad file by name, and only it.
    expect(String(refused)).toContain(second);
    expect(String(refused)).not.toContain(files[0] ?? 'the first file');
    expect(dump(db)).toBe(before);
    db.close();
  });

  it('a folder without CUR data, and a manifest naming a missing file', async () => {
    const db = freshDb('layout');
    await expect(importCurFolder(db, dir + '/nowhere')).rejects.toThrow('no such folder');
    const empty = mkdtempSync(join(dir, 'empty-'));
    await expect(importCurFolder(db, empty)).rejects.toThrow('no CUR 2.0 data found');
    const root = join(dir, 'manifest');
    const written = await writeCurExport(root, CUR2_SAMPLE, { format: 'parquet', parts: 2, manifest: true });
    const [first, second] = written.files['2026-11'] ?? [];
    if (first === undefined || second === undefined) throw new Error('no files');
    copyFileSync(second, `${second}.kept`);
    rmSync(second);
    await expect(importCurFolder(db, written.exportRoot)).rejects.toThrow(`lists ${second}, which is not in the folder`);
    expect(createCurRepository(db).counts().periods).toBe(0);
    db.close();
  });
});

describe("AWS's worked example of split cost allocation for EKS, as CUR lines, reproduced by the import", () => {
  const cents = (n: number): number => Math.round(n * 100) / 100;
  it('per pod to the cent (each pod in a namespace of its own): split, unused and total as AWS prints them (Table 4)', async () => {
    const db = freshDb('aws-example-pods');
    const written = await writeCurExport(
      join(dir, 'aws-pods'),
      awsExampleCurRows(AWS_EKS_EXAMPLE, (p) => p.name.toLowerCase()),
      { format: 'parquet' },
    );
    await importCurFolder(db, written.exportRoot, { now: NOW });
    const got = createCurRepository(db)
      .namespaceDays(ALL)
      .map((n) => [n.namespace, n.nodePool, cents(n.splitCostUsd), cents(n.unusedCostUsd), cents(n.splitCostUsd + n.unusedCostUsd)]);
    expect(got).toEqual(
      AWS_EKS_EXAMPLE.pods.map((p) => [
        p.name.toLowerCase(),
        'general',
        p.expected.splitCostUsd,
        p.expected.unusedCostUsd,
        p.expected.totalSplitCostUsd,
      ]),
    );
    db.close();
  });

  it("per namespace: AWS's totals (sums of its pod totals rounded to the cent) within those roundings, the instance's $1 all assigned", async () => {
    const db = freshDb('aws-example-ns');
    const written = await writeCurExport(
      join(dir, 'aws-ns'),
      awsExampleCurRows(AWS_EKS_EXAMPLE, (p) => p.namespace),
      { format: 'csv.gz' },
    );
    await importCurFolder(db, written.exportRoot, { now: NOW });
    const ns = createCurRepository(db).namespaceDays(ALL);
    const expected = AWS_EKS_EXAMPLE.expectedNamespaceUsd ?? {};
    expect(ns.map((n) => n.namespace)).toEqual(Object.keys(expected));
    for (const n of ns) {
      const pods = AWS_EKS_EXAMPLE.pods.filter((p) => p.namespace === n.namespace).length;
      expect(Math.abs(n.splitCostUsd + n.unusedCostUsd - (expected[n.namespace] ?? 0))).toBeLessThanOrEqual(0.005 * pods);
    }
    // Every resource is fully allocated or its unused part handed to the pods: the $1.00 hour is split whole.
    expect(cents(ns.reduce((s, n) => s + n.splitCostUsd + n.unusedCostUsd, 0))).toBe(AWS_EKS_EXAMPLE.amortizedCostUsdPerHour);
    const [instances] = createCurRepository(db).nodePoolDays(ALL);
    expect(instances).toMatchObject({ nodePool: 'general', category: 'instances', unblendedUsd: 1 });
    db.close();
  });
});
