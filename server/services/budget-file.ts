import { Value } from '@sinclair/typebox/value';
import { LineCounter, parseDocument, type Node } from 'yaml';
import { budgetOf, type BudgetDeclaration } from '../../core/budget-validation.js';
import type { Db } from '../../db/open-db.js';
import { createBudgetRepository, type StoredBudget } from '../../db/repositories/budget-repository.js';
import { createClustersRepository } from '../../db/repositories/clusters-repository.js';
import { BudgetFileEntrySchema } from '../schemas/budgets.js';
import { unknownClusterText } from '../cluster-param.js';
import { declarationProblems, knownScopes } from './budget-service.js';

/**
 * A `--budgets FILE` (YAML, for GitOps): `budgets:` a list of the API's declarations. Applied idempotently in one
 * transaction: each budget it declares is written (the file wins over the API for those names; they become read-only
 * there), a file budget it no longer declares is removed, budgets made through the API under other names are kept.
 * Any problem (bad YAML, a bad field, an unknown NodePool/team/namespace, a currency not the data's, a name twice)
 * is reported entry by entry and nothing is stored.
 */

export class BudgetFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    super(`${file}: ${problems.length === 1 ? problems[0] : `${problems.length} problems:\n  ${problems.join('\n  ')}`}`);
    this.name = 'BudgetFileError';
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The declarations of a file's text, with their problems entry by entry (the known scopes come from `db`). */
export function readBudgetFile(db: Db, file: string, text: string): StoredBudget[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  /** `line N: ` of an entry's key in the file, or '' when the YAML does not say. */
  const lineOf = (path: (string | number)[]): string => {
    const node = doc.getIn(path, true) as Node | undefined;
    const start = node?.range?.[0];
    return start === undefined ? '' : `line ${lines.linePos(start).line}: `;
  };
  const clusters = createClustersRepository(db);
  if (doc.errors.length > 0)
    throw new BudgetFileError(
      file,
      doc.errors.map((e) => `bad YAML: ${e.message.split('\n')[0]}`),
    );
  const root: unknown = doc.toJS();
  if (root === null || root === undefined) return [];
  if (!isRecord(root) || !Array.isArray(root.budgets) || Object.keys(root).some((k) => k !== 'budgets'))
    throw new BudgetFileError(file, ['expected a mapping with one key, budgets: a list of budgets']);
  const known = knownScopes(db);
  const problems: string[] = [];
  const seen = new Set<string>();
  const budgets: StoredBudget[] = [];
  root.budgets.forEach((entry: unknown, i: number) => {
    const name = isRecord(entry) && typeof entry.name === 'string' ? entry.name : null;
    const where = `budgets[${i}]${name === null ? '' : ` (${name})`}`;
    const shape = [...Value.Errors(BudgetFileEntrySchema, entry)];
    if (shape.length > 0) {
      const first = shape[0];
      const field = first?.path.replace(/^\//, '').replaceAll('/', '.') || 'entry';
      problems.push(`${where}: ${field}: ${first?.message ?? 'invalid'}`);
      return;
    }
    const { cluster: clusterName, ...d } = entry as BudgetDeclaration & { cluster?: string };
    if (seen.has(d.name)) problems.push(`${where}: name: "${d.name}" is declared twice`);
    seen.add(d.name);
    const p = declarationProblems(d, known);
    if (p !== null) problems.push(`${where}: ${p}`);
    // A file's budget watches its `cluster`, or the whole ledger (every cluster's figures added) without one.
    const cluster = clusterName === undefined ? null : clusters.byName(clusterName);
    if (clusterName !== undefined && cluster === null)
      problems.push(
        `${where}: ${lineOf(['budgets', i, 'cluster'])}cluster: ${unknownClusterText(
          clusterName,
          clusters.list().map((c) => c.name),
        )}`,
      );
    else if (p === null)
      budgets.push({ ...budgetOf(d, known, 'file'), sourceFile: file, clusterId: cluster?.id ?? null, cluster: cluster?.name ?? null });
  });
  if (problems.length > 0) throw new BudgetFileError(file, problems);
  return budgets;
}

/** Reads, checks and applies a budgets file on a writable `db` (the caller holds the collector lock). */
export function applyBudgetFile(db: Db, file: string, text: string, atMs: number): { written: number; removed: string[] } {
  const budgets = readBudgetFile(db, file, text);
  return createBudgetRepository(db).applyFile(budgets, atMs);
}
