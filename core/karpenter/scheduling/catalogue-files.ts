import { readFileSync } from 'node:fs';
import { loadInstanceCatalog } from '../../instance-catalog.js';
import { loadStaticTables } from '../../static-prices.js';
import { buildBuiltInCatalogue, type BuiltInCatalogueOptions, type CatalogueEntry, parseCatalogue } from './catalogue.js';

/**
 * The catalogue's file side (the engine itself reads nothing): the built-in catalogue from data/ (read through
 * core/instance-catalog.ts, the one reader of data/instance-types.json) and a user's `--instance-types FILE.json`.
 */

export interface BuiltInOptions {
  /** AWS region whose static on-demand prices are used (USD regions only). */
  region: string;
  /** Zones to offer every type in; default the region's a, b and c. */
  zones?: readonly string[];
  /** Spot USD/hour keyed `${instanceType}/${zone}`, where known. */
  spotUsdPerHour?: ReadonlyMap<string, number>;
  /** Reserved offerings from EC2NodeClasses' status.capacityReservations, and the time their endTime is read at. */
  capacityReservations?: BuiltInCatalogueOptions['capacityReservations'];
  now?: number;
  /** NodeOverlay prices for types without one (aws v1.14.0). */
  overlayUsdPerHour?: BuiltInCatalogueOptions['overlayUsdPerHour'];
}

/**
 * Every type of the built-in data that has a static on-demand price in `region`, offered on-demand in every zone
 * and spot where a spot price is given. An empty result (a region without a USD table) is the caller's to report.
 */
export function builtInCatalogue(opts: BuiltInOptions): CatalogueEntry[] {
  const zones = opts.zones ?? ['a', 'b', 'c'].map((z) => `${opts.region}${z}`);
  // The static tables now carry China's in CNY; the engine's prices are USD, so only a USD table is used.
  const table = loadStaticTables().get(opts.region);
  return buildBuiltInCatalogue(loadInstanceCatalog(), {
    region: opts.region,
    zones,
    onDemandUsdPerHour: table?.currency === 'USD' ? table.prices : new Map<string, number>(),
    ...(opts.spotUsdPerHour ? { spotUsdPerHour: opts.spotUsdPerHour } : {}),
    ...(opts.capacityReservations ? { capacityReservations: opts.capacityReservations } : {}),
    ...(opts.now !== undefined ? { now: opts.now } : {}),
    ...(opts.overlayUsdPerHour ? { overlayUsdPerHour: opts.overlayUsdPerHour } : {}),
  });
}

/** A user's catalogue file (a top-level JSON array), checked; errors name the file, the entry and the field. */
export function readCatalogueFile(path: string): CatalogueEntry[] {
  return parseCatalogue(readFileSync(path, 'utf8'), path);
}
