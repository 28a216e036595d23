/** Label, annotation and tag keys Karpenter and Kubernetes use; defined once. */
export const LABEL_NODEPOOL = 'karpenter.sh/nodepool';
export const LABEL_CAPACITY_TYPE = 'karpenter.sh/capacity-type';
export const LABEL_INSTANCE_TYPE = 'node.kubernetes.io/instance-type';
export const LABEL_ZONE = 'topology.kubernetes.io/zone';
export const LABEL_NODECLASS = 'karpenter.k8s.aws/ec2nodeclass';
/** What Karpenter labels its nodes with from the EC2 instance type: vCPUs, memory in MiB, GPUs (pkg/apis/v1/labels.go). */
export const LABEL_INSTANCE_CPU = 'karpenter.k8s.aws/instance-cpu';
export const LABEL_INSTANCE_MEMORY_MIB = 'karpenter.k8s.aws/instance-memory';
export const LABEL_INSTANCE_GPU_COUNT = 'karpenter.k8s.aws/instance-gpu-count';
/** On a node in an EC2 capacity reservation (capacity type `reserved`, AWS provider v1.3+): the reservation's cr- id. */
export const LABEL_CAPACITY_RESERVATION_ID = 'karpenter.k8s.aws/capacity-reservation-id';
export const ANNOTATION_DO_NOT_DISRUPT = 'karpenter.sh/do-not-disrupt';

export const TAG_NODEPOOL = 'karpenter.sh/nodepool';
export const TAG_NODECLAIM = 'karpenter.sh/nodeclaim';
export const TAG_NODECLASS = 'karpenter.k8s.aws/ec2nodeclass';
export const TAG_CLUSTER_NAME = 'eks:eks-cluster-name';
export const clusterOwnedTag = (cluster: string): string => `kubernetes.io/cluster/${cluster}`;

/** The default namespace (or pod) label that names a team. */
export const DEFAULT_TEAM_LABEL = 'team';

export type CapacityType = 'on-demand' | 'spot' | 'reserved';
export type DisruptionReason = 'Underutilized' | 'Empty' | 'Drifted' | 'Expired' | 'Interrupted';
export const DISRUPTION_REASONS: readonly DisruptionReason[] = ['Underutilized', 'Empty', 'Drifted', 'Expired', 'Interrupted'];
