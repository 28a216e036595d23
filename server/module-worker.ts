import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** tsx's `tsx/esm/api` (its `import` export), as a file path. */
function tsxEsmApiPath(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  return join(dirname(manifest), pkg.exports['./esm/api'].import.default);
}

/**
 * A worker thread running the module `name` beside the caller (`from`, its import.meta.url): the compiled `name.js`
 * when the caller runs compiled, else the TypeScript source `name.ts` through tsx (a checkout). Worker threads do not
 * inherit the loader hooks tsx registered in this thread, so the worker registers them itself, importing tsx's ESM API
 * by its file (an eval'd worker resolves bare names from the working directory).
 */
export function moduleWorker(from: string, name: string, options: WorkerOptions = {}): Worker {
  if (from.endsWith('.js')) return new Worker(new URL(`./${name}.js`, from), options);
  const tsx = pathToFileURL(tsxEsmApiPath()).href;
  const entry = new URL(`./${name}.ts`, from).href;
  const code = `import(${JSON.stringify(tsx)}).then((t) => { (t.register ?? t.default.register)(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(code, { ...options, eval: true });
}
