/**
 * Label keys and resource names Karpenter (kubernetes-sigs/karpenter pkg/apis/v1/labels.go) and its AWS provider
 * (aws/karpenter-provider-aws pkg/apis/v1/labels.go, v1.14.1) treat specially. Defined once for the engine.
 */

import { ANNOTATION_DO_NOT_DISRUPT, LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE, LABEL_NODEPOOL, LABEL_ZONE } from '../../labels.js';

export { ANNOTATION_DO_NOT_DISRUPT, LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE, LABEL_NODEPOOL, LABEL_ZONE };
export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
export const LABEL_REGION = 'topology.kubernetes.io/region';
export const LABEL_ARCH = 'kubernetes.io/arch';
export const LABEL_OS = 'kubernetes.io/os';
export const LABEL_WINDOWS_BUILD = 'node.kubernetes.io/windows-build';
export const LABEL_NODE_INITIALIZED = 'karpenter.sh/initialized';
export const LABEL_NODE_REGISTERED = 'karpenter.sh/registered';
export const LABEL_INSTANCE_SIZE = 'karpenter.k8s.aws/instance-size';
export const LABEL_ZONE_ID = 'topology.k8s.aws/zone-id';
export const ANNOTATION_POD_DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';
/** Set "true" on a NodeClaim whose minValues BestEffort relaxed, "false" otherwise (v1.6.0+, scheduler.go). */
export const ANNOTATION_MIN_VALUES_RELAXED = 'karpenter.sh/nodeclaim-min-values-relaxed';
/** Set "true" on a NodeClaim with an overlaid instance type (v1alpha1 labels.go; nodeclaimtemplate.go ToNodeClaim). */
export const ANNOTATION_PRICE_OVERLAY_APPLIED = 'karpenter.sh/price-overlay-applied';
export const ANNOTATION_CAPACITY_OVERLAY_APPLIED = 'karpenter.sh/capacity-overlay-applied';
/** The AWS provider's reserved-capacity labels (aws pkg/apis/v1/labels.go) and the NodeClass label Karpenter sets. */
export const LABEL_RESERVATION_ID = 'karpenter.k8s.aws/capacity-reservation-id';
export const LABEL_RESERVATION_TYPE = 'karpenter.k8s.aws/capacity-reservation-type';
export const LABEL_RESERVATION_INTERRUPTIBLE = 'karpenter.k8s.aws/capacity-reservation-interruptible';
export const LABEL_EC2_NODECLASS = 'karpenter.k8s.aws/ec2nodeclass';

export const CAPACITY_SPOT = 'spot';
export const CAPACITY_ON_DEMAND = 'on-demand';
export const CAPACITY_RESERVED = 'reserved';

const AWS = 'karpenter.k8s.aws';
const AWS_INSTANCE_LABELS = [
  'instance-hypervisor',
  'instance-encryption-in-transit-supported',
  'instance-category',
  'instance-capability-flex',
  'instance-family',
  'instance-generation',
  'instance-size',
  'instance-local-nvme',
  'instance-cpu',
  'instance-cpu-manufacturer',
  'instance-cpu-sustained-clock-speed-mhz',
  'instance-memory',
  'instance-ebs-bandwidth',
  'instance-network-bandwidth',
  'instance-gpu-name',
  'instance-gpu-manufacturer',
  'instance-gpu-count',
  'instance-gpu-memory',
  'instance-accelerator-name',
  'instance-accelerator-manufacturer',
  'instance-accelerator-count',
  'instance-tenancy',
].map((l) => `${AWS}/${l}`);

/**
 * Labels a NodePool or a pod may constrain without the NodePool defining them (Karpenter's WellKnownLabels, core
 * and AWS): the instance types and offerings supply their values.
 */
export const WELL_KNOWN_LABELS: ReadonlySet<string> = new Set([
  LABEL_NODEPOOL,
  LABEL_ZONE,
  LABEL_REGION,
  LABEL_INSTANCE_TYPE,
  LABEL_ARCH,
  LABEL_OS,
  LABEL_CAPACITY_TYPE,
  LABEL_WINDOWS_BUILD,
  LABEL_RESERVATION_ID,
  LABEL_RESERVATION_TYPE,
  LABEL_RESERVATION_INTERRUPTIBLE,
  LABEL_ZONE_ID,
  'karpenter.k8s.aws/placement-group-id',
  'karpenter.k8s.aws/placement-group-partition',
  ...AWS_INSTANCE_LABELS,
]);

/**
 * Well-known labels an instance type says "does not exist" for when its own labels lack them (a GPU label on a
 * non-GPU type), as the AWS provider's computeRequirements does. Region and zone-id are left undefined when the
 * catalogue does not give them, so a requirement on them is not refused for want of data; zone and capacity type
 * come from the offerings.
 */
export const ABSENT_MEANS_DOES_NOT_EXIST: readonly string[] = [LABEL_WINDOWS_BUILD, ...AWS_INSTANCE_LABELS];

/** Aliased keys a pod may use, translated to the well-known ones (Karpenter's NormalizedLabels). */
export const NORMALIZED_LABELS: Readonly<Record<string, string>> = {
  'failure-domain.beta.kubernetes.io/zone': LABEL_ZONE,
  'beta.kubernetes.io/arch': LABEL_ARCH,
  'beta.kubernetes.io/os': LABEL_OS,
  'beta.kubernetes.io/instance-type': LABEL_INSTANCE_TYPE,
  'failure-domain.beta.kubernetes.io/region': LABEL_REGION,
};

/** Labels left out of requirement strings in messages (Karpenter's RestrictedLabels). */
export const RESTRICTED_LABELS: ReadonlySet<string> = new Set([LABEL_HOSTNAME]);

/** Resources whose presence makes an instance type "exotic" to the AWS launch filter. */
export const EXOTIC_RESOURCES: readonly string[] = [
  'aws.amazon.com/neuron',
  'aws.amazon.com/neuroncore',
  'amd.com/gpu',
  'nvidia.com/gpu',
  'habana.ai/gaudi',
];

/** Karpenter's NodePool `limits.nodes` pseudo-resource: every node counts 1. */
export const RESOURCE_NODES = 'nodes';
