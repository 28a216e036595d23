import { describe, expect, it } from 'vitest';
import { openDb } from '../db/open-db.js';
import { collectOptionsFrom } from './collect.js';
import { resolveRetentionSettings } from './retention-stage.js';
import { UsageError } from './usage-error.js';

/* collect --raw-retention / --retention: checked as flags, stored, kept by later runs, checked against what is stored. */

describe('collect --raw-retention and --retention', () => {
  it('refuses a bad flag before anything runs, naming it', () => {
    const flags = { cluster: 'c', 'raw-retention': '20d', retention: '14d' };
    expect(() => collectOptionsFrom(flags)).toThrow(
      new UsageError(
        '--raw-retention (20d) must not be longer than --retention (14d): 5-minute rows are folded into hourly ones, never kept past the hourly ones',
      ),
    );
    expect(() => collectOptionsFrom({ cluster: 'c', retention: 'forever' })).toThrow(/^--retention must be a length of time like 13mo/);
    expect(collectOptionsFrom({ cluster: 'c', 'raw-retention': '7d' })).toMatchObject({ rawRetention: '7d', retention: undefined });
  });

  it('stores a flag for the next runs, which keep it, and checks a new flag against it', () => {
    const db = openDb({ path: ':memory:' });
    expect(resolveRetentionSettings(db, {})).toMatchObject({ raw: { text: '14d' }, keep: { text: '13mo' } });
    expect(resolveRetentionSettings(db, { retention: '90d' })).toMatchObject({ raw: { text: '14d' }, keep: { text: '90d' } });
    expect(resolveRetentionSettings(db, {})).toMatchObject({ keep: { text: '90d' } });
    expect(() => resolveRetentionSettings(db, { rawRetention: '100d' })).toThrow(
      new UsageError(
        '--raw-retention (100d) must not be longer than --retention (90d): 5-minute rows are folded into hourly ones, never kept past the hourly ones',
      ),
    );
    // Nothing of a refused flag is stored.
    expect(resolveRetentionSettings(db, {})).toMatchObject({ raw: { text: '14d' }, keep: { text: '90d' } });
    db.close();
  });
});
