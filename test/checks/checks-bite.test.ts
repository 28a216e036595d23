import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, it } from 'vitest';

/*
 * `npm test` runs the Prettier check, the type check and ESLint (with the import boundaries) beside the tests
 * (scripts/test.mjs; the type check and ESLint in one process, scripts/typecheck-lint.mjs, ESLint's type-aware rules
 * reading the type check's programs), prints their outputs in that order, and stops the tests when one fails. This
 * proves each of them bites: a scratch copy of the configuration and a few real source files (with what they import;
 * node_modules linked) gets files each with one kind of defect — a type error in each program, each type-aware rule
 * broken in a file of each program — and `npm test` there fails, each check naming its files and what is wrong and
 * none blaming another check's file; the scratch copy's one test, which would pass after four minutes, is stopped. One
 * run for all of them: each run costs about 40 s of CPU (tsc and ESLint).
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CONFIG = [
  'package.json',
  'scripts/check.mjs',
  'scripts/test.mjs',
  'scripts/typecheck-lint.mjs',
  'tsconfig.json',
  'web/tsconfig.json',
  'eslint.config.js',
  '.prettierrc.json',
  '.prettierignore',
];
/** A core module, and a web module that imports types from server/schemas: their imports come along. */
const SEEDS = ['core/labels.ts', 'web/src/features/teams/utils/team-series.ts'];
const scratchDirs: string[] = [];

/** Where scripts/check.mjs keeps its caches: a folder per checkout, named after it (the scratch copy's too). */
const CHECK_CACHE = join(ROOT, 'node_modules', '.cache', 'nodepool-ledger', 'check');

afterAll(() => {
  for (const d of scratchDirs) {
    rmSync(d, { recursive: true, force: true });
    if (!existsSync(CHECK_CACHE)) continue;
    for (const name of readdirSync(CHECK_CACHE))
      if (name.startsWith(`${basename(d)}-`)) rmSync(join(CHECK_CACHE, name), { recursive: true, force: true });
  }
});

/**
 * The seeds and every project file they import, transitively: relative imports (.js names .ts, web/ omits it) and
 * web/'s `@schemas/` alias for server/schemas (web/tsconfig.json's paths).
 */
function withImports(seeds: readonly string[]): string[] {
  const found = new Set<string>();
  const visit = (file: string): void => {
    if (found.has(file)) return;
    found.add(file);
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+|@schemas\/[^']+)'/g)) {
      const spec = m[1];
      const base = (
        spec.startsWith('@schemas/') ? join('server/schemas', spec.slice('@schemas/'.length)) : join(dirname(file), spec)
      ).replace(/\.js$/, '');
      const hit = ['.ts', '.tsx', '/index.ts'].map((ext) => base + ext).find((f) => existsSync(join(ROOT, f)));
      if (hit !== undefined) visit(hit);
    }
  };
  for (const s of seeds) visit(s);
  return [...found];
}

function scratchTree(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-checks-'));
  scratchDirs.push(dir);
  for (const f of [...CONFIG, ...withImports(SEEDS)]) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    cpSync(join(ROOT, f), join(dir, f));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

function npm(dir: string, script: string): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    // The checks at the test's priority: here they are the test's own work, not a filler of the suite's idle time.
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', LEDGER_CHECK_NICE: '0' };
    delete env.FORCE_COLOR; // some tools colour whenever it is set, even to 0
    const child = spawn('npm', ['run', script], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('close', (code) => done({ code, output }));
  });
}

/**
 * Code breaking each of ESLint's type-aware rules once, and nothing else (Prettier, tsc and the untyped rules have
 * nothing to say of it). The rules read the type checker of the file's program (scripts/typecheck-lint.mjs hands ESLint
 * the type check's two programs), so it goes in a file of each: core/ (tsconfig.json) and web/src/ (web/tsconfig.json).
 */
const PROMISE_MISUSE = [
  'const later = (): Promise<number> => Promise.resolve(1);',
  '',
  'export function scratchFloating(): void {',
  '  later();',
  '}',
  '',
  'export function scratchMisused(list: number[]): void {',
  '  list.forEach(async () => {',
  '    await later();',
  '  });',
  '}',
  '',
  'export async function scratchNotThenable(n: number): Promise<number> {',
  '  return await n;',
  '}',
];
/**
 * Where each rule fires in PROMISE_MISUSE, line:column as the stylish report prints it (1-based): the bare call
 * `later();` is line 4, indented 2 (column 3); the async callback of forEach, where a void return was expected, starts
 * at `async` on line 8 after `  list.forEach(` (2 + 13 = 15 characters: column 16); `await n` is line 14, column 10
 * after `  return ` (9 characters).
 */
const PROMISE_RULES = [
  /\b4:3\s+error\b.*no-floating-promises/,
  /\b8:16\s+error\b.*no-misused-promises/,
  /\b14:10\s+error\b.*await-thenable/,
];

