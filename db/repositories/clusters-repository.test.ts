import { describe, expect, it } from 'vitest';
import { openDb } from '../open-db.js';
import { type ClusterDeclaration, createClustersRepository } from './clusters-repository.js';

const declared = (name: string, kubeContext: string): ClusterDeclaration => ({
  name,
  namedFrom: 'clusters-file',
  account: null,
  region: 'us-west-2',
  kubeContext,
  inCluster: false,
  awsProfile: null,
  roleArn: null,
  prometheusUrl: null,
});

describe('clusters of a ledger (migration 0029)', () => {
  it('a new ledger has one placeholder cluster, id 1, which the one cluster given names', () => {
    const db = openDb({ path: ':memory:' });
    const repo = createClustersRepository(db);
    expect(repo.list().map((c) => [c.id, c.name, c.namedFrom])).toEqual([[1, 'default', 'placeholder']]);
    repo.declare([{ ...declared('week4', 'week4'), namedFrom: 'collect' }], 0);
    expect(repo.list().map((c) => [c.id, c.name, c.namedFrom])).toEqual([[1, 'week4', 'collect']]);
  });

  it('several clusters on an empty ledger: each its own id, the placeholder gone', () => {
    const db = openDb({ path: ':memory:' });
    const repo = createClustersRepository(db);
    const got = repo.declare([declared('week4', 'week4'), declared('staging', 'staging')], 0);
    expect(got.map((c) => c.name)).toEqual(['week4', 'staging']);
    expect(new Set(got.map((c) => c.id)).size).toBe(2);
    expect(repo.list().map((c) => c.name)).toEqual(['week4', 'staging']);
  });

  it('several clusters on a ledger holding a placeholder cluster`s rows: refused, naming the fix, nothing stored', () => {
    const db = openDb({ path: ':memory:' });
    db.prepare('INSERT INTO snapshots (taken_at, node_count, pod_count) VALUES (0, 1, 1)').run();
    const repo = createClustersRepository(db);
    expect(() => repo.declare([declared('week4', 'week4'), declared('staging', 'staging')], 0)).toThrow(
      'run collect --cluster NAME on it once to name that cluster',
    );
    expect(repo.list().map((c) => c.name)).toEqual(['default']);
  });

  it('the same name again updates the cluster in place (its id, so its rows, kept)', () => {
    const db = openDb({ path: ':memory:' });
    const repo = createClustersRepository(db);
    const [a] = repo.declare([declared('week4', 'old-context')], 0);
    const [b] = repo.declare([declared('week4', 'new-context')], 1);
    expect(b).toEqual({ ...a, kubeContext: 'new-context' });
  });

  it('collect --cluster names the placeholder, updates its own cluster, and leaves a ledger of another cluster as it is', () => {
    const db = openDb({ path: ':memory:' });
    const repo = createClustersRepository(db);
    const collected = (name: string, kubeContext: string) => ({ ...declared(name, kubeContext), namedFrom: 'collect' as const });
    expect(repo.nameCollected(collected('week4', 'a'), 0)).toMatchObject({
      cluster: { id: 1, name: 'week4', kubeContext: 'a' },
      note: null,
    });
    expect(repo.nameCollected(collected('week4', 'b'), 1)).toMatchObject({ cluster: { id: 1, kubeContext: 'b' }, note: null });
    expect(repo.nameCollected(collected('staging', 'c'), 2)).toEqual({
      cluster: null,
      note: 'this ledger holds cluster "week4", not "staging": its snapshots go with "week4"',
    });
    expect(repo.list().map((c) => [c.id, c.name])).toEqual([[1, 'week4']]);
  });
});
