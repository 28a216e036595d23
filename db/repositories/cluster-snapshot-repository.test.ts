import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate, openDb } from '../open-db.js';
import { createClusterSnapshotRepository } from './cluster-snapshot-repository.js';

/*
 * A file written before migration 0019 (its rows inserted as that schema's collector wrote them), upgraded, and read
 * by the new reader: what it stored still reads, as the what-ifs read it before (pods running, unconstrained; the
 * NodePools as last stored; nodes with their NodePool's taints), with the gaps named.
 */

const dir = mkdtempSync(join(tmpdir(), 'ledger-cluster-snapshot-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T = Date.parse('2026-10-01T12:00:00Z');

describe('clusterObjectsAt on rows written before migration 0019', () => {
  it('reads them as before and says what they lack', () => {
    const path = join(dir, 'old.db');
    const old = new Database(path);
    migrate(
      old,
      loadMigrations().filter((m) => m.version <= 18),
    );
    old.exec(`
      INSERT INTO snapshots (id, taken_at, run_id, node_count, pod_count, currency) VALUES (1, ${T}, NULL, 1, 2, 'USD');
      INSERT INTO nodepools (name, weight, consolidation_policy, consolidate_after, capacity_types_json, requirements_json, limits_json,
        budgets_json, nodeclass, updated_at, expire_after, taints_json)
      VALUES ('system', NULL, 'WhenEmpty', '5m', '["on-demand"]', '[]', '{}', '[{"nodes":"10%"}]', 'default', ${T}, NULL,
        '[{"key":"CriticalAddonsOnly","effect":"NoSchedule"}]');
      INSERT INTO nodes (name, nodeclaim, nodepool, instance_type, capacity_type, zone, instance_id, created_at, first_seen, last_seen,
        alloc_cpu_m, alloc_memory_b, alloc_pods, alloc_gpu, labels_json, capacity_json)
      VALUES ('node-1', 'system-x1', 'system', 'm5.large', 'on-demand', 'us-east-1a', 'i-0123', ${T - 86_400_000}, ${T}, ${T},
        1930, 7000000000, 29, 0, '{"kubernetes.io/arch":"amd64"}', NULL);
      INSERT INTO snapshot_nodes (snapshot_id, node_name, nodepool, capacity_type, instance_type, alloc_cpu_m, alloc_memory_b, alloc_pods,
        alloc_gpu, req_cpu_m, req_memory_b, req_pods, req_gpu, usd_per_hour, price_source, price_currency)
      VALUES (1, 'node-1', 'system', 'on-demand', 'm5.large', 1930, 7000000000, 29, 0, 350, 600000000, 2, 0, 0.096, 'pricing-api', 'USD');
      INSERT INTO pods (uid, namespace, name, node_name, owner_kind, owner_name, team, req_cpu_m, req_memory_b, req_gpu, do_not_disrupt,
        created_at, first_seen, last_seen, labels_json)
      VALUES ('u1', 'kube-system', 'coredns-1', 'node-1', 'ReplicaSet', 'coredns-5d7', NULL, 100, 70000000, 0, 0, ${T - 3_600_000}, ${T}, ${T}, '{}'),
             ('u2', 'kube-system', 'job-1', 'node-1', 'Job', 'job', NULL, 250, 530000000, 0, 1, ${T - 600_000}, ${T}, ${T}, '{}');
    `);
    old.close();

    const db = openDb({ path }); // applies 0019
    const got = createClusterSnapshotRepository(db).clusterObjectsAt();
    // A read without pods (the NodePools page's): the same snapshot, nodes, prices and other kinds, no pods, and it says so.
    const podless = createClusterSnapshotRepository(db).clusterObjectsAt(undefined, { pods: false });
    // The NodePools page's read: no pods, no stored labels, no Node versions, only NodeOverlays of the other kinds.
    const light = createClusterSnapshotRepository(db).clusterObjectsAt(undefined, {
      pods: false,
      nodeLabels: false,
      nodeVersions: false,
      kinds: ['NodeOverlay'],
    });
    const ofCluster = (clusterId: number | null) =>
      createClusterSnapshotRepository(db).clusterObjectsAt(undefined, { clusterId })?.snapshot;
    const byCluster = [ofCluster(1), ofCluster(2), ofCluster(null)];
    db.close();
    // The snapshot's row gives the four labels the engine reads and the hostname; the stored one (arch) is not read.
    expect(got?.objects.nodes[0].metadata.labels).toMatchObject({ 'kubernetes.io/arch': 'amd64' });
    expect(light?.objects.nodes.map((n) => n.metadata.labels)).toEqual([
      {
        'node.kubernetes.io/instance-type': 'm5.large',
        'karpenter.sh/capacity-type': 'on-demand',
        'kubernetes.io/hostname': 'node-1',
        'topology.kubernetes.io/zone': 'us-east-1a',
        'karpenter.sh/nodepool': 'system',
      },
    ]);
    expect(light?.nodePrices).toEqual(got?.nodePrices);
    expect(light?.objects.nodePools).toEqual(got?.objects.nodePools);
    expect(light?.gaps).toContain("Nodes: only their snapshot row's labels (a read without the stored labels)");
    // Cluster 1 holds the one snapshot; cluster 2 none; null reads any cluster's.
    expect(byCluster).toEqual([got?.snapshot, undefined, got?.snapshot]);
    expect(podless?.objects.pods).toEqual([]);
    expect({ ...podless, objects: { ...podless?.objects, pods: got?.objects.pods }, gaps: null }).toEqual({ ...got, gaps: null });
    expect(podless?.gaps).toContain('Pods: not read (a read without pods)');
    expect(got?.snapshot).toEqual({ id: 1, takenAt: T, currency: 'USD' });
    expect(got?.kinds).toBeNull();
    expect(got?.nodePrices).toEqual({
      'node-1': { instanceType: 'm5.large', capacityType: 'on-demand', zone: 'us-east-1a', pricePerHour: 0.096, source: 'pricing-api' },
    });
    // The NodePool's taint on its node (what the what-ifs stood for before), the pods as running pods.
    expect(got?.objects.nodes.map((n) => n.spec?.taints)).toEqual([[{ key: 'CriticalAddonsOnly', effect: 'NoSchedule' }]]);
    expect(got?.objects.nodePools[0].spec.template?.spec?.requirements).toEqual([
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
    ]);
    expect(
      got?.objects.pods.map((p) => [
        p.metadata.name,
        p.spec.nodeName,
        p.status?.phase,
        p.spec.containers[0].resources?.requests,
        p.metadata.annotations,
      ]),
    ).toEqual([
      ['coredns-1', 'node-1', 'Running', { cpu: '100m', memory: '70000000' }, undefined],
      // Old rows kept only a boolean: "true" is what it meant then.
      ['job-1', 'node-1', 'Running', { cpu: '250m', memory: '530000000' }, { 'karpenter.sh/do-not-disrupt': 'true' }],
    ]);
    expect(got?.gaps.slice(0, 3)).toEqual([
      'NodePools: as last collected (this snapshot kept no version of them)',
      "Nodes: taints, cordons and allocatable beyond cpu/memory/pods/GPU not collected (each node carries its NodePool's taints)",
      'Pods: 2 of 2 without their scheduling spec (collected before migration 0019: no node selector, affinity, tolerations, spread, priority or volumes; cpu, memory and GPU requests only)',
    ]);
    expect(got?.gaps).toHaveLength(11);
  });

  it('answers null before any snapshot', () => {
    const db = openDb({ path: ':memory:' });
    expect(createClusterSnapshotRepository(db).clusterObjectsAt()).toBeNull();
    db.close();
  });
});
