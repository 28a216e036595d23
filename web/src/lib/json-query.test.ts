import { hashKey } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import type { ApiGetPath } from '@schemas/api-routes';
import { apiUrl, type JsonParams } from './api-client';
import { jsonQuery } from './json-query';

/** The cache key is the request: equal requests share an entry, different ones never do. */
describe('jsonQuery keys', () => {
  const key = <P extends ApiGetPath>(path: P, params?: JsonParams<P>) => hashKey(jsonQuery(path, params).queryKey);

  it('gives equal requests one key, whatever the parameter order or the ones left undefined', () => {
    expect(key('/api/nodes', { at: 'x', nodepool: undefined, limit: 5000 })).toBe(key('/api/nodes', { limit: 5000, at: 'x' }));
    expect(apiUrl('/api/nodes', { at: 'x', nodepool: undefined, limit: 5000 })).toBe(apiUrl('/api/nodes', { at: 'x', limit: 5000 }));
    expect(key('/api/status')).toBe(key('/api/status', {}));
  });

  it('keeps requests that differ apart: another sort, another route with the same parameters', () => {
    // The NodePools and Consolidation pages both list every node at a snapshot, one by NodePool and one by name.
    expect(key('/api/nodes', { at: 'x', limit: 5000, sort: 'nodePool' })).not.toBe(
      key('/api/nodes', { at: 'x', limit: 5000, sort: 'name' }),
    );
    expect(key('/api/efficiency/summary', { from: 'a' })).not.toBe(key('/api/cost/nodepools/daily', { from: 'a' }));
  });

  it('lets a route be invalidated by its path alone (the key starts with it)', () => {
    expect(jsonQuery('/api/bill/lines', { source: 's' }).queryKey[0]).toBe('/api/bill/lines');
  });
});
