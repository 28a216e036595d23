import { describe, expect, it } from 'vitest';
import { builtInCatalogue } from '../../core/karpenter/scheduling/catalogue-files.js';
import { type KubePod, simulate as engineSimulate } from '../../core/karpenter/scheduling/index.js';
import { kubeNodePool } from './engine-cluster.js';
import { simulate } from './simulate.js';
import { loadScenarioFile, type ScenarioFile } from './scenario-file.js';
import type { Scenario, SimPod } from './types.js';

/**
 * One Karpenter model in the tree: the sandbox's provisioning is the engine's. A cluster whose workloads all start
 * pending at the first step is run by the sandbox; the NodeClaims it launched must be those core's `simulate` gives
 * for the same pods, NodePools and prices, written here from the scenario's output, not through the sandbox's code.
 */

const week4 = loadScenarioFile('week4');
const replicas: Record<string, number> = { 'web-frontend': 13, 'catalog-api': 5, 'payments-api': 3, 'ledger-db': 3 };
const file: ScenarioFile = {
  ...week4,
  name: 'engine-agreement',
  days: week4.stepMinutes / (24 * 60), // one step
  nodePools: week4.nodePools.filter((p) => p.name !== 'system'),
  capacityReservations: [],
  workloads: week4.workloads
    .filter((w) => w.name in replicas || w.target === 'managed')
    .map((w) => (w.name in replicas ? { ...w, replicas: { fixed: replicas[w.name] } } : w)),
  incidents: [],
};

/** A launched NodeClaim, told apart by what it runs (pods of one workload are interchangeable). */
const claimKey = (pool: string, type: string, capacityType: string, zone: string, apps: string[]) =>
  `${pool} ${type} ${capacityType} ${zone} [${apps.sort().join(',')}]`;

const appOf = (podName: string) => Object.keys(replicas).find((app) => podName.startsWith(`${app}-`)) ?? podName;

const asPending = (p: SimPod): KubePod => ({
  metadata: {
    name: p.name,
    namespace: p.namespace,
    labels: p.labels,
    annotations: p.annotations,
    ownerReferences: [{ apiVersion: 'apps/v1', kind: p.ownerKind, name: p.ownerName, controller: true }],
  },
  spec: { nodeSelector: p.nodeSelector, tolerations: p.tolerations, containers: p.containers, initContainers: p.initContainers },
  status: { phase: 'Pending' },
});

function engineClaims(sc: Scenario): string[] {
  const karpenterPods = sc.pods.filter((p) => p.ownerKind !== 'DaemonSet' && p.nodeSelector['karpenter.sh/nodepool'] !== undefined);
  const spot = new Map<string, number>();
  for (const pt of sc.spotPrices) if (pt.at <= sc.start) spot.set(`${pt.instanceType}/${pt.zone}`, pt.usdPerHour);
  const daemonSetPods = file.daemonSets.map((ds): KubePod => ({
    metadata: { name: ds.name, namespace: ds.namespace, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds.name }] },
    spec: { tolerations: [{ operator: 'Exists' }], containers: [{ name: ds.name, resources: { requests: { ...ds.requests } } }] },
  }));
  const result = engineSimulate({
    nodePools: file.nodePools.map((p) => kubeNodePool(p)),
    pods: karpenterPods.map(asPending),
    daemonSetPods,
    catalogue: builtInCatalogue({ region: file.region, zones: file.zones, spotUsdPerHour: spot }),
    now: sc.start,
  });
  expect(result.provisioning.unschedulable).toEqual([]);
  return result.provisioning.nodeClaims
    .map((nc) =>
      claimKey(
        nc.nodePool,
        nc.instanceType,
        nc.capacityType,
        nc.zone,
        nc.pods.map((p) => appOf(p.split('/')[1])),
      ),
    )
    .sort();
}

describe('the sandbox provisions with the engine', () => {
  const sc = simulate(file, 42);

  it("launches, at the first step, exactly the NodeClaims core's simulate() chooses for the same pods, NodePools and prices", () => {
    const launched = sc.nodes.filter((n) => n.launchReason.kind === 'pending-pods' && n.createdAt === sc.start);
    const sandbox = launched
      .map((n) =>
        claimKey(
          n.nodePool ?? '',
          n.instanceType,
          n.capacityType,
          n.zone,
          sc.pods.filter((p) => p.nodeName === n.name && p.ownerKind !== 'DaemonSet').map((p) => appOf(p.name)),
        ),
      )
      .sort();
    // payments are pinned on-demand, the rest go to spot: more than one kind of NodeClaim, so the check has teeth
    expect(new Set(launched.map((n) => n.capacityType))).toEqual(new Set(['on-demand', 'spot']));
    expect(sandbox).toEqual(engineClaims(sc));
  });
});
