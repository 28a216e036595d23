import type { InstanceCatalog } from '../../instance-catalog.js';
import type { KubeCapacityReservationStatus } from './kube-types.js';
import { formatQuantity, parseQuantity, type QuantityInput } from './resources.js';
import {
  CAPACITY_ON_DEMAND,
  CAPACITY_RESERVED,
  CAPACITY_SPOT,
  LABEL_ARCH,
  LABEL_INSTANCE_TYPE,
  LABEL_REGION,
  LABEL_ZONE,
} from './well-known.js';

/**
 * The instance-type catalogue the engine reads (issue 14 item 2), as a user writes it in a JSON file:
 *
 *   [{ "name": "m5.large",
 *      "capacity": { "cpu": "2", "memory": "7569Mi", "pods": "29" },
 *      "overhead": { "cpu": "70m", "memory": "674Mi" },
 *      "labels": { "kubernetes.io/arch": "amd64", "karpenter.k8s.aws/instance-family": "m5" },
 *      "offerings": [{ "zone": "us-east-1a", "capacityType": "on-demand", "priceUsdPerHour": 0.096, "available": true }] }]
 *
 * Quantities are Kubernetes strings (numbers accepted). allocatable = capacity − overhead. When `overhead` is left
 * out it is computed as Karpenter's AWS provider does for AL2023 (kube-reserved CPU by core ranges, kube-reserved
 * memory 11 MiB × pods + 255 MiB, eviction threshold 100 MiB). An offering with `available: false` cannot be
 * launched but still prices an existing node on it.
 */
export interface CatalogueOffering {
  zone: string;
  capacityType: string;
  priceUsdPerHour: number;
  available: boolean;
  /** `reserved` only: the capacity reservation (ODCR or capacity block) this offering launches into. */
  reservationId?: string;
  /** `reserved` only: instances the reservation still holds (0: used up, unavailable); left out: not limited. */
  reservationCapacity?: number;
  /** `reserved` only: "default" (ODCR) or "capacity-block". */
  reservationType?: string;
  interruptible?: boolean;
  /** `reserved` only: the EC2NodeClass whose status lists the reservation (only its NodePools may use it). */
  nodeClass?: string;
  /** Set by the built-in catalogue when a NodeOverlay's price stands in for a missing one (aws v1.14.0). */
  priceOverlay?: string;
}

export interface CatalogueEntry {
  name: string;
  capacity: Record<string, QuantityInput>;
  overhead?: Record<string, QuantityInput>;
  labels: Record<string, string>;
  offerings: CatalogueOffering[];
}

export class CatalogueError extends Error {
  constructor(
    readonly problems: string[],
    source = 'instance-type catalogue',
  ) {
    super(
      `${source} is invalid:\n  ${problems.slice(0, 20).join('\n  ')}${problems.length > 20 ? `\n  … and ${problems.length - 20} more` : ''}`,
    );
  }
}

const CAPACITY_TYPES = [CAPACITY_ON_DEMAND, CAPACITY_SPOT, CAPACITY_RESERVED];
const MI = 2 ** 20;

/** Karpenter's AWS kube-reserved CPU (millicores) for a number of millicores: 6% of the first core, 1% of the next, 0.5% of the next two, 0.25% above. */
export function kubeReservedCpuMillicores(cpuMillicores: number): number {
  let reserved = 0;
  for (const [start, end, pct] of [
    [0, 1000, 0.06],
    [1000, 2000, 0.01],
    [2000, 4000, 0.005],
    [4000, 2 ** 31, 0.0025],
  ]) {
    if (cpuMillicores >= start) reserved += Math.floor((Math.min(cpuMillicores, end) - start) * pct);
  }
  return reserved;
}

/** Karpenter's AWS overhead for AL2023 defaults: kube-reserved + eviction threshold (no system-reserved). */
export function karpenterOverhead(cpuMillicores: number, pods: number): { cpu: number; memory: number } {
  return { cpu: kubeReservedCpuMillicores(cpuMillicores), memory: (11 * pods + 255 + 100) * MI };
}

