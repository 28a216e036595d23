import { describe, expect, it } from 'vitest';
import type { OrgTeams } from '../api/org-api';
import { drillDownHref, formatQueryUsd, formatScanBytes, orgMethodOf, orgRangeOf, orgTeamRows } from './org-view';

describe('the organisation page, pure', () => {
  it("turns the shared filters' inclusive days into the org routes' [from, to)", () => {
    expect(orgRangeOf(new URLSearchParams('from=2026-11-01&to=2026-11-03'))).toEqual({ from: '2026-11-01', to: '2026-11-04' });
    expect(orgRangeOf(new URLSearchParams('from=2026-12-31&to=2026-12-31'))).toEqual({ from: '2026-12-31', to: '2027-01-01' });
    expect(orgRangeOf(new URLSearchParams('range=7d'))).toEqual({});
    expect(orgRangeOf(new URLSearchParams('from=2026-11-03&to=2026-11-01'))).toEqual({});
  });

  it("links a cluster to its ledger's Overview over the same days (to inclusive again)", () => {
    expect(drillDownHref('prod-eu', '2026-11-01', '2026-11-04')).toBe('/?cluster=prod-eu&from=2026-11-01&to=2026-11-03');
  });

  it('reads the method, request share unless another known one', () => {
    expect(orgMethodOf(new URLSearchParams('method=opencost'))).toBe('opencost');
    expect(orgMethodOf(new URLSearchParams('method=duckdb'))).toBe('request-share');
  });

  it("puts each cluster's cost of a team beside its total", () => {
    const answer = {
      teams: [
        { kind: 'team', team: 'payments', costUsd: 3.5 },
        { kind: 'team', team: null, costUsd: 1 },
        { kind: 'idle', team: null, costUsd: 2 },
      ],
      clusters: [
        {
          cluster: 'a',
          teams: [
            { kind: 'team', team: 'payments', costUsd: 1.25 },
            { kind: 'idle', team: null, costUsd: 2 },
          ],
        },
        {
          cluster: 'b',
          teams: [
            { kind: 'team', team: 'payments', costUsd: 2.25 },
            { kind: 'team', team: null, costUsd: 1 },
          ],
        },
      ],
    } as unknown as OrgTeams;
    expect(orgTeamRows(answer).map((r) => [r.key, r.totalUsd, r.byCluster])).toEqual([
      ['team:payments', 3.5, { a: 1.25, b: 2.25 }],
      ['team:', 1, { b: 1 }],
      ['idle:', 2, { a: 2 }],
    ]);
  });

  it("prints Athena's bill: decimal bytes, and the 10 MB minimum's USD 0.00005", () => {
    expect(formatScanBytes(29_123)).toBe('29.1 KB');
    expect(formatScanBytes(10_000_000)).toBe('10 MB');
    expect(formatScanBytes(512)).toBe('512 B');
    expect(formatQueryUsd(0.00005)).toBe('USD 0.00005');
    expect(formatQueryUsd(0)).toBe('USD 0');
    expect(formatQueryUsd(1.5)).toBe('USD 1.50');
  });
});
