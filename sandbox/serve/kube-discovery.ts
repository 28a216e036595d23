/**
 * API discovery, the legacy (unaggregated) form: what kubectl reads before `kubectl get pods` to map a resource
 * name (or short name: `pdb`, `ds`, `pvc`) to its path. kubectl asks for aggregated discovery first (an Accept
 * header naming apidiscovery.k8s.io/v2) and falls back to these documents when the answer is a plain APIVersions /
 * APIGroupList. The sandbox is read-only: every resource answers get, list and watch.
 */

const READ = ['get', 'list', 'watch'];

interface Resource {
  name: string;
  singularName: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
}

const r = (name: string, kind: string, namespaced: boolean, extra: Partial<Resource> = {}): Resource => ({
  name,
  singularName: kind.toLowerCase(),
  namespaced,
  kind,
  verbs: READ,
  ...extra,
});

const CORE_RESOURCES = {
  kind: 'APIResourceList',
  groupVersion: 'v1',
  resources: [
    r('events', 'Event', true, { shortNames: ['ev'] }),
    r('namespaces', 'Namespace', false, { shortNames: ['ns'] }),
    r('nodes', 'Node', false, { shortNames: ['no'] }),
    r('persistentvolumeclaims', 'PersistentVolumeClaim', true, { shortNames: ['pvc'] }),
    r('persistentvolumes', 'PersistentVolume', false, { shortNames: ['pv'] }),
    r('pods', 'Pod', true, { shortNames: ['po'], categories: ['all'] }),
  ],
};

/** A group with its versions (the first preferred) and each version's resources, as the API server lists them. */
interface Group {
  name: string;
  versions: { version: string; resources: Resource[] }[];
}

const GROUPS: Group[] = [
  {
    name: 'apps',
    versions: [
      {
        version: 'v1',
        resources: [
          r('daemonsets', 'DaemonSet', true, { shortNames: ['ds'], categories: ['all'] }),
          r('deployments', 'Deployment', true, { shortNames: ['deploy'], categories: ['all'] }),
          r('replicasets', 'ReplicaSet', true, { shortNames: ['rs'], categories: ['all'] }),
          r('statefulsets', 'StatefulSet', true, { shortNames: ['sts'], categories: ['all'] }),
        ],
      },
    ],
  },
  {
    name: 'batch',
    versions: [
      {
        version: 'v1',
        resources: [
          r('cronjobs', 'CronJob', true, { shortNames: ['cj'], categories: ['all'] }),
          r('jobs', 'Job', true, { categories: ['all'] }),
        ],
      },
    ],
  },
  {
    name: 'policy',
    versions: [{ version: 'v1', resources: [r('poddisruptionbudgets', 'PodDisruptionBudget', true, { shortNames: ['pdb'] })] }],
  },
  {
    name: 'storage.k8s.io',
    versions: [
      {
        version: 'v1',
        resources: [r('csinodes', 'CSINode', false), r('storageclasses', 'StorageClass', false, { shortNames: ['sc'] })],
      },
    ],
  },
  {
    name: 'karpenter.sh',
    versions: [
      {
        version: 'v1',
        resources: [
          r('nodeclaims', 'NodeClaim', false, { categories: ['karpenter'] }),
          r('nodepools', 'NodePool', false, { categories: ['karpenter'] }),
        ],
      },
      { version: 'v1alpha1', resources: [r('nodeoverlays', 'NodeOverlay', false, { categories: ['karpenter'] })] },
    ],
  },
  {
    name: 'karpenter.k8s.aws',
    versions: [{ version: 'v1', resources: [r('ec2nodeclasses', 'EC2NodeClass', false, { categories: ['karpenter'] })] }],
  },
];

/** metrics.k8s.io as metrics-server registers it (pkg/api/install.go): pods (namespaced) and nodes, get and list. */
const METRICS_GROUP: Group = {
  name: 'metrics.k8s.io',
  versions: [
    {
      version: 'v1beta1',
      resources: [
        { name: 'nodes', singularName: '', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] },
        { name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] },
      ],
    },
  ],
};

function groupDocument(g: Group) {
  const versions = g.versions.map((v) => ({ groupVersion: `${g.name}/${v.version}`, version: v.version }));
  return { name: g.name, versions, preferredVersion: versions[0] };
}

function documents(groups: readonly Group[]): Record<string, unknown> {
  const out: Record<string, unknown> = {
    '/api': { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] },
    '/api/v1': CORE_RESOURCES,
    '/apis': { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map(groupDocument) },
  };
  for (const g of groups) {
    out[`/apis/${g.name}`] = { kind: 'APIGroup', apiVersion: 'v1', ...groupDocument(g) };
    for (const v of g.versions) {
      out[`/apis/${g.name}/${v.version}`] = {
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: `${g.name}/${v.version}`,
        resources: v.resources,
      };
    }
  }
  return out;
}

/** The groups without karpenter.sh/v1alpha1, for a Karpenter release before NodeOverlays (v1.7). */
const WITHOUT_OVERLAYS = GROUPS.map((g) =>
  g.name === 'karpenter.sh' ? { ...g, versions: g.versions.filter((v) => v.version === 'v1') } : g,
);

const cached = new Map<string, Record<string, unknown>>();

/**
 * The discovery document served at `path`, or null when the path is not a discovery path. `metrics`: whether
 * metrics-server is installed (its group listed and described), as in a cluster with or without it; `nodeOverlays`:
 * whether the imitated Karpenter release installs the NodeOverlay CRD (v1.7+).
 */
export function discovery(path: string, metrics = false, nodeOverlays = true): unknown {
  const key = `${metrics}|${nodeOverlays}`;
  let docs = cached.get(key);
  if (!docs) {
    docs = documents([...(nodeOverlays ? GROUPS : WITHOUT_OVERLAYS), ...(metrics ? [METRICS_GROUP] : [])]);
    cached.set(key, docs);
  }
  return docs[path] ?? null;
}