/** Karpenter's AWS node memory capacity: the instance's MiB, less 64 MiB on Graviton, less the 7.5% VM overhead (rounded up). */
export function karpenterMemoryCapacityBytes(instanceMemoryMiB: number, arch: string): number {
  const mib = arch === 'arm64' ? instanceMemoryMiB - 64 : instanceMemoryMiB;
  return (mib - Math.ceil(mib * 0.075)) * MI;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkQuantities(where: string, v: unknown, problems: string[], required: string[]): void {
  if (!isRecord(v)) {
    problems.push(`${where} must be an object of Kubernetes quantities`);
    return;
  }
  for (const r of required) if (v[r] === undefined) problems.push(`${where}.${r} is missing`);
  for (const [k, q] of Object.entries(v)) {
    if (typeof q !== 'string' && typeof q !== 'number') {
      problems.push(`${where}.${k} must be a Kubernetes quantity string, got ${JSON.stringify(q)}`);
      continue;
    }
    try {
      if (parseQuantity(k, q) < 0) problems.push(`${where}.${k} must not be negative, got "${q}"`);
    } catch {
      problems.push(`${where}.${k} is not a Kubernetes quantity: ${JSON.stringify(q)}`);
    }
  }
}

const RESERVATION_FIELDS = ['reservationId', 'reservationCapacity', 'reservationType', 'interruptible', 'nodeClass'] as const;

function checkReservationFields(ow: string, o: Record<string, unknown>, problems: string[]): void {
  const present = RESERVATION_FIELDS.filter((f) => o[f] !== undefined);
  if (present.length === 0) return;
  if (o.capacityType !== CAPACITY_RESERVED) {
    problems.push(`${ow}: ${present.join(', ')} only go with capacityType "${CAPACITY_RESERVED}"`);
    return;
  }
  if (o.reservationId !== undefined && (typeof o.reservationId !== 'string' || !/^cr-[0-9a-z]+$/.test(o.reservationId)))
    problems.push(
      `${ow}.reservationId must be a capacity reservation id like "cr-0123456789abcdef0", got ${JSON.stringify(o.reservationId)}`,
    );
  const cap = o.reservationCapacity;
  if (cap !== undefined && (typeof cap !== 'number' || !Number.isInteger(cap) || cap < 0))
    problems.push(`${ow}.reservationCapacity must be a whole number of instances ≥ 0, got ${JSON.stringify(cap)}`);
  if (o.reservationType !== undefined && o.reservationType !== 'default' && o.reservationType !== 'capacity-block')
    problems.push(`${ow}.reservationType must be "default" or "capacity-block", got ${JSON.stringify(o.reservationType)}`);
  if (o.interruptible !== undefined && typeof o.interruptible !== 'boolean')
    problems.push(`${ow}.interruptible must be true or false, got ${JSON.stringify(o.interruptible)}`);
  if (o.nodeClass !== undefined && (typeof o.nodeClass !== 'string' || o.nodeClass === ''))
    problems.push(`${ow}.nodeClass must be an EC2NodeClass name, got ${JSON.stringify(o.nodeClass)}`);
  if (o.reservationId === undefined && present.length > 0)
    problems.push(`${ow}: ${present.join(', ')} describe a reservation: give its reservationId too`);
}

/**
 * Checks a parsed catalogue file (a top-level JSON array) and returns its entries; every problem is reported at
 * once, each naming the entry and the field. Labels get node.kubernetes.io/instance-type when missing.
 */
export function validateCatalogue(value: unknown, source?: string): CatalogueEntry[] {
  const problems: string[] = [];
  if (!Array.isArray(value)) throw new CatalogueError(['the file must hold a JSON array of instance types at the top level'], source);
  const seen = new Set<string>();
  value.forEach((e, i) => {
    const where = isRecord(e) && typeof e.name === 'string' && e.name ? `instance type #${i + 1} "${e.name}"` : `instance type #${i + 1}`;
    if (!isRecord(e)) {
      problems.push(`${where} must be an object`);
      return;
    }
    if (typeof e.name !== 'string' || !e.name) problems.push(`${where}: name must be a non-empty string`);
    else if (seen.has(e.name)) problems.push(`${where}: name repeats an earlier entry`);
    else seen.add(e.name);
    checkQuantities(`${where}: capacity`, e.capacity, problems, ['cpu', 'memory', 'pods']);
    if (e.overhead !== undefined) checkQuantities(`${where}: overhead`, e.overhead, problems, []);
    if (isRecord(e.capacity) && isRecord(e.overhead)) {
      for (const [k, q] of Object.entries(e.overhead)) {
        const cap = e.capacity[k];
        try {
          if ((typeof q === 'string' || typeof q === 'number') && parseQuantity(k, q) > parseQuantity(k, (cap ?? 0) as QuantityInput)) {
            problems.push(`${where}: overhead.${k} (${q}) exceeds capacity.${k} (${cap ?? 0})`);
          }
        } catch {
          // already reported as a bad quantity
        }
      }
    }
    if (e.labels !== undefined && (!isRecord(e.labels) || Object.values(e.labels).some((v) => typeof v !== 'string'))) {
      problems.push(`${where}: labels must be an object of string values`);
    } else if (
      isRecord(e.labels) &&
      typeof e.name === 'string' &&
      e.labels[LABEL_INSTANCE_TYPE] !== undefined &&
      e.labels[LABEL_INSTANCE_TYPE] !== e.name
    ) {
      problems.push(`${where}: labels.${LABEL_INSTANCE_TYPE} is "${e.labels[LABEL_INSTANCE_TYPE]}", not the entry's name`);
    }
    if (!Array.isArray(e.offerings) || e.offerings.length === 0) {
      problems.push(`${where}: offerings must be a non-empty array`);
      return;
    }
    e.offerings.forEach((o: unknown, j: number) => {
      const ow = `${where}: offerings[${j}]`;
      if (!isRecord(o)) {
        problems.push(`${ow} must be an object`);
        return;
      }
      if (typeof o.zone !== 'string' || !o.zone) problems.push(`${ow}.zone must be a non-empty string`);
      if (typeof o.capacityType !== 'string' || !CAPACITY_TYPES.includes(o.capacityType)) {
        problems.push(`${ow}.capacityType must be one of ${CAPACITY_TYPES.join(', ')}, got ${JSON.stringify(o.capacityType)}`);
      }
      if (typeof o.priceUsdPerHour !== 'number' || !Number.isFinite(o.priceUsdPerHour) || o.priceUsdPerHour < 0) {
        problems.push(`${ow}.priceUsdPerHour must be a number ≥ 0 (USD per hour), got ${JSON.stringify(o.priceUsdPerHour)}`);
      }
      if (typeof o.available !== 'boolean') problems.push(`${ow}.available must be true or false, got ${JSON.stringify(o.available)}`);
      checkReservationFields(ow, o, problems);
    });
  });
  if (problems.length) throw new CatalogueError(problems, source);
  return (value as CatalogueEntry[]).map((e) => ({
    name: e.name,
    capacity: e.capacity,
    ...(e.overhead ? { overhead: e.overhead } : {}),
    labels: { ...(e.labels ?? {}), [LABEL_INSTANCE_TYPE]: e.name },
    offerings: e.offerings.map((o) => {
      const out: CatalogueOffering = {
        zone: o.zone,
        capacityType: o.capacityType,
        priceUsdPerHour: o.priceUsdPerHour,
        available: o.available,
      };
      for (const f of RESERVATION_FIELDS) if (o[f] !== undefined) (out as unknown as Record<string, unknown>)[f] = o[f];
      return out;
    }),
  }));
}

/** Parses and checks a catalogue file's text; JSON syntax errors are reported as such. */
export function parseCatalogue(text: string, source?: string): CatalogueEntry[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CatalogueError([`not JSON: ${err instanceof Error ? err.message : String(err)}`], source);
  }
  return validateCatalogue(value, source);
}

