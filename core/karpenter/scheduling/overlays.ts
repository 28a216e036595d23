import { EngineInputError } from './errors.js';
import type { InstanceType, Offering } from './instance-types.js';
import type { KubeNodeOverlay } from './kube-types.js';
import type { NodePoolSpec } from './nodepools.js';
import { isOperator, Requirement, Requirements } from './requirements.js';
import { parseQuantity, type ResourceMap, type ResourceSpace } from './resources.js';
import {
  CAPACITY_ON_DEMAND,
  CAPACITY_RESERVED,
  CAPACITY_SPOT,
  LABEL_CAPACITY_TYPE,
  LABEL_HOSTNAME,
  LABEL_INSTANCE_TYPE,
  LABEL_NODEPOOL,
  NORMALIZED_LABELS,
  RESOURCE_NODES,
  WELL_KNOWN_LABELS,
} from './well-known.js';

/**
 * NodeOverlay (karpenter.sh/v1alpha1, NodeOverlay gate, v1.7.0+) as Karpenter applies it
 * (pkg/controllers/nodeoverlay/controller.go and store.go, pkg/cloudprovider/types.go AdjustedPrice, v1.14.1):
 *
 * - Overlays are taken highest weight first (no weight = 0), equal weights by name, later names first
 *   (NodeOverlayList.OrderByWeight).
 * - Per NodePool and instance type, an overlay matches when its requirements are compatible with the type's
 *   requirements plus karpenter.sh/nodepool and the NodePool's template labels; it then applies to the type's
 *   offerings its requirements allow (zone, capacity type, reservation).
 * - One price change per offering: the first (heaviest) overlay to reach an offering sets its price (`price`
 *   replaces it, `priceAdjustment` ±N or ±N% changes it, never below 0); lighter overlays do not stack.
 * - An overlay whose price (or capacity resource) reaches an offering (type) an overlay of the same weight already
 *   reached conflicts, and is then not applied anywhere (status ValidationSucceeded=False, reason Conflict).
 * - `capacity` adds extended resources to the whole type, the heavier overlay winning per resource.
 *
 * Schema and CEL rules of the CRD are checked as the API server would (an object breaking them could not exist:
 * EngineInputError); the controller's RuntimeValidate failures leave the overlay unapplied (reason RuntimeValidation).
 */

export interface OverlayOutcome {
  name: string;
  weight: number;
  applied: boolean;
  /** Why it is not applied, in the status condition's words. */
  reason?: 'RuntimeValidation' | 'Conflict';
  message?: string;
  /** Offerings (NodePool × type × offering) whose price it set, and types whose capacity it changed. */
  pricedOfferings: number;
  capacityTypes: number;
}

const PRICE = /^\d+(\.\d+)?$/;
const PRICE_ADJUSTMENT = /^(([+-]{1}(\d*\.?\d+))|(\+{1}\d*\.?\d+%)|(^(-\d{1,2}(\.\d+)?%)$)|(-100%))$/;
const KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(\/))?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const WELL_KNOWN_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage', 'pods']);
const RESTRICTED_DOMAINS = ['karpenter.sh', 'karpenter.k8s.aws'];

const overlayName = (o: KubeNodeOverlay): string => o.metadata?.name ?? '(unnamed)';
const weightOf = (o: KubeNodeOverlay): number => o.spec?.weight ?? 0;

