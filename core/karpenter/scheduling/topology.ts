import type { KubeLabelSelector, KubePodAffinityTerm } from './kube-types.js';
import { compileSelector } from './label-selector.js';
import { hasAntiAffinity, type PodConstraints, type SchedPod } from './pods.js';
import { Requirement, Requirements } from './requirements.js';
import { type Taint, toleratesAll, type Toleration } from './taints.js';
import { MAX_INT32, NodeFilter, TopologyGroup, type TopologyType } from './topology-group.js';
import { LABEL_HOSTNAME } from './well-known.js';

/**
 * Topology spread, pod affinity and pod anti-affinity as Karpenter's scheduler tracks them
 * (pkg/controllers/provisioning/scheduling/topology.go, topologygroup.go, topologynodefilter.go, v1.14.1): one
 * group per distinct constraint, counting matching pods per domain (zone, hostname, any node label), asked which
 * domains a pod may go to next. Where Karpenter picks among equal domains by Go map order, we take the smallest name,
 * so the same input always gives the same answer.
 */

export { NodeFilter, TopologyGroup, type TopologyType };

/** The domains a NodePool can create for a key, with the taints of the NodePools that create them. */
export type DomainSource = { requirements: Requirements; taints: readonly Taint[] };

/** A node that exists, for counting its pods into domains. */
export interface TopologyNode {
  name: string;
  labels: Readonly<Record<string, string>>;
  taints: readonly Taint[];
  /** The labels as requirements (built once per node). */
  requirements: Requirements;
}

export interface TopologyInit {
  /** Per NodePool × instance type: the NodePool's requirements and labels intersected with the type's, and its taints. */
  domainSources: () => Iterable<DomainSource>;
  nodes: readonly TopologyNode[];
  /** Pods bound to `nodes` by namespace, counted where they run (unless excluded). */
  boundByNamespace: ReadonlyMap<string, readonly BoundPod[]>;
  /** The bound pods with required anti-affinity, which keep others out of their domains. */
  antiAffinityPods: readonly BoundPod[];
  /** UIDs of the pods being scheduled: not counted where they are now. */
  excluded: ReadonlySet<string>;
  namespaceLabels: ReadonlyMap<string, Readonly<Record<string, string>>>;
  ignorePreferences: boolean;
}

export interface BoundPod {
  pod: SchedPod;
  constraints: PodConstraints;
  nodeName: string;
}

/** Indexes bound pods for TopologyInit. */
export function indexBoundPods(bound: readonly BoundPod[]): { boundByNamespace: Map<string, BoundPod[]>; antiAffinityPods: BoundPod[] } {
  const boundByNamespace = new Map<string, BoundPod[]>();
  const antiAffinityPods: BoundPod[] = [];
  for (const b of bound) {
    const list = boundByNamespace.get(b.pod.namespace) ?? [];
    list.push(b);
    boundByNamespace.set(b.pod.namespace, list);
    if (b.constraints.requiredAntiAffinity.length > 0) antiAffinityPods.push(b);
  }
  return { boundByNamespace, antiAffinityPods };
}

export interface TopologyFailure {
  message(): string;
}

export class Topology {
  private readonly groups = new Map<string, TopologyGroup>();
  private readonly inverse = new Map<string, TopologyGroup>();
  /** Groups by namespace they count in, so recording a pod only looks at groups that could select it. */
  private readonly groupsByNamespace = new Map<string, TopologyGroup[]>();
  private readonly inverseByNamespace = new Map<string, TopologyGroup[]>();
  private readonly byKey = new Map<string, TopologyGroup[]>();
  private readonly ownedBy = new Map<string, Set<TopologyGroup>>();
  private readonly inverseOwnedBy = new Map<string, Set<TopologyGroup>>();
  private readonly domainGroups = new Map<string, Map<string, Taint[][]>>();
  private nodesByNameCache: Map<string, TopologyNode> | null = null;