export interface BuiltInCatalogueOptions {
  region: string;
  /** Zones to offer every type in (on-demand everywhere, spot where a price is known). */
  zones: readonly string[];
  /** On-demand USD/hour by type; types without one are left out (they cannot be priced). */
  onDemandUsdPerHour: ReadonlyMap<string, number>;
  /** Spot USD/hour keyed `${instanceType}/${zone}`. */
  spotUsdPerHour?: ReadonlyMap<string, number>;
  /**
   * EC2NodeClasses' status.capacityReservations (ReservedCapacity gate): a `reserved` offering each, in the
   * reservation's zone, at the on-demand price ÷ 10,000,000 (aws reserved_capacity_resolver.go: ordering only),
   * unavailable while `expiring`, left out once its endTime has passed. Their instance count is not in the status,
   * so they are not limited (an --instance-types file can say reservationCapacity).
   */
  capacityReservations?: readonly { nodeClass: string; reservation: KubeCapacityReservationStatus }[];
  /** The simulation's now (epoch ms), for reservations' endTime. */
  now?: number;
  /**
   * Prices NodeOverlays give types the price tables lack (aws v1.14.0 preview instance types: an overlay whose only
   * requirement is instance-type In … and which sets `price`), by type; those types join the catalogue on-demand.
   */
  overlayUsdPerHour?: ReadonlyMap<string, { usdPerHour: number; overlay: string }>;
}

/** aws reserved_capacity_resolver.go: reservations are "free" but keep the on-demand order among themselves. */
export const RESERVED_PRICE_DIVISOR = 10_000_000;

/**
 * The built-in catalogue: every priced type of data/instance-types.json, its capacity derived as Karpenter derives
 * it (vCPUs; memory less the VM overhead), its overhead = capacity − the allocatable Karpenter computed, offered
 * on-demand in every zone and spot where a spot price is known. Pure: the caller reads the files (core/instance-catalog.ts
 * reads data/instance-types.json, sorted by name, and has already left out the types without cpu, memory or pods).
 */
