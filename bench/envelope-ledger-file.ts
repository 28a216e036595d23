import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchCache } from './cache.js';
import { lastJsonLine, measure } from './child.js';

/**
 * The envelope ledger (bench/envelope-ledger.ts: one snapshot of the scale scenario, `nodes` × 30 pods) at `path`,
 * written once per set of inputs and kept (bench/cache.ts, quick and full runs alike: at 5,000 nodes the scenario and
 * its write take a minute of CPU, the copy a second). Any bench serving the same ledger reads the same entry (one per
 * node count), so a run writes it once.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface EnvelopeLedger {
  nodes: number;
  pods: number;
  takenAt: number;
  /** What writing it took, ms (when it was written). */
  ms: number;
  /** When the copy was kept, or null when this run wrote it. */
  keptAt: string | null;
}

const ledgerCache = (nodes: number) =>
  benchCache<Omit<EnvelopeLedger, 'keptAt'>>(`envelope-ledger-${nodes}`, { nodes }, [
    'bench/envelope-ledger.ts',
    'bench/envelope-ledger-file.ts',
    'bench/scale-history.ts',
    'core',
    'db',
    'sandbox',
  ]);

/**
 * The ledger written into its cache entry unless it is kept already, nothing copied out (a run's preparation,
 * bench/prepare.ts, ahead of the benches that copy it); through a scratch file in `scratchDir`.
 */
export async function keepEnvelopeLedger(nodes: number, scratchDir: string): Promise<void> {
  const cache = ledgerCache(nodes);
  if (cache === null || cache.kept !== null) return;
  const scratch = join(scratchDir, `envelope-ledger-${nodes}-fill.db`);
  try {
    await envelopeLedgerFile(nodes, scratch);
  } finally {
    for (const f of [scratch, `${scratch}-wal`, `${scratch}-shm`]) rmSync(f, { force: true });
  }
}

export async function envelopeLedgerFile(nodes: number, path: string): Promise<EnvelopeLedger> {
  const cache = ledgerCache(nodes);
  if (cache?.kept) {
    copyFileSync(join(cache.dir, 'ledger.db'), path);
    return cache.kept;
  }
  const made = await measure(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'bench', 'envelope-ledger.ts'), '--nodes', String(nodes), '--out', path],
    {
      timeoutMs: 900_000,
    },
  );
  if (made.code !== 0) throw new Error(`writing the envelope ledger failed (${made.code}): ${made.stderr.slice(-800)}`);
  const ledger = lastJsonLine<Omit<EnvelopeLedger, 'keptAt'>>(made.stdout);
  if (cache) {
    copyFileSync(path, join(cache.dir, 'ledger.db'));
    cache.keep({ nodes: ledger.nodes, pods: ledger.pods, takenAt: ledger.takenAt, ms: ledger.ms });
  }
  return { ...ledger, keptAt: null };
}