/** One defect per file, so each check's part of the output can be held to naming its own. */
const DEFECTS = [
  {
    kind: 'a formatting error',
    check: 'format:check',
    file: 'core/scratch-format.ts',
    lines: ['export const scratchFormatError = {a:1};'],
    says: [/\[warn\] core\/scratch-format\.ts/],
  },
  {
    kind: 'a type error',
    check: 'typecheck',
    file: 'core/scratch-types.ts',
    lines: ["export const scratchTypeError: number = 'not a number';"],
    says: [/core\/scratch-types\.ts\(1,14\): error TS2322/],
  },
  {
    // `tsc -p . && tsc -p web` stopped at the Node tree's errors; both programs are checked now, and both reported.
    kind: "a type error in web/ (the Node tree's error notwithstanding)",
    check: 'typecheck',
    file: 'web/src/scratch-types.ts',
    lines: ['export const scratchWebTypeError: string = 42;'],
    says: [/web\/src\/scratch-types\.ts\(1,14\): error TS2322/],
  },
  {
    // Both are ESLint's, which reports every problem it finds.
    kind: 'a lint error and a boundary violation (core/ importing server/)',
    check: 'lint',
    file: 'core/scratch-lint.ts',
    lines: ['export const scratchLintError = (x: any): unknown => x;', "export type { TeamCostRow } from '../server/schemas/teams.js';"],
    says: [/Unexpected any[\s\S]*no-explicit-any/, /core\/ imports nothing of ours/],
  },
  {
    kind: "each type-aware rule's violation in the Node tree's program",
    check: 'lint',
    file: 'core/scratch-promises.ts',
    lines: PROMISE_MISUSE,
    says: PROMISE_RULES,
  },
  {
    kind: "each type-aware rule's violation in web/'s program",
    check: 'lint',
    file: 'web/src/scratch-promises.ts',
    lines: PROMISE_MISUSE,
    says: PROMISE_RULES,
  },
];

/** A clean test file (Prettier, tsc and ESLint have nothing to say of it) that passes after four minutes. */
const SLOW_TEST = 'core/scratch-slow.test.ts';
const SLOW_TEST_TEXT = `import { it } from 'vitest';

it('passes after four minutes', () => new Promise<void>((done) => setTimeout(done, 240_000)), 280_000);
`;

/** The part of `npm test`'s output under one check's `> name` header (scripts/check.mjs prints them in order). */
function section(output: string, check: string): string {
  const start = output.indexOf(`\n> ${check}\n`);
  if (start < 0) return '';
  const next = output.slice(start + 1).search(/\n> (format:check|typecheck|lint)\n|\ncheck (passed|failed)/);
  return next < 0 ? output.slice(start) : output.slice(start, start + 1 + next);
}

/**
 * What a check says of one file: ESLint's stylish report has a block per file (its path on a line, then its problems,
 * then a blank line); Prettier and tsc give a line per problem, each starting with the path.
 */
function fileReport(part: string, check: string, file: string): string {
  if (check !== 'lint')
    return part
      .split('\n')
      .filter((l) => l.includes(file))
      .join('\n');
  const start = part.search(new RegExp(`^.*${file.replaceAll('.', '\\.')}$`, 'm'));
  return start < 0 ? '' : part.slice(start).split('\n\n')[0];
}

describe('the checks of npm test bite', () => {
  // One scratch copy holds all three defects and one `npm test` finds them: the checks run side by side, and each
  // reports on its own file only (a clean file is not blamed, a defect is not missed because another check failed).
  let run: { code: number | null; output: string; dir: string };
  beforeAll(async () => {
    const dir = scratchTree();
    for (const d of DEFECTS) writeFileSync(join(dir, d.file), `${d.lines.join('\n')}\n`);
    // What the tests of the scratch copy are (its build has a page to build): one test that passes after four
    // minutes, unless the failed checks stop it first.
    writeFileSync(join(dir, 'index.html'), '<!doctype html>\n<title>scratch</title>\n');
    writeFileSync(join(dir, SLOW_TEST), SLOW_TEST_TEXT);
    run = { ...(await npm(dir, 'test')), dir };
  }, 300_000);

  it.for(DEFECTS)('npm test fails on $kind, naming the file', ({ check, file, says }, { expect }) => {
    expect(run.code).not.toBe(0);
    expect(run.output).toMatch(new RegExp(`check failed: .*\\b${check}\\b`));
    const part = section(run.output, check);
    const own = fileReport(part, check, file);
    for (const s of says) expect(own).toMatch(s);
    for (const other of DEFECTS.filter((d) => d.check !== check)) expect(part).not.toContain(other.file);
    // The failed checks stopped the tests: the slow one never passed.
    expect(run.output).toContain('npm test: the checks failed, so the tests were stopped.');
    expect(run.output).not.toMatch(/\b1 passed\b/);
  });
});
