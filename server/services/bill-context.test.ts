import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOUR_MS } from '../../core/time.js';
import { openDb, type Db } from '../../db/open-db.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { createPricesRepository, type PriceRow } from '../../db/repositories/prices-repository.js';
import { snapshotWrite, GiB, type NodeSpec } from '../../test/fixtures/snapshots.js';
import { costOverSpan, type PricePoint } from '../explain/price-timeline.js';
import { loadExplainContext } from './bill-context.js';

/*
 * What a bill line's explanation reads, over a real SQLite file: an on-demand m5.large (us-east-1a) and a spot
 * m5.xlarge (us-east-1b) seen every hour of 2026-11-02, and price histories that reach before and past that day.
 */
const at = (iso: string): number => Date.parse(iso);
const FROM = at('2026-11-02T00:00:00Z');
const TO = at('2026-11-03T00:00:00Z');

const price = (kind: PriceRow['kind'], instanceType: string, zone: string, iso: string, pricePerHour: number): PriceRow => ({
  kind,
  region: 'us-east-1',
  instanceType,
  zone,
  effectiveAt: at(iso),
  pricePerHour,
  currency: 'USD',
  source: kind === 'spot' ? 'spot-history' : 'pricing-api',
});
const HISTORY: PriceRow[] = [
  price('on-demand', 'm5.large', '', '2026-10-01T00:00:00Z', 0.096),
  price('on-demand', 'm5.large', '', '2026-11-01T12:00:00Z', 0.1),
  price('on-demand', 'm5.large', '', '2026-11-02T06:00:00Z', 0.11),
  // From the window's end on: never what a span inside it pays.
  price('on-demand', 'm5.large', '', '2026-11-03T00:00:00Z', 0.2),
  price('on-demand', 'm5.large', '', '2026-11-05T00:00:00Z', 0.3),
  // This market's history starts after the window: a span before a history pays its first point.
  price('spot', 'm5.xlarge', 'us-east-1b', '2026-11-04T00:00:00Z', 0.05),
  price('spot', 'm5.xlarge', 'us-east-1b', '2026-11-06T00:00:00Z', 0.06),
  price('spot', 'm5.xlarge', 'us-east-1a', '2026-11-01T00:00:00Z', 0.07),
];

const node = (name: string, capacityType: 'on-demand' | 'spot', instanceType: string, zone: string): NodeSpec => ({
  name,
  nodePool: 'general',
  capacityType,
  instanceType,
  zone,
  cpuMillicores: 1930,
  memoryBytes: 7 * GiB,
  requestedCpuMillicores: 1000,
  requestedMemoryBytes: 2 * GiB,
  usdPerHour: 0.1,
});
const OD = node('od-a', 'on-demand', 'm5.large', 'us-east-1a');
const SPOT = node('spot-b', 'spot', 'm5.xlarge', 'us-east-1b');
const market = (n: NodeSpec) => ({ capacityType: n.capacityType, instanceType: n.instanceType ?? '', zone: n.zone ?? '' });
const points = (ps: PricePoint[]) => ps.map((p) => [new Date(p.atMs).toISOString(), p.usdPerHour]);

let dir: string;
let db: Db;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bill-context-'));
  db = openDb({ path: join(dir, 'ledger.db') });
  const kube = createKubeRepository(db);
  for (let t = FROM; t <= TO; t += HOUR_MS) kube.writeSnapshot(snapshotWrite(t, [OD, SPOT]));
  createPricesRepository(db).insertPrices(HISTORY);
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('loadExplainContext', () => {
  it('reads each market from the price in effect at the window start to the last change before its end', () => {
    const ctx = loadExplainContext(db, FROM, TO, 1);
    expect(points(ctx.prices(market(OD)))).toEqual([
      ['2026-11-01T12:00:00.000Z', 0.1],
      ['2026-11-02T06:00:00.000Z', 0.11],
    ]);
    expect(points(ctx.prices(market(SPOT)))).toEqual([['2026-11-04T00:00:00.000Z', 0.05]]);
    // What the day costs under them is what it costs under the whole history: 6 h x 0.10 + 18 h x 0.11 = 2.58 on
    // demand; 24 h x 0.05 = 1.20 on spot (the history's first point, for the hours before it).
    const whole = (n: NodeSpec) =>
      HISTORY.filter((p) => p.instanceType === n.instanceType && p.zone === (n.capacityType === 'spot' ? n.zone : '')).map((p) => ({
        atMs: p.effectiveAt,
        usdPerHour: p.pricePerHour,
        source: p.source,
      }));
    expect(costOverSpan(ctx.prices(market(OD)), FROM, TO).usd).toBeCloseTo(2.58, 9);
    expect(costOverSpan(whole(OD), FROM, TO).usd).toBeCloseTo(2.58, 9);
    expect(costOverSpan(ctx.prices(market(SPOT)), FROM, TO).usd).toBeCloseTo(1.2, 9);
    expect(costOverSpan(whole(SPOT), FROM, TO).usd).toBeCloseTo(1.2, 9);
  });

  it('gives the same context again for the same window while the file is unchanged, and reads it again after a write', () => {
    const first = loadExplainContext(db, FROM, TO, 1);
    expect(loadExplainContext(db, FROM, TO, 1)).toBe(first);
    expect(loadExplainContext(db, FROM - HOUR_MS, TO, 1)).not.toBe(first);
    // Another connection commits (the collector beside `serve`): SQLite's data_version moves.
    const collector = openDb({ path: join(dir, 'ledger.db') });
    try {
      createPricesRepository(collector).insertPrices([price('on-demand', 'm5.large', '', '2026-11-02T18:00:00Z', 0.12)]);
    } finally {
      collector.close();
    }
    const afterCollector = loadExplainContext(db, FROM, TO, 1);
    expect(afterCollector).not.toBe(first);
    expect(points(afterCollector.prices(market(OD))).at(-1)).toEqual(['2026-11-02T18:00:00.000Z', 0.12]);
    expect(loadExplainContext(db, FROM, TO, 1)).toBe(afterCollector);
    // This connection writes (a bill import, a demo's own collection): total_changes() moves.
    createPricesRepository(db).insertPrices([price('on-demand', 'm5.large', '', '2026-11-02T20:00:00Z', 0.13)]);
    const afterOwnWrite = loadExplainContext(db, FROM, TO, 1);
    expect(afterOwnWrite).not.toBe(afterCollector);
    expect(points(afterOwnWrite.prices(market(OD))).at(-1)).toEqual(['2026-11-02T20:00:00.000Z', 0.13]);
  });
});