  constructor(private readonly init: TopologyInit) {
    for (const b of init.antiAffinityPods) {
      if (init.excluded.has(b.pod.uid)) continue;
      this.updateInverse(b.pod, b.constraints, this.nodesByName.get(b.nodeName)?.labels ?? null);
    }
  }

  private get nodesByName(): Map<string, TopologyNode> {
    return (this.nodesByNameCache ??= new Map(this.init.nodes.map((n) => [n.name, n])));
  }

  /** Whether any group could affect this pod: owned ones, or others' anti-affinity selecting it. */
  affects(pod: SchedPod): boolean {
    if ((this.ownedBy.get(pod.uid)?.size ?? 0) > 0) return true;
    for (const g of this.inverseByNamespace.get(pod.namespace) ?? []) if (g.selects(pod)) return true;
    return false;
  }

  /** (Re)registers the pod's own constraints as groups it owns; call again after relaxing them. */
  update(pod: SchedPod, c: PodConstraints): void {
    const constrained =
      c.spread.length +
        c.requiredPodAffinity.length +
        c.preferredPodAffinity.length +
        c.requiredAntiAffinity.length +
        c.preferredAntiAffinity.length >
      0;
    // most pods have no topology of their own: nothing to register or unregister
    if (!constrained && !this.ownedBy.has(pod.uid)) return;
    const owned = this.ownedBy.get(pod.uid);
    if (owned) for (const g of owned) g.owners.delete(pod.uid);
    this.ownedBy.set(pod.uid, new Set());
    const respect = !this.init.ignorePreferences;
    if ((respect && hasAntiAffinity(c)) || (!respect && c.requiredAntiAffinity.length > 0)) this.updateInverse(pod, c, null);
    for (const g of [...this.spreadGroups(pod, c), ...this.affinityGroups(pod, c)]) {
      let group = this.groups.get(g.hash);
      if (!group) {
        this.countDomains(g);
        this.groups.set(g.hash, g);
        this.index(g, this.groupsByNamespace);
        group = g;
      }
      group.owners.add(pod.uid);
      this.ownedBy.get(pod.uid)?.add(group);
    }
  }

  /** Records that `pod` lands on a node with these taints and requirements. */
  record(pod: SchedPod, taints: readonly Taint[], requirements: Requirements, allowUndefined?: ReadonlySet<string>): void {
    for (const g of this.groupsByNamespace.get(pod.namespace) ?? []) {
      if (!g.counts(pod, taints, requirements, allowUndefined)) continue;
      const domains = requirements.get(g.key);
      if (g.type === 'pod anti-affinity') {
        // every domain the pod could end up in is blocked
        for (const d of domains.values) g.record(d);
      } else if (domains.len() === 1) g.record(domains.any());
    }
    for (const g of this.inverseOwnedBy.get(pod.uid) ?? []) {
      if (g.owners.has(pod.uid)) for (const d of requirements.get(g.key).values) g.record(d);
    }
  }

  /**
   * Tightens a node's requirements with what the pod's topologies (and others' anti-affinity toward it) allow, or
   * says which topology cannot be satisfied.
   */
  addRequirements(
    pod: SchedPod,
    taints: readonly Taint[],
    podRequirements: Requirements,
    nodeRequirements: Requirements,
    allowUndefined?: ReadonlySet<string>,
  ): Requirements | TopologyFailure {
    const out = new Requirements();
    const matching: TopologyGroup[] = [...(this.ownedBy.get(pod.uid) ?? [])];
    for (const g of this.inverseByNamespace.get(pod.namespace) ?? []) {
      if (g.counts(pod, taints, nodeRequirements, allowUndefined)) matching.push(g);
    }
    for (const g of matching) {
      const podDomains = podRequirements.has(g.key) ? podRequirements.get(g.key) : Requirement.of(g.key, 'Exists');
      const nodeDomains = nodeRequirements.has(g.key) ? nodeRequirements.get(g.key) : Requirement.of(g.key, 'Exists');
      const { requirement } = g.next(pod, podDomains, nodeDomains);
      if (requirement.len() === 0) {
        return {
          message: () =>
            `unsatisfiable topology constraint for ${g.type}, key=${g.key} (counts = ${g.countsText()}, podDomains = ${podDomains}, nodeDomains = ${nodeDomains}`,
        };
      }
      out.add(requirement);
    }
    return out;
  }

