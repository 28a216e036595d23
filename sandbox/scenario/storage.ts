import type {
  KubeCSINode,
  KubePersistentVolume,
  KubePersistentVolumeClaim,
  KubeStorageClass,
} from '../../core/karpenter/scheduling/kube-types.js';
import type { EpochMs, SimVolumeClaim } from './types.js';
import { isoSeconds, uidFor } from './uid.js';

/**
 * EBS volumes as the AWS EBS CSI driver makes them in an EKS cluster: the StorageClasses, the PersistentVolumes it
 * provisions for a StatefulSet's claims (pinned by node affinity to the zone of the node the pod first ran on, as
 * WaitForFirstConsumer provisions them) and each node's CSINode with the driver's attach limit. Built once here: the
 * simulation hands these objects to the engine and the Kubernetes API serves them.
 *
 * Facts (kubernetes-sigs/aws-ebs-csi-driver v1.64.0):
 * - A provisioned volume's topology is `topology.kubernetes.io/zone` only (pkg/driver/controller.go
 *   newCreateVolumeResponse, WellKnownZoneTopologyKey); a node registers `kubernetes.io/os`,
 *   `topology.ebs.csi.aws.com/zone` and `topology.kubernetes.io/zone` (pkg/driver/node.go NodeGetInfo).
 * - The attach limit a node reports (pkg/driver/node.go getVolumesLimit): the instance type's limit
 *   (pkg/cloud/limits/volume_limits.go GetVolumeLimits: non-Nitro types 39; types in the generated table their own,
 *   `dedicated` for the 7th-generation Intel and AMD and all 8th-generation families; any other 27, shared), less
 *   the block device mappings plus one for the root volume, and on a shared limit less the ENIs beyond the first.
 */

export const EBS_CSI_DRIVER = 'ebs.csi.aws.com';
export const ZONE_LABEL = 'topology.kubernetes.io/zone';
export const EBS_ZONE_LABEL = 'topology.ebs.csi.aws.com/zone';

/** The objects as the API serves them: the engine's shapes plus the fields it does not read. */
export type ServedStorageClass = KubeStorageClass & { reclaimPolicy: string; allowVolumeExpansion?: boolean };
export type ServedClaim = KubePersistentVolumeClaim & {
  spec: { volumeMode: string };
  status: { accessModes?: string[]; capacity?: Record<string, string> };
};
export type ServedVolume = KubePersistentVolume & {
  metadata: { finalizers: string[] };
  spec: { accessModes: string[]; persistentVolumeReclaimPolicy: string; volumeMode: string };
  status: { phase: string };
};

/**
 * The cluster's StorageClasses: `gp3` (the EBS CSI driver, the default class) and the `gp2` class EKS creates in
 * every cluster (the in-tree provisioner name, not default since EKS 1.30).
 */
export function storageClasses(clusterCreatedAt: EpochMs): ServedStorageClass[] {
  const meta = (name: string, annotations: Record<string, string>) => ({
    name,
    uid: uidFor('StorageClass', name),
    creationTimestamp: isoSeconds(clusterCreatedAt),
    annotations,
  });
  return [
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: meta('gp2', {}),
      provisioner: 'kubernetes.io/aws-ebs',
      parameters: { fsType: 'ext4', type: 'gp2' },
      reclaimPolicy: 'Delete',
      volumeBindingMode: 'WaitForFirstConsumer',
    },
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: meta('gp3', { 'storageclass.kubernetes.io/is-default-class': 'true' }),
      provisioner: EBS_CSI_DRIVER,
      parameters: { encrypted: 'true', fsType: 'ext4', type: 'gp3' },
      reclaimPolicy: 'Delete',
      allowVolumeExpansion: true,
      volumeBindingMode: 'WaitForFirstConsumer',
    },
  ];
}

const claimUid = (c: SimVolumeClaim) => uidFor('PersistentVolumeClaim', `${c.namespace}/${c.name}`);

/**
 * The PVC as the API returns it at time t: Pending until its pod is first scheduled (WaitForFirstConsumer), then
 * Bound to its volume. `labels`: the StatefulSet template's, which the controller copies onto its claims.
 */
export function claimObject(c: SimVolumeClaim, t: EpochMs, labels: Record<string, string>, nodeName: string | null): ServedClaim {
  const bound = c.boundAt !== null && c.boundAt <= t;
  const provisioner = {
    'volume.beta.kubernetes.io/storage-provisioner': EBS_CSI_DRIVER,
    'volume.kubernetes.io/storage-provisioner': EBS_CSI_DRIVER,
  };
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: c.name,
      namespace: c.namespace,
      uid: claimUid(c),
      creationTimestamp: isoSeconds(c.createdAt),
      labels,
      annotations: bound
        ? {
            'pv.kubernetes.io/bind-completed': 'yes',
            'pv.kubernetes.io/bound-by-controller': 'yes',
            ...provisioner,
            ...(nodeName ? { 'volume.kubernetes.io/selected-node': nodeName } : {}),
          }
        : provisioner,
    },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: c.storage } },
      storageClassName: c.storageClassName,
      volumeMode: 'Filesystem',
      ...(bound ? { volumeName: c.volumeName } : {}),
    },
    status: bound ? { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: c.storage } } : { phase: 'Pending' },
  };
}

