import type { KindState, VersionedObjectRecord } from '../../core/model.js';
import type { KubeClients } from './client.js';
import { KubeListError, type Page } from './list-all.js';
import {
  csiNodeObject,
  daemonSetObject,
  ec2NodeClassObject,
  nodeOverlayObject,
  persistentVolumeClaimObject,
  persistentVolumeObject,
  podDisruptionBudgetObject,
  storageClassObject,
  type VersionedKind,
} from './map-objects.js';

/**
 * The kinds read beside nodes, pods, NodeClaims, NodePools, namespaces and events, for the scheduling engine (issue
 * 21, 22): one place for how each is listed and watched, what RBAC it takes, and what the engine does with it
 * (README, doctor and the least-privilege test read this list). None is required: a kind whose CRD is absent
 * (NodeOverlay before Karpenter v1.7, EC2NodeClass outside AWS) or that the role does not grant is noted and
 * the snapshot goes on without it.
 */

export type ListPage = Page<unknown> & { resourceVersion: string };

export interface ExtraKind {
  kind: VersionedKind;
  /** The kind in the plural, as doctor and the README name it. */
  title: string;
  /** RBAC apiGroup ('' for the core group) and resource. */
  group: string;
  version: string;
  resource: string;
  /** The cluster-wide list and watch path. */
  path: string;
  /** What the scheduling engine uses it for (fits "the what-ifs do not know …"). */
  usedFor: string;
  /** What a 404 (not served) means and what to do about it. */
  whenAbsent: string;
  list: (k: KubeClients, limit: number) => (cont: string | undefined) => Promise<ListPage>;
  map: (raw: unknown) => VersionedObjectRecord | null;
}

type RawList = { items?: unknown[]; metadata?: { continue?: string; _continue?: string; resourceVersion?: string } };
const page = (r: unknown): ListPage => {
  const o = r as RawList;
  const cont = o.metadata?.continue ?? o.metadata?._continue;
  return { items: o.items ?? [], continueToken: cont ? cont : undefined, resourceVersion: o.metadata?.resourceVersion ?? '' };
};
const custom =
  (group: string, version: string, plural: string) =>
  (k: KubeClients, limit: number) =>
  (cont: string | undefined): Promise<ListPage> =>
    k.custom.listClusterCustomObject({ group, version, plural, limit, _continue: cont }).then(page);

