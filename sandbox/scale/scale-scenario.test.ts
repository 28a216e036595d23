import { describe, expect, it } from 'vitest';
import { nodeAliveAt, podPhaseAt } from '../serve/kube-objects.js';
import { scaleScenario } from './scale-scenario.js';
import { HOUR_MS } from '../../core/time.js';

const sc = scaleScenario({ nodes: 60, podsPerNode: 30, days: 20, seed: 11, meanNodeLifetimeDays: 4 });

describe('scaleScenario', () => {
  it('is the same for the same seed and differs for another', () => {
    expect(JSON.stringify(scaleScenario({ nodes: 60, podsPerNode: 30, days: 20, seed: 11, meanNodeLifetimeDays: 4 }))).toBe(
      JSON.stringify(sc),
    );
    expect(JSON.stringify(scaleScenario({ nodes: 60, podsPerNode: 30, days: 20, seed: 12, meanNodeLifetimeDays: 4 }))).not.toBe(
      JSON.stringify(sc),
    );
  });

  it('runs exactly nodes x podsPerNode pods on exactly `nodes` nodes at the end', () => {
    expect(sc.nodes.filter((n) => nodeAliveAt(n, sc.end))).toHaveLength(60);
    expect(sc.pods.filter((p) => podPhaseAt(p, sc.end) === 'Running')).toHaveLength(60 * 30);
    expect(sc.end - sc.start).toBe(20 * 24 * HOUR_MS);
  });

  it('replaces nodes over time (churn) and says why, with pods that live and die with their node', () => {
    const replaced = sc.nodes.filter((n) => n.deletedAt !== null);
    expect(replaced.length).toBeGreaterThan(60);
    for (const n of replaced) expect(['Underutilized', 'Expired', 'Interrupted']).toContain(n.deletionReason);
    expect(sc.nodes.filter((n) => n.launchReason.kind === 'replacement').length).toBeGreaterThan(0);
    const byName = new Map(sc.nodes.map((n) => [n.name, n]));
    for (const p of sc.pods) {
      const node = byName.get(p.nodeName);
      expect(node).toBeDefined();
      expect(p.createdAt).toBeGreaterThanOrEqual(node?.createdAt ?? Infinity);
      expect(p.deletedAt).toBe(node?.deletedAt);
    }
    // No node was made that ended before the history starts.
    for (const n of sc.nodes) expect(n.deletedAt === null || n.deletedAt > sc.start).toBe(true);
  });

  it('never overcommits a node and launches only types its NodePool admits', () => {
    const used = new Map<string, { cpu: number; mem: number; pods: number }>();
    for (const p of sc.pods) {
      const u = used.get(p.nodeName) ?? { cpu: 0, mem: 0, pods: 0 };
      u.cpu += p.requests.cpuMillicores;
      u.mem += p.requests.memoryBytes;
      u.pods += 1;
      used.set(p.nodeName, u);
    }
    for (const n of sc.nodes) {
      const u = used.get(n.name);
      expect(u?.pods).toBe(30);
      expect(u?.cpu ?? Infinity).toBeLessThanOrEqual(n.allocatable.cpuMillicores);
      expect(u?.mem ?? Infinity).toBeLessThanOrEqual(n.allocatable.memoryBytes);
      if (n.nodePool) expect(sc.nodePools.find((p) => p.name === n.nodePool)?.instanceTypes).toContain(n.instanceType);
    }
  });

  it('prices every type it launches and simulates spot markets for its spot nodes', () => {
    for (const n of sc.nodes) expect(sc.onDemandUsdPerHour[n.instanceType]).toBeGreaterThan(0);
    const spotTypes = new Set(sc.nodes.filter((n) => n.capacityType === 'spot').map((n) => n.instanceType));
    expect(spotTypes.size).toBeGreaterThan(0);
    for (const t of spotTypes) expect(sc.spotPrices.some((p) => p.instanceType === t)).toBe(true);
  });
});
