/**
 * What an "EC2 - Other" line is, from its Cost Explorer USAGE_TYPE. GetCostAndUsage can filter by USAGE_TYPE_GROUP
 * but not group by it (its GroupBy dimensions end at USAGE_TYPE), so the collector groups by usage type and this names
 * the group as Cost Explorer's console does (`EC2: EBS - SSD(gp3)`, `EC2: Data Transfer - Internet (Out)`) and the band
 * it belongs to. Karpenter tags volumes and network interfaces with the NodePool, so both are the NodePool's cost.
 */

export type Ec2OtherKind = 'storage' | 'network' | 'other';

export interface Ec2OtherUsage {
  /** Cost Explorer's USAGE_TYPE_GROUP name. */
  group: string;
  kind: Ec2OtherKind;
}

/** Usage types carry a region prefix (`USE2-`, `EUC1-`, `APN1-`, none in us-east-1); groups do not depend on it. */
export const stripRegionPrefix = (usageType: string): string => usageType.replace(/^[A-Z]{2,4}\d?-(?=[A-Za-z])/, '');

const EBS_VOLUME_GROUPS: Readonly<Record<string, string>> = {
  gp3: 'EC2: EBS - SSD(gp3)',
  gp2: 'EC2: EBS - SSD(gp2)',
  piops: 'EC2: EBS - SSD(io1)',
  io2: 'EC2: EBS - SSD(io2)',
  st1: 'EC2: EBS - HDD(st1)',
  sc1: 'EC2: EBS - HDD(sc1)',
};

/** The usage type group and band of an EC2 - Other usage type; unknown usage types keep their own name as the group. */
export function ec2OtherUsage(usageType: string): Ec2OtherUsage {
  const t = stripRegionPrefix(usageType);
  if (t.startsWith('EBS:VolumeUsage')) {
    const suffix = t.split('.')[1];
    return { group: suffix === undefined ? 'EC2: EBS - Magnetic' : (EBS_VOLUME_GROUPS[suffix] ?? `EC2: EBS - ${suffix}`), kind: 'storage' };
  }
  if (t.startsWith('EBS:VolumeP-IOPS')) return { group: 'EC2: EBS - Provisioned IOPS', kind: 'storage' };
  if (t.startsWith('EBS:VolumeP-Throughput')) return { group: 'EC2: EBS - Provisioned Throughput', kind: 'storage' };
  if (t.startsWith('EBS:Snapshot')) return { group: 'EC2: EBS - Snapshots', kind: 'storage' };
  if (t.startsWith('EBS:')) return { group: 'EC2: EBS - Other', kind: 'storage' };
  if (t === 'DataTransfer-Regional-Bytes') return { group: 'EC2: Data Transfer - Inter AZ', kind: 'network' };
  if (t === 'DataTransfer-Out-Bytes') return { group: 'EC2: Data Transfer - Internet (Out)', kind: 'network' };
  if (t === 'DataTransfer-In-Bytes') return { group: 'EC2: Data Transfer - Internet (In)', kind: 'network' };
  if (/-AWS-Out-Bytes$/.test(t)) return { group: 'EC2: Data Transfer - Region to Region (Out)', kind: 'network' };
  if (/-AWS-In-Bytes$/.test(t)) return { group: 'EC2: Data Transfer - Region to Region (In)', kind: 'network' };
  if (t.startsWith('NatGateway-Bytes')) return { group: 'EC2: NAT Gateway - Data Processed', kind: 'network' };
  if (t.startsWith('NatGateway-Hours')) return { group: 'EC2: NAT Gateway - Running Hours', kind: 'network' };
  if (t.startsWith('ElasticIP:') || t.startsWith('PublicIPv4:')) return { group: 'EC2: Elastic IP', kind: 'network' };
  return { group: t, kind: 'other' };
}
