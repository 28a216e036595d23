import { readFileSync } from 'node:fs';
import { UsageError } from './usage-error.js';

/**
 * `--budgets FILE` on serve, collect and demo: budgets declared in YAML for GitOps (docs/budgets-and-alerts.md), applied at
 * start in one transaction — the file wins over the dashboard for the names it declares (they are read-only there),
 * a budget the file no longer declares is removed, and any problem names its entry and stores nothing.
 */
export const BUDGETS_FLAG_HELP = `  --budgets FILE    budgets declared in YAML (budgets: a list of {name, scope, period, amount, ...};
                    docs/budgets-and-alerts.md), applied at start: the file wins over the dashboard for what it declares; a bad
                    entry is refused by name and nothing is stored`;

export interface BudgetsFile {
  path: string;
  text: string;
}

/** The file's text, or null without the flag; an unreadable file is a UsageError. */
export function readBudgetsFlag(path: string | undefined): BudgetsFile | null {
  if (path === undefined) return null;
  try {
    return { path, text: readFileSync(path, 'utf8') };
  } catch (err) {
    throw new UsageError(`--budgets ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}
