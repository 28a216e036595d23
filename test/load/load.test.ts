import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../db/open-db.js';
import { buildApp } from '../../server/app.js';
import { fillSynthetic } from '../fixtures/synthetic.js';
import { dashboardPaths, quantile, runLoad } from './load-client.js';

/*
 * The short version of `npm run load` (which runs 30 s against `serve` in its own process over a database seeded
 * from the sandbox, and gives the numbers in the README): 200 concurrent clients for 3 s against the API on
 * loopback, over a week of synthetic data. Every request must succeed and every client get answers.
 */
let db: Db;
let app: FastifyInstance;
let baseUrl: string;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-load-'));
  mkdirSync(join(dir, 'web'));
  writeFileSync(join(dir, 'web', 'index.html'), '<!doctype html><title>NodePool Ledger</title>');
  db = openDb({ path: join(dir, 'ledger.db') });
  fillSynthetic(db, { startDay: '2026-11-01', days: 7 });
  app = buildApp({ db, webRoot: join(dir, 'web'), now: () => Date.parse('2026-11-08T00:00:00Z') });
  await app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await app?.close();
  db?.close();
});

describe('quantile', () => {
  it.each([
    [[10, 20, 30, 40], 0.5, 20],
    [[10, 20, 30, 40], 0.99, 40],
    [[10, 20, 30, 40], 0, 10],
    [[5], 0.99, 5],
    [[], 0.5, 0],
  ])('%j at %f -> %d', (values, q, expected) => {
    expect(quantile(values, q)).toBe(expected);
  });
});

describe('200 concurrent clients for 3 s', () => {
  it('get every answer, without an error', async () => {
    const paths = dashboardPaths('2026-11-01', '2026-11-08', 'general');
    for (const p of paths) expect({ p, status: (await fetch(`${baseUrl}${p}`)).status }).toEqual({ p, status: 200 });
    const report = await runLoad({ baseUrl, paths, clients: 200, seconds: 3 });
    expect(report.errorExamples).toEqual([]);
    expect(report.errors).toBe(0);
    expect(report.requests).toBeGreaterThanOrEqual(200); // every client was answered at least once
    expect(report.byPath.map((p) => p.path).sort()).toEqual([...new Set(paths.map((p) => p.split('?')[0]))].sort());
    console.log(
      `load (short): ${report.requests} requests, ${report.requestsPerSecond}/s, p50 ${report.latencyMs.p50} ms, p99 ${report.latencyMs.p99} ms`,
    );
  }, 30_000);
});
