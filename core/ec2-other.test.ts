import { describe, expect, it } from 'vitest';
import { ec2OtherUsage, stripRegionPrefix } from './ec2-other.js';

// Group names as Cost Explorer's USAGE_TYPE_GROUP spells them (the Cost Explorer console's "Usage type group" filter).
describe.each([
  ['EBS:VolumeUsage.gp3', 'EC2: EBS - SSD(gp3)', 'storage'],
  ['USE2-EBS:VolumeUsage.gp2', 'EC2: EBS - SSD(gp2)', 'storage'],
  ['EUC1-EBS:VolumeUsage.piops', 'EC2: EBS - SSD(io1)', 'storage'],
  ['EBS:VolumeUsage', 'EC2: EBS - Magnetic', 'storage'],
  ['USW2-EBS:SnapshotUsage', 'EC2: EBS - Snapshots', 'storage'],
  ['EBS:VolumeP-IOPS.gp3', 'EC2: EBS - Provisioned IOPS', 'storage'],
  ['DataTransfer-Regional-Bytes', 'EC2: Data Transfer - Inter AZ', 'network'],
  ['USW2-DataTransfer-Out-Bytes', 'EC2: Data Transfer - Internet (Out)', 'network'],
  ['USE1-USW2-AWS-Out-Bytes', 'EC2: Data Transfer - Region to Region (Out)', 'network'],
  ['APN1-NatGateway-Bytes', 'EC2: NAT Gateway - Data Processed', 'network'],
  ['NatGateway-Hours', 'EC2: NAT Gateway - Running Hours', 'network'],
  ['USW2-SomethingNew', 'SomethingNew', 'other'],
])('%s', (usageType, group, kind) => {
  it(`is ${group} (${kind})`, () => expect(ec2OtherUsage(usageType)).toEqual({ group, kind }));
});

describe('stripRegionPrefix', () => {
  it.each([
    ['USE2-EBS:VolumeUsage.gp3', 'EBS:VolumeUsage.gp3'],
    ['EBS:VolumeUsage.gp3', 'EBS:VolumeUsage.gp3'],
    ['EU-DataTransfer-Out-Bytes', 'DataTransfer-Out-Bytes'],
  ])('%s -> %s', (from, to) => expect(stripRegionPrefix(from)).toBe(to));
});
