/**
 * How split cost allocation data for Amazon EKS shows a pod in the CUR
 * (https://docs.aws.amazon.com/cur/latest/userguide/split-cost-allocation-data.html, "Understanding split cost
 * allocation data"; columns in table-dictionary-cur2-split-line-item.html):
 * - each pod gets its own lines per resource and hour (or day) beside the EC2 instance's line: line_item_product_code
 *   AmazonEKS, line_item_operation EKSPod-EC2, line_item_usage_type `<region>-EKS-EC2-vCPU-Hours`, `-GB-Hours`
 *   (and `-GPU-Hours` on accelerated instances); their line_item_unblended_cost is 0: the money stays on the instance
 *   line, the pod's share is in split_line_item_split_cost / split_line_item_unused_cost;
 * - line_item_resource_id is the pod's ARN, `arn:aws:eks:<region>:<account>:pod/<cluster>/<namespace>/<pod>/<uid>`;
 * - split_line_item_parent_resource_id is the EC2 instance id (i-…) the pod ran on;
 * - resource_tags carries the AWS-generated aws_eks_cluster_name, aws_eks_namespace, aws_eks_node,
 *   aws_eks_workload_name, aws_eks_workload_type (and the pod's activated labels as user tags).
 */

export interface EksPodArn {
  region: string;
  accountId: string;
  cluster: string;
  namespace: string;
  pod: string;
  /** '' when the ARN has no uid part. */
  uid: string;
}

const POD_ARN = /^arn:aws[a-z-]*:eks:([^:]*):([^:]*):pod\/([^/]+)\/([^/]+)\/([^/]+)(?:\/([^/]+))?$/;

/** The parts of a pod's line_item_resource_id; null when it is not a pod ARN. */
export function parseEksPodArn(resourceId: string): EksPodArn | null {
  const m = POD_ARN.exec(resourceId);
  if (m === null) return null;
  return { region: m[1] ?? '', accountId: m[2] ?? '', cluster: m[3] ?? '', namespace: m[4] ?? '', pod: m[5] ?? '', uid: m[6] ?? '' };
}

/** The pod ARN of a split line (the inverse of parseEksPodArn, as the sandbox writes it). */
export function eksPodArn(p: EksPodArn): string {
  const tail = p.uid === '' ? '' : `/${p.uid}`;
  return `arn:aws:eks:${p.region}:${p.accountId}:pod/${p.cluster}/${p.namespace}/${p.pod}${tail}`;
}

/** Split line usage types end in these (after the region prefix). */
export const SPLIT_USAGE_SUFFIX = { vcpu: 'EKS-EC2-vCPU-Hours', memory: 'EKS-EC2-GB-Hours', gpu: 'EKS-EC2-GPU-Hours' } as const;
