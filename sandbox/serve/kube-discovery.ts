/**
 * API discovery, the legacy (unaggregated) form: what kubectl reads before `kubectl get pods` to map a resource
 * name to its path. kubectl asks for aggregated discovery first (an Accept header naming apidiscovery.k8s.io/v2)
 * and falls back to these documents when the answer is a plain APIVersions / APIGroupList.
 */

const READ = ['get', 'list', 'watch'];

const CORE_RESOURCES = {
  kind: 'APIResourceList',
  groupVersion: 'v1',
  resources: [
    { name: 'events', singularName: 'event', namespaced: true, kind: 'Event', verbs: READ, shortNames: ['ev'] },
    { name: 'namespaces', singularName: 'namespace', namespaced: false, kind: 'Namespace', verbs: READ, shortNames: ['ns'] },
    { name: 'nodes', singularName: 'node', namespaced: false, kind: 'Node', verbs: READ, shortNames: ['no'] },
    { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: READ, shortNames: ['po'], categories: ['all'] },
  ],
};

const KARPENTER_VERSION = { groupVersion: 'karpenter.sh/v1', version: 'v1' };
const KARPENTER_GROUP = { name: 'karpenter.sh', versions: [KARPENTER_VERSION], preferredVersion: KARPENTER_VERSION };

const KARPENTER_RESOURCES = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: 'karpenter.sh/v1',
  resources: [
    { name: 'nodeclaims', singularName: 'nodeclaim', namespaced: false, kind: 'NodeClaim', verbs: READ, categories: ['karpenter'] },
    { name: 'nodepools', singularName: 'nodepool', namespaced: false, kind: 'NodePool', verbs: READ, categories: ['karpenter'] },
  ],
};

/** metrics.k8s.io as metrics-server registers it (pkg/api/install.go): pods (namespaced) and nodes, get and list. */
const METRICS_VERSION = { groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' };
const METRICS_GROUP = { name: 'metrics.k8s.io', versions: [METRICS_VERSION], preferredVersion: METRICS_VERSION };
const METRICS_RESOURCES = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: 'metrics.k8s.io/v1beta1',
  resources: [
    { name: 'nodes', singularName: '', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] },
    { name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] },
  ],
};

const DOCUMENTS: Record<string, unknown> = {
  '/api': { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] },
  '/api/v1': CORE_RESOURCES,
  '/apis': { kind: 'APIGroupList', apiVersion: 'v1', groups: [KARPENTER_GROUP] },
  '/apis/karpenter.sh': { kind: 'APIGroup', apiVersion: 'v1', ...KARPENTER_GROUP },
  '/apis/karpenter.sh/v1': KARPENTER_RESOURCES,
};

const WITH_METRICS: Record<string, unknown> = {
  ...DOCUMENTS,
  '/apis': { kind: 'APIGroupList', apiVersion: 'v1', groups: [KARPENTER_GROUP, METRICS_GROUP] },
  '/apis/metrics.k8s.io': { kind: 'APIGroup', apiVersion: 'v1', ...METRICS_GROUP },
  '/apis/metrics.k8s.io/v1beta1': METRICS_RESOURCES,
};

/**
 * The discovery document served at `path`, or null when the path is not a discovery path. `metrics`: whether
 * metrics-server is installed (its group listed and described), as in a cluster with or without it.
 */
export function discovery(path: string, metrics = false): unknown {
  return (metrics ? WITH_METRICS : DOCUMENTS)[path] ?? null;
}
