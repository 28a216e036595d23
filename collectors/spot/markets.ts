import type { InstanceCatalog } from '../../core/instance-catalog.js';
import { Requirements } from '../../core/karpenter/requirements.js';
import { catalogueZones } from '../../core/karpenter/scheduling/catalogue.js';
import { LABEL_ZONE } from '../../core/labels.js';
import type { NodePoolRecord, NodeRecord } from '../../core/model.js';

/**
 * Pure: the spot markets a cluster needs priced, as Karpenter prices them (it asks for every offering its NodePools
 * could launch, whatever capacity types they allow today, so a NodePool switched to spot has prices to compare).
 *
 * - Types: every instance type of the catalogue (data/instance-types.json) that some NodePool's requirements admit,
 *   judged by the labels the catalogue carries (core/karpenter/requirements.ts; the capacity-type, zone and NodePool
 *   keys say nothing about a type and are not judged), among the types priced in the region (`pricedInRegion`: a type
 *   without an on-demand price there is not offered there); plus the type of every node running as spot.
 * - Zones: those the what-if catalogue offers (the engine's catalogueZones: NodePools' `topology.kubernetes.io/zone In`
 *   values and the nodes' zones, else the region's a, b, c), plus the zones of the EC2NodeClasses' subnets when known.
 */

export interface SpotMarketsInput {
  region: string;
  nodePools: readonly Pick<NodePoolRecord, 'requirements'>[];
  nodes: readonly Pick<NodeRecord, 'instanceType' | 'capacityType' | 'zone'>[];
  /** Zones of the subnets the EC2NodeClasses select (status.subnets[].zone), when collected. */
  subnetZones?: readonly string[];
}

export interface SpotMarkets {
  instanceTypes: string[];
  zones: string[];
  /** The types running as spot now (their prices are our cost estimate: refreshed hourly, the others less often). */
  runningSpot?: string[];
}

/** The catalogue's types some NodePool admits, among those priced in the region; sorted. */
export function admittedInstanceTypes(
  nodePools: readonly Pick<NodePoolRecord, 'requirements'>[],
  catalog: Pick<InstanceCatalog, 'types' | 'labelKeys'>,
  pricedInRegion?: (instanceType: string) => boolean,
): string[] {
  const pools = nodePools.map((p) => new Requirements(p.requirements));
  const out: string[] = [];
  for (const t of catalog.types.values()) {
    if (pricedInRegion !== undefined && !pricedInRegion(t.name)) continue;
    if (pools.some((r) => r.admitsInstanceType(t.labels, catalog.labelKeys))) out.push(t.name);
  }
  return out.sort();
}

/** The markets: `admitted` (admittedInstanceTypes) and the spot nodes' types, in the cluster's zones. */
export function spotMarkets(input: SpotMarketsInput, admitted: readonly string[]): SpotMarkets {
  const types = new Set(admitted);
  const running = new Set<string>();
  for (const n of input.nodes) if (n.capacityType === 'spot' && n.instanceType !== '') running.add(n.instanceType);
  for (const t of running) types.add(t);
  const zones = new Set(
    catalogueZones(
      input.region,
      input.nodePools.map((p) => ({ spec: { template: { spec: { requirements: p.requirements } } } })),
      input.nodes.filter((n) => n.zone !== '').map((n) => ({ metadata: { labels: { [LABEL_ZONE]: n.zone } } })),
    ),
  );
  for (const z of input.subnetZones ?? []) zones.add(z);
  return { instanceTypes: [...types].sort(), zones: [...zones].sort(), runningSpot: [...running].sort() };
}

export function spotMarketsWanted(
  input: SpotMarketsInput,
  catalog: Pick<InstanceCatalog, 'types' | 'labelKeys'>,
  pricedInRegion?: (instanceType: string) => boolean,
): SpotMarkets {
  return spotMarkets(input, admittedInstanceTypes(input.nodePools, catalog, pricedInRegion));
}
