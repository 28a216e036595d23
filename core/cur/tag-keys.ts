/**
 * How a resource tag key appears as a key of CUR 2.0's `resource_tags` map.
 *
 * CUR 2.0 keeps the legacy CUR's Athena-safe column names, without the `resource_tags_` prefix
 * (https://docs.aws.amazon.com/cur/latest/userguide/table-dictionary-cur2-resource-tags.html; the legacy rule:
 * https://docs.aws.amazon.com/cur/latest/userguide/cur-query-athena.html "column names"): a user-defined cost allocation
 * tag gets `user_`, an AWS-generated one (key `aws:…`) gets `aws_` in place of `aws:`; then a camelCase boundary gets an
 * underscore, letters are lower-cased, every character that is not a letter or digit becomes `_`, runs of `_` collapse
 * and `_` is trimmed from both ends of the name. So:
 *   karpenter.sh/nodepool          -> user_karpenter_sh_nodepool   (as seen in real CUR 2.0 queries)
 *   aws:eks:cluster-name           -> aws_eks_cluster_name         (split cost allocation data's own tags)
 *   eks:eks-cluster-name           -> user_eks_eks_cluster_name    (`eks:` is not `aws:`: a user-defined tag to AWS)
 *   CostCenter                     -> user_cost_center
 * A tag appears only after it is activated as a cost allocation tag, and only on lines whose resource carries it.
 */

const AWS_PREFIX = /^aws:/i;

function normaliseName(name: string): string {
  return name
    .replace(/(.)([A-Z][a-z]+)/g, '$1_$2')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
}

/** The `resource_tags` key of a resource tag key as written on the resource (`karpenter.sh/nodepool`). */
export function curTagKey(tagKey: string): string {
  if (AWS_PREFIX.test(tagKey)) return `aws_${normaliseName(tagKey.replace(AWS_PREFIX, ''))}`;
  return `user_${normaliseName(tagKey)}`;
}

/** The tags Karpenter puts on what it launches (ARCHITECTURE.md "Where Karpenter's tags land"), as CUR 2.0 keys. */
export const CUR_TAG_KEYS = {
  /** On the instance, its EBS volumes and network interfaces, at launch. */
  nodePool: curTagKey('karpenter.sh/nodepool'),
  /** On the instance only, after launch (an instance's first minutes can be billed without it). */
  nodeClaim: curTagKey('karpenter.sh/nodeclaim'),
  ec2NodeClass: curTagKey('karpenter.k8s.aws/ec2nodeclass'),
  /** Karpenter's cluster tag on the instance, volumes and ENIs. */
  eksClusterName: curTagKey('eks:eks-cluster-name'),
  /** Split cost allocation data's own tags on the pod lines (AWS-generated, `aws:eks:…`). */
  splitClusterName: curTagKey('aws:eks:cluster-name'),
  splitNamespace: curTagKey('aws:eks:namespace'),
  splitNode: curTagKey('aws:eks:node'),
  splitWorkloadName: curTagKey('aws:eks:workload-name'),
  splitWorkloadType: curTagKey('aws:eks:workload-type'),
} as const;
