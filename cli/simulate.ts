import { readFileSync } from 'node:fs';
import { CatalogueError, EngineInputError, simulate, type SimulationResult } from '../core/karpenter/scheduling/index.js';
import { HONOURED_GATES, UNMODELLED_GATES } from '../core/karpenter/scheduling/feature-gates.js';
import { type FeatureGates, karpenterBehaviour, NEWEST_MODELLED_VERSION, resolveGates } from '../core/karpenter/scheduling/version.js';
import { type ObjectStream, parseObjectStream } from '../core/karpenter/scheduling/object-stream.js';
import { isRegionName } from '../core/partitions.js';
import { chooseCatalogue, SimulateInputError, unpricedKarpenterNodes } from './simulate-catalogue.js';
import { formatReport } from './simulate-report.js';
import { UsageError } from './usage-error.js';

export const SIMULATE_HELP = `Usage: nodepool-ledger simulate --objects FILE.yaml [--instance-types FILE.json] [--feature-gates Name=true,…] [--min-values-policy Strict|BestEffort] [--karpenter-version V] [--now ISO] [--region R] [--db PATH] [--json]

Runs Karpenter's rules offline over Kubernetes objects: where the pending pods would go (the NodeClaims Karpenter
would launch, or why a pod cannot be scheduled), the next consolidation round (the one command Karpenter would run,
and for every node that stays, its reason and cost per hour), and the cost per hour before and after. Prices are
Karpenter's view: after NodeOverlays, capacity reservations at the on-demand price ÷ 10,000,000.

  --objects FILE     what 'kubectl get -o yaml' (or -o json) prints, '-' for stdin: multi-document YAML or a List
                     of karpenter.sh/v1 NodePools (spec.replicas: static), Nodes, Pods (bound to nodes by
                     spec.nodeName, or pending), PodDisruptionBudgets, Namespaces, and Deployments, StatefulSets,
                     ReplicaSets and Jobs (each adds the pending pods its controller would create), DaemonSets (their
                     pod on every new node), karpenter.sh/v1alpha1 NodeOverlays, karpenter.k8s.aws/v1 EC2NodeClasses
                     (status.capacityReservations), PersistentVolumeClaims, PersistentVolumes, StorageClasses and
                     CSINodes (volume zones and attach limits). Other kinds (NodeClaim, Service…) are ignored and said so.
  --instance-types FILE.json
                     the catalogue: a JSON array of {name, capacity, overhead, labels, offerings} (see docs/simulate.md);
                     a reserved offering may say reservationId and reservationCapacity (instances left). Default the
                     built-in catalogue: on-demand at the region's prices in every zone the NodePools and nodes name,
                     spot where --db has collected spot prices, reserved from the EC2NodeClasses' reservations
  --region R         the built-in catalogue's region (default $AWS_REGION, else us-east-1)
  --db PATH          a database filled by 'collect' or 'demo': its spot prices (newest at --now) join the built-in catalogue
  --feature-gates G  Karpenter's gates, comma-separated Name=true|false: SpotToSpotConsolidation (default false),
                     NodeOverlay (false), StaticCapacity (false), ReservedCapacity (true from v1.6.0); NodeRepair and
                     CapacityBuffer are refused when true (the simulator does not model them)
  --min-values-policy Strict|BestEffort
                     Karpenter's --min-values-policy (default Strict; BestEffort from v1.6.0)
  --karpenter-version V
                     the release whose decisions to reproduce, e.g. 1.12.0 (default ${NEWEST_MODELLED_VERSION})
  --now ISO          the time node ages and consolidateAfter are measured to (default now), e.g. 2026-12-03T12:00:00Z
  --json             print the result as JSON, and nothing else, on stdout

Exit code 0 when the simulation ran (even with unschedulable pods), 2 on bad input or flags (the message names
the file, document and object, or the flag).`;

export const SIMULATE_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  objects: { type: 'string' },
  'instance-types': { type: 'string' },
  'feature-gates': { type: 'string' },
  'min-values-policy': { type: 'string' },
  'karpenter-version': { type: 'string' },
  now: { type: 'string' },
  region: { type: 'string' },
  db: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export interface SimulateOptions {
  objects: string;
  instanceTypes?: string;
  /** The gates given on the command line; the rest take the release's defaults. */
  featureGates: FeatureGates;
  minValuesPolicy: 'Strict' | 'BestEffort';
  karpenterVersion?: string;
  now: number;
  region: string;
  db?: string;
  json: boolean;
}