/** The CRD's schema and CEL rules (karpenter.sh_nodeoverlays.yaml): an overlay breaking them is refused, named. */
export function checkOverlaySchema(o: KubeNodeOverlay): void {
  const name = overlayName(o);
  const fail = (detail: string): never => {
    throw new EngineInputError(`NodeOverlay ${name}`, detail);
  };
  if (!o.metadata?.name) fail('metadata.name is missing');
  const spec = o.spec;
  if (!spec || !Array.isArray(spec.requirements)) fail('spec.requirements is missing (it is required; [] matches every type)');
  const reqs = spec.requirements ?? [];
  if (reqs.length > 100) fail(`spec.requirements has ${reqs.length} items, at most 100 are allowed`);
  reqs.forEach((r, i) => {
    const at = `spec.requirements[${i}]`;
    if (typeof r?.key !== 'string' || r.key.length > 316 || !KEY.test(r.key))
      fail(`${at}.key ${JSON.stringify(r?.key)} is not a label key`);
    if (!(r.key === LABEL_CAPACITY_TYPE || r.key === LABEL_NODEPOOL) && /karpenter\.sh$/.test(r.key.split('/')[0] ?? ''))
      fail(`${at}: label domain "karpenter.sh" is restricted`);
    if (r.key === LABEL_HOSTNAME) fail(`${at}: label "kubernetes.io/hostname" is restricted`);
    if (!isOperator(r.operator)) fail(`${at}.operator "${r.operator}" is not one of In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte`);
    const values = r.values ?? [];
    for (const v of values)
      if (typeof v !== 'string' || v.length > 63 || !VALUE.test(v)) fail(`${at}.values: ${JSON.stringify(v)} is not a label value`);
    if ((r.operator === 'In' || r.operator === 'NotIn') && values.length === 0)
      fail(`requirements with operator '${r.operator}' must have a value defined`);
    if (['Gt', 'Lt', 'Gte', 'Lte'].includes(r.operator) && !(values.length === 1 && /^\d+$/.test(values[0])))
      fail("requirements operator 'Gt', 'Lt', 'Gte' or 'Lte' must have a single positive integer value");
  });
  if (spec.price !== undefined && spec.priceAdjustment !== undefined) fail("cannot set both 'price' and 'priceAdjustment'");
  if (spec.price !== undefined && (typeof spec.price !== 'string' || !PRICE.test(spec.price)))
    fail(`spec.price ${JSON.stringify(spec.price)} must be a price like "0.0843" (a string, no sign)`);
  if (spec.priceAdjustment !== undefined && (typeof spec.priceAdjustment !== 'string' || !PRICE_ADJUSTMENT.test(spec.priceAdjustment)))
    fail(`spec.priceAdjustment ${JSON.stringify(spec.priceAdjustment)} must be "+N", "-N", "+N%" or "-N%" (down to "-100%")`);
  if (spec.weight !== undefined && (!Number.isInteger(spec.weight) || spec.weight < 1 || spec.weight > 10000))
    fail(`spec.weight ${JSON.stringify(spec.weight)} must be a whole number from 1 to 10000`);
  for (const [k, q] of Object.entries(spec.capacity ?? {})) {
    if (WELL_KNOWN_RESOURCES.has(k))
      fail('spec.capacity: invalid resource restricted (cpu, memory, ephemeral-storage and pods cannot be overlaid)');
    try {
      parseQuantity(k, q);
    } catch {
      fail(`spec.capacity.${k} ${JSON.stringify(q)} is not a Kubernetes quantity`);
    }
  }
}

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Kubernetes IsQualifiedName: an optional DNS-subdomain prefix (≤ 253) and a name of at most 63 characters. */
function qualifiedNameProblem(key: string): string | null {
  const parts = key.split('/');
  const name = parts[parts.length - 1];
  if (parts.length > 2 || !QUALIFIED_NAME.test(name) || name.length > 63) return `key ${key} is not a qualified name`;
  if (parts.length === 2 && (parts[0].length > 253 || !DNS_SUBDOMAIN.test(parts[0]))) return `key ${key} is not a qualified name`;
  return null;
}

/** The controller's RuntimeValidate (nodeoverlay_validation.go, v1.ValidateRequirement): the problem, or null. */
export function runtimeValidation(o: KubeNodeOverlay): string | null {
  const problems: string[] = [];
  for (const r of o.spec.requirements ?? []) {
    const key = NORMALIZED_LABELS[r.key] ?? r.key;
    const unqualified = qualifiedNameProblem(key);
    if (unqualified) problems.push(unqualified);
    const domain = key.includes('/') ? key.slice(0, key.indexOf('/')) : '';
    const restricted =
      !WELL_KNOWN_LABELS.has(key) && (RESTRICTED_DOMAINS.some((d) => domain === d || domain.endsWith(`.${d}`)) || key === LABEL_HOSTNAME);
    if (restricted) problems.push(`using label ${key} is not allowed as it might interfere with the internal provisioning logic`);
    if (
      key === LABEL_CAPACITY_TYPE &&
      r.operator === 'In' &&
      !(r.values ?? []).some((v) => [CAPACITY_ON_DEMAND, CAPACITY_SPOT, CAPACITY_RESERVED].includes(v))
    )
      problems.push(`invalid values: [${(r.values ?? []).join(' ')}] for key: ${key}, expected one of: on-demand, spot, reserved`);
  }
  for (const k of Object.keys(o.spec.capacity ?? {}))
    if (WELL_KNOWN_RESOURCES.has(k)) problems.push(`invalid capacity: ${k} in resource, restricted`);
  return problems.length ? problems.join('; ') : null;
}

/** Karpenter's OrderByWeight: heavier first, equal weights by name, later in the alphabet first. */
export function orderOverlays(overlays: readonly KubeNodeOverlay[]): KubeNodeOverlay[] {
  return [...overlays].sort(
    (a, b) => weightOf(b) - weightOf(a) || (overlayName(a) > overlayName(b) ? -1 : overlayName(a) < overlayName(b) ? 1 : 0),
  );
}