  /** Makes a domain (a new hostname) known to every group on that key. */
  register(key: string, domain: string): void {
    for (const g of this.byKey.get(key) ?? []) g.register(domain);
  }

  /** Whether there are any groups at all (a workload without topology constraints skips topology work). */
  get empty(): boolean {
    return this.groups.size === 0 && this.inverse.size === 0;
  }

  private index(g: TopologyGroup, byNamespace: Map<string, TopologyGroup[]>): void {
    for (const ns of g.namespaces) {
      const list = byNamespace.get(ns) ?? [];
      list.push(g);
      byNamespace.set(ns, list);
    }
    const list = this.byKey.get(g.key) ?? [];
    list.push(g);
    this.byKey.set(g.key, list);
  }

  private updateInverse(pod: SchedPod, c: PodConstraints, nodeLabels: Readonly<Record<string, string>> | null): void {
    // only required anti-affinity is tracked inversely, as in Karpenter
    for (const term of c.requiredAntiAffinity) {
      const g = this.newGroup(
        'pod anti-affinity',
        term.topologyKey,
        pod,
        this.namespacesFor(pod, term),
        term.labelSelector ?? null,
        MAX_INT32,
        undefined,
        null,
        c.tolerations,
      );
      let group = this.inverse.get(g.hash);
      if (!group) {
        this.inverse.set(g.hash, g);
        this.index(g, this.inverseByNamespace);
        group = g;
      }
      const domain = nodeLabels?.[group.key];
      if (domain !== undefined) group.record(domain);
      group.owners.add(pod.uid);
      const owned = this.inverseOwnedBy.get(pod.uid) ?? new Set<TopologyGroup>();
      owned.add(group);
      this.inverseOwnedBy.set(pod.uid, owned);
    }
  }

  private spreadGroups(pod: SchedPod, c: PodConstraints): TopologyGroup[] {
    const out: TopologyGroup[] = [];
    for (const tsc of c.spread) {
      if (this.init.ignorePreferences && tsc.whenUnsatisfiable !== 'DoNotSchedule') continue;
      let selector: KubeLabelSelector | null = tsc.labelSelector ?? null;
      if (selector && tsc.matchLabelKeys?.length) {
        const extra = tsc.matchLabelKeys
          .filter((k) => pod.labels[k] !== undefined)
          .map((k) => ({ key: k, operator: 'In', values: [pod.labels[k]] }));
        selector = { ...selector, matchExpressions: [...(selector.matchExpressions ?? []), ...extra] };
      }
      const taintPolicy = tsc.nodeTaintsPolicy === 'Honor' ? 'Honor' : 'Ignore';
      const affinityPolicy = tsc.nodeAffinityPolicy === 'Ignore' ? 'Ignore' : 'Honor';
      const filter = NodeFilter.forPod(pod, c, taintPolicy, affinityPolicy);
      out.push(
        this.newGroup(
          'topology spread',
          tsc.topologyKey,
          pod,
          new Set([pod.namespace]),
          selector,
          tsc.maxSkew,
          tsc.minDomains,
          filter,
          c.tolerations,
        ),
      );
    }
    return out;
  }

  private affinityGroups(pod: SchedPod, c: PodConstraints): TopologyGroup[] {
    const respect = !this.init.ignorePreferences;
    const terms: [TopologyType, KubePodAffinityTerm][] = [
      ...c.requiredPodAffinity.map((t): [TopologyType, KubePodAffinityTerm] => ['pod affinity', t]),
      ...(respect ? c.preferredPodAffinity.map((w): [TopologyType, KubePodAffinityTerm] => ['pod affinity', w.term]) : []),
      ...c.requiredAntiAffinity.map((t): [TopologyType, KubePodAffinityTerm] => ['pod anti-affinity', t]),
      ...(respect ? c.preferredAntiAffinity.map((w): [TopologyType, KubePodAffinityTerm] => ['pod anti-affinity', w.term]) : []),
    ];
    return terms.map(([type, t]) =>
      this.newGroup(
        type,
        t.topologyKey,
        pod,
        this.namespacesFor(pod, t),
        t.labelSelector ?? null,
        MAX_INT32,
        undefined,
        null,
        c.tolerations,
      ),
    );
  }

