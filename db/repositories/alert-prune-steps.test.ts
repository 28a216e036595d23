import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRetentionPass } from '../../cli/retention-stage.js';
import { DEFAULT_RAW_RETENTION, DEFAULT_RETENTION, retentionSettings } from '../../core/retention.js';
import { DAY_MS, HOUR_MS } from '../../core/time.js';
import { openDb, type Db } from '../open-db.js';

/*
 * The retention pass prunes the built-in alert tables (migration 0025) at the default horizon, 13 months. Worked by hand:
 * at 2027-12-05T00:00Z, 13 months back is 2026-11-05T00:00Z, a Thursday, so a whole number of weeks from the epoch
 * (also a Thursday): the cut is that instant (core/retention.ts horizonMs).
 *
 * Before the cut: alert 1 resolved with both deliveries delivered (gone, with its 3 attempts); alert 2 resolved, its
 * resolved delivery failed after its bound (gone: nothing more is tried); alert 3 resolved with a delivery still
 * pending (kept, with its delivery and attempt: it has yet to reach its sink); alert 4 firing since before the cut
 * (kept, though its firing delivery, delivered before the cut, goes). After the cut: alert 5, resolved a day after
 * it, with its delivery (kept).
 */
const NOW = Date.parse('2027-12-05T00:00:00Z');
const CUT = Date.parse('2026-11-05T00:00:00Z');
const OLD = CUT - 30 * DAY_MS;

let dir: string;
let db: Db;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-alert-prune-'));
  db = openDb({ path: join(dir, 'ledger.db') });
  const alert = db.prepare(`
    INSERT INTO alerts (id, rule, subject, phase, pending_since, firing_since, resolved_at, figures_json, sentence, link_href, link_label)
    VALUES (?, 'spot-fallback', ?, ?, ?, ?, ?, '{}', 'a sentence', '/nodepools', 'NodePools')`);
  const delivery = db.prepare(`
    INSERT INTO alert_deliveries (id, alert_id, transition, at, target_url, format, payload_json, status, attempts, next_attempt_at)
    VALUES (?, ?, ?, ?, 'http://127.0.0.1:9/hook', 'json', '{}', ?, 1, ?)`);
  const attempt = db.prepare(
    'INSERT INTO alert_delivery_attempts (delivery_id, at, duration_ms, http_status, error) VALUES (?, ?, 5, ?, NULL)',
  );
  alert.run(1, 'a', 'resolved', OLD, OLD + HOUR_MS, OLD + 5 * HOUR_MS);
  delivery.run(11, 1, 'firing', OLD + HOUR_MS, 'delivered', OLD + HOUR_MS);
  delivery.run(12, 1, 'resolved', OLD + 5 * HOUR_MS, 'delivered', OLD + 5 * HOUR_MS);
  attempt.run(11, OLD + HOUR_MS, 503);
  attempt.run(11, OLD + HOUR_MS + 60_000, 200);
  attempt.run(12, OLD + 5 * HOUR_MS, 200);
  alert.run(2, 'b', 'resolved', OLD, OLD + HOUR_MS, OLD + 2 * HOUR_MS);
  delivery.run(21, 2, 'resolved', OLD + 2 * HOUR_MS, 'failed', OLD + 2 * HOUR_MS);
  attempt.run(21, OLD + 2 * HOUR_MS, 500);
  alert.run(3, 'c', 'resolved', OLD, OLD + HOUR_MS, OLD + 3 * HOUR_MS);
  delivery.run(31, 3, 'resolved', OLD + 3 * HOUR_MS, 'pending', NOW + 60_000);
  attempt.run(31, OLD + 3 * HOUR_MS, 502);
  alert.run(4, 'd', 'firing', OLD, OLD + HOUR_MS, null);
  delivery.run(41, 4, 'firing', OLD + HOUR_MS, 'delivered', OLD + HOUR_MS);
  attempt.run(41, OLD + HOUR_MS, 200);
  alert.run(5, 'e', 'resolved', CUT - HOUR_MS, CUT - HOUR_MS, CUT + DAY_MS);
  delivery.run(51, 5, 'resolved', CUT + DAY_MS, 'delivered', CUT + DAY_MS);
  attempt.run(51, CUT + DAY_MS, 200);
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the retention pass at the default 13 months', () => {
  it('deletes resolved alerts and finished deliveries older than the horizon, keeps open alerts and what is yet to be sent', async () => {
    const pass = await runRetentionPass(db, retentionSettings(DEFAULT_RAW_RETENTION, DEFAULT_RETENTION), {
      now: NOW,
      budgetMs: Number.POSITIVE_INFINITY,
    });
    expect(pass).toMatchObject({ error: null, horizonMs: CUT });
    const ids = (sql: string) => db.prepare(sql).pluck().all();
    expect(ids('SELECT id FROM alerts ORDER BY id')).toEqual([3, 4, 5]);
    expect(ids('SELECT id FROM alert_deliveries ORDER BY id')).toEqual([31, 51]);
    expect(ids('SELECT delivery_id FROM alert_delivery_attempts ORDER BY delivery_id')).toEqual([31, 51]);
    // 3 + 1 + 1 attempts, 2 + 1 + 1 deliveries, alerts 1 and 2
    expect(pass.deleted).toBe(11);
    expect(db.pragma('foreign_key_check')).toEqual([]);
  });

  it('finds nothing more the next time', async () => {
    const pass = await runRetentionPass(db, retentionSettings(DEFAULT_RAW_RETENTION, DEFAULT_RETENTION), {
      now: NOW,
      budgetMs: Number.POSITIVE_INFINITY,
    });
    expect(pass.deleted).toBe(0);
  });
});
