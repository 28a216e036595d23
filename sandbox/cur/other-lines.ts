import type { Scenario } from '../scenario/types.js';
import { GP3_USD_PER_GB_MONTH, INTER_AZ_USD_PER_GB, type OtherLine } from '../scenario/volumes-savings-plan.js';
import type { CommonOf } from './compute-lines.js';
import { type CurLineItem, type CurRow, fixed, lineItemId, regionalUsageType } from './cur-common.js';

/**
 * The "EC2 - Other" lines of the simulated bill (volumes-savings-plan.ts otherLines) as CUR line items: each node's
 * gp3 root volume, under its own `vol-` id, and its inter-AZ data transfer, under the instance id. Both carry the
 * tags Karpenter puts on volumes and network interfaces at launch (the NodePool's, never the NodeClaim's). Pure.
 */

/** FNV-1a, 32 bits. */
function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * The root volume's id: `vol-` and 17 hex digits like EC2's, a pure function of the instance id (the sandbox keeps
 * no volumes of its own, and DescribeInstances does not list block devices).
 */
export function rootVolumeId(instanceId: string): string {
  const hex = [0, 1, 2].map((salt) => fnv(`${salt}:${instanceId}`).toString(16).padStart(8, '0')).join('');
  return `vol-0${hex.slice(0, 16)}`;
}

export function otherLineItem(scenario: Scenario, common: CommonOf, l: OtherLine, tags: Readonly<Record<string, string>>): CurLineItem {
  const volume = l.usageUnit === 'GB-Mo';
  const rate = volume ? (GP3_USD_PER_GB_MONTH[scenario.region] ?? GP3_USD_PER_GB_MONTH['us-east-1']) : INTER_AZ_USD_PER_GB;
  const resourceId = volume ? rootVolumeId(l.instanceId) : l.instanceId;
  const own: CurRow = {
    identity_line_item_id: lineItemId(`${resourceId}|${l.hourStart}|${l.usageType}`),
    line_item_line_item_type: 'Usage',
    line_item_product_code: 'AmazonEC2',
    line_item_usage_type: regionalUsageType(scenario, l.usageType),
    line_item_operation: volume ? 'CreateVolume-Gp3' : 'InterZone-In',
    line_item_availability_zone: l.zone,
    line_item_resource_id: resourceId,
    line_item_usage_amount: l.usageQuantity,
    line_item_unblended_rate: fixed(rate),
    line_item_unblended_cost: l.costs.unblendedUsd,
    line_item_net_unblended_cost: l.costs.netUnblendedUsd,
    line_item_line_item_description: volume
      ? `$${fixed(rate)} per GB-month of General Purpose (gp3) provisioned storage - ${scenario.region}`
      : `$${fixed(rate)} per GB - regional data transfer - in/out/between EC2 AZs or using elastic IPs or ELB`,
    pricing_unit: l.usageUnit,
    pricing_term: 'OnDemand',
    pricing_public_on_demand_rate: fixed(rate),
    pricing_public_on_demand_cost: l.costs.unblendedUsd,
    product_servicecode: volume ? 'AmazonEC2' : 'AWSDataTransfer',
    product_product_family: volume ? 'Storage' : 'Data Transfer',
    product_region_code: scenario.region,
    product: volume
      ? { volume_api_name: 'gp3', volume_type: 'General Purpose', region: scenario.region, servicecode: 'AmazonEC2' }
      : { transfer_type: 'IntraRegion', region: scenario.region, servicecode: 'AWSDataTransfer' },
    resource_tags: tags,
  };
  return { shared: [common(l.hourStart)], own };
}