  private namespacesFor(pod: SchedPod, term: KubePodAffinityTerm): Set<string> {
    if (!term.namespaces?.length && !term.namespaceSelector) return new Set([pod.namespace]);
    const out = new Set(term.namespaces ?? []);
    if (term.namespaceSelector) {
      const m = compileSelector(term.namespaceSelector);
      for (const [ns, labels] of this.init.namespaceLabels) if (m.matches(labels)) out.add(ns);
    }
    return out;
  }

  private newGroup(
    type: TopologyType,
    key: string,
    pod: SchedPod,
    namespaces: Set<string>,
    selector: KubeLabelSelector | null,
    maxSkew: number,
    minDomains: number | undefined,
    nodeFilter: NodeFilter | null,
    tolerations: readonly Toleration[],
  ): TopologyGroup {
    const matcher = compileSelector(selector);
    const hash = JSON.stringify([
      key,
      type,
      [...namespaces].sort(),
      maxSkew,
      nodeFilter?.signature() ?? null,
      selector ? matcher.signature : null,
    ]);
    const g = new TopologyGroup(type, key, namespaces, matcher, maxSkew, minDomains, nodeFilter, hash);
    const taintHonor = nodeFilter?.taintPolicy === 'Honor';
    for (const [domain, taintSets] of this.domainGroup(key)) {
      if (!taintHonor || taintSets.some((taints) => toleratesAll(taints, tolerations))) g.register(domain);
    }
    return g;
  }

  /** The domains NodePools can create for a key (Karpenter's buildDomainGroups), computed once per key. */
  private domainGroup(key: string): Map<string, Taint[][]> {
    let group = this.domainGroups.get(key);
    if (group) return group;
    group = new Map();
    for (const src of this.init.domainSources()) {
      const r = src.requirements.get(key);
      if (!src.requirements.has(key) || r.operator() !== 'In') continue;
      for (const domain of r.values) {
        const sets = group.get(domain);
        if (!sets || src.taints.length === 0) group.set(domain, [[...src.taints]]);
        else if (sets[0].length > 0) sets.push([...src.taints]);
      }
    }
    this.domainGroups.set(key, group);
    return group;
  }

  /** Existing nodes' domains and pods (Karpenter's countDomains). */
  private countDomains(g: TopologyGroup): void {
    for (const n of this.init.nodes) {
      if (g.nodeFilter && !g.nodeFilter.matches(n.taints, n.requirements)) continue;
      // every existing node is a hostname domain, labelled or not (Karpenter registers its HostName())
      const domain = n.labels[g.key] ?? (g.key === LABEL_HOSTNAME ? n.name : undefined);
      if (domain !== undefined) g.register(domain);
    }
    for (const ns of g.namespaces) {
      for (const { pod, nodeName } of this.init.boundByNamespace.get(ns) ?? []) {
        if (
          this.init.excluded.has(pod.uid) ||
          !g.selector.matches(pod.labels) ||
          pod.phase === 'Succeeded' ||
          pod.phase === 'Failed' ||
          pod.terminating
        )
          continue;
        const node = this.nodesByName.get(nodeName);
        if (!node) continue;
        let domain = node.labels[g.key];
        if (domain === undefined && g.key === LABEL_HOSTNAME) domain = node.name;
        if (domain === undefined) continue;
        if (g.nodeFilter && !g.nodeFilter.matches(node.taints, node.requirements)) continue;
        g.record(domain);
      }
    }
  }
}
