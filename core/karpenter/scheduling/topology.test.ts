import { describe, expect, it } from 'vitest';
import { prepare } from './engine.js';
import type { KubePod, KubePodAffinityTerm, KubeTopologySpreadConstraint } from './kube-types.js';
import { provision } from './provisioning.js';
import { fakeDefaultCatalogue, node, nodePool, pod, pods } from './test-support.js';

/**
 * Topology spread, pod affinity and anti-affinity. "topology_test.go:N" cites kubernetes-sigs/karpenter@v1.14.1
 * pkg/controllers/provisioning/scheduling/topology_test.go; its NodePool (topology_test.go:41-55) allows any
 * capacity type, and the fake catalogue offers test-zone-1/2 (spot and on-demand) and test-zone-3 (on-demand).
 */

const NOW = Date.parse('2026-02-01T00:00:00Z');
const labels = { test: 'test' };
const capacityTypeExists = nodePool('default', { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'Exists' }] });

const spread = (topologyKey: string, maxSkew: number, whenUnsatisfiable = 'DoNotSchedule'): KubeTopologySpreadConstraint[] => [
  { topologyKey, maxSkew, whenUnsatisfiable, labelSelector: { matchLabels: labels } },
];
const antiAffinity = (topologyKey: string, match: Record<string, string>): KubePodAffinityTerm[] => [
  { topologyKey, labelSelector: { matchLabels: match } },
];

function place(podList: KubePod[], pool = capacityTypeExists, nodes: Parameters<typeof prepare>[0]['nodes'] = []) {
  const ctx = prepare({ nodePools: [pool], pods: podList, nodes, catalogue: fakeDefaultCatalogue(), now: NOW });
  return provision(ctx);
}

/** Pods per domain (zone or node), sorted, like Karpenter's ExpectSkew. */
function skew(r: ReturnType<typeof place>, by: 'zone' | 'node'): number[] {
  const counts = new Map<string, number>();
  r.nodeClaims.forEach((nc, i) => {
    const k = by === 'zone' ? nc.launch.zone : String(i);
    counts.set(k, (counts.get(k) ?? 0) + nc.pods.length);
  });
  return [...counts.values()].sort((a, b) => a - b);
}

describe('zone topology spread (the syllabus\' "spread across AZs")', () => {
  it('should balance pods across zones (match labels): topology_test.go:108 (4 pods, maxSkew 1 → 1, 1, 2)', () => {
    const r = place(pods(4, 'p', { labels, spec: { topologySpreadConstraints: spread('topology.kubernetes.io/zone', 1) } }));
    expect(skew(r, 'zone')).toEqual([1, 1, 2]);
  });
  it('should respect NodePool zonal constraints (subset) with requirements: topology_test.go:157 (two zones → 2, 2)', () => {
    const pool = nodePool('default', {
      requirements: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['test-zone-1', 'test-zone-2'] }],
    });
    const r = place(pods(4, 'p', { labels, spec: { topologySpreadConstraints: spread('topology.kubernetes.io/zone', 1) } }), pool);
    expect(skew(r, 'zone')).toEqual([2, 2]);
  });
  it('six replicas over three zones, maxSkew 1 → 2, 2, 2 on three nodes', () => {
    const r = place(pods(6, 'p', { labels, spec: { topologySpreadConstraints: spread('topology.kubernetes.io/zone', 1) } }));
    expect(skew(r, 'zone')).toEqual([2, 2, 2]);
    expect(r.nodeClaims.map((nc) => nc.launch.zone).sort()).toEqual(['test-zone-1', 'test-zone-2', 'test-zone-3']);
  });
  it('should not violate max-skew when unsat = do not schedule: topology_test.go:347 (1 pod in zone 1, pool limited to zones 2-3 → 1, 2, 2)', () => {
    // the first pod landed on a small node in test-zone-1 (1.9 CPU: no room for another 1.1 CPU pod); now the pool
    // allows zones 2 and 3 only, and with maxSkew 1 each may take two of the ten new pods
    const existing = [
      node('n1', { instanceType: 'small-instance-type', zone: 'test-zone-1', allocatable: { cpu: '1900m', memory: '2038Mi', pods: '5' } }),
    ];
    const tsc = { labels, requests: { cpu: '1.1' }, spec: { topologySpreadConstraints: spread('topology.kubernetes.io/zone', 1) } };
    const pool = nodePool('default', {
      requirements: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['test-zone-2', 'test-zone-3'] }],
    });
    const r = place([pod('running', { ...tsc, nodeName: 'n1' }), ...pods(10, 'p', tsc)], pool, existing);
    const perZone = new Map<string, number>([['test-zone-1', 1]]);
    for (const nc of r.nodeClaims) perZone.set(nc.launch.zone, (perZone.get(nc.launch.zone) ?? 0) + nc.pods.length);
    expect([...perZone.values()].sort()).toEqual([1, 2, 2]);
    expect(r.unschedulable).toHaveLength(6);
    expect(r.unschedulable[0].reason).toMatch(/^unsatisfiable topology constraint for topology spread, key=topology.kubernetes.io\/zone/);
  });
});

