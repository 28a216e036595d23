import type { FeatureGates } from './version.js';

/**
 * Karpenter's feature gates as its controller is given them: `--feature-gates` / the FEATURE_GATES env, the form
 * "Name=true,Name=false" (kubernetes-sigs/karpenter v1.14.1 pkg/operator/options/options.go; the Helm chart writes
 * the env from settings.featureGates, aws charts/karpenter/templates/deployment.yaml).
 */

/** The gates the engine honours, by Karpenter's name, in the engine's spelling. */
export const HONOURED_GATES: Readonly<Record<string, keyof FeatureGates>> = {
  SpotToSpotConsolidation: 'spotToSpotConsolidation',
  NodeOverlay: 'nodeOverlay',
  StaticCapacity: 'staticCapacity',
  ReservedCapacity: 'reservedCapacity',
};

/** Karpenter's gates that change nothing the engine decides. */
export const UNMODELLED_GATES: readonly string[] = ['NodeRepair', 'CapacityBuffer'];

/**
 * The gates a controller's FEATURE_GATES env sets, read leniently (it was collected, not typed by the user): the
 * honoured ones taken, the others (unmodelled, unknown, malformed) listed in `ignored`.
 */
export function featureGatesFromEnv(text: string): { gates: FeatureGates; ignored: string[] } {
  const gates: FeatureGates = {};
  const ignored: string[] = [];
  for (const part of text.split(',').map((s) => s.trim())) {
    if (part === '') continue;
    const m = /^([A-Za-z]+)=(true|false)$/i.exec(part);
    const key = m === null ? undefined : HONOURED_GATES[m[1]];
    if (m === null || key === undefined) ignored.push(part);
    else gates[key] = m[2].toLowerCase() === 'true';
  }
  return { gates, ignored };
}
