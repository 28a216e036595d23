// The type check and ESLint in one process, for scripts/check.mjs (`npm run check`, and `npm test` beside the tests).
//
// Why one process: ESLint's type-aware rules (no-floating-promises, no-misused-promises, await-thenable) need a
// TypeScript program of every file and ask its type checker about each promise; run on its own, ESLint builds that
// program again and type-checks lazily what `tsc` has just checked in another process (no-misused-promises alone was
// 62 % of ESLint's time). Here each program is built and checked once with TypeScript's API, as `tsc -p . --noEmit`
// and `tsc -p web --noEmit` would (the same compiler options, the same incremental build info when the cache is on,
// the same diagnostics, formatted as tsc prints them to a pipe), and ESLint is then run through its Node API with
// typescript-eslint's `parserOptions.programs` set to those two programs, so the typed rules read types the checker
// already holds. Only the TypeScript files get them: the JavaScript ones (eslint.config.js, scripts/*.mjs, bin/*.mjs)
// are linted without type information, as eslint.config.js says for `npx eslint .` too.
//
// Started by check.mjs with an IPC channel: it sends { name, code, output, seconds } for `typecheck`, then for `lint`.
// Arguments: `--cache-dir=DIR` keeps tsc's build info there (node.tsbuildinfo, web.tsbuildinfo), as check.mjs's
// `--incremental --tsBuildInfoFile` did; without it nothing is kept.
import { readFileSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = process.cwd();
const cacheDir = process.argv.find((a) => a.startsWith('--cache-dir='))?.slice('--cache-dir='.length);
const started = Date.now();
const elapsed = () => (Date.now() - started) / 1000;
// check.mjs gone (stopped): nobody is left to read the results.
const orphaned = () => process.exit(1);
if (process.send) process.on('disconnect', orphaned);
/** Sends a check's result to check.mjs (printed when run on its own, for a look by hand). */
const report = (result) =>
  new Promise((done) => {
    if (process.send) process.send(result, () => done());
    else {
      const { user, system } = process.cpuUsage();
      const cpu = ((user + system) / 1e6).toFixed(1);
      process.stdout.write(
        `\n> ${result.name} (exit ${result.code}, ${result.seconds.toFixed(1)} s, ${cpu} CPU s so far)\n${result.output}`,
      );
      done();
    }
  });

/** The TypeScript programs, as tsc builds them: the Node tree (tsconfig.json), then the dashboard (web/). */
const PROJECTS = [
  { dir: '.', buildInfo: 'node.tsbuildinfo' },
  { dir: 'web', buildInfo: 'web.tsbuildinfo' },
];

const formatHost = {
  getCanonicalFileName: ts.sys.useCaseSensitiveFileNames ? (f) => f : (f) => f.toLowerCase(),
  getCurrentDirectory: () => ROOT,
  getNewLine: () => ts.sys.newLine,
};

/**
 * Builds one project's program and its diagnostics as `tsc -p DIR --noEmit` does (in its order, then sorted and
 * deduplicated), writing the build info when the cache is on. The build info is written whole or not at all.
 */
function check({ dir, buildInfo }) {
  const extra = { noEmit: true };
  if (cacheDir !== undefined) Object.assign(extra, { incremental: true, tsBuildInfoFile: join(cacheDir, buildInfo) });
  const configErrors = [];
  const parsed = ts.getParsedCommandLineOfConfigFile(resolve(ROOT, dir, 'tsconfig.json'), extra, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => configErrors.push(d),
  });
  if (parsed === undefined) return { program: undefined, diagnostics: configErrors };
  const config = {
    rootNames: parsed.fileNames,
    options: parsed.options,
    projectReferences: parsed.projectReferences,
    configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(parsed),
  };
  let built;
  if (cacheDir === undefined) built = ts.createProgram(config);
  else {
    const host = ts.createIncrementalCompilerHost(parsed.options);
    const write = host.writeFile;
    host.writeFile = (name, text, bom, onError, ...rest) => {
      const part = `${name}.${process.pid}.part`;
      write(part, text, bom, onError, ...rest);
      renameSync(part, name);
    };
    built = ts.createIncrementalProgram({ ...config, host });
  }
  // tsc's order (executeCommandLine's emitFilesAndReportErrors): the semantic check only when the syntax is sound.
  const all = [...built.getConfigFileParsingDiagnostics()];
  const base = all.length;
  all.push(...built.getSyntacticDiagnostics());
  if (all.length === base) {
    all.push(...built.getOptionsDiagnostics(), ...built.getGlobalDiagnostics());
    if (all.length === base) all.push(...built.getSemanticDiagnostics());
  }
  all.push(...built.emit().diagnostics);
  const program = 'getProgram' in built ? built.getProgram() : built;
  return { program, diagnostics: ts.sortAndDeduplicateDiagnostics(all) };
}

const checked = PROJECTS.map(check);
const diagnostics = checked.flatMap((c) => c.diagnostics);
await report({
  name: 'typecheck',
  code: diagnostics.length > 0 ? 1 : 0,
  output: ts.formatDiagnostics(diagnostics, formatHost),
  seconds: elapsed(),
});

const programs = checked.map((c) => c.program).filter((p) => p !== undefined);
let lint;
try {
  const { ESLint } = await import('eslint');
  const eslint = new ESLint({
    cwd: ROOT,
    // Last, so it wins over eslint.config.js's projectService for the TypeScript files (the JavaScript ones keep
    // disableTypeChecked's no-program settings).
    overrideConfig: [{ files: ['**/*.{ts,tsx,mts,cts}'], languageOptions: { parserOptions: { projectService: false, programs } } }],
  });
  let results = await eslint.lintFiles(['.']);
  // typescript-eslint takes a file's syntax tree from the program, whatever ESLint read from the disk: a file edited
  // since the type check read it would be linted at the wrong places. Those are linted again as `eslint` alone would.
  const changed = new Set();
  for (const r of results) {
    const source = programs.map((p) => p.getSourceFile(r.filePath)).find((f) => f !== undefined);
    if (source !== undefined && source.text !== readFileSync(r.filePath, 'utf8')) changed.add(r.filePath);
  }
  if (changed.size > 0) {
    const again = new Map((await new ESLint({ cwd: ROOT }).lintFiles([...changed])).map((r) => [r.filePath, r]));
    results = results.map((r) => again.get(r.filePath) ?? r);
  }
  const errors = results.reduce((n, r) => n + r.errorCount, 0);
  const warnings = results.reduce((n, r) => n + r.warningCount, 0);
  // As `eslint . --max-warnings 0`: the stylish report, and a failure on any error or warning.
  const formatter = await eslint.loadFormatter('stylish');
  let output = await formatter.format(results, {
    cwd: ROOT,
    rulesMeta: eslint.getRulesMetaForResults(results),
    ...(warnings > 0 ? { maxWarningsExceeded: { maxWarnings: 0, foundWarnings: warnings } } : {}),
  });
  if (errors === 0 && warnings > 0) output += 'ESLint found too many warnings (maximum: 0).\n';
  lint = { code: errors > 0 || warnings > 0 ? 1 : 0, output };
} catch (e) {
  // What `eslint` prints when it cannot run (a broken config, a missing plugin), and its exit code 2.
  lint = { code: 2, output: `Oops! Something went wrong! :(\n\n${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n` };
}
await report({ name: 'lint', ...lint, seconds: elapsed() });
if (process.connected) {
  process.off('disconnect', orphaned);
  process.disconnect();
}
