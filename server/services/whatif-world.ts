import { loadInstanceCatalog } from '../../core/instance-catalog.js';
import { type CatalogueEntry, catalogueZones, type EngineContext } from '../../core/karpenter/scheduling/index.js';
import { featureGatesFromEnv } from '../../core/karpenter/scheduling/feature-gates.js';
import { capacityReservations, karpenterBehaviour, resolveGates } from '../../core/karpenter/scheduling/index.js';
import { LABEL_ZONE } from '../../core/karpenter/scheduling/well-known.js';
import { isRegionName, regionOfZone } from '../../core/partitions.js';
import { loadStaticTables } from '../../core/static-prices.js';
import type { ClusterSnapshotRepository } from '../../db/repositories/cluster-snapshot-repository.js';
import type { SnapshotPricesRepository } from '../../db/repositories/snapshot-prices-repository.js';
import { whatIfCatalogue, type WhatIfCatalogue } from '../analytics/whatif/catalogue.js';
import { prepareWorld, type WhatIfWorld } from '../analytics/whatif/repack.js';
import { NotFoundError } from './analytics-range.js';

/** A stored snapshot made ready for the engine, with what every what-if answer states about it. */
export interface LoadedWorld {
  world: WhatIfWorld;
  snapshotId: number;
  /** The snapshot's currency (prices are in it; the engine's "USD" fields carry it). */
  currency: string;
  region: string;
  catalogueSource: string;
  /** The snapshot prepared once under its own NodePools (predict and the what-ifs reuse it). */
  context: EngineContext;
  /** What the snapshot lacks and what stands in for it (the reader's gaps), said in every answer. */
  gaps: string[];
}

/**
 * Catalogues by what priced them, shared by every app in the process: the engine keeps what each entry compiles to,
 * so a snapshot priced like one seen before skips compiling 1,300 instance types again.
 */
const catalogues = new Map<string, WhatIfCatalogue>();
const KEPT_CATALOGUES = 8;

/**
 * Entries by name and offerings: between two snapshots usually only a few spot prices move, so the entries that did
 * not change are the same objects as before and only the changed ones are compiled again (about 0.8 s for all).
 */
const entries = new Map<string, CatalogueEntry>();
const MAX_ENTRIES = 20_000;

function reuseEntries(c: WhatIfCatalogue): WhatIfCatalogue {
  if (entries.size > MAX_ENTRIES) entries.clear();
  return {
    ...c,
    entries: c.entries.map((e) => {
      const key = `${e.name}|${JSON.stringify(e.offerings)}`;
      const seen = entries.get(key);
      if (seen !== undefined) return seen;
      entries.set(key, e);
      return e;
    }),
  };
}

/**
 * Loads a snapshot through the repository and keeps the last few: a snapshot never changes once written, so a
 * prepared one serves every what-if asked of it (the dashboard asks four at once).
 */
/** 422: a stored snapshot the engine cannot be given (nothing to price it with); the message says why. */
export class WhatIfUnavailableError extends Error {
  readonly statusCode = 422;
}

/** The snapshot reader and the stored prices: all a what-if reads of the database. */
export interface WhatIfSources {
  snapshots: Pick<ClusterSnapshotRepository, 'clusterObjectsAt' | 'snapshotAt'>;
  prices: SnapshotPricesRepository;
}

/**
 * Loads a snapshot the one way every what-if and the Workloads re-pack read one: `clusterObjectsAt` (the same
 * ClusterObjects `simulate` builds from `kubectl get -o yaml`), priced by the one catalogue (catalogue.ts).
 */