/** Karpenter's AdjustedPrice: a price replaces, "+N"/"-N" add, "+N%"/"-N%" scale; an adjustment never goes below 0. */
export function adjustedPrice(price: number, change: string): number {
  if (change === '') return price;
  if (!change.startsWith('+') && !change.startsWith('-')) return Number(change);
  const adjusted = change.endsWith('%') ? price * (1 + Number(change.slice(0, -1)) / 100) : price + Number(change);
  return adjusted >= 0 ? adjusted : 0;
}

interface PriceUpdate {
  change: string;
  overlay: string;
  lowestWeight: number;
}

interface CapacityUpdate {
  update: Map<string, { quantity: number; overlay: string }>;
  lowestWeightResources: ReadonlySet<string>;
  lowestWeight: number;
}

interface TypeUpdate {
  /** By offering position in the type's offerings. */
  price: Map<number, PriceUpdate>;
  capacity: CapacityUpdate | null;
}

/** The instance types a NodePool sees with every applicable overlay applied, and what each overlay did. */
export interface OverlaidCatalogues {
  /** By NodePool: the catalogue (same positions) with overlaid copies where an overlay changed a type. */
  byPool: Map<string, InstanceType[]>;
  outcomes: OverlayOutcome[];
}

/** The NodeClass a NodePool's reserved offerings come from (its karpenter.k8s.aws/ec2nodeclass label). */
const poolNodeClass = (pool: NodePoolSpec): string | undefined => pool.labels['karpenter.k8s.aws/ec2nodeclass'];

/** The offerings of `it` an overlay applies to for `pool`, by position (getOverlaidOfferings). */
function matchedOfferings(pool: NodePoolSpec, poolReqs: Requirements, it: InstanceType, overlayReqs: Requirements): number[] {
  const itReqs = poolReqs.copy().addAll(it.requirements);
  if (!itReqs.isCompatible(overlayReqs)) return [];
  const nodeClass = poolNodeClass(pool);
  const out: number[] = [];
  it.offerings.forEach((o, i) => {
    if (o.nodeClass !== undefined && o.nodeClass !== nodeClass) return; // another NodeClass's reservation
    if (offeringMatches(overlayReqs, o)) out.push(i);
  });
  return out;
}

/** Offering requirements are zone, capacity type and the reservation labels; other keys do not constrain them. */
function offeringMatches(reqs: Requirements, o: Offering): boolean {
  const labels: Record<string, string> = { 'topology.kubernetes.io/zone': o.zone, [LABEL_CAPACITY_TYPE]: o.capacityType };
  if (o.reservationId !== undefined) labels['karpenter.k8s.aws/capacity-reservation-id'] = o.reservationId;
  for (const [k, v] of Object.entries(labels)) if (reqs.has(k) && !reqs.get(k).has(v)) return false;
  return true;
}

/**
 * Applies the overlays (already schema-checked) to every NodePool's view of the catalogue. Pools no overlay reaches
 * share the catalogue's own types.
 */
