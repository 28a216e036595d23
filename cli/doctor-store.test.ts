import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retentionSettings } from '../core/retention.js';
import { openDb } from '../db/open-db.js';
import { fillSynthetic } from '../test/fixtures/synthetic.js';
import { checkStore } from './doctor-store.js';
import { runRetentionPass } from './retention-stage.js';

/* doctor's database section over real files: a folded one, one not made yet, and one from before incremental vacuum. */

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-doctor-store-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lines = (path: string): { problems: number; text: string[] } => {
  const text: string[] = [];
  return { problems: checkStore(path, (l) => text.push(l)), text };
};

describe('doctor: the database', () => {
  it('says its size, its vacuum mode, the retention, what is folded and the last pass', async () => {
    const path = join(dir, 'ledger.db');
    const db = openDb({ path });
    const { toMs } = fillSynthetic(db, { startDay: '2026-03-01', days: 2 });
    // Now 2026-03-03: 13 months back is 2025-02-03, whose 7-day bucket from the epoch (a Thursday) starts 2025-01-30.
    await runRetentionPass(db, retentionSettings('1d', '13mo'), { now: toMs, budgetMs: Number.POSITIVE_INFINITY });
    db.close();
    const { problems, text } = lines(path);
    expect(problems).toBe(0);
    expect(text[0]).toBe(`Database (${path})`);
    expect(text[1]).toMatch(/^ {2}✓ [\d.]+ MB \([\d.]+ MB of it free pages/);
    expect(text.slice(2)).toEqual([
      '  ✓ incremental vacuum: pages freed by retention are handed back, the file shrinks',
      '  ✓ retention: 5-minute snapshots kept 14d (default), then one per hour; everything kept 13mo (default) (collect --raw-retention, --retention)',
      '  ✓ snapshots: hourly 2026-03-01T00:00:00Z .. 2026-03-02T00:00:00Z, 5-minute from 2026-03-02T00:00:00Z',
      expect.stringMatching(
        /^ {2}✓ last retention pass 2026-03-03T00:00:00Z: folded 96 \(0 left before 2026-03-02T00:00:00Z\), deleted 0 rows before 2025-01-30T00:00:00Z, freed \d+ pages; longest transaction [\d.]+ ms$/,
      ),
    ]);
  });

  it('says a file not made yet is made by collect', () => {
    expect(lines(join(dir, 'none.db')).text[1]).toBe(
      `  ! ${join(dir, 'none.db')} does not exist yet: collect creates it (with incremental vacuum, so it shrinks as retention deletes)`,
    );
  });

  it('says an older file does not shrink until collect switches it', () => {
    const path = join(dir, 'old.db');
    const old = new Database(path);
    old.pragma('journal_mode = WAL');
    old.close();
    openDb({ path }).close(); // migrated as a writer would, with its page already written before the mode could be set
    const { problems, text } = lines(path);
    expect(problems).toBe(0);
    expect(text[2]).toMatch(/^ {2}! no incremental vacuum \(a file made before it\): .* one-time VACUUM \(needs about [\d.]+ MB free/);
    expect(text.at(-1)).toBe('  ! no retention pass yet (collect runs one after each snapshot)');
  });
});
