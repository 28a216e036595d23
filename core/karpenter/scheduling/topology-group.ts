import type { LabelMatcher } from './label-selector.js';
import type { PodConstraints, SchedPod } from './pods.js';
import { Requirement, Requirements } from './requirements.js';
import { type Taint, toleratesAll, type Toleration } from './taints.js';
import { LABEL_HOSTNAME } from './well-known.js';

/**
 * One topology constraint and its counts (kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling
 * topologygroup.go and topologynodefilter.go, v1.14.1): matching pods per domain, and which domains a pod may go to
 * next. Where Karpenter picks among equal domains by Go map order, the smallest name is taken.
 */

export type TopologyType = 'topology spread' | 'pod affinity' | 'pod anti-affinity';
export const MAX_INT32 = 2147483647;

/** Which nodes count for a spread constraint: the pod's node selector / required affinity and its tolerations. */
export class NodeFilter {
  constructor(
    readonly requirements: Requirements[],
    readonly taintPolicy: 'Honor' | 'Ignore',
    readonly affinityPolicy: 'Honor' | 'Ignore',
    readonly tolerations: Toleration[],
  ) {}

  static forPod(pod: SchedPod, c: PodConstraints, taintPolicy: 'Honor' | 'Ignore', affinityPolicy: 'Honor' | 'Ignore'): NodeFilter {
    const selector = Requirements.fromLabels(pod.nodeSelector);
    const reqs =
      c.requiredNodeTerms.length === 0
        ? [selector]
        : c.requiredNodeTerms.map((term) => selector.copy().addAll(Requirements.fromSelectors(term)));
    return new NodeFilter(reqs, taintPolicy, affinityPolicy, c.tolerations);
  }

  matches(taints: readonly Taint[], requirements: Requirements, allowUndefined?: ReadonlySet<string>): boolean {
    if (this.affinityPolicy === 'Honor' && this.requirements.length > 0) {
      if (!this.requirements.some((r) => requirements.isCompatible(r, allowUndefined))) return false;
    }
    if (this.taintPolicy === 'Honor' && !toleratesAll(taints, this.tolerations)) return false;
    return true;
  }

  signature(): string {
    return JSON.stringify([this.requirements.map((r) => r.signature()), this.taintPolicy, this.affinityPolicy, this.tolerations]);
  }
}

export class TopologyGroup {
  readonly owners = new Set<string>();
  readonly domains = new Map<string, number>();
  readonly emptyDomains = new Set<string>();

  constructor(
    readonly type: TopologyType,
    readonly key: string,
    readonly namespaces: ReadonlySet<string>,
    readonly selector: LabelMatcher,
    readonly maxSkew: number,
    readonly minDomains: number | undefined,
    /** Only for spread constraints; affinities count every node. */
    readonly nodeFilter: NodeFilter | null,
    readonly hash: string,
  ) {}

  selects(pod: SchedPod): boolean {
    return this.namespaces.has(pod.namespace) && this.selector.matches(pod.labels);
  }

  counts(pod: SchedPod, taints: readonly Taint[], requirements: Requirements, allowUndefined?: ReadonlySet<string>): boolean {
    return this.selects(pod) && (this.nodeFilter === null || this.nodeFilter.matches(taints, requirements, allowUndefined));
  }

  register(domain: string): void {
    if (!this.domains.has(domain)) {
      this.domains.set(domain, 0);
      this.emptyDomains.add(domain);
    }
  }

  record(domain: string): void {
    this.domains.set(domain, (this.domains.get(domain) ?? 0) + 1);
    this.emptyDomains.delete(domain);
  }

  private sortedDomains(): string[] {
    return [...this.domains.keys()].sort();
  }

  /** The domains the pod may go to next, as a requirement on the key, and every domain within the skew. */
  next(pod: SchedPod, podDomains: Requirement, nodeDomains: Requirement): { requirement: Requirement; valid: Set<string> } {
    if (this.type === 'topology spread') return this.nextSpread(pod, podDomains, nodeDomains);
    const r =
      this.type === 'pod affinity' ? this.nextAffinity(pod, podDomains, nodeDomains) : this.nextAntiAffinity(podDomains, nodeDomains);
    return { requirement: r, valid: new Set(r.complement ? [] : r.values) };
  }

  private singleHost(nodeDomains: Requirement): string | null {
    return this.key === LABEL_HOSTNAME && !nodeDomains.complement && nodeDomains.values.size === 1 ? nodeDomains.any() : null;
  }