export function createWhatIfWorlds(sources: WhatIfSources, { keep = 4 }: { keep?: number } = {}) {
  const loaded = new Map<number, LoadedWorld>();

  const missing = (at: number | undefined) =>
    new NotFoundError(
      at === undefined ? 'no snapshot is stored yet: collect first' : `no snapshot at or before ${new Date(at).toISOString()}`,
    );

  /** The newest snapshot at or before `at` of cluster `clusterId` (null: of any cluster). */
  function load(at: number | undefined, clusterId: number | null = null): LoadedWorld {
    // Which snapshot first (one row), and only a snapshot not prepared yet read whole: at the envelope the read is
    // 150,000 pods, several seconds, and every what-if asked of a prepared snapshot used to pay it again.
    const which = sources.snapshots.snapshotAt(at, clusterId);
    if (which === null) throw missing(at);
    const hit = loaded.get(which.id);
    if (hit !== undefined) {
      loaded.delete(which.id);
      loaded.set(which.id, hit);
      return hit;
    }
    const snap = sources.snapshots.clusterObjectsAt(at, { clusterId });
    if (snap === null) throw missing(at);
    const { objects } = snap;
    const takenAt = snap.snapshot.takenAt;
    const currency = snap.snapshot.currency;
    const firstZone = objects.nodes.map((n) => n.metadata.labels?.[LABEL_ZONE]).find((z) => z !== undefined && z !== '');
    const region = snap.region ?? regionOfZone(firstZone ?? 'us-east-1a');
    const prices = sources.prices.pricesAt(region, takenAt);
    // The static table only where it is in the snapshot's currency (China's are CNY).
    const table = isRegionName(region) ? loadStaticTables().get(region) : undefined;
    const sameCurrency = prices.currency === null || prices.currency === currency;
    // The controller's FEATURE_GATES as collected (absent: the release's defaults), resolved as the engine will.
    const version = snap.karpenterVersion?.version;
    const featureGates =
      snap.karpenterVersion?.featureGates === undefined ? undefined : featureGatesFromEnv(snap.karpenterVersion.featureGates).gates;
    const gates = resolveGates(featureGates, karpenterBehaviour(version, []), []);
    const input = {
      region,
      zones: catalogueZones(region, objects.nodePools, objects.nodes),
      storedOnDemand: sameCurrency ? prices.onDemand : new Map<string, number>(),
      storedSpot: sameCurrency ? prices.spot : new Map<string, number>(),
      staticOnDemand: table !== undefined && table.currency === currency ? table.prices : new Map<string, number>(),
      capacityReservations: gates.reservedCapacity ? capacityReservations(objects.nodeClasses) : [],
      now: takenAt,
    };
    const key = JSON.stringify([
      input.region,
      input.zones,
      [...input.storedOnDemand],
      [...input.storedSpot],
      input.staticOnDemand.size,
      input.capacityReservations,
      // a reservation's endTime is read at the snapshot's time
      input.capacityReservations.length > 0 ? takenAt : 0,
    ]);
    const catalogue = catalogues.get(key) ?? reuseEntries(whatIfCatalogue(loadInstanceCatalog(), input));
    catalogues.delete(key);
    catalogues.set(key, catalogue);
    if (catalogues.size > KEPT_CATALOGUES) {
      const oldest = catalogues.keys().next();
      if (oldest.done !== true) catalogues.delete(oldest.value);
    }
    if (catalogue.entries.length === 0)
      throw new WhatIfUnavailableError(
        `the snapshot of ${new Date(takenAt).toISOString()} cannot be simulated: no instance type has a price in ${region} ` +
          `in the zones its nodes and NodePools name (${input.zones.join(', ') || 'none: the nodes carry no zone label'})`,
      );
    const world: WhatIfWorld = {
      objects,
      catalogue: catalogue.entries,
      takenAt,
      ...(version === undefined ? {} : { karpenterVersion: version }),
      ...(featureGates === undefined ? {} : { featureGates }),
      podSpecsKnown: !snap.gaps.some((g) => g.startsWith('Pods:')),
    };
    const entry: LoadedWorld = {
      world,
      snapshotId: snap.snapshot.id,
      currency,
      region,
      catalogueSource: catalogue.source,
      context: prepareWorld(world),
      gaps: snap.gaps,
    };
    loaded.set(snap.snapshot.id, entry);
    if (loaded.size > keep) {
      const oldest = loaded.keys().next();
      if (oldest.done !== true) loaded.delete(oldest.value);
    }
    return entry;
  }

  return { load };
}

export type WhatIfWorlds = ReturnType<typeof createWhatIfWorlds>;
