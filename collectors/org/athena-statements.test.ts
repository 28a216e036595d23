import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TrinoSQL } from 'dt-sql-parser';
import { describe, expect, it } from 'vitest';
import { curAggregateStatement } from '../cur/aggregate-statement.js';
import { overviewStatement, teamsStatement } from '../../server/org/org-statements.js';

/*
 * Every statement we send to Athena, parsed with a Trino grammar (dt-sql-parser's TrinoSQL, pinned in package.json)
 * and every function it calls looked up in Trino's own list of functions (test/trino/functions.txt): the sandbox runs
 * these statements with DuckDB, which takes much Trino does not (`x::varchar`, `list_value(…)`, `strftime(…)`), so a
 * DuckDB-only construct fails here instead of in a user's Athena.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TRINO_FUNCTIONS = new Set(
  readFileSync(join(ROOT, 'test', 'trino', 'functions.txt'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#')),
);

const trino = new TrinoSQL();

interface Node {
  children?: Node[] | null;
  constructor: { name: string };
  functionName?: () => { getText: () => string };
}

/** One parse: the syntax errors, and the names of the functions the statement calls (lower case). */
function parsed(sql: string): { syntax: string[]; functions: string[] } {
  const syntax: string[] = [];
  const names: string[] = [];
  const walk = (n: Node): void => {
    if (n.constructor.name === 'FunctionCallContext' && n.functionName !== undefined) names.push(n.functionName().getText().toLowerCase());
    for (const c of n.children ?? []) walk(c);
  };
  walk(trino.parse(sql, (e) => syntax.push(`syntax: ${e.message}`)) as unknown as Node);
  return { syntax, functions: [...new Set(names)].sort() };
}

/** Why Trino would refuse the statement: its syntax errors, then the functions it does not have. */
function trinoProblems(sql: string): string[] {
  const { syntax, functions } = parsed(sql);
  if (syntax.length > 0) return syntax;
  return functions.filter((f) => !TRINO_FUNCTIONS.has(f)).map((f) => `not a Trino function: ${f}`);
}

const STATEMENTS: [string, string][] = [
  ['serve --org: the Overview', overviewStatement('2026-11-01', '2026-11-04')],
  ['serve --org: Teams', teamsStatement('2026-11-01', '2026-11-04')],
  [
    'cur athena: a period of a Data Export table (billing_period partition)',
    curAggregateStatement({ table: 'cid_data_export.cur2', billingPeriod: '2026-11', partitionColumn: 'billing_period' }),
  ],
  ['cur athena: a table without partition column', curAggregateStatement({ table: 'cur2', billingPeriod: '2026-12' })],
];

describe('every statement sent to Athena is Trino SQL', () => {
  it.each(STATEMENTS)('%s', (_name, sql) => {
    expect(trinoProblems(sql)).toEqual([]);
    // The walk finds the calls (an empty list would make the function check vacuous).
    expect(parsed(sql).functions.length).toBeGreaterThan(0);
  });

  it('reads the functions a statement calls', () => {
    expect(parsed(teamsStatement('2026-11-01', '2026-11-02')).functions).toEqual(['max_by', 'sum']);
  });

  it.each([
    ['a DuckDB list constructor', 'SELECT list_value(1, 2) AS xs', 'not a Trino function: list_value'],
    [
      "DuckDB's strftime (Trino: date_format)",
      "SELECT strftime(hour_start, '%Y-%m-%d') AS day FROM nodepool_hour",
      'not a Trino function: strftime',
    ],
    ["DuckDB's :: cast", 'SELECT cost_usd::varchar FROM nodepool_hour', 'syntax:'],
    ["DuckDB's GROUP BY ALL", 'SELECT nodepool, SUM(cost_usd) FROM nodepool_hour GROUP BY ALL', 'syntax:'],
  ])('refuses %s', (_name, sql, problem) => {
    expect(trinoProblems(sql).join('\n')).toContain(problem);
  });
});
