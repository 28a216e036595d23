import { describe, expect, it } from 'vitest';
import { openDb } from '../../db/open-db.js';
import { createRunsRepository } from '../../db/repositories/runs-repository.js';
import { DEMO_SEEDED_SETTING, seededScenario } from './bill-practice.js';

/** What `demo` stamps (cli/demo.ts): "<scenario>|<seed>|v1|karpenter=<release>", or the older form without the release. */
describe('seededScenario', () => {
  const stamped = (stamp: string | null) => {
    const db = openDb({ path: ':memory:' });
    if (stamp !== null) createRunsRepository(db).setSetting(DEMO_SEEDED_SETTING, stamp);
    return seededScenario(db);
  };

  it('reads the release the sandbox imitated, so a practice bill is of the history the database holds', () => {
    expect(stamped('week4|42|v1|karpenter=1.5.0')).toEqual({ name: 'week4', seed: 42, karpenterVersion: '1.5.0' });
    expect(stamped('week4|7|v1|karpenter=1.14.1')).toEqual({ name: 'week4', seed: 7, karpenterVersion: '1.14.1' });
  });

  it('keeps a stamp without a release (made before releases were stamped), and null for a real account', () => {
    expect(stamped('week4|42|v1')).toEqual({ name: 'week4', seed: 42 });
    expect(stamped(null)).toBeNull();
    expect(stamped('not a stamp')).toBeNull();
  });
});
