import type { BenchRow } from './report.js';

/** What every bench gets and gives back. */
export interface BenchContext {
  /** --quick: reduced scale, the whole run under 3 minutes. */
  quick: boolean;
  /** A scratch directory of this run (removed at the end). */
  tmp: string;
  /** Progress on stderr. */
  log: (message: string) => void;
}

export interface BenchResult {
  rows: BenchRow[];
  /** Raw measurements behind the rows, kept in bench/results.json. */
  details: Record<string, unknown>;
}

export const MB = 1024 * 1024;
