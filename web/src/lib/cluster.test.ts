import { describe, expect, it } from 'vitest';
import { clusterOf, keepCluster, withCluster } from './cluster';

describe('the cluster kept in the URL', () => {
  it('reads ?cluster= (absent or empty: every cluster)', () => {
    expect(clusterOf('?range=7d&cluster=staging')).toBe('staging');
    expect(clusterOf('?cluster=')).toBeUndefined();
    expect(clusterOf('')).toBeUndefined();
  });

  it("adds the page's cluster to an API query, not to the ledger-wide routes nor over one named", () => {
    expect(withCluster('/api/teams/cost', { from: 'a' }, 'staging')).toEqual({ from: 'a', cluster: 'staging' });
    expect(withCluster('/api/nodepools', undefined, 'staging')).toEqual({ cluster: 'staging' });
    expect(withCluster('/api/status', undefined, 'staging')).toBeUndefined();
    expect(withCluster('/api/clusters', {}, 'staging')).toEqual({});
    expect(withCluster('/api/teams/cost', { cluster: 'week4' }, 'staging')).toEqual({ cluster: 'week4' });
    expect(withCluster('/api/teams/cost', { from: 'a' }, undefined)).toEqual({ from: 'a' });
  });

  it('an in-app link keeps the cluster; another cluster named, or a link out, is left alone', () => {
    expect(keepCluster('/teams?range=7d', 'staging')).toBe('/teams?range=7d&cluster=staging');
    expect(keepCluster('/savings#why-not', 'staging')).toBe('/savings?cluster=staging#why-not');
    expect(keepCluster('/?cluster=week4', 'staging')).toBe('/?cluster=week4');
    expect(keepCluster('https://karpenter.sh/', 'staging')).toBe('https://karpenter.sh/');
    expect(keepCluster('/teams', undefined)).toBe('/teams');
  });
});