/** The EBS volume provisioned for a claim, pinned to its zone by node affinity; null before it is provisioned. */
export function volumeObject(c: SimVolumeClaim): ServedVolume | null {
  if (c.boundAt === null || c.zone === null) return null;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name: c.volumeName,
      uid: uidFor('PersistentVolume', c.volumeName),
      creationTimestamp: isoSeconds(c.boundAt),
      annotations: { 'pv.kubernetes.io/provisioned-by': EBS_CSI_DRIVER, 'volume.kubernetes.io/provisioner-deletion-secret-name': '' },
      finalizers: ['external-provisioner.volume.kubernetes.io/finalizer', 'kubernetes.io/pv-protection'],
    },
    spec: {
      accessModes: ['ReadWriteOnce'],
      capacity: { storage: c.storage },
      claimRef: { namespace: c.namespace, name: c.name },
      csi: { driver: EBS_CSI_DRIVER, volumeHandle: c.volumeId },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE_LABEL, operator: 'In', values: [c.zone] }] }] } },
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: c.storageClassName,
      volumeMode: 'Filesystem',
    },
    status: { phase: 'Bound' },
  };
}

/** What an instance type's catalogue labels tell about its EBS attachments. */
export interface AttachmentInfo {
  labels: Readonly<Record<string, string>>;
  vcpu: number;
}

/**
 * The EBS CSI driver's volume limit of an instance type (GetVolumeLimits), by the rule its generated table follows
 * for the types a scenario launches: non-Nitro 39 (dedicated); 7th-generation Intel/AMD and 8th-generation and later
 * families a dedicated 32 up to 48 vCPUs; every other Nitro type the shared 27, less one per NVMe instance-store
 * volume (one on the d-types up to 8xlarge, two above). Checked against rows of the driver's table in storage.test.ts.
 */
export function ebsVolumeLimit(t: AttachmentInfo): { limit: number; shared: boolean } {
  const generation = Number(t.labels['karpenter.k8s.aws/instance-generation'] ?? '0');
  const maker = t.labels['karpenter.k8s.aws/instance-cpu-manufacturer'] ?? '';
  const size = t.labels['karpenter.k8s.aws/instance-size'] ?? '';
  if (t.labels['karpenter.k8s.aws/instance-hypervisor'] !== 'nitro' && !size.startsWith('metal')) return { limit: 39, shared: false };
  if (generation >= 8 || (generation === 7 && (maker === 'intel' || maker === 'amd'))) {
    return { limit: t.vcpu <= 48 ? 32 : t.vcpu <= 64 ? 48 : t.vcpu <= 96 ? 64 : 128, shared: false };
  }
  const nvme = Number(t.labels['karpenter.k8s.aws/instance-local-nvme'] ?? '0') > 0 ? (t.vcpu <= 32 ? 1 : 2) : 0;
  return { limit: 27 - nvme, shared: true };
}

/**
 * What a node's CSINode reports as the driver's allocatable count (getVolumesLimit): the type's limit less the root
 * volume, and on a shared limit less the ENIs beyond the first. A node has two ENIs when the driver starts (the VPC
 * CNI keeps one warm ENI beside the primary: WARM_ENI_TARGET=1) and no other block device mapping.
 */
export function ebsAttachLimit(t: AttachmentInfo, enis = 2): number {
  const { limit, shared } = ebsVolumeLimit(t);
  return Math.max(1, limit - 1 - (shared ? enis - 1 : 0));
}

/** A node's CSINode once the EBS CSI node plugin registered (a few seconds after the node). */
export function csiNodeObject(node: { name: string; instanceId: string; createdAt: EpochMs }, attachLimit: number): KubeCSINode {
  const owner = { apiVersion: 'v1', kind: 'Node', name: node.name, uid: uidFor('Node', node.name) };
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSINode',
    metadata: {
      name: node.name,
      uid: uidFor('CSINode', node.name),
      creationTimestamp: isoSeconds(node.createdAt + 30_000),
      annotations: {
        'storage.alpha.kubernetes.io/migrated-plugins':
          'kubernetes.io/aws-ebs,kubernetes.io/azure-disk,kubernetes.io/azure-file,kubernetes.io/cinder,kubernetes.io/gce-pd,kubernetes.io/portworx-volume,kubernetes.io/vsphere-volume',
      },
      ownerReferences: [owner],
    },
    spec: {
      drivers: [
        {
          name: EBS_CSI_DRIVER,
          nodeID: node.instanceId,
          topologyKeys: ['kubernetes.io/os', EBS_ZONE_LABEL, ZONE_LABEL],
          allocatable: { count: attachLimit },
        },
      ],
    },
  };
}
