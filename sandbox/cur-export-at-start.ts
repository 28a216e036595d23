import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeSandboxCurExport } from './cur/write-export.js';
import type { UsageModel } from './scenario/usage.js';
import type { Scenario } from './scenario/types.js';
import { CUR_BUCKET, CUR_EXPORT_NAME, CUR_PREFIX, type SandboxCurLocation } from './serve/cur-endpoints.js';

/**
 * The sandbox's CUR 2.0 export (Parquet), written into the folder its S3 endpoint serves as a bucket, unless the one
 * there is of the same history (scenario, seed, Karpenter release, end): a stamp beside the bucket says which.
 * A different history replaces the export whole (a period of the old one must not linger for the import to find).
 */
export interface SandboxCurExport {
  written: boolean;
  billingPeriods: string[];
  seconds: number;
}

export async function ensureSandboxCurExport(
  scenario: Scenario,
  usage: UsageModel,
  cur: SandboxCurLocation,
  options: { force?: boolean; onProgress?: (done: number, total: number, billingPeriod: string) => void } = {},
): Promise<SandboxCurExport> {
  const started = performance.now();
  const stampPath = join(cur.bucketDir, '..', `${CUR_BUCKET}.stamp`);
  const stamp = JSON.stringify({ scenario: scenario.name, seed: scenario.seed, karpenter: scenario.karpenterVersion, end: scenario.end });
  const current = existsSync(stampPath) ? readFileSync(stampPath, 'utf8') : null;
  if (options.force !== true && current === stamp && existsSync(cur.exportDir)) {
    const periods = JSON.parse(readFileSync(join(cur.bucketDir, '..', `${CUR_BUCKET}.periods.json`), 'utf8')) as string[];
    return { written: false, billingPeriods: periods, seconds: (performance.now() - started) / 1000 };
  }
  rmSync(stampPath, { force: true });
  rmSync(cur.exportDir, { recursive: true, force: true });
  const written = await writeSandboxCurExport(scenario, cur.bucketDir, {
    format: 'parquet',
    exportName: CUR_EXPORT_NAME,
    prefix: CUR_PREFIX,
    bucket: CUR_BUCKET,
    usage,
    ...(options.onProgress !== undefined ? { onProgress: options.onProgress } : {}),
  });
  const billingPeriods = written.periods.map((p) => p.billingPeriod);
  writeFileSync(join(cur.bucketDir, '..', `${CUR_BUCKET}.periods.json`), JSON.stringify(billingPeriods));
  writeFileSync(stampPath, stamp);
  return { written: true, billingPeriods, seconds: (performance.now() - started) / 1000 };
}
