import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requirementsFromJson, type NodeSelectorRequirement } from '../../core/karpenter/requirements.js';
import type { KubeAffinity, KubeTopologySpreadConstraint } from '../../core/karpenter/scheduling/kube-types.js';
import type { CapacityType } from '../../core/labels.js';
import { CAPACITY_RESERVATION_ID, type CapacityReservationSpec } from './capacity-reservations.js';
import { KarpenterVersionError, karpenterProfile } from './karpenter-profile.js';
import type { SimNodeOverlay, SimNodePool } from './types.js';
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
  /**
   * EC2NodeClasses beyond what the NodePools name (each named class exists with the defaults below): the AMI alias
   * they start with, and the capacity reservations they select (`capacityReservationSelectorTerms` by id).
   */
  nodeClasses?: NodeClassSpec[];
  /** karpenter.sh/v1alpha1 NodeOverlays the cluster holds (served from Karpenter v1.7; not applied: gate off). */
  nodeOverlays?: SimNodeOverlay[];
  managedNodes: { name: string; instanceType: string; count: number }[];
  namespaces: { name: string; labels: Record<string, string> }[];
  daemonSets: DaemonSetSpec[];
  workloads: WorkloadSpec[];
  /** policy/v1 PodDisruptionBudgets, selecting pods by their labels. */
  podDisruptionBudgets?: PodDisruptionBudgetSpec[];
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

