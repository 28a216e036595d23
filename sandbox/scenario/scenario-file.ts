import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requirementsFromJson, type NodeSelectorRequirement } from '../../core/karpenter/requirements.js';
import type { CapacityType } from '../../core/labels.js';
import { CAPACITY_RESERVATION_ID, type CapacityReservationSpec } from './capacity-reservations.js';
import { KarpenterVersionError, karpenterProfile } from './karpenter-profile.js';
import type { SimNodePool } from './types.js';
import type { UsageProfileSpec } from './usage.js';

/** The scenario file: what the simulated cluster runs. The seed makes the rest (names, noise, spot prices). */
export interface ScenarioFile {
  name: string;
  description: string;
  clusterName: string;
  region: string;
  zones: string[];
  accountId: string;
  start: string;
  days: number;
  stepMinutes: number;
  /** The Karpenter release imitated (see karpenter-profile.ts); absent: CURRENT_KARPENTER_VERSION. */
  karpenterVersion?: string;
  /** Karpenter feature gates of the simulated controller; absent: Karpenter's defaults (SpotToSpotConsolidation off). */
  featureGates?: { spotToSpotConsolidation?: boolean };
  nodePools: (Omit<SimNodePool, 'instanceTypes'> & { requirements: NodeSelectorRequirement[] })[];
  /** On-demand capacity reservations NodePools allowing `reserved` launch into first (Karpenter v1.6+ by default). */
  capacityReservations?: CapacityReservationSpec[];
  managedNodes: { name: string; instanceType: string; count: number }[];
  namespaces: { name: string; labels: Record<string, string> }[];
  daemonSets: { namespace: string; name: string; requests: RequestSpec }[];
  workloads: WorkloadSpec[];
  incidents: IncidentSpec[];
  spotPrices: {
    initialFractionOfOnDemand: [number, number];
    changesPerDay: number;
    stepFraction: number;
    boundsFractionOfOnDemand: [number, number];
  };
}

export interface RequestSpec {
  cpu?: string;
  memory?: string;
}

export interface WorkloadSpec {
  kind: 'Deployment' | 'StatefulSet' | 'Job';
  namespace: string;
  name: string;
  /** A NodePool name, or "managed" for the managed node group that runs Karpenter itself. */
  target: string;
  capacityType?: CapacityType;
  doNotDisrupt?: boolean;
  replicas?: { fixed: number } | { daily: { min: number; max: number; peakHourUtc: number; weekendFactor: number } };
  requests: RequestSpec;
  initRequests?: RequestSpec;
  bursts?: { day: number; hourUtc: number; parallelism: number; hours: number }[];
  /** Extra pod labels (also used by hostile-name scenarios). */
  labels?: Record<string, string>;
  /** What its containers use (sandbox/scenario/usage.ts); absent: the default profile. */
  usage?: UsageProfileSpec;
}

export type IncidentSpec =
  { kind: 'spot-interruption'; at: string; nodePool: string } | { kind: 'drift'; at: string; nodePool: string; change: string };

const SCENARIO_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'scenarios');

export class ScenarioFileError extends Error {}

/** Loads `sandbox/scenarios/<name>.json` (or a path ending in .json) and checks the fields the simulation relies on. */
export function loadScenarioFile(nameOrPath: string): ScenarioFile {
  const path = nameOrPath.endsWith('.json') ? nameOrPath : join(SCENARIO_DIR, `${nameOrPath}.json`);
  let parsed: ScenarioFile;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8')) as ScenarioFile;
  } catch (err) {
    throw new ScenarioFileError(`cannot read scenario ${path}: ${(err as Error).message}`);
  }
  if (Number.isNaN(Date.parse(parsed.start))) throw new ScenarioFileError(`scenario ${path}: "start" is not a date`);
  if (!(parsed.days > 0 && parsed.stepMinutes > 0))
    throw new ScenarioFileError(`scenario ${path}: "days" and "stepMinutes" must be positive`);
  if (parsed.karpenterVersion !== undefined) {
    try {
      karpenterProfile(parsed.karpenterVersion);
    } catch (err) {
      if (err instanceof KarpenterVersionError) throw new ScenarioFileError(`scenario ${path}: ${err.message}`);
      throw err;
    }
  }
  // Requirements as the API server would hold them (values [] where the file leaves them out).
  for (const pool of parsed.nodePools) pool.requirements = requirementsFromJson(pool.requirements);
  for (const r of parsed.capacityReservations ?? []) {
    if (!CAPACITY_RESERVATION_ID.test(r.id) || !parsed.zones.includes(r.zone) || !(Number.isInteger(r.count) && r.count > 0))
      throw new ScenarioFileError(
        `scenario ${path}: capacity reservation ${JSON.stringify(r)} needs an id like cr-0123456789abcdef0, one of the zones and a positive count`,
      );
  }
  const pools = new Set(parsed.nodePools.map((p) => p.name));
  for (const w of parsed.workloads) {
    if (w.target !== 'managed' && !pools.has(w.target)) {
      throw new ScenarioFileError(`scenario ${path}: workload ${w.namespace}/${w.name} targets unknown NodePool "${w.target}"`);
    }
  }
  return parsed;
}
