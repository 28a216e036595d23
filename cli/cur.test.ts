import { mkdtempSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CUR2_SAMPLE } from '../test/fixtures/cur/cur2-sample.js';
import { writeCurExport, type WrittenExport } from '../test/fixtures/cur/write-export.js';
import { main } from './main.js';

/** `nodepool-ledger cur import PATH` through main() itself, on a CUR 2.0 export written to a temp folder. */

const dir = mkdtempSync(join(tmpdir(), 'cur-cli-'));
let written: WrittenExport;
beforeAll(async () => {
  written = await writeCurExport(dir, CUR2_SAMPLE, { format: 'parquet', parts: 2, manifest: true });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

async function run(argv: string[]): Promise<{ code: number; err: string; out: string }> {
  const err: string[] = [];
  const out: string[] = [];
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  const code = await main(argv);
  return { code, err: err.join('\n'), out: out.join('\n') };
}

describe('nodepool-ledger cur import', () => {
  it('imports a folder, says what it wrote and what stayed without a NodePool; the second run skips the unchanged period', async () => {
    const db = join(dir, 'ledger.db');
    const first = await run(['cur', 'import', dir, '--db', db, '--quiet']);
    expect(first).toMatchObject({ code: 0, err: '' });
    expect(first.out).toContain(
      '2026-11  imported 2 files, 17 CUR lines (6 pod split lines) -> 7 NodePool-day rows, 3 namespace-day rows, 9 resource-day rows; ' +
        '1 instance/volume/transfer line without a NodePool ($0.96 unblended)',
    );
    const second = await run(['cur', 'import', written.exportRoot, '--db', db, '--quiet', '--since', '3650d']);
    expect(second.out).toContain('2026-11  unchanged: 2 files as last imported (17 CUR lines)');
  });

  it('refuses a bad file by name (exit 1), a missing PATH or a bad --since with the usage (exit 2)', async () => {
    const bad = mkdtempSync(join(dir, 'bad-'));
    const export2 = await writeCurExport(bad, CUR2_SAMPLE, { format: 'parquet', parts: 2 });
    const file = export2.files['2026-11']?.[1] ?? '';
    truncateSync(file, 100);
    const r = await run(['cur', 'import', bad, '--db', join(bad, 'l.db'), '--quiet']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`cur import: ${file}: cannot be read as Parquet CUR 2.0`);
    expect(await run(['cur', 'import', '--db', join(bad, 'l.db')])).toMatchObject({ code: 2 });
    const since = await run(['cur', 'import', bad, '--since', 'soon']);
    expect(since.code).toBe(2);
    expect(since.err).toContain('--since must be a positive duration');
    expect((await run(['cur', 'export'])).err).toContain('unknown cur subcommand "export"');
    expect((await run(['serve', 'extra'])).code).toBe(2);
  });
});