describe('hostname spread and anti-affinity', () => {
  it('should balance pods across nodes: topology_test.go:545 (maxSkew 1 → 4 nodes of 1)', () => {
    const r = place(pods(4, 'p', { labels, spec: { topologySpreadConstraints: spread('kubernetes.io/hostname', 1) } }));
    expect(skew(r, 'node')).toEqual([1, 1, 1, 1]);
  });
  it('should balance pods on the same hostname up to maxskew: topology_test.go:558 (maxSkew 4 → one node of 4)', () => {
    const r = place(pods(4, 'p', { labels, spec: { topologySpreadConstraints: spread('kubernetes.io/hostname', 4) } }));
    expect(skew(r, 'node')).toEqual([4]);
  });
  it('20 replicas with required anti-affinity to themselves on hostname → 20 nodes, the cheapest type each (the syllabus exercise)', () => {
    const app = { app: 'web' };
    const r = place(
      pods(20, 'web', {
        labels: app,
        requests: { cpu: '100m', memory: '128Mi' },
        spec: {
          affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: antiAffinity('kubernetes.io/hostname', app) } },
        },
      }),
    );
    expect(r.unschedulable).toEqual([]);
    expect(r.nodeClaims).toHaveLength(20);
    expect(new Set(r.nodeClaims.map((nc) => nc.launch.instanceType.name))).toEqual(new Set(['small-instance-type']));
    expect(r.nodeClaims.every((nc) => nc.pods.length === 1)).toBe(true);
  });
  it('without the anti-affinity the same 20 replicas share nodes (5 pod slots each → 4 nodes)', () => {
    const r = place(pods(20, 'web', { labels: { app: 'web' }, requests: { cpu: '100m', memory: '128Mi' } }));
    expect(r.nodeClaims).toHaveLength(4);
  });
  it('should separate nodes using simple pod anti-affinity on hostname: topology_test.go:2297', () => {
    const aff = { security: 's2' };
    const r = place([
      pod('aff1', { labels: aff }),
      pod('aff2', {
        spec: {
          affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: antiAffinity('kubernetes.io/hostname', aff) } },
        },
      }),
    ]);
    const nodeOf = (name: string) => r.nodeClaims.findIndex((nc) => nc.pods.some((p) => p.name === name));
    expect(nodeOf('aff1')).toBeGreaterThanOrEqual(0);
    expect(nodeOf('aff2')).toBeGreaterThanOrEqual(0);
    expect(nodeOf('aff1')).not.toBe(nodeOf('aff2'));
  });
  it('should not violate pod anti-affinity on zone: topology_test.go:2319 (three zone-pinned pods take every zone)', () => {
    const aff = { security: 's2' };
    const zonePod = (z: string) =>
      pod(`zone${z}`, { labels: aff, requests: { cpu: '2' }, nodeSelector: { 'topology.kubernetes.io/zone': `test-zone-${z}` } });
    const r = place([
      zonePod('1'),
      zonePod('2'),
      zonePod('3'),
      pod('aff', {
        spec: {
          affinity: {
            podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: antiAffinity('topology.kubernetes.io/zone', aff) },
          },
        },
      }),
    ]);
    expect(r.nodeClaims.flatMap((nc) => nc.pods.map((p) => p.name)).sort()).toEqual(['zone1', 'zone2', 'zone3']);
    expect(r.unschedulable.map((u) => u.pod.name)).toEqual(['aff']);
  });
  it("an existing pod's required anti-affinity keeps a newcomer off its node (inverse anti-affinity)", () => {
    const existing = [node('n1', { instanceType: 'default-instance-type', allocatable: { cpu: '3900m', memory: '4086Mi', pods: '5' } })];
    const guard = pod('guard', {
      nodeName: 'n1',
      spec: {
        affinity: {
          podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: antiAffinity('kubernetes.io/hostname', { role: 'noisy' }) },
        },
      },
    });
    const r = place([guard, pod('noisy', { labels: { role: 'noisy' } }), pod('quiet')], capacityTypeExists, existing);
    expect(r.onExistingNodes.get('n1')?.map((p) => p.name)).toEqual(['quiet']);
    expect(r.nodeClaims.flatMap((nc) => nc.pods.map((p) => p.name))).toEqual(['noisy']);
  });
});

