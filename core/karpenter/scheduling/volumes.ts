import type { KubeCSINode, KubePersistentVolume, KubePersistentVolumeClaim, KubePod, KubeStorageClass } from './kube-types.js';
import { Requirement, Requirements } from './requirements.js';
import { LABEL_HOSTNAME } from './well-known.js';

/**
 * Volumes as Karpenter's scheduler reads them (v1.14.1):
 * - topology (pkg/controllers/provisioning/scheduling/volumetopology.go): a PVC bound to a PV pins the pod to the
 *   PV's required node affinity (each nodeSelectorTerm one alternative; a local or hostPath PV's hostname ignored);
 *   an unbound PVC pins it to its StorageClass's allowedTopologies (each term one alternative); several volumes
 *   multiply their alternatives, keeping the compatible combinations. The requirements narrow the node, not the
 *   pod's affinity (topology spread still counts by the pod's own).
 * - attach limits (pkg/scheduling/volumeusage.go): a node's CSINode says how many volumes each CSI driver may
 *   attach (drivers[].allocatable.count); the distinct PVCs of the pods on it, per driver, must stay within it.
 *   The driver is the bound PV's CSI driver (an in-tree EBS volume counts as ebs.csi.aws.com), else the
 *   StorageClass's provisioner (in-tree names translated to their CSI driver).
 */

/** Volumes a pod mounts, per CSI driver: the PVCs ("namespace/name") it would attach. */
export type VolumeUsage = ReadonlyMap<string, readonly string[]>;

export interface PodVolumes {
  /** The node requirements the pod's volumes add: the first alternative. */
  requirements: Requirements | null;
  /** Every alternative, when there are several (each a way the volumes can be satisfied). */
  alternatives: Requirements[] | null;
  usage: VolumeUsage | null;
  /** A volume's PersistentVolumeClaim is not in the input: Karpenter does not provision for such a pod. */
  error: string | null;
}

/** In-tree provisioners Kubernetes translates to CSI drivers (csi-translation-lib), those an AWS cluster meets. */
const IN_TREE_TO_CSI: Readonly<Record<string, string>> = {
  'kubernetes.io/aws-ebs': 'ebs.csi.aws.com',
  'kubernetes.io/gce-pd': 'pd.csi.storage.gke.io',
  'kubernetes.io/azure-disk': 'disk.csi.azure.com',
  'kubernetes.io/azure-file': 'file.csi.azure.com',
  'kubernetes.io/cinder': 'cinder.csi.openstack.org',
  'kubernetes.io/vsphere-volume': 'csi.vsphere.vmware.com',
};

/** The cluster's volume objects, indexed once per simulation. */
export class VolumeIndex {
  private readonly pvcs = new Map<string, KubePersistentVolumeClaim>();
  private readonly pvs = new Map<string, KubePersistentVolume>();
  private readonly classes = new Map<string, KubeStorageClass>();
  private readonly limits = new Map<string, Map<string, number>>();

  constructor(
    pvcs: readonly KubePersistentVolumeClaim[],
    pvs: readonly KubePersistentVolume[],
    classes: readonly KubeStorageClass[],
    csiNodes: readonly KubeCSINode[],
    private readonly warnings: string[],
  ) {
    for (const c of pvcs) this.pvcs.set(`${c.metadata.namespace ?? 'default'}/${c.metadata.name}`, c);
    for (const v of pvs) this.pvs.set(v.metadata.name, v);
    for (const s of classes) this.classes.set(s.metadata.name, s);
    for (const n of csiNodes) {
      const m = new Map<string, number>();
      for (const d of n.spec?.drivers ?? []) if (typeof d.allocatable?.count === 'number') m.set(d.name, d.allocatable.count);
      if (m.size) this.limits.set(n.metadata.name, m);
    }
  }

  /** Attach limits per driver of a node (its CSINode has the node's name), or null. */
  attachLimits(nodeName: string): ReadonlyMap<string, number> | null {
    return this.limits.get(nodeName) ?? null;
  }

