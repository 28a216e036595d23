import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, WEB_ROOT } from './harness.js';
import { measureInitialJs } from './initial-js.js';

/** The first visit's JavaScript stays small: the charts and every page come in their own chunks. */
describe('the production bundle', () => {
  beforeAll(() => {
    if (!existsSync(join(WEB_ROOT, 'index.html')))
      execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
  }, 120_000);

  it('loads at most 250 KB of gzipped JavaScript before the first page draws', () => {
    const initial = measureInitialJs(WEB_ROOT);
    expect(initial.files.length).toBeGreaterThan(0);
    expect(initial.gzipBytes).toBeLessThanOrEqual(250 * 1024);
  });

  it('has a brotli and a gzip copy beside every script and style sheet, each the file itself once inflated', () => {
    // What `serve` sends a browser that accepts them (server/app.ts): Recharts' chunk is about a quarter of its size.
    const assets = join(WEB_ROOT, 'assets');
    const files = readdirSync(assets).filter((f) => /\.(js|css)$/.test(f));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const body = readFileSync(join(assets, f));
      const br = join(assets, `${f}.br`);
      const gz = join(assets, `${f}.gz`);
      expect({ f, br: existsSync(br), gz: existsSync(gz) }).toEqual({ f, br: true, gz: true });
      expect(brotliDecompressSync(readFileSync(br)).equals(body)).toBe(true);
      expect(gunzipSync(readFileSync(gz)).equals(body)).toBe(true);
    }
  });

  it('keeps Recharts out of the initial JavaScript', () => {
    const initial = measureInitialJs(WEB_ROOT);
    // Recharts' cartesian chart code names this class in its source; the entry chunks must not contain it.
    for (const f of initial.files) {
      const text = readFileSync(join(WEB_ROOT, f.path.replace(/^\//, '')), 'utf8');
      expect({ file: f.path, hasRecharts: text.includes('recharts-cartesian-grid') }).toEqual({ file: f.path, hasRecharts: false });
    }
  });
});
