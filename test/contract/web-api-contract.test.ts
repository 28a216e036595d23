import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/*
 * The typed contract between server and web, proved by the compiler: web/src/lib/api-contract.test-d.ts calls the API
 * the wrong way on lines marked @ts-expect-error. Compiled as web/tsconfig.json compiles it, it must give no error
 * (each marked line is an error, or tsc would report the unused mark); with the marks taken out, each of those lines
 * must fail for the reason its comment names — so a renamed parameter or field in server/schemas breaks web/.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const contractFile = join(root, 'web', 'src', 'lib', 'api-contract.test-d.ts');

/** What the compiler must say on each marked line, by the comment's first word. */
const EXPECTED: Readonly<Record<string, string>> = {
  nodPool: "'nodPool' does not exist in type",
  limit: "Type 'string' is not assignable to type 'number'",
  sort: '"price"',
  format: "'format' does not exist in type",
  costUsdd: "Property 'costUsdd' does not exist",
  '/api/node': '"/api/node"',
  '/api/bill/import': '"/api/bill/import"',
  granularity: '"WEEKLY"',
  methd: "'methd' does not exist in type",
  the: "'from' does not exist in type",
};

/** The first program, reused by the second compile (only the contract file differs): halves the time. */
let previous: ts.Program | undefined;

function compile(source: string): ts.Diagnostic[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'web', 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (config === undefined) throw new Error('web/tsconfig.json did not parse');
  const host = ts.createCompilerHost(config.options);
  const readFile = host.readFile.bind(host);
  host.readFile = (file) => (resolve(file) === contractFile ? source : readFile(file));
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, onError, fresh) =>
    resolve(file) === contractFile ? ts.createSourceFile(file, source, language) : getSourceFile(file, language, onError, fresh);
  const program = ts.createProgram({ rootNames: [contractFile], options: { ...config.options, noEmit: true }, host, oldProgram: previous });
  previous = program;
  // Only the contract file: the rest of web/ is checked by npm run typecheck.
  return [...ts.getPreEmitDiagnostics(program, program.getSourceFile(contractFile))];
}

const lineOf = (d: ts.Diagnostic): number =>
  d.file !== undefined && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
const describeAll = (ds: ts.Diagnostic[]): string[] =>
  ds.map((d) => `${d.file?.fileName ?? '?'}:${lineOf(d)} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);

describe('the web calls the API typed by path', () => {
  const source = readFileSync(contractFile, 'utf8');
  const lines = source.split('\n');
  /** 1-based line of each call the marks stand above, with the mark's first word. */
  const marked = lines.flatMap((l, i) => {
    const m = /^\s*\/\/ @ts-expect-error (\S+?):? /.exec(l);
    return m === null ? [] : [{ line: i + 2, word: m[1] }];
  });

  it('compiles with every wrong call marked (each mark stands above an error)', () => {
    expect(marked.length).toBe(Object.keys(EXPECTED).length);
    expect(describeAll(compile(source))).toEqual([]);
  }, 60_000);

  it('without the marks, each marked call fails for the reason its comment names, and nothing else fails', () => {
    const stripped = lines.map((l) => (/^\s*\/\/ @ts-expect-error /.test(l) ? '' : l)).join('\n');
    const errors = compile(stripped);
    const byLine = new Map<number, string>();
    for (const d of errors) byLine.set(lineOf(d), `${byLine.get(lineOf(d)) ?? ''} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
    for (const { line, word } of marked) {
      expect(byLine.get(line) ?? '(no error)', `line ${line}: ${lines[line - 1].trim()}`).toContain(EXPECTED[word]);
    }
    const unmarked = errors.filter((d) => !marked.some((m) => m.line === lineOf(d)));
    expect(describeAll(unmarked)).toEqual([]);
  }, 60_000);
});
