import { existsSync } from 'node:fs';
import { catalogueZones, type CatalogueEntry } from '../core/karpenter/scheduling/index.js';
import { builtInCatalogue, readCatalogueFile } from '../core/karpenter/scheduling/catalogue-files.js';
import type { ObjectStream } from '../core/karpenter/scheduling/object-stream.js';
import { overlayPricedTypes } from '../core/karpenter/scheduling/overlays.js';
import { capacityReservations, demoteEndedReservation, endedReservations } from '../core/karpenter/scheduling/reservations.js';
import {
  LABEL_CAPACITY_TYPE,
  LABEL_INSTANCE_TYPE,
  LABEL_NODEPOOL,
  LABEL_RESERVATION_ID,
  LABEL_ZONE,
} from '../core/karpenter/scheduling/well-known.js';
import { openDb } from '../db/open-db.js';
import { createPricesRepository } from '../db/repositories/prices-repository.js';

/**
 * The catalogue `simulate` runs on: a user's `--instance-types` file, or the built-in one (on-demand at the region's
 * static prices in every zone the NodePools and nodes name, spot where a database given with --db has a price,
 * reserved from the EC2NodeClasses' reservations, types the price tables lack priced by NodeOverlays), and the check
 * that every Karpenter node of the input can be priced on it.
 */

/** A problem with the input that is the user's to fix: printed alone, exit code 2. */
export class SimulateInputError extends Error {}

export interface ChosenCatalogue {
  entries: CatalogueEntry[];
  /** Said in the report and in error messages: "built-in us-east-1", "types.json". */
  description: string;
  /** How many type/zone spot prices the database gave (built-in catalogue with --db only). */
  spotPrices: number;
  /** Built-in catalogue: reserved offerings made from the EC2NodeClasses' status.capacityReservations. */
  reservations: number;
  /** Built-in catalogue: types without a price table entry priced by a NodeOverlay (aws v1.14.0), with the overlay. */
  overlayPricedTypes: { instanceType: string; overlay: string }[];
}

/** The newest spot price at or before `now` of every type/zone the database holds for the region, in USD. */
export function spotPricesFromDb(path: string, region: string, now: number): Map<string, number> {
  if (!existsSync(path)) throw new SimulateInputError(`--db ${path}: no such file (a database filled by 'collect' or 'demo')`);
  const db = openDb({ path, readonly: true });
  try {
    const out = new Map<string, number>();
    // rows come sorted by kind, type, zone, time: the last one at or before now wins
    for (const r of createPricesRepository(db).allPrices(region)) {
      if (r.kind !== 'spot' || r.currency !== 'USD' || r.effectiveAt > now) continue;
      out.set(`${r.instanceType}/${r.zone}`, r.pricePerHour);
    }
    return out;
  } finally {
    db.close();
  }
}

export interface CatalogueChoice {
  instanceTypesPath?: string;
  region: string;
  dbPath?: string;
  now: number;
  /** The ReservedCapacity gate: the built-in catalogue offers the EC2NodeClasses' reservations. */
  reservedCapacity?: boolean;
  /** NodeOverlay gate on and a release that prices types from overlays (aws v1.14.0). */
  overlayPrices?: boolean;
}

export function chooseCatalogue(stream: ObjectStream, choice: CatalogueChoice): ChosenCatalogue {
  if (choice.instanceTypesPath !== undefined) {
    const path = choice.instanceTypesPath;
    if (!existsSync(path)) throw new SimulateInputError(`--instance-types ${path}: no such file`);
    return { entries: readCatalogueFile(path), description: path, spotPrices: 0, reservations: 0, overlayPricedTypes: [] };
  }
  const spot = choice.dbPath === undefined ? new Map<string, number>() : spotPricesFromDb(choice.dbPath, choice.region, choice.now);
  const reservations = choice.reservedCapacity ? capacityReservations(stream.nodeClasses) : [];
  const overlayPrices = choice.overlayPrices
    ? overlayPricedTypes(stream.nodeOverlays)
    : new Map<string, { usdPerHour: number; overlay: string }>();
  const entries = builtInCatalogue({
    region: choice.region,
    zones: catalogueZones(choice.region, stream.nodePools, stream.nodes),
    spotUsdPerHour: spot,
    capacityReservations: reservations,
    now: choice.now,
    overlayUsdPerHour: overlayPrices,
  });
  if (entries.length === 0) {
    throw new SimulateInputError(
      `the built-in catalogue has no USD on-demand prices for region ${choice.region}: pass --instance-types FILE.json (or --region)`,
    );
  }
  const priced = entries.flatMap((e) => {
    const overlay = e.offerings.find((o) => o.priceOverlay !== undefined)?.priceOverlay;
    return overlay === undefined ? [] : [{ instanceType: e.name, overlay }];
  });
  return {
    entries,
    description: `built-in ${choice.region}`,
    spotPrices: spot.size,
    reservations: entries.reduce((n, e) => n + e.offerings.filter((o) => o.capacityType === 'reserved').length, 0),
    overlayPricedTypes: priced,
  };
}

/**
 * Every node Karpenter manages (its karpenter.sh/nodepool label names a NodePool of the input) must be priced by
 * the catalogue, or the costs before and after would silently leave it out. Returns one line per node that cannot.
 */
export function unpricedKarpenterNodes(stream: ObjectStream, catalogue: ChosenCatalogue, now: number): string[] {
  const pools = new Set(stream.nodePools.map((p) => p.metadata.name));
  const byName = new Map(catalogue.entries.map((e) => [e.name, e]));
  const problems: string[] = [];
  // a reserved node whose reservation has ended is on-demand (and priced so)
  const ended = endedReservations(stream.nodeClasses, now);
  for (const node of stream.nodes) {
    const n = ended.size ? demoteEndedReservation(node, ended) : node;
    const labels = n.metadata.labels ?? {};
    const pool = labels[LABEL_NODEPOOL];
    if (pool === undefined || !pools.has(pool)) continue;
    const label = `Node ${n.metadata.name}`;
    const type = labels[LABEL_INSTANCE_TYPE];
    const zone = labels[LABEL_ZONE];
    const capacityType = labels[LABEL_CAPACITY_TYPE];
    const missing = [
      [LABEL_INSTANCE_TYPE, type],
      [LABEL_ZONE, zone],
      [LABEL_CAPACITY_TYPE, capacityType],
    ].filter(([, v]) => v === undefined);
    if (missing.length > 0) {
      problems.push(`${label}: has no ${missing.map(([k]) => k).join(', ')} label, so it cannot be priced`);
      continue;
    }
    const entry = byName.get(type);
    if (!entry) {
      problems.push(`${label}: instance type ${type} is not in the catalogue (${catalogue.description}); add it with --instance-types`);
      continue;
    }
    if (!entry.offerings.some((o) => o.zone === zone && o.capacityType === capacityType)) {
      const builtIn = catalogue.description.startsWith('built-in');
      const hint =
        capacityType === 'spot' && builtIn
          ? ' (spot prices come from --db with collected prices, or an --instance-types file)'
          : capacityType === 'reserved' && builtIn
            ? ` (reserved offerings come from the EC2NodeClasses' status.capacityReservations in --objects${labels[LABEL_RESERVATION_ID] ? `: none lists ${labels[LABEL_RESERVATION_ID]}` : ''})`
            : '';
      problems.push(`${label}: the catalogue (${catalogue.description}) has no ${capacityType} price for ${type} in ${zone}${hint}`);
    }
  }
  return problems;
}
