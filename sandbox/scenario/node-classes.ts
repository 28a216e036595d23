import type { KubeEC2NodeClass } from '../../core/karpenter/scheduling/kube-types.js';
import type { CapacityReservationSpec } from './capacity-reservations.js';
import type { KarpenterProfile } from './karpenter-profile.js';
import type { EpochMs, SimNodeClass } from './types.js';
import { isoSeconds, uidFor } from './uid.js';

/**
 * EC2NodeClasses (karpenter.k8s.aws/v1) as the AWS provider serves them: the spec a user writes (AL2023 AMI alias,
 * subnets and security groups by the cluster's discovery tag, a 20 GiB gp3 root volume, IMDSv2) and the status the
 * provider resolves (subnets with their zones, the AMIs per architecture, the capacity reservations it selects).
 * The simulation hands the engine these objects; the Kubernetes API serves them.
 */

export const DEFAULT_AMI_ALIAS = 'al2023@v20261020';
export const ROOT_VOLUME = { deviceName: '/dev/xvda', sizeGiB: 20, type: 'gp3' } as const;

/** Hex digits from a seed string: ids of subnets, AMIs and security groups that stay the same per scenario. */
const hexOf = (seed: string, length: number): string => {
  let out = '';
  for (let i = 0; out.length < length; i++) out += uidFor('aws-id', `${seed}#${i}`).replaceAll('-', '');
  return out.slice(0, length);
};

export const subnetId = (clusterName: string, zone: string): string => `subnet-0${hexOf(`${clusterName}/${zone}`, 16)}`;
export const zoneId = (zones: readonly string[], zone: string): string => `use1-az${zones.indexOf(zone) + 1}`;

export interface NodeClassContext {
  clusterName: string;
  zones: readonly string[];
  accountId: string;
  /** When the cluster's objects were made (30 days before the history starts). */
  createdAt: EpochMs;
  reservations: readonly CapacityReservationSpec[];
  profile: KarpenterProfile;
}

/** The alias (and hash) of a class in force at t. */
export function aliasAt(cls: SimNodeClass, t: EpochMs): SimNodeClass['amiAliases'][number] {
  let cur = cls.amiAliases[0];
  for (const a of cls.amiAliases) if (a.at <= t) cur = a;
  return cur;
}

/** The AMI an alias resolves to, per architecture: the EKS-optimized AL2023 image of that release. */
function amis(alias: string) {
  const release = alias.split('@')[1] ?? 'latest';
  return [
    { arch: 'arm64', name: `amazon-eks-node-al2023-arm64-standard-1.31-${release}` },
    { arch: 'amd64', name: `amazon-eks-node-al2023-x86_64-standard-1.31-${release}` },
  ].map((a) => ({
    id: `ami-0${hexOf(a.name, 16)}`,
    name: a.name,
    requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: [a.arch] }],
  }));
}

/** The class at t as the API returns it (the engine reads the KubeEC2NodeClass part). */
export function nodeClassObject(ctx: NodeClassContext, cls: SimNodeClass, t: EpochMs): KubeEC2NodeClass {
  const current = aliasAt(cls, t);
  const generation = cls.amiAliases.filter((a) => a.at <= t).length;
  const reservations = ctx.profile.reservedCapacityType ? ctx.reservations.filter((r) => cls.capacityReservationIds.includes(r.id)) : [];
  const ready = (type: string) => ({
    type,
    status: 'True',
    reason: type,
    message: '',
    lastTransitionTime: isoSeconds(Math.max(ctx.createdAt, current.at)),
  });
  const discovery = { 'karpenter.sh/discovery': ctx.clusterName };
  const served = {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: {
      name: cls.name,
      uid: uidFor('EC2NodeClass', cls.name),
      resourceVersion: String(Math.floor(Math.max(ctx.createdAt, current.at) / 1000)),
      generation,
      creationTimestamp: isoSeconds(ctx.createdAt),
      annotations: { 'karpenter.k8s.aws/ec2nodeclass-hash': current.hash, 'karpenter.k8s.aws/ec2nodeclass-hash-version': 'v4' },
      finalizers: ['karpenter.k8s.aws/termination'],
    },
    spec: {
      amiFamily: 'AL2023',
      amiSelectorTerms: [{ alias: current.alias }],
      role: `KarpenterNodeRole-${ctx.clusterName}`,
      subnetSelectorTerms: [{ tags: discovery }],
      securityGroupSelectorTerms: [{ tags: discovery }],
      ...(reservations.length > 0 ? { capacityReservationSelectorTerms: reservations.map((r) => ({ id: r.id })) } : {}),
      blockDeviceMappings: [
        {
          deviceName: ROOT_VOLUME.deviceName,
          rootVolume: true,
          ebs: { volumeSize: `${ROOT_VOLUME.sizeGiB}Gi`, volumeType: ROOT_VOLUME.type, encrypted: true, deleteOnTermination: true },
        },
      ],
      metadataOptions: { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required' },
    },
    status: {
      amis: amis(current.alias),
      subnets: ctx.zones.map((zone) => ({ id: subnetId(ctx.clusterName, zone), zone, zoneID: zoneId(ctx.zones, zone) })),
      securityGroups: [{ id: `sg-0${hexOf(`${ctx.clusterName}/nodes`, 16)}`, name: `eks-cluster-sg-${ctx.clusterName}` }],
      instanceProfile: `${ctx.clusterName}_${hexOf(`${ctx.clusterName}/profile`, 19)}`,
      ...(ctx.profile.reservedCapacityType && reservations.length > 0
        ? {
            capacityReservations: reservations.map((r) => ({
              availabilityZone: r.zone,
              id: r.id,
              instanceMatchCriteria: 'targeted',
              instanceType: r.instanceType,
              ownerID: ctx.accountId,
              ...(ctx.profile.capacityReservationTypeLabel ? { reservationType: 'default' } : {}),
              state: 'active',
              ...(ctx.profile.capacityReservationInterruptibleLabel ? { interruptible: false } : {}),
            })),
          }
        : {}),
      conditions: [
        'AMIsReady',
        ...(ctx.profile.reservedCapacityType ? ['CapacityReservationsReady'] : []),
        'InstanceProfileReady',
        'Ready',
        'SecurityGroupsReady',
        'SubnetsReady',
        'ValidationSucceeded',
      ].map(ready),
    },
  };
  return served;
}