// Karpenter's gates the simulator honours, and those it accepts off and refuses on (not silently ignored): one list
// with the collected FEATURE_GATES' reader (core/karpenter/scheduling/feature-gates.ts).

/** Karpenter's --feature-gates form: "Name=true,Name=false"; an unknown gate is refused, naming it. */
export function parseFeatureGates(text: string): FeatureGates {
  const gates: FeatureGates = {};
  for (const part of text.split(',').map((s) => s.trim())) {
    const m = /^([A-Za-z]+)=(true|false)$/.exec(part);
    if (!m) throw new UsageError(`--feature-gates "${part}" is not Name=true or Name=false (e.g. NodeOverlay=true)`);
    const [, name, value] = m;
    const key = HONOURED_GATES[name];
    if (key !== undefined) gates[key] = value === 'true';
    else if (UNMODELLED_GATES.includes(name)) {
      if (value === 'true')
        throw new UsageError(
          `--feature-gates ${name}=true: the simulator does not model ${name} (it honours ${Object.keys(HONOURED_GATES).join(', ')})`,
        );
    } else
      throw new UsageError(
        `--feature-gates: "${name}" is not a Karpenter feature gate (the simulator honours ${Object.keys(HONOURED_GATES).join(', ')}; ${UNMODELLED_GATES.join(' and ')} only =false)`,
      );
  }
  return gates;
}

export function simulateOptionsFrom(
  v: Record<string, string | boolean | undefined>,
  env: NodeJS.ProcessEnv = process.env,
): SimulateOptions {
  const str = (k: string): string | undefined => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
  const objects = str('objects');
  if (!objects) throw new UsageError("simulate needs --objects FILE.yaml (what 'kubectl get -o yaml' prints; '-' for stdin)");
  const nowText = str('now');
  let now = Date.now();
  if (nowText !== undefined) {
    now = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(nowText) ? Date.parse(nowText) : Number.NaN;
    if (Number.isNaN(now))
      throw new UsageError(`--now must be an ISO 8601 time with its zone, like 2026-12-03T12:00:00Z, got "${nowText}"`);
  }
  const flagRegion = str('region');
  const region = flagRegion ?? env.AWS_REGION ?? 'us-east-1';
  if (!isRegionName(region)) {
    const from = flagRegion !== undefined ? '--region' : 'AWS_REGION';
    throw new UsageError(`${from} must be an AWS region name like us-east-1, got "${region}"`);
  }
  const gates = str('feature-gates');
  if (str('instance-types') !== undefined && str('db') !== undefined)
    throw new UsageError(
      '--db adds spot prices to the built-in catalogue; an --instance-types file carries its own, so give one or the other',
    );
  const policy = str('min-values-policy') ?? 'Strict';
  if (policy !== 'Strict' && policy !== 'BestEffort')
    throw new UsageError(`--min-values-policy must be Strict or BestEffort (Karpenter's values), got "${policy}"`);
  const karpenterVersion = str('karpenter-version');
  if (karpenterVersion !== undefined) {
    try {
      karpenterBehaviour(karpenterVersion);
    } catch (err) {
      throw new UsageError(`--karpenter-version ${err instanceof EngineInputError ? err.detail : String(err)}`);
    }
  }
  return {
    objects,
    instanceTypes: str('instance-types'),
    featureGates: gates === undefined ? {} : parseFeatureGates(gates),
    minValuesPolicy: policy,
    ...(karpenterVersion !== undefined ? { karpenterVersion } : {}),
    now,
    region,
    db: str('db'),
    json: v.json === true,
  };
}

async function readObjects(path: string): Promise<string> {
  if (path === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    return Buffer.concat(chunks).toString('utf8');
  }
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as { code?: string }).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder' : (err as Error).message;
    throw new SimulateInputError(`--objects ${path}: ${why}`);
  }
}

/** What --json prints: the engine's answer, plus what was read and with which catalogue. */
export interface SimulateJson extends SimulationResult {
  input: {
    now: string;
    catalogue: string;
    catalogueTypes: number;
    spotPrices: number;
    /** Built-in catalogue: reserved offerings made from the EC2NodeClasses' reservations. */
    reservedOfferings: number;
    /** Built-in catalogue: types priced by a NodeOverlay for want of a price table entry. */
    overlayPricedTypes: { instanceType: string; overlay: string }[];
    ignored: ObjectStream['ignored'];
    workloads: ObjectStream['expanded'];
  };
}

