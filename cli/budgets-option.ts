import type { Db } from '../db/open-db.js';
import { applyBudgetFile, readBudgetFile } from '../server/services/budget-file.js';
import type { BudgetsFile } from './budgets-flag.js';

/** What `--budgets FILE` does once read (cli/budgets-flag.ts): loaded only by a command given the flag. */

/** Checks the file against what `db` holds (throws BudgetFileError naming each bad entry); writes nothing. */
export function checkBudgetsFile(db: Db, file: BudgetsFile): void {
  readBudgetFile(db, file.path, file.text);
}

/** Applies the file on a writable `db` whose collector lock the caller holds; returns the line to print. */
export function applyBudgetsFile(db: Db, file: BudgetsFile, atMs: number): string {
  const { written, removed } = applyBudgetFile(db, file.path, file.text, atMs);
  return `budgets: ${written} declared in ${file.path}${removed.length > 0 ? `; removed ${removed.join(', ')} (no longer declared)` : ''}`;
}
