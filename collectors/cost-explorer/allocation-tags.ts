import { type CostExplorerClient, ListCostAllocationTagsCommand } from '@aws-sdk/client-cost-explorer';
import { clusterOwnedTag, TAG_CLUSTER_NAME, TAG_NODECLAIM, TAG_NODECLASS, TAG_NODEPOOL } from '../../core/labels.js';

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

/** A tag key and the value that marks the cluster's resources with it. */
export interface ClusterTag {
  key: string;
  value: string;
}

export const ledgerTagKeys = (clusterName: string): string[] => [
  TAG_NODEPOOL,
  TAG_NODECLAIM,
  TAG_NODECLASS,
  TAG_CLUSTER_NAME,
  clusterOwnedTag(clusterName),
];

export interface AllocationTagCheckOptions {
  /** Page size (the API's default is 100). */
  maxResults?: number;
  /** Called once per request, to count and store it. */
  onRequest?: () => void;
}

export async function checkCostAllocationTags(
  ce: CostExplorerClient,
  clusterName: string,
  opts: AllocationTagCheckOptions = {},
): Promise<AllocationTagStatus> {
  const wanted = ledgerTagKeys(clusterName);
  const status = new Map<string, string>();
  let token: string | undefined;
  do {
    let out;
    try {
      out = await ce.send(new ListCostAllocationTagsCommand({ TagKeys: wanted, NextToken: token, MaxResults: opts.maxResults }));
    } finally {
      opts.onRequest?.();
    }
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

export interface ClusterTagChoice {
  tag: ClusterTag;
  /** False when neither cluster tag is active: the filter then matches nothing and the bill comes back empty. */
  active: boolean;
}

/**
 * The tag to filter the cluster's cost by, as the account's active tags allow: EKS's `eks:eks-cluster-name`
 * (value: the cluster name), else `kubernetes.io/cluster/<name>` (value `owned`, as Karpenter and EKS set it).
 */
export function chooseClusterTag(clusterName: string, status: AllocationTagStatus): ClusterTagChoice {
  const eks: ClusterTag = { key: TAG_CLUSTER_NAME, value: clusterName };
  if (status.active.includes(TAG_CLUSTER_NAME)) return { tag: eks, active: true };
  const owned = clusterOwnedTag(clusterName);
  if (status.active.includes(owned)) return { tag: { key: owned, value: 'owned' }, active: true };
  return { tag: eks, active: false };
}
