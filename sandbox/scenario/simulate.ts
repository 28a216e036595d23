import { EngineView } from './engine-view.js';
import { EventLog } from './event-log.js';
import { Incidents } from './incidents.js';
import { type ConsolidationRound, KarpenterDriver } from './karpenter-driver.js';
import { Kubelet } from './kubelet.js';
import { shapeForRelease } from './release-shape.js';
import type { ScenarioFile } from './scenario-file.js';
import { SimState } from './sim-state.js';
import type { Scenario } from './types.js';
import { WorkloadControllers } from './workload-controllers.js';

export type { ConsolidationRound } from './karpenter-driver.js';

/**
 * Runs the scenario file with a seed: a deterministic 14-day history of a Karpenter cluster. `watch` sees each
 * consolidation round the sandbox's Karpenter decided (the engine's command), as it is decided.
 */
export function simulate(file: ScenarioFile, seed: number, watch?: (round: ConsolidationRound) => void): Scenario {
  return new Simulation(shapeForRelease(file), seed, watch).run();
}

/**
 * The orchestrator: the cluster's state (sim-state.ts) and, at each step, its parts in turn: the kubelet's side
 * (kubelet.ts: terminated instances removed, cordons lifted), the file's incidents (incidents.ts), the workload
 * controllers (workload-controllers.ts), then the Karpenter driver (karpenter-driver.ts: provisioning, disruption,
 * provisioning again for what disruption evicted). Events go through the event log (event-log.ts). Every part
 * draws from the one seeded stream, in this order: the order is part of the history.
 */
class Simulation {
  private readonly s: SimState;
  private readonly kubelet: Kubelet;
  private readonly controllers: WorkloadControllers;
  private readonly incidents: Incidents;
  private readonly karpenter: KarpenterDriver;

  constructor(file: ScenarioFile, seed: number, watch?: (round: ConsolidationRound) => void) {
    const s = new SimState(file, seed);
    this.s = s;
    const events = new EventLog(s);
    this.kubelet = new Kubelet(s, (pod, t) => this.controllers.remake(pod, t));
    this.controllers = new WorkloadControllers(s, this.kubelet);
    this.incidents = new Incidents(s, this.kubelet, events);
    this.karpenter = new KarpenterDriver(s, new EngineView(s), this.kubelet, events, watch);
  }

  run(): Scenario {
    const s = this.s;
    this.kubelet.launchManagedNodes();
    // The pools as they start: a nodepool-disruption incident edits a pool in place (the edits are kept beside).
    const startPools = new Map([...s.pools, ...s.staticPools].map((p) => [p.name, { ...p }]));
    for (let t = s.start; t < s.end; t += s.step) {
      this.kubelet.reap(t);
      this.incidents.at(t);
      this.controllers.reconcileAll(t);
      this.karpenter.schedulePending(t);
      this.karpenter.disrupt(t);
      this.karpenter.schedulePending(t);
    }
    this.kubelet.reap(s.end);
    return {
      name: s.file.name,
      seed: s.seed,
      karpenterVersion: s.karpenterVersion,
      clusterName: s.file.clusterName,
      region: s.file.region,
      zones: s.file.zones,
      accountId: s.file.accountId,
      start: s.start,
      end: s.end,
      stepMs: s.step,
      nodePools: s.file.nodePools.flatMap((f) => startPools.get(f.name) ?? []),
      namespaces: s.file.namespaces,
      nodes: s.nodes,
      pods: s.pods.sort((a, b) => a.createdAt - b.createdAt || a.name.localeCompare(b.name)),
      events: s.events.sort((a, b) => a.at - b.at),
      spotPrices: s.spotPoints,
      onDemandUsdPerHour: Object.fromEntries(Object.entries(s.onDemand).filter(([t]) => this.usedOrAllowed(t))),
      workloads: this.controllers.simWorkloads(),
      jobs: s.jobs,
      podDisruptionBudgets: s.pdbs,
      volumeClaims: [...s.claims.values()].sort((a, b) => (a.namespace + a.name).localeCompare(b.namespace + b.name)),
      nodeClasses: s.nodeClasses,
      capacityReservations: s.file.capacityReservations ?? [],
      ...(s.file.nodeOverlays?.length ? { nodeOverlays: s.file.nodeOverlays } : {}),
      ...(s.nodePoolChanges.length ? { nodePoolChanges: s.nodePoolChanges } : {}),
    };
  }

  private usedOrAllowed(type: string): boolean {
    const s = this.s;
    return s.pools.some((p) => p.instanceTypes.includes(type)) || s.file.managedNodes.some((m) => m.instanceType === type);
  }
}