/** The built-in catalogue prices every zone at one region's prices: say so when the nodes are in another region. */
function regionMismatch(stream: ObjectStream, builtInRegion: string | null): string[] {
  if (builtInRegion === null) return [];
  const regions = new Set<string>();
  for (const n of stream.nodes) {
    const r = n.metadata.labels?.['topology.kubernetes.io/region'];
    if (r !== undefined && r !== builtInRegion) regions.add(r);
  }
  return [...regions]
    .sort()
    .map((r) => `nodes are in ${r} but the built-in catalogue holds ${builtInRegion}'s prices: pass --region ${r} (or set AWS_REGION)`);
}

export async function runSimulate(o: SimulateOptions): Promise<number> {
  try {
    const source = o.objects === '-' ? 'stdin' : o.objects;
    const stream = parseObjectStream(await readObjects(o.objects), source);
    if (stream.nodePools.length === 0)
      throw new SimulateInputError(`${source}: holds no karpenter.sh/v1 NodePool, so nothing can be provisioned or consolidated`);
    const behaviour = karpenterBehaviour(o.karpenterVersion);
    const gates = resolveGates(o.featureGates, behaviour, []);
    const catalogue = chooseCatalogue(stream, {
      instanceTypesPath: o.instanceTypes,
      region: o.region,
      dbPath: o.db,
      now: o.now,
      reservedCapacity: gates.reservedCapacity,
      // aws v1.14.0: a NodeOverlay's price stands in for a type the price tables lack
      overlayPrices: gates.nodeOverlay && behaviour.overlayPricesUnpricedTypes,
    });
    const unpriced = unpricedKarpenterNodes(stream, catalogue, o.now);
    if (unpriced.length > 0) {
      const more = unpriced.length > 20 ? `\n… and ${unpriced.length - 20} more` : '';
      throw new SimulateInputError(`${unpriced.slice(0, 20).join('\n')}${more}`);
    }
    const result = simulate({
      nodePools: stream.nodePools,
      pods: stream.pods,
      nodes: stream.nodes,
      podDisruptionBudgets: stream.podDisruptionBudgets,
      ...(stream.daemonSetPods ? { daemonSetPods: stream.daemonSetPods } : {}),
      namespaces: stream.namespaces,
      nodeOverlays: stream.nodeOverlays,
      nodeClasses: stream.nodeClasses,
      persistentVolumeClaims: stream.persistentVolumeClaims,
      persistentVolumes: stream.persistentVolumes,
      storageClasses: stream.storageClasses,
      csiNodes: stream.csiNodes,
      catalogue: catalogue.entries,
      now: o.now,
      featureGates: o.featureGates,
      minValuesPolicy: o.minValuesPolicy,
      ...(o.karpenterVersion !== undefined ? { karpenterVersion: o.karpenterVersion } : {}),
    });
    result.warnings.push(...regionMismatch(stream, o.instanceTypes === undefined ? o.region : null));
    if (o.json) {
      const json: SimulateJson = {
        ...result,
        input: {
          now: new Date(o.now).toISOString(),
          catalogue: catalogue.description,
          catalogueTypes: catalogue.entries.length,
          spotPrices: catalogue.spotPrices,
          reservedOfferings: catalogue.reservations,
          overlayPricedTypes: catalogue.overlayPricedTypes,
          ignored: stream.ignored,
          workloads: stream.expanded,
        },
      };
      console.log(JSON.stringify(json, null, 2));
    } else {
      console.log(
        formatReport(result, {
          now: o.now,
          catalogue: catalogue.description,
          catalogueTypes: catalogue.entries.length,
          spotPrices: catalogue.spotPrices,
          counts: { nodePools: stream.nodePools.length, nodes: stream.nodes.length, pods: stream.pods.length },
          ignored: stream.ignored,
          expanded: stream.expanded,
          overlayPricedTypes: catalogue.overlayPricedTypes,
        }),
      );
    }
    return 0;
  } catch (err) {
    // the input's faults: one message naming the file, object or flag, no stack
    if (err instanceof SimulateInputError || err instanceof EngineInputError || err instanceof CatalogueError) {
      console.error(`simulate: ${err.message}`);
      return 2;
    }
    throw err;
  }
}
