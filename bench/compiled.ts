import { mkdirSync, symlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * A bench child compiled to JavaScript once per run, so each of its processes starts as the Deployment's compiled
 * collector does (`node dist/…`, scripts/build-server.mjs) instead of through tsx: tsx's loader hooks cost about 1.7 s
 * of CPU per start (2.3 s user against 0.7 s for the same imports compiled, measured on bench/collect-process.ts),
 * which the snapshot rows paid six times and counted as the collector's time.
 *
 * Our sources are bundled into one file (esbuild, tsx's own compiler), the packages left as imports. The bundle sits
 * at <dir>/db/<name>.mjs beside links to db/migrations, data/ and node_modules, so the paths our modules read relative
 * to themselves (db/open-db.ts: ./migrations; core/*: ../data) resolve as they do from the sources.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const built = new Map<string, Promise<string>>();

/** `entry` (a path under the repository) compiled into `dir` (this run's scratch folder); the path of the script. */
export function compiledScript(entry: string, dir: string): Promise<string> {
  const key = `${entry}\0${dir}`;
  let out = built.get(key);
  if (out === undefined) {
    out = build(entry, dir);
    built.set(key, out);
    out.catch(() => built.delete(key));
  }
  return out;
}

async function build(entry: string, dir: string): Promise<string> {
  const root = join(dir, 'compiled');
  mkdirSync(join(root, 'db'), { recursive: true });
  for (const [link, target] of [
    ['db/migrations', 'db/migrations'],
    ['data', 'data'],
    ['node_modules', 'node_modules'],
  ])
    try {
      symlinkSync(join(ROOT, target), join(root, link));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  const outfile = join(root, 'db', `${basename(entry).replace(/\.ts$/, '')}.mjs`);
  const { build: esbuild } = await import('esbuild');
  await esbuild({
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    target: `node${process.versions.node.split('.')[0]}`,
    outfile,
    logLevel: 'warning',
  });
  return outfile;
}
