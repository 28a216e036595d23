import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/**
 * The JavaScript a first visit must download before the page can draw: the entry script of the built
 * index.html and the chunks it preloads (each page and the chart library are fetched later, on demand).
 * Sizes are gzip level 9, what a compressing proxy would send.
 */
export interface InitialJs {
  files: { path: string; bytes: number; gzipBytes: number }[];
  bytes: number;
  gzipBytes: number;
}

export function measureInitialJs(webRoot: string): InitialJs {
  const html = readFileSync(join(webRoot, 'index.html'), 'utf8');
  const paths = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="([^"]+\.js)"/g)].map((m) => m[1]);
  const files = [...new Set(paths)].map((path) => {
    const body = readFileSync(join(webRoot, path.replace(/^\//, '')));
    return { path, bytes: body.length, gzipBytes: gzipSync(body, { level: 9 }).length };
  });
  return {
    files,
    bytes: files.reduce((s, f) => s + f.bytes, 0),
    gzipBytes: files.reduce((s, f) => s + f.gzipBytes, 0),
  };
}
