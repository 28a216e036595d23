import { describe, expect, it } from 'vitest';
import { CUR_TAG_KEYS, curTagKey } from './tag-keys.js';

describe('curTagKey: a resource tag key as CUR 2.0 writes it in resource_tags', () => {
  describe.each([
    // Seen in real CUR 2.0 queries (resource_tags['user_karpenter_sh_nodepool'], ['aws_eks_namespace']).
    ['karpenter.sh/nodepool', 'user_karpenter_sh_nodepool'],
    ['karpenter.sh/nodeclaim', 'user_karpenter_sh_nodeclaim'],
    ['karpenter.k8s.aws/ec2nodeclass', 'user_karpenter_k8s_aws_ec2nodeclass'],
    ['aws:eks:cluster-name', 'aws_eks_cluster_name'],
    ['aws:eks:namespace', 'aws_eks_namespace'],
    ['aws:eks:workload-name', 'aws_eks_workload_name'],
    // `eks:` is not AWS's reserved `aws:` prefix: a user-defined cost allocation tag.
    ['eks:eks-cluster-name', 'user_eks_eks_cluster_name'],
    ['kubernetes.io/cluster/prod-east', 'user_kubernetes_io_cluster_prod_east'],
    // camelCase boundaries, case, runs of separators, leading/trailing separators.
    ['CostCenter', 'user_cost_center'],
    ['aws:createdBy', 'aws_created_by'],
    ['team', 'user_team'],
    ['Team Name', 'user_team_name'],
    ['a--b__c', 'user_a_b_c'],
    ['/x/', 'user_x'],
  ])('%s', (tagKey, expected) => {
    it(`-> ${expected}`, () => expect(curTagKey(tagKey)).toBe(expected));
  });

  it("names Karpenter's tags and the split data's tags once", () => {
    expect(CUR_TAG_KEYS.nodePool).toBe('user_karpenter_sh_nodepool');
    expect(CUR_TAG_KEYS.eksClusterName).toBe('user_eks_eks_cluster_name');
    expect(CUR_TAG_KEYS.splitNamespace).toBe('aws_eks_namespace');
  });
});