export const EXTRA_KINDS: readonly ExtraKind[] = [
  {
    kind: 'PodDisruptionBudget',
    title: 'PodDisruptionBudgets',
    group: 'policy',
    version: 'v1',
    resource: 'poddisruptionbudgets',
    path: '/apis/policy/v1/poddisruptionbudgets',
    usedFor: 'which nodes Karpenter may not empty ("Pdb prevents pod evictions")',
    whenAbsent: 'policy/v1 is served from Kubernetes 1.21: upgrade the cluster',
    list: custom('policy', 'v1', 'poddisruptionbudgets'),
    map: podDisruptionBudgetObject,
  },
  {
    kind: 'DaemonSet',
    title: 'DaemonSets',
    group: 'apps',
    version: 'v1',
    resource: 'daemonsets',
    path: '/apis/apps/v1/daemonsets',
    usedFor: 'the overhead every new node of a NodePool carries (the DaemonSets whose pods tolerate its taints)',
    whenAbsent: 'apps/v1 is always served: check the API server',
    list: custom('apps', 'v1', 'daemonsets'),
    map: daemonSetObject,
  },
  {
    kind: 'PersistentVolumeClaim',
    title: 'PersistentVolumeClaims',
    group: '',
    version: 'v1',
    resource: 'persistentvolumeclaims',
    path: '/api/v1/persistentvolumeclaims',
    usedFor: 'which volume each pod uses (its zone pin, the attach limits it counts against)',
    whenAbsent: 'v1 is always served: check the API server',
    list: (k, limit) => (cont) => k.core.listPersistentVolumeClaimForAllNamespaces({ limit, _continue: cont }).then(page),
    map: persistentVolumeClaimObject,
  },
  {
    kind: 'PersistentVolume',
    title: 'PersistentVolumes',
    group: '',
    version: 'v1',
    resource: 'persistentvolumes',
    path: '/api/v1/persistentvolumes',
    usedFor: 'the zone each volume is pinned to (its node affinity): its pods may only run there',
    whenAbsent: 'v1 is always served: check the API server',
    list: (k, limit) => (cont) => k.core.listPersistentVolume({ limit, _continue: cont }).then(page),
    map: persistentVolumeObject,
  },
  {
    kind: 'StorageClass',
    title: 'StorageClasses',
    group: 'storage.k8s.io',
    version: 'v1',
    resource: 'storageclasses',
    path: '/apis/storage.k8s.io/v1/storageclasses',
    usedFor: 'the zones and binding mode of a volume not yet bound',
    whenAbsent: 'storage.k8s.io/v1 is always served: check the API server',
    list: custom('storage.k8s.io', 'v1', 'storageclasses'),
    map: storageClassObject,
  },
  {
    kind: 'CSINode',
    title: 'CSINodes',
    group: 'storage.k8s.io',
    version: 'v1',
    resource: 'csinodes',
    path: '/apis/storage.k8s.io/v1/csinodes',
    usedFor: "each node's volume attach limit per CSI driver",
    whenAbsent: 'storage.k8s.io/v1 is always served: check the API server',
    list: custom('storage.k8s.io', 'v1', 'csinodes'),
    map: csiNodeObject,
  },
  {
    kind: 'EC2NodeClass',
    title: 'EC2NodeClasses',
    group: 'karpenter.k8s.aws',
    version: 'v1',
    resource: 'ec2nodeclasses',
    path: '/apis/karpenter.k8s.aws/v1/ec2nodeclasses',
    usedFor: "the zones of a NodePool's subnets, the root volume that prices a node, kubelet settings, capacity reservations",
    whenAbsent: "Karpenter's AWS provider v1 CRDs (karpenter.k8s.aws/v1) are not installed",
    list: custom('karpenter.k8s.aws', 'v1', 'ec2nodeclasses'),
    map: ec2NodeClassObject,
  },
  {
    kind: 'NodeOverlay',
    title: 'NodeOverlays',
    group: 'karpenter.sh',
    version: 'v1alpha1',
    resource: 'nodeoverlays',
    path: '/apis/karpenter.sh/v1alpha1/nodeoverlays',
    usedFor: 'the prices and capacities Karpenter decides with once its NodeOverlay gate is on (v1.7+)',
    whenAbsent: 'NodeOverlay (karpenter.sh/v1alpha1) comes with Karpenter v1.7.0 and later: nothing to do before',
    list: custom('karpenter.sh', 'v1alpha1', 'nodeoverlays'),
    map: nodeOverlayObject,
  },
];

/** The HTTP status of a failed list: listAll's error, or the client's ApiException (`code`). */
export function statusOf(err: unknown): number | undefined {
  if (err instanceof KubeListError) return err.status;
  const e = err as { code?: unknown; statusCode?: unknown } | null;
  return typeof e?.code === 'number' ? e.code : typeof e?.statusCode === 'number' ? e.statusCode : undefined;
}

/** What a failed list of an extra kind says: absent (404), forbidden (403) or failed (anything else), and the fix. */
export function kindStateOf(k: ExtraKind, err: unknown): Exclude<KindState, { state: 'ok' }> {
  const status = statusOf(err);
  const rbac = `${k.group === '' ? 'core' : k.group} ${k.resource}`;
  if (status === 404) return { state: 'absent', message: `${k.kind} is not served (404): ${k.whenAbsent}` };
  if (status === 403)
    return {
      state: 'forbidden',
      message: `${k.kind}: forbidden (403): grant list and watch on ${rbac} (deploy/kubernetes/clusterrole.yaml has it: re-apply it)`,
    };
  return { state: 'failed', message: `${k.kind}: ${err instanceof Error ? err.message : String(err)}` };
}