export function buildBuiltInCatalogue(data: Pick<InstanceCatalog, 'types'>, opts: BuiltInCatalogueOptions): CatalogueEntry[] {
  const out: CatalogueEntry[] = [];
  const reservations = new Map<string, { nodeClass: string; reservation: KubeCapacityReservationStatus }[]>();
  for (const r of opts.capacityReservations ?? []) {
    const list = reservations.get(r.reservation.instanceType) ?? [];
    list.push(r);
    reservations.set(r.reservation.instanceType, list);
  }
  for (const { name, labels, allocatableQuantities: allocatable, allocatable: parsed, vcpu, memoryMiB: memMiB } of data.types.values()) {
    const tablePrice = opts.onDemandUsdPerHour.get(name);
    const overlay = tablePrice === undefined ? opts.overlayUsdPerHour?.get(name) : undefined;
    const price = tablePrice ?? overlay?.usdPerHour;
    if (price === undefined) continue;
    const allocCpu = parsed.cpuMillicores;
    const allocMem = parsed.memoryBytes;
    // derive capacity as Karpenter does; if the labels are missing, the allocatable is all we know
    const capCpu = Number.isFinite(vcpu) && vcpu * 1000 >= allocCpu ? vcpu * 1000 : allocCpu;
    const capMemDerived = Number.isFinite(memMiB) ? karpenterMemoryCapacityBytes(memMiB, labels[LABEL_ARCH] ?? 'amd64') : allocMem;
    const capMem = capMemDerived >= allocMem ? capMemDerived : allocMem;
    const capacity: Record<string, QuantityInput> = {
      ...allocatable,
      cpu: formatQuantity('cpu', capCpu),
      memory: formatQuantity('memory', capMem),
    };
    const offerings: CatalogueOffering[] = [];
    for (const zone of opts.zones) {
      offerings.push({
        zone,
        capacityType: CAPACITY_ON_DEMAND,
        priceUsdPerHour: price,
        available: true,
        ...(overlay ? { priceOverlay: overlay.overlay } : {}),
      });
      const spot = opts.spotUsdPerHour?.get(`${name}/${zone}`);
      if (spot !== undefined) offerings.push({ zone, capacityType: CAPACITY_SPOT, priceUsdPerHour: spot, available: true });
    }
    for (const { nodeClass, reservation: r } of reservations.get(name) ?? []) {
      const end = r.endTime === undefined ? null : Date.parse(r.endTime);
      if (end !== null && opts.now !== undefined && end <= opts.now) continue;
      offerings.push({
        zone: r.availabilityZone,
        capacityType: CAPACITY_RESERVED,
        // the pricing provider's on-demand price (0 when it has none), never an overlay's
        priceUsdPerHour: (tablePrice ?? 0) / RESERVED_PRICE_DIVISOR,
        available: opts.zones.includes(r.availabilityZone) && r.state !== 'expiring',
        reservationId: r.id,
        reservationType: r.reservationType ?? 'default',
        interruptible: r.interruptible ?? false,
        nodeClass,
      });
    }
    out.push({
      name,
      capacity,
      overhead: { cpu: formatQuantity('cpu', capCpu - allocCpu), memory: formatQuantity('memory', capMem - allocMem) },
      labels: { ...labels, [LABEL_REGION]: opts.region, [LABEL_INSTANCE_TYPE]: name },
      offerings,
    });
  }
  return out;
}

/**
 * The zones to offer the built-in catalogue in: every zone a NodePool names (topology.kubernetes.io/zone In …) or
 * an existing node is in; the region's a, b and c when none says.
 */
export function catalogueZones(
  region: string,
  nodePools: readonly { spec?: { template?: { spec?: { requirements?: { key: string; operator: string; values?: string[] }[] } } } }[],
  nodes: readonly { metadata?: { labels?: Record<string, string> } }[] = [],
): string[] {
  const zones = new Set<string>();
  for (const np of nodePools) {
    for (const r of np.spec?.template?.spec?.requirements ?? []) {
      if ((r.key === LABEL_ZONE || r.key === 'failure-domain.beta.kubernetes.io/zone') && r.operator === 'In')
        for (const z of r.values ?? []) zones.add(z);
    }
  }
  for (const n of nodes) {
    const z = n.metadata?.labels?.[LABEL_ZONE];
    if (z) zones.add(z);
  }
  return zones.size ? [...zones].sort() : ['a', 'b', 'c'].map((s) => `${region}${s}`);
}