export function applyOverlays(
  overlays: readonly KubeNodeOverlay[],
  pools: readonly NodePoolSpec[],
  catalogue: readonly InstanceType[],
  space: ResourceSpace,
): OverlaidCatalogues {
  const updates = new Map<string, Map<number, TypeUpdate>>(pools.map((p) => [p.name, new Map()]));
  const poolReqs = new Map(
    pools.map((p) => [p.name, Requirements.fromLabels(p.labels).add(Requirement.of(LABEL_NODEPOOL, 'In', [p.name]))]),
  );
  const outcomes: OverlayOutcome[] = [];
  for (const o of orderOverlays(overlays)) {
    const name = overlayName(o);
    const weight = weightOf(o);
    const outcome: OverlayOutcome = { name, weight, applied: false, pricedOfferings: 0, capacityTypes: 0 };
    outcomes.push(outcome);
    const invalid = runtimeValidation(o);
    if (invalid !== null) {
      Object.assign(outcome, { reason: 'RuntimeValidation', message: invalid });
      continue;
    }
    const reqs = Requirements.fromSelectors(o.spec.requirements ?? []);
    const change = o.spec.price ?? o.spec.priceAdjustment;
    const capacity = Object.entries(o.spec.capacity ?? {}).map(([k, q]) => [k, parseQuantity(k, q)] as const);
    // every (pool, type, offerings) the overlay reaches, found once for both passes
    const reached: { pool: string; index: number; offerings: number[] }[] = [];
    for (const pool of pools) {
      const pr = poolReqs.get(pool.name) as Requirements;
      for (const it of catalogue) {
        const offerings = matchedOfferings(pool, pr, it, reqs);
        if (offerings.length) reached.push({ pool: pool.name, index: it.index, offerings });
      }
    }
    // validate everywhere before storing anywhere: no partial application (controller.go)
    const conflict = reached.some(({ pool, index, offerings }) => {
      const u = updates.get(pool)?.get(index);
      if (!u) return false;
      if (change !== undefined && offerings.some((i) => u.price.get(i)?.lowestWeight === weight)) return true;
      return (
        capacity.length > 0 &&
        u.capacity !== null &&
        u.capacity.lowestWeight === weight &&
        capacity.some(([k]) => u.capacity?.lowestWeightResources.has(k))
      );
    });
    if (conflict) {
      Object.assign(outcome, { reason: 'Conflict', message: 'conflict with another overlay' });
      continue;
    }
    outcome.applied = true;
    for (const { pool, index, offerings } of reached) {
      const byType = updates.get(pool) as Map<number, TypeUpdate>;
      let u = byType.get(index);
      if (!u) byType.set(index, (u = { price: new Map(), capacity: null }));
      if (change !== undefined) {
        for (const i of offerings) {
          const existing = u.price.get(i);
          if (existing) existing.lowestWeight = weight;
          else {
            u.price.set(i, { change, overlay: name, lowestWeight: weight });
            outcome.pricedOfferings++;
          }
        }
      }
      if (capacity.length > 0) {
        const cap = u.capacity ?? { update: new Map(), lowestWeightResources: new Set<string>(), lowestWeight: weight };
        let added = false;
        for (const [k, q] of capacity) {
          if (cap.update.has(k)) continue;
          cap.update.set(k, { quantity: q, overlay: name });
          added = true;
        }
        cap.lowestWeightResources = new Set(capacity.map(([k]) => k));
        cap.lowestWeight = weight;
        u.capacity = cap;
        if (added) outcome.capacityTypes++;
      }
    }
  }
  const byPool = new Map<string, InstanceType[]>();
  for (const pool of pools) {
    const u = updates.get(pool.name) as Map<number, TypeUpdate>;
    if (u.size === 0) continue;
    byPool.set(
      pool.name,
      catalogue.map((it) => {
        const t = u.get(it.index);
        return t ? overlaid(it, t, space) : it;
      }),
    );
  }
  return { byPool, outcomes };
}

/** A copy of the type with its overlays applied (the original is shared by other NodePools and never changed). */
function overlaid(it: InstanceType, u: TypeUpdate, space: ResourceSpace): InstanceType {
  const offerings = u.price.size
    ? it.offerings.map((o, i) => {
        const p = u.price.get(i);
        return p ? { ...o, priceUsdPerHour: adjustedPrice(o.priceUsdPerHour, p.change), priceOverlay: p.overlay } : o;
      })
    : it.offerings;
  if (!u.capacity || u.capacity.update.size === 0) return { ...it, offerings };
  const capacity: ResourceMap = { ...it.capacity };
  const allocatable: ResourceMap = { ...it.allocatable };
  const names = new Set<string>();
  for (const [k, { quantity, overlay }] of u.capacity.update) {
    allocatable[k] = (allocatable[k] ?? 0) + quantity - (capacity[k] ?? 0);
    capacity[k] = quantity;
    names.add(overlay);
  }
  return {
    ...it,
    offerings,
    capacity,
    allocatable,
    capacityVector: space.vector({ ...capacity, [RESOURCE_NODES]: 1 }),
    allocatableVector: space.vector(allocatable),
    capacityOverlays: [...names],
  };
}

/**
 * Prices overlays give types the price tables lack (aws v1.14.0, offering.go GetOverlayPrice): an overlay whose
 * requirements are exactly one `node.kubernetes.io/instance-type In …` and which sets `price`; overlays are read in
 * name order, a later one overwriting an earlier. Only overlays that pass validation count.
 */
export function overlayPricedTypes(overlays: readonly KubeNodeOverlay[]): Map<string, { usdPerHour: number; overlay: string }> {
  const out = new Map<string, { usdPerHour: number; overlay: string }>();
  const byName = [...overlays].sort((a, b) => (overlayName(a) < overlayName(b) ? -1 : overlayName(a) > overlayName(b) ? 1 : 0));
  for (const o of byName) {
    const reqs = o.spec?.requirements ?? [];
    if (o.spec?.price === undefined || reqs.length !== 1 || reqs[0].key !== LABEL_INSTANCE_TYPE || reqs[0].operator !== 'In') continue;
    if (runtimeValidation(o) !== null) continue;
    const usdPerHour = Number(o.spec.price);
    if (!Number.isFinite(usdPerHour)) continue;
    for (const t of reqs[0].values ?? []) out.set(t, { usdPerHour, overlay: overlayName(o) });
  }
  return out;
}