/** A toleration as a pod spec writes it. */
export interface TolerationSpec {
  key?: string;
  operator?: 'Equal' | 'Exists';
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export interface NodeClassSpec {
  name: string;
  /** amiSelectorTerms alias the class starts with (default al2023@v20261020); a drift incident names the next. */
  amiAlias?: string;
  /** Capacity reservation ids of the scenario it selects (default: all of them, for a class of a NodePool allowing reserved). */
  capacityReservationIds?: string[];
}

export interface DaemonSetSpec {
  namespace: string;
  name: string;
  requests: RequestSpec;
  image?: string;
  /** As the chart writes them; absent: every taint tolerated (operator Exists). */
  tolerations?: TolerationSpec[];
  nodeSelector?: Record<string, string>;
  affinity?: KubeAffinity;
  priorityClassName?: string;
  hostNetwork?: boolean;
  /** A container port bound on the node (node-exporter's 9100). */
  hostPort?: number;
}

export interface PodDisruptionBudgetSpec {
  namespace: string;
  name: string;
  matchLabels: Record<string, string>;
  minAvailable?: number | string;
  maxUnavailable?: number | string;
}

/** A CronJob's schedule and what its Jobs do; its pods run `runMinutes` and end Succeeded, or Failed at `failures`. */
export interface CronSpec {
  /** "M * * * *" (hourly at minute M) or "M H * * *" (daily), in UTC. */
  schedule: string;
  runMinutes: number;
  successfulJobsHistoryLimit: number;
  failedJobsHistoryLimit: number;
  /** Scheduled times (RFC 3339) whose Job fails (backoffLimit 0: its one pod ends Failed). */
  failures?: string[];
}

export interface WorkloadSpec {
  kind: 'Deployment' | 'StatefulSet' | 'Job' | 'CronJob';
  namespace: string;
  name: string;
  /** A NodePool name, or "managed" for the managed node group that runs Karpenter itself. */
  target: string;
  capacityType?: CapacityType;
  doNotDisrupt?: boolean;
  /**
   * The container image; `${karpenterVersion}` and `${karpenterDigest}` are the imitated release's controller image
   * tag and digest (karpenter-images.ts). Default public.ecr.aws/ledger-demo/<name>:1.4.2.
   */
  image?: string;
  /** Beside karpenter.sh/nodepool (and capacity-type): e.g. kubernetes.io/arch for a single-architecture image. */
  nodeSelector?: Record<string, string>;
  /** Default: the taints of the NodePool it targets, each tolerated with Equal. */
  tolerations?: TolerationSpec[];
  affinity?: KubeAffinity;
  topologySpreadConstraints?: KubeTopologySpreadConstraint[];
  priorityClassName?: string;
  /** Extra pod annotations (e.g. controller.kubernetes.io/pod-deletion-cost). */
  annotations?: Record<string, string>;
  /** A StatefulSet's claims: one PVC per replica, `<name>-<pod>`, provisioned in the zone where the pod first runs. */
  volumeClaimTemplates?: { name: string; storageClassName: string; storage: string }[];
  /** kind CronJob: when its Jobs run. */
  cron?: CronSpec;
  /** kind Job: the Jobs' ttlSecondsAfterFinished (their pods are listed that long after they finish; default 600). */
  ttlSecondsAfterFinished?: number;
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
  | { kind: 'spot-interruption'; at: string; nodePool: string }
  | { kind: 'drift'; at: string; nodePool: string; change: string }
  /** An operator cordons the oldest node of the pool (kubectl cordon) and uncordons it `hours` later. */
  | { kind: 'cordon'; at: string; nodePool: string; hours: number; reason: string }
  /**
   * EC2 has no spot capacity for the pool's instance types for `hours`: its spot nodes are interrupted at `at` and
   * Karpenter, finding every spot offering unavailable, launches on-demand until the shortage ends (the engine sees
   * the pool's capacity-type requirement without spot meanwhile; other pools are not touched).
   */
  | { kind: 'spot-shortage'; at: string; nodePool: string; hours: number }
  /**
   * An operator edits the NodePool's spec.disruption (kubectl edit / a GitOps commit): from `at` the pool has these
   * settings (the ones not given are kept), its served object shows them (generation + 1), and Karpenter's
   * disruption controller follows them (WhenEmpty: no Underutilized consolidation of that pool any more).
   */
  | { kind: 'nodepool-disruption'; at: string; nodePool: string; disruption: NodePoolDisruptionChange; reason?: string };

/** The disruption settings a nodepool-disruption incident sets (each absent one is left as it was). */
export interface NodePoolDisruptionChange {
  consolidationPolicy?: SimNodePool['consolidationPolicy'];
  consolidateAfter?: string;
  budgets?: SimNodePool['budgets'];
}

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
  for (const pool of parsed.nodePools) {
    if (pool.replicas === undefined) continue;
    // The simulation launches no static nodes yet: a static NodePool is served, scaled to zero.
    if (pool.replicas !== 0)
      throw new ScenarioFileError(`scenario ${path}: NodePool ${pool.name}: the sandbox serves static NodePools with replicas 0 only`);
    if (Object.keys(pool.limits).some((k) => k !== 'nodes'))
      throw new ScenarioFileError(`scenario ${path}: NodePool ${pool.name}: a static NodePool takes limits.nodes only`);
  }
  const pools = new Set(parsed.nodePools.filter((p) => p.replicas === undefined).map((p) => p.name));
  for (const w of parsed.workloads) {
    if (w.target !== 'managed' && !pools.has(w.target)) {
      throw new ScenarioFileError(`scenario ${path}: workload ${w.namespace}/${w.name} targets unknown NodePool "${w.target}"`);
    }
    if (w.kind === 'CronJob') {
      if (!w.cron || parseCronSchedule(w.cron.schedule) === null)
        throw new ScenarioFileError(`scenario ${path}: CronJob ${w.namespace}/${w.name} needs cron.schedule "M * * * *" or "M H * * *"`);
      for (const f of w.cron.failures ?? [])
        if (Number.isNaN(Date.parse(f)))
          throw new ScenarioFileError(`scenario ${path}: CronJob ${w.namespace}/${w.name}: failure "${f}" is not a date`);
    }
  }
  return parsed;
}

/** The minute and hour (null: every hour) of a "M * * * *" / "M H * * *" schedule; null for any other form. */
export function parseCronSchedule(schedule: string): { minute: number; hour: number | null } | null {
  const m = /^(\d{1,2}) (\*|\d{1,2}) \* \* \*$/.exec(schedule.trim());
  if (!m) return null;
  const minute = Number(m[1]);
  const hour = m[2] === '*' ? null : Number(m[2]);
  if (minute > 59 || (hour !== null && hour > 23)) return null;
  return { minute, hour };
}
