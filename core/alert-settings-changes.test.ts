import { describe, expect, it } from 'vitest';
import { disruptionSettingsEdits, type DisruptionSettingsAt } from './alert-settings-changes.js';

const at = (iso: string) => Date.parse(iso);
const v = (nodePool: string, iso: string, s: Partial<DisruptionSettingsAt> = {}): DisruptionSettingsAt => ({
  nodePool,
  firstSeenMs: at(iso),
  consolidationPolicy: 'WhenEmptyOrUnderutilized',
  consolidateAfter: '30m',
  budgets: [{ nodes: '10%' }],
  ...s,
});

describe('edits of a NodePool disruption settings', () => {
  it("names week4's edit of general (WhenEmptyOrUnderutilized -> WhenEmpty at 19:00) and the edit back; a first version is no edit", () => {
    const edits = disruptionSettingsEdits([
      v('general', '2026-11-10T12:00:00Z'),
      v('steady', '2026-11-10T12:00:00Z', { consolidationPolicy: 'Balanced', consolidateAfter: '1h', budgets: [{ nodes: '1' }] }),
      v('general', '2026-11-11T19:00:00Z', { consolidationPolicy: 'WhenEmpty' }),
      v('general', '2026-11-12T07:00:00Z'),
    ]);
    expect(edits).toEqual([
      { nodePool: 'general', atMs: at('2026-11-11T19:00:00Z'), what: 'consolidationPolicy WhenEmptyOrUnderutilized -> WhenEmpty' },
      { nodePool: 'general', atMs: at('2026-11-12T07:00:00Z'), what: 'consolidationPolicy WhenEmpty -> WhenEmptyOrUnderutilized' },
    ]);
  });

  it('joins several fields; a policy left out is the default WhenEmptyOrUnderutilized and budgets nodes 10% (nodepool.go), so writing them out is no edit', () => {
    const edits = disruptionSettingsEdits([
      v('batch', '2026-11-10T00:00:00Z', { consolidationPolicy: null, budgets: null }),
      v('batch', '2026-11-10T01:00:00Z'),
      v('batch', '2026-11-10T02:00:00Z', { consolidateAfter: '4h', budgets: [{ nodes: '0' }] }),
    ]);
    expect(edits).toEqual([
      {
        nodePool: 'batch',
        atMs: at('2026-11-10T02:00:00Z'),
        what: 'consolidateAfter 30m -> 4h; budgets [{"nodes":"10%"}] -> [{"nodes":"0"}]',
      },
    ]);
  });
});