describe('pod affinity', () => {
  it('should respect pod affinity (hostname): topology_test.go:1936', () => {
    const aff = { security: 's2' };
    const r = place([
      ...pods(10, 'spread', { labels, spec: { topologySpreadConstraints: spread('kubernetes.io/hostname', 1) } }),
      pod('aff1', { labels: aff }),
      pod('aff2', {
        spec: {
          affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: antiAffinity('kubernetes.io/hostname', aff) } },
        },
      }),
    ]);
    const nodeOf = (name: string) => r.nodeClaims.findIndex((nc) => nc.pods.some((p) => p.name === name));
    expect(nodeOf('aff1')).toBeGreaterThanOrEqual(0);
    expect(nodeOf('aff1')).toBe(nodeOf('aff2'));
  });
  it('should respect self pod affinity (hostname): topology_test.go:2013 (three pods, one node)', () => {
    const aff = { security: 's2' };
    const r = place(
      pods(3, 'p', {
        labels: aff,
        spec: {
          affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: antiAffinity('kubernetes.io/hostname', aff) } },
        },
      }),
    );
    expect(r.nodeClaims).toHaveLength(1);
    expect(r.nodeClaims[0].pods).toHaveLength(3);
  });
  it('should not schedule pods with affinity to a non-existent pod: topology_test.go:2710', () => {
    const r = place([
      pod('p', {
        spec: {
          affinity: {
            podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: antiAffinity('kubernetes.io/hostname', { nobody: 'here' }) },
          },
        },
      }),
    ]);
    expect(r.nodeClaims).toEqual([]);
    expect(r.unschedulable[0].reason).toMatch(/^unsatisfiable topology constraint for pod affinity, key=kubernetes.io\/hostname/);
  });
  it('should allow violation of preferred pod anti-affinity: topology_test.go:2264 (relaxed away, both on one node)', () => {
    const aff = { security: 's2' };
    const r = place(
      pods(2, 'p', {
        labels: aff,
        spec: {
          affinity: {
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                { weight: 50, podAffinityTerm: antiAffinity('kubernetes.io/hostname', aff)[0] },
              ],
            },
          },
        },
      }),
    );
    expect(r.unschedulable).toEqual([]);
    // the preference is honoured where it can be: Karpenter opens a second node rather than relaxing
    expect(r.nodeClaims).toHaveLength(2);
  });
});
