import { spawn } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, it } from 'vitest';

/*
 * `npm test` runs the Prettier check, the type check and ESLint (with the import boundaries), in that order and
 * stopping at the first that fails, before any test. This proves each of them bites: a scratch copy of the
 * configuration and a few real source files (with what they import; node_modules linked) gets a bad line, and
 * `npm test` there fails naming the file and what is wrong. The copy is otherwise clean: the type error gets past
 * Prettier, and the lint and boundary errors past Prettier and the type check. One copy at a time: each run is a
 * few seconds of CPU (the ESLint one about 20), and side by side on a busy machine each only gets slower.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CONFIG = ['package.json', 'tsconfig.json', 'web/tsconfig.json', 'eslint.config.js', '.prettierrc.json', '.prettierignore'];
/** A core module, and a web module that imports types from server/schemas: their imports come along. */
const SEEDS = ['core/labels.ts', 'web/src/features/teams/utils/team-series.ts'];
const scratchDirs: string[] = [];

afterAll(() => {
  for (const d of scratchDirs) rmSync(d, { recursive: true, force: true });
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
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    delete env.FORCE_COLOR; // some tools colour whenever it is set, even to 0
    const child = spawn('npm', ['run', script], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('close', (code) => done({ code, output }));
  });
}

const DEFECTS = [
  {
    kind: 'a formatting error',
    lines: ['export const scratchFormatError = {a:1};'],
    says: [/> prettier --check[\s\S]*\[warn\] core\/labels\.ts/],
  },
  {
    kind: 'a type error',
    lines: ["export const scratchTypeError: number = 'not a number';"],
    says: [/All matched files use Prettier code style![\s\S]*core\/labels\.ts\(\d+,\d+\): error TS2322/],
  },
  {
    // Both are ESLint's, which reports every problem it finds: one run tries both.
    kind: 'a lint error and a boundary violation (core/ importing server/)',
    lines: ['export const scratchLintError = (x: any): unknown => x;', "export type { TeamCostRow } from '../server/schemas/teams.js';"],
    says: [/> eslint [\s\S]*Unexpected any[\s\S]*no-explicit-any/, /> eslint [\s\S]*core\/ imports nothing of ours/],
  },
];

describe('the checks before the tests bite', () => {
  it.for(DEFECTS)('npm test fails on $kind, naming the file', { timeout: 300_000 }, async ({ lines, says }, { expect }) => {
    const dir = scratchTree();
    appendFileSync(join(dir, 'core/labels.ts'), `\n${lines.join('\n')}\n`);
    const r = await npm(dir, 'test');
    expect(r.code).not.toBe(0);
    for (const s of says) expect(r.output).toMatch(s);
    expect(r.output).toContain('core/labels.ts');
    // It stopped at the checks: the dashboard was not built, no test ran.
    expect(existsSync(join(dir, 'dist'))).toBe(false);
  });
});
