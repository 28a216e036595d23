#!/usr/bin/env node
// `nodepool-ledger`: runs the compiled CLI (dist/cli/run.js, written by `npm run build:server`; what the container
// image runs) when it is there, and the TypeScript through tsx otherwise, as in a development checkout. A compiled
// CLI older than a source file beside it is passed over while tsx is installed, so an edit is never hidden by an
// old build.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const compiled = new URL('../dist/cli/run.js', import.meta.url);

/** The newest modification time (ms) of the files the build reads, 0 where there are no sources (an image). */
function newestSourceMs() {
  let newest = 0;
  for (const dir of ['core', 'db', 'collectors', 'server', 'sandbox', 'cli', 'data']) {
    if (!existsSync(`${root}/${dir}`)) continue;
    for (const entry of readdirSync(`${root}/${dir}`, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) newest = Math.max(newest, statSync(`${entry.parentPath ?? entry.path}/${entry.name}`).mtimeMs);
    }
  }
  return newest;
}

async function tsxOrNull() {
  try {
    return await import('tsx/esm/api');
  } catch {
    return null; // a production install: dev dependencies pruned
  }
}

const hasCompiled = existsSync(compiled);
const fresh = hasCompiled && statSync(compiled).mtimeMs >= newestSourceMs();
const tsx = fresh ? null : await tsxOrNull();
if (tsx !== null) {
  tsx.register();
  await import('../cli/run.ts');
} else if (hasCompiled) {
  await import(compiled.href);
} else {
  console.error(`nodepool-ledger: neither ${fileURLToPath(compiled)} nor tsx is here: run 'npm run build:server', or 'npm install'`);
  process.exit(1);
}