  /** What a pod's volumes require of its node and attach there. */
  forPod(pod: KubePod): PodVolumes {
    const ns = pod.metadata.namespace ?? 'default';
    let alternatives: (Requirements | null)[] = [null];
    const usage = new Map<string, string[]>();
    let error: string | null = null;
    for (const v of pod.spec.volumes ?? []) {
      const claim = v.persistentVolumeClaim?.claimName ?? (v.ephemeral ? `${pod.metadata.name}-${v.name}` : undefined);
      if (claim === undefined) continue;
      const key = `${ns}/${claim}`;
      const pvc = this.pvcs.get(key);
      if (!pvc) {
        // provisioner.go Validate (ValidatePersistentVolumeClaims): a pending pod is not provisioned for
        error ??= `getting persistent volume claim, persistentvolumeclaims "${claim}" not found (PersistentVolumeClaim=${claim})`;
        if (pod.spec.nodeName)
          this.warnings.push(
            `Pod ${ns}/${pod.metadata.name}: volume ${v.name} uses PersistentVolumeClaim ${key}, which is not in the input; its zone and attach count are not known`,
          );
        continue;
      }
      const volAlts = this.alternatives(pvc);
      if (volAlts.length) alternatives = merge(alternatives, volAlts);
      const driver = this.driver(pvc);
      if (driver !== null) {
        const list = usage.get(driver) ?? [];
        if (!list.includes(key)) list.push(key);
        usage.set(driver, list);
      }
    }
    const real = alternatives.filter((a): a is Requirements => a !== null);
    return { requirements: real[0] ?? null, alternatives: real.length > 1 ? real : null, usage: usage.size ? usage : null, error };
  }

  private alternatives(pvc: KubePersistentVolumeClaim): Requirements[] {
    const volumeName = pvc.spec?.volumeName;
    if (volumeName) {
      const pv = this.pvs.get(volumeName);
      if (!pv) return [];
      const terms = pv.spec?.nodeAffinity?.required?.nodeSelectorTerms ?? [];
      const local = pv.spec?.local !== undefined || pv.spec?.hostPath !== undefined;
      const out: Requirements[] = [];
      for (const t of terms) {
        let exprs = t.matchExpressions ?? [];
        if (local) {
          const kept = exprs.filter((e) => e.key !== LABEL_HOSTNAME);
          if (exprs.length > 0 && kept.length === 0) {
            out.push(new Requirements());
            continue;
          }
          exprs = kept;
        }
        if (exprs.length) out.push(Requirements.fromSelectors(exprs));
      }
      return out;
    }
    const sc = pvc.spec?.storageClassName ? this.classes.get(pvc.spec.storageClassName) : undefined;
    const out: Requirements[] = [];
    for (const t of sc?.allowedTopologies ?? []) {
      const exprs = t.matchLabelExpressions ?? [];
      if (exprs.length) out.push(new Requirements(exprs.map((e) => Requirement.of(e.key, 'In', e.values))));
    }
    return out;
  }

  private driver(pvc: KubePersistentVolumeClaim): string | null {
    const volumeName = pvc.spec?.volumeName;
    if (volumeName) {
      const pv = this.pvs.get(volumeName);
      if (pv?.spec?.csi) return pv.spec.csi.driver;
      if (pv?.spec?.awsElasticBlockStore !== undefined) return 'ebs.csi.aws.com';
      return null;
    }
    const name = pvc.spec?.storageClassName;
    const sc = name ? this.classes.get(name) : undefined;
    if (!sc) return null;
    return IN_TREE_TO_CSI[sc.provisioner] ?? sc.provisioner;
  }
}

/** volumetopology.go mergeVolumeRequirementAlternatives: the cross product, compatible combinations only (all if none). */
function merge(alternatives: (Requirements | null)[], volAlts: Requirements[]): (Requirements | null)[] {
  const combine = (onlyCompatible: boolean) => {
    const out: Requirements[] = [];
    for (const a of alternatives) {
      for (const v of volAlts) {
        if (onlyCompatible && a !== null && !a.intersects(v)) continue;
        out.push(a === null ? v.copy() : a.copy().addAll(v));
      }
    }
    return out;
  };
  const compatible = combine(true);
  return compatible.length ? compatible : combine(false);
}

/** The distinct PVCs per driver on a node, from its pods' volume usage. */
export function nodeVolumeUsage(pods: readonly { volumes?: VolumeUsage | null }[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const p of pods) {
    if (!p.volumes) continue;
    for (const [driver, claims] of p.volumes) {
      let s = out.get(driver);
      if (!s) out.set(driver, (s = new Set()));
      for (const c of claims) s.add(c);
    }
  }
  return out;
}

/** volumeusage.go ExceedsLimits: the message when adding these volumes would pass a driver's limit, else null. */
export function exceedsAttachLimits(
  used: ReadonlyMap<string, ReadonlySet<string>>,
  limits: ReadonlyMap<string, number>,
  adding: VolumeUsage,
): string | null {
  for (const [driver, claims] of adding) {
    const limit = limits.get(driver);
    if (limit === undefined) continue;
    const current = used.get(driver);
    let count = current?.size ?? 0;
    for (const c of claims) if (!current?.has(c)) count++;
    if (count > limit)
      return `checking volume usage, would exceed volume limit (provisioner=${driver}, volume-count=${count}, volume-limit=${limit})`;
  }
  return null;
}
