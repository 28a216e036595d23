import { builtInCatalogue } from '../../core/karpenter/scheduling/catalogue-files.js';
import type { CatalogueEntry } from '../../core/karpenter/scheduling/catalogue.js';
import type { SnapshotCatalogueOptions } from '../analytics/snapshot-to-engine.js';

/**
 * The built-in catalogue (data/instance-types.json at the static on-demand prices of the region, spot where the
 * snapshot's spot nodes had a price) for engine re-packs, built once per region, zones and spot prices: the engine
 * keeps what each entry compiles to, so reusing the entries across requests saves compiling 1,345 types each time.
 */
export function createEngineCatalogue(): (o: SnapshotCatalogueOptions) => readonly CatalogueEntry[] {
  let last: { key: string; entries: CatalogueEntry[] } | null = null;
  return (o) => {
    const key = JSON.stringify([o.region, o.zones, [...o.spotUsdPerHour.entries()].sort()]);
    if (last?.key !== key) last = { key, entries: builtInCatalogue(o) };
    return last.entries;
  };
}
