import { HOUR_MS } from '../../time.js';
import { parseGoDurationMs } from './duration.js';
import { naming } from './errors.js';
import type { KubeNodePool } from './kube-types.js';
import { Requirement, Requirements } from './requirements.js';
import { parseResourceList, type ResourceMap } from './resources.js';
import type { Taint } from './taints.js';
import { karpenterBehaviour, type KarpenterBehaviour } from './version.js';
import { LABEL_NODE_INITIALIZED, LABEL_NODE_REGISTERED, LABEL_NODEPOOL, RESOURCE_NODES } from './well-known.js';

export type ConsolidationPolicy = 'WhenEmpty' | 'WhenEmptyOrUnderutilized' | 'Balanced';
export type DisruptionReason = 'Underutilized' | 'Empty' | 'Drifted';

export interface DisruptionBudget {
  /** "10%" or a count, as written. */
  nodes: string;
  /** Reasons it applies to; undefined = all. */
  reasons?: DisruptionReason[];
  schedule?: string;
  durationMs?: number;
}

/** A NodePool as the engine uses it. */
export interface NodePoolSpec {
  name: string;
  weight: number;
  /** spec.template.spec.requirements (with minValues) and template labels. */
  requirements: Requirements;
  /** The template labels plus karpenter.sh/nodepool. */
  labels: Record<string, string>;
  taints: Taint[];
  startupTaints: Taint[];
  /** spec.limits parsed (cpu millicores, memory bytes, nodes count…); null when unset. */
  limits: ResourceMap | null;
  consolidationPolicy: ConsolidationPolicy;
  /** null = Never (consolidation disabled). */
  consolidateAfterMs: number | null;
  budgets: DisruptionBudget[];
  /** null = Never. */
  expireAfterMs: number | null;
  terminationGracePeriodSet: boolean;
  /** spec.replicas: a static-capacity NodePool (v1.8.0+) keeps this many nodes; null for a dynamic one. */
  replicas: number | null;
}

const REASONS: DisruptionReason[] = ['Underutilized', 'Empty', 'Drifted'];
const POLICIES: ConsolidationPolicy[] = ['WhenEmpty', 'WhenEmptyOrUnderutilized', 'Balanced'];
const DEFAULT_EXPIRE_AFTER_MS = 720 * HOUR_MS;

export function normalizeNodePool(np: KubeNodePool, behaviour: KarpenterBehaviour = karpenterBehaviour()): NodePoolSpec {
  const name = np.metadata?.name;
  return naming(`NodePool ${name ?? '(unnamed)'}`, () => {
    if (!name) throw new Error('metadata.name is missing');
    const tspec = np.spec?.template?.spec ?? {};
    const labels: Record<string, string> = { ...(np.spec?.template?.metadata?.labels ?? {}), [LABEL_NODEPOOL]: name };
    // Karpenter labels nodes with their NodeClass: <group>/<kind lowercased>
    const ref = tspec.nodeClassRef;
    if (ref?.name && ref.group && ref.kind) labels[`${ref.group}/${ref.kind.toLowerCase()}`] = ref.name;
    const requirements = Requirements.fromSelectors(tspec.requirements ?? []);
    requirements.addAll(Requirements.fromLabels(labels));
    const d = np.spec?.disruption ?? {};
    const policy = (d.consolidationPolicy ?? 'WhenEmptyOrUnderutilized') as ConsolidationPolicy;
    if (!POLICIES.includes(policy))
      throw new Error(`spec.disruption.consolidationPolicy "${d.consolidationPolicy}" is not one of ${POLICIES.join(', ')}`);
    if (policy === 'Balanced' && !behaviour.balancedPolicy)
      throw new Error(
        `spec.disruption.consolidationPolicy "Balanced" arrived in Karpenter v1.14.0 (karpenterVersion ${behaviour.version} refuses it)`,
      );
    const replicas = np.spec?.replicas;
    if (replicas !== undefined && replicas !== null) {
      if (!behaviour.staticNodePools)
        throw new Error(
          `spec.replicas (a static NodePool) arrived in Karpenter v1.8.0 (karpenterVersion ${behaviour.version} has no such field)`,
        );
      if (!Number.isInteger(replicas) || replicas < 0)
        throw new Error(`spec.replicas ${JSON.stringify(replicas)} must be a whole number ≥ 0`);
      // the NodePool CRD's rules (pkg/apis/v1/nodepool.go)
      if (Object.keys(np.spec.limits ?? {}).some((k) => k !== RESOURCE_NODES))
        throw new Error("only 'limits.nodes' is supported on static NodePools");
      if (np.spec.weight !== undefined) throw new Error("'weight' is not supported on static NodePools");
    }
    const budgets: DisruptionBudget[] = (d.budgets ?? [{ nodes: '10%' }]).map((b, i) => {
      const nodes = String(b.nodes);
      if (!/^(\d+|\d+%)$/.test(nodes)) throw new Error(`spec.disruption.budgets[${i}].nodes "${nodes}" must be a count or a percentage`);
      for (const r of b.reasons ?? []) {
        if (!REASONS.includes(r as DisruptionReason))
          throw new Error(`spec.disruption.budgets[${i}].reasons: "${r}" is not one of ${REASONS.join(', ')}`);
      }
      if ((b.schedule === undefined) !== (b.duration === undefined)) {
        throw new Error(`spec.disruption.budgets[${i}]: schedule and duration go together`);
      }
      const durationMs = b.duration === undefined ? undefined : (parseGoDurationMs(b.duration) ?? undefined);
      return {
        nodes,
        ...(b.reasons ? { reasons: b.reasons as DisruptionReason[] } : {}),
        ...(b.schedule !== undefined ? { schedule: b.schedule } : {}),
        ...(durationMs !== undefined ? { durationMs } : {}),
      };
    });
    return {
      name,
      weight: np.spec?.weight ?? 0,
      requirements,
      labels,
      taints: tspec.taints ?? [],
      startupTaints: tspec.startupTaints ?? [],
      limits: np.spec?.limits ? parseResourceList(np.spec.limits) : null,
      consolidationPolicy: policy,
      consolidateAfterMs: parseGoDurationMs(d.consolidateAfter ?? '0s'),
      budgets,
      expireAfterMs: tspec.expireAfter === undefined ? DEFAULT_EXPIRE_AFTER_MS : parseGoDurationMs(tspec.expireAfter),
      terminationGracePeriodSet: tspec.terminationGracePeriod !== undefined,
      replicas: replicas ?? null,
    };
  });
}

/** NodePools in Karpenter's order: heavier weight first, equal weights by name descending (OrderByWeight). */
export const orderByWeight = (pools: readonly NodePoolSpec[]): NodePoolSpec[] =>
  [...pools].sort((a, b) => b.weight - a.weight || (a.name > b.name ? -1 : a.name < b.name ? 1 : 0));

/** The requirements a NodeClaim from this pool starts with (Karpenter's NodeClaimTemplate, daemon keys included). */
export function templateRequirements(np: NodePoolSpec): Requirements {
  return np.requirements
    .copy()
    .add(Requirement.of(LABEL_NODE_REGISTERED, 'In', ['true']))
    .add(Requirement.of(LABEL_NODE_INITIALIZED, 'In', ['true']));
}