  private nextSpread(pod: SchedPod, podDomains: Requirement, nodeDomains: Requirement): { requirement: Requirement; valid: Set<string> } {
    const min = this.domainMinCount(podDomains);
    const self = this.selects(pod) ? 1 : 0;
    const valid = new Set<string>();
    const host = this.singleHost(nodeDomains);
    if (host !== null) {
      // a new hostname is always possible, so the global minimum is taken as zero
      const count = (this.domains.get(host) ?? 0) + self;
      if (count <= this.maxSkew) {
        valid.add(host);
        return { requirement: Requirement.of(this.key, 'In', [host]), valid };
      }
      return { requirement: Requirement.of(this.key, 'DoesNotExist'), valid };
    }
    let minDomain = '';
    let minCount = MAX_INT32;
    const candidates =
      nodeDomains.operator() === 'In' ? nodeDomains.sortedValues() : this.sortedDomains().filter((d) => nodeDomains.has(d));
    for (const domain of candidates) {
      const c = this.domains.get(domain);
      if (c === undefined) continue;
      const count = c + self;
      if (count - min <= this.maxSkew) {
        valid.add(domain);
        if (count < minCount) {
          minDomain = domain;
          minCount = count;
        }
      }
    }
    if (minDomain === '') return { requirement: Requirement.of(this.key, 'DoesNotExist'), valid };
    return { requirement: Requirement.of(this.key, 'In', [minDomain]), valid };
  }

  private domainMinCount(podDomains: Requirement): number {
    if (this.key === LABEL_HOSTNAME) return 0;
    let min = MAX_INT32;
    let supported = 0;
    for (const [domain, count] of this.domains) {
      if (!podDomains.has(domain)) continue;
      supported++;
      if (count < min) min = count;
    }
    if (this.minDomains !== undefined && supported < this.minDomains) min = 0;
    return min;
  }

  private anyCompatiblePodDomain(podDomains: Requirement): boolean {
    for (const [domain, count] of this.domains) if (podDomains.has(domain) && count > 0) return true;
    return false;
  }

  private nextAffinity(pod: SchedPod, podDomains: Requirement, nodeDomains: Requirement): Requirement {
    const options: string[] = [];
    const host = this.singleHost(nodeDomains);
    const bootstrap = () => this.selects(pod) && (this.domains.size === this.emptyDomains.size || !this.anyCompatiblePodDomain(podDomains));
    if (host !== null) {
      if (!podDomains.has(host)) return Requirement.of(this.key, 'DoesNotExist');
      if ((this.domains.get(host) ?? 0) > 0 || bootstrap()) return Requirement.of(this.key, 'In', [host]);
      return Requirement.of(this.key, 'DoesNotExist');
    }
    if (nodeDomains.operator() === 'In') {
      for (const d of nodeDomains.sortedValues()) if (podDomains.has(d) && (this.domains.get(d) ?? 0) > 0) options.push(d);
    } else {
      for (const d of this.sortedDomains()) if (podDomains.has(d) && (this.domains.get(d) ?? 0) > 0 && nodeDomains.has(d)) options.push(d);
    }
    if (options.length > 0) return Requirement.of(this.key, 'In', options);
    // a self-selecting pod with nowhere to join yet may start a domain
    if (bootstrap()) {
      const intersected = podDomains.intersection(nodeDomains);
      const sorted = this.sortedDomains();
      const first = sorted.find((d) => intersected.has(d));
      if (first !== undefined) options.push(first);
      const any = sorted.find((d) => podDomains.has(d));
      if (any !== undefined && any !== first) options.push(any);
    }
    return Requirement.of(this.key, options.length ? 'In' : 'DoesNotExist', options);
  }

  private nextAntiAffinity(podDomains: Requirement, nodeDomains: Requirement): Requirement {
    const host = this.singleHost(nodeDomains);
    if (host !== null) {
      return (this.domains.get(host) ?? 0) === 0 ? Requirement.of(this.key, 'In', [host]) : Requirement.of(this.key, 'DoesNotExist');
    }
    const options: string[] = [];
    if (nodeDomains.operator() === 'In' && nodeDomains.len() < this.emptyDomains.size) {
      for (const d of nodeDomains.sortedValues()) if (this.emptyDomains.has(d) && podDomains.has(d)) options.push(d);
    } else {
      for (const d of [...this.emptyDomains].sort()) if (nodeDomains.has(d) && podDomains.has(d)) options.push(d);
    }
    return Requirement.of(this.key, options.length ? 'In' : 'DoesNotExist', options);
  }

  countsText(): string {
    const keys = this.sortedDomains();
    const shown = keys.slice(0, 25).map((k) => `${k}: ${this.domains.get(k)}`);
    return shown.join(', ') + (keys.length > 25 ? ` and ${keys.length - 25} other(s)` : '');
  }
}
