import { type CostExplorerClient, ListCostAllocationTagsCommand } from '@aws-sdk/client-cost-explorer';
import { clusterOwnedTag, TAG_CLUSTER_NAME, TAG_NODECLAIM, TAG_NODECLASS, TAG_NODEPOOL } from '../../core/labels';

/**
 * Which of the tags the ledger relies on are active cost allocation tags. An inactive (or never seen) tag is
 * absent from Cost Explorer: every cost lands under the untagged key, and activation is not retroactive, so
 * the UI must say so plainly rather than show an "untagged" NodePool.
 */

export interface AllocationTagStatus {
  active: string[];
  inactive: string[];
  /** Never applied to a billed resource, so unknown to billing. */
  unknown: string[];
}

export const ledgerTagKeys = (clusterName: string): string[] =>
  [TAG_NODEPOOL, TAG_NODECLAIM, TAG_NODECLASS, TAG_CLUSTER_NAME, clusterOwnedTag(clusterName)];

export async function checkCostAllocationTags(ce: CostExplorerClient, clusterName: string): Promise<AllocationTagStatus> {
  const wanted = ledgerTagKeys(clusterName);
  const status = new Map<string, string>();
  let token: string | undefined;
  do {
    const out = await ce.send(new ListCostAllocationTagsCommand({ TagKeys: wanted, NextToken: token }));
    for (const t of out.CostAllocationTags ?? []) {
      if (t.TagKey !== undefined && t.Status !== undefined) status.set(t.TagKey, t.Status);
    }
    token = out.NextToken;
  } while (token);
  return {
    active: wanted.filter((k) => status.get(k) === 'Active'),
    inactive: wanted.filter((k) => status.get(k) === 'Inactive'),
    unknown: wanted.filter((k) => !status.has(k)),
  };
}
