import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findCurPeriods, sha256OfFile } from './export-layout.js';

const root = mkdtempSync(join(tmpdir(), 'cur-layout-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function put(path: string, body = 'x'): string {
  const full = join(root, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, body);
  return full;
}

describe("findCurPeriods: AWS Data Exports' folder layout", () => {
  it('finds the periods under any folder above the export, with file keys relative to the export', () => {
    put('a/prefix/exp/data/BILLING_PERIOD=2026-10/exp-00001.snappy.parquet');
    put('a/prefix/exp/data/BILLING_PERIOD=2026-11/exp-00001.snappy.parquet');
    put('a/prefix/exp/data/BILLING_PERIOD=2026-11/exp-00002.snappy.parquet');
    put('a/prefix/exp/data/BILLING_PERIOD=2026-11/notes.txt');
    const periods = findCurPeriods(join(root, 'a'));
    expect(periods.map((p) => [p.billingPeriod, p.files.map((f) => f.fileKey)])).toEqual([
      ['2026-10', ['data/BILLING_PERIOD=2026-10/exp-00001.snappy.parquet']],
      ['2026-11', ['data/BILLING_PERIOD=2026-11/exp-00001.snappy.parquet', 'data/BILLING_PERIOD=2026-11/exp-00002.snappy.parquet']],
    ]);
    expect(periods[0]?.exportRoot).toBe(join(root, 'a/prefix/exp'));
  });

  it("reads exactly the manifest's dataFiles: a 'create new' export's older delivery beside it is left out", () => {
    put('b/exp/data/BILLING_PERIOD=2026-11/exec-old/exp-00001.csv.gz');
    put('b/exp/data/BILLING_PERIOD=2026-11/exec-new/exp-00001.csv.gz');
    put(
      'b/exp/metadata/BILLING_PERIOD=2026-11/exp-Manifest.json',
      JSON.stringify({ executionId: 'exec-new', dataFiles: ['s3://bkt/p/exp/data/BILLING_PERIOD=2026-11/exec-new/exp-00001.csv.gz'] }),
    );
    const [period] = findCurPeriods(join(root, 'b/exp'));
    expect(period?.executionId).toBe('exec-new');
    expect(period?.files.map((f) => [f.fileKey, f.format])).toEqual([['data/BILLING_PERIOD=2026-11/exec-new/exp-00001.csv.gz', 'csv.gz']]);
  });

  it('refuses two exports of one month, Parquet mixed with CSV, and a manifest that is not one, naming them', () => {
    put('c/one/data/BILLING_PERIOD=2026-11/one-00001.snappy.parquet');
    put('c/two/data/BILLING_PERIOD=2026-11/two-00001.snappy.parquet');
    expect(() => findCurPeriods(join(root, 'c'))).toThrow(
      `billing period 2026-11 is in two exports, ${join(root, 'c/one')} and ${join(root, 'c/two')}`,
    );
    put('d/exp/data/BILLING_PERIOD=2026-11/exp-00001.snappy.parquet');
    put('d/exp/data/BILLING_PERIOD=2026-11/exp-00002.csv.gz');
    expect(() => findCurPeriods(join(root, 'd'))).toThrow('holds both Parquet and CSV files');
    put('e/exp/data/BILLING_PERIOD=2026-11/exp-00001.snappy.parquet');
    const manifest = put('e/exp/metadata/BILLING_PERIOD=2026-11/exp-Manifest.json', '{"dataFiles": "all"}');
    expect(() => findCurPeriods(join(root, 'e'))).toThrow(`${manifest}: not a Data Exports manifest`);
  });

  it('fingerprints a file by its sha256', async () => {
    // sha256("abc"), FIPS 180-2 appendix B.1
    expect(await sha256OfFile(put('f/abc', 'abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
