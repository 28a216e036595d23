import type { EpochMs, SimContainer, SimPod, SimPodTemplate } from '../scenario/types.js';
import { podObject, type ServedPhase, uidFor } from './kube-objects.js';

/**
 * How much of a real Pod the sandbox serves. 'lean' (the default, and what the week4 tests pin byte for byte) has
 * what the ledger reads; 'realistic' adds what a real API server returns besides — managedFields, Helm and
 * Istio labels, annotations, env, probes, volumes, container statuses — about 10-12 KB per pod, so the collector
 * is measured on the bytes a 150,000-pod cluster really sends. The requests are the same in both.
 */
export type PodDetail = 'lean' | 'realistic';

const iso = (t: EpochMs): string => new Date(t).toISOString().replace('.000Z', 'Z');
/** A deterministic hex string of any length from a seed: digests, container ids, config checksums. */
const hexOf = (seed: string, length: number): string => {
  let out = '';
  for (let i = 0; out.length < length; i++) out += uidFor('hex', `${seed}#${i}`).replaceAll('-', '');
  return out.slice(0, length);
};
/** A pod IP in the node's /16, from the pod uid: stable and unique enough for a sandbox. */
const podIpOf = (p: SimPod): string => {
  const h = Number.parseInt(p.uid.replaceAll('-', '').slice(0, 6), 16);
  return `10.${100 + ((h >> 16) & 0x3f)}.${(h >> 8) & 0xff}.${(h & 0xfd) + 2}`;
};

const ENV_KEYS = [
  'LOG_LEVEL',
  'LOG_FORMAT',
  'HTTP_PORT',
  'METRICS_PORT',
  'OTEL_SERVICE_NAME',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_RESOURCE_ATTRIBUTES',
  'AWS_REGION',
  'AWS_STS_REGIONAL_ENDPOINTS',
  'FEATURE_FLAGS',
  'CACHE_TTL_SECONDS',
  'UPSTREAM_TIMEOUT_MS',
  'GOMAXPROCS',
  'GOMEMLIMIT',
];

function env(p: SimPod, c: SimContainer) {
  const fixed = ENV_KEYS.map((name, i) => ({
    name,
    value:
      name === 'OTEL_SERVICE_NAME'
        ? c.name
        : name === 'OTEL_RESOURCE_ATTRIBUTES'
          ? `service.namespace=${p.namespace},deployment.environment=production,k8s.pod.name=${p.name}`
          : name === 'FEATURE_FLAGS'
            ? 'new-pricing-path,batched-writes,async-audit-log,regional-failover'
            : `${(i + 1) * 10}`,
  }));
  return [
    ...fixed,
    { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
    { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } } },
    { name: 'NODE_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } },
    { name: 'DATABASE_PASSWORD', valueFrom: { secretKeyRef: { name: `${p.labels.app ?? c.name}-db`, key: 'password' } } },
  ];
}

const MOUNTS = (token: string) => [
  { name: 'config', mountPath: '/etc/app', readOnly: true },
  { name: 'tls', mountPath: '/etc/tls', readOnly: true },
  { name: 'tmp', mountPath: '/tmp' },
  { name: token, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true },
];

function container(p: SimPod, c: SimContainer, token: string) {
  const probe = (path: string, delay: number) => ({
    httpGet: { path, port: 'http', scheme: 'HTTP' },
    initialDelaySeconds: delay,
    timeoutSeconds: 1,
    periodSeconds: 10,
    successThreshold: 1,
    failureThreshold: 3,
  });
  return {
    name: c.name,
    image: c.image,
    ports: [
      { name: 'http', containerPort: 8080, protocol: 'TCP' },
      { name: 'metrics', containerPort: 9090, protocol: 'TCP' },
    ],
    envFrom: [{ configMapRef: { name: `${p.labels.app ?? c.name}-env` } }],
    env: env(p, c),
    // Limits beside the requests as most charts set them; the requests are the lean pod's, untouched.
    resources: {
      limits: { ...(c.resources.requests.memory ? { memory: c.resources.requests.memory } : {}) },
      requests: c.resources.requests,
    },
    volumeMounts: MOUNTS(token),
    livenessProbe: probe('/healthz', 10),
    readinessProbe: probe('/readyz', 5),
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
    securityContext: {
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      runAsUser: 10001,
    },
  };
}

function containerStatus(p: SimPod, c: SimContainer, token: string, running: boolean, init: boolean) {
  const repo = c.image.split(':')[0];
  const started = iso(p.createdAt + 4_000);
  return {
    name: c.name,
    state:
      running && !init
        ? { running: { startedAt: started } }
        : {
            terminated: {
              exitCode: 0,
              reason: 'Completed',
              startedAt: started,
              finishedAt: iso(p.createdAt + 9_000),
              containerID: `containerd://${hexOf(`${p.uid}/${c.name}`, 64)}`,
            },
          },
    lastState: {},
    ready: running && !init,
    restartCount: 0,
    image: c.image,
    imageID: `${repo}@sha256:${hexOf(c.image, 64)}`,
    containerID: `containerd://${hexOf(`${p.uid}/${c.name}`, 64)}`,
    started: running && !init,
    volumeMounts: MOUNTS(token).map((m) => ({
      name: m.name,
      mountPath: m.mountPath,
      ...(m.readOnly ? { readOnly: true, recursiveReadOnly: 'Disabled' } : {}),
    })),
  };
}

/** The fields each manager owns, as the API server records them (FieldsV1): a large part of a real pod's bytes. */
function managedFields(
  p: SimPod,
  base: { metadata: { labels: Record<string, string>; annotations: Record<string, string> } },
  containers: SimContainer[],
  podIp: string,
  hostIp: string,
) {
  const keys = (o: Record<string, unknown>) => Object.fromEntries(Object.keys(o).map((k) => [`f:${k}`, {}]));
  const containerFields = (c: SimContainer) => ({
    '.': {},
    'f:env': Object.fromEntries(
      env(p, c).map((e) => [`k:{"name":"${e.name}"}`, { '.': {}, 'f:name': {}, ['value' in e ? 'f:value' : 'f:valueFrom']: {} }]),
    ),
    'f:envFrom': {},
    'f:image': {},
    'f:imagePullPolicy': {},
    'f:livenessProbe': {
      '.': {},
      'f:failureThreshold': {},
      'f:httpGet': { '.': {}, 'f:path': {}, 'f:port': {}, 'f:scheme': {} },
      'f:initialDelaySeconds': {},
      'f:periodSeconds': {},
      'f:successThreshold': {},
      'f:timeoutSeconds': {},
    },
    'f:name': {},
    'f:ports': {
      '.': {},
      'k:{"containerPort":8080,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:name': {}, 'f:protocol': {} },
      'k:{"containerPort":9090,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:name': {}, 'f:protocol': {} },
    },
    'f:readinessProbe': {
      '.': {},
      'f:failureThreshold': {},
      'f:httpGet': { '.': {}, 'f:path': {}, 'f:port': {}, 'f:scheme': {} },
      'f:initialDelaySeconds': {},
      'f:periodSeconds': {},
      'f:successThreshold': {},
      'f:timeoutSeconds': {},
    },
    'f:resources': { '.': {}, 'f:limits': {}, 'f:requests': {} },
    'f:securityContext': {
      '.': {},
      'f:allowPrivilegeEscalation': {},
      'f:capabilities': { '.': {}, 'f:drop': {} },
      'f:readOnlyRootFilesystem': {},
      'f:runAsNonRoot': {},
      'f:runAsUser': {},
    },
    'f:terminationMessagePath': {},
    'f:terminationMessagePolicy': {},
    'f:volumeMounts': Object.fromEntries(
      ['/etc/app', '/etc/tls', '/tmp'].map((m) => [`k:{"mountPath":"${m}"}`, { '.': {}, 'f:mountPath': {}, 'f:name': {} }]),
    ),
  });
  const condition = { '.': {}, 'f:lastProbeTime': {}, 'f:lastTransitionTime': {}, 'f:status': {}, 'f:type': {} };
  return [
    {
      manager: 'kube-controller-manager',
      operation: 'Update',
      apiVersion: 'v1',
      time: iso(p.createdAt),
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:metadata': {
          'f:annotations': { '.': {}, ...keys(base.metadata.annotations) },
          'f:generateName': {},
          'f:labels': { '.': {}, ...keys(base.metadata.labels) },
          'f:ownerReferences': { '.': {}, [`k:{"uid":"${uidFor(p.ownerKind, `${p.namespace}/${p.ownerName}`)}"}`]: {} },
        },
        'f:spec': {
          'f:affinity': { '.': {}, 'f:podAntiAffinity': { '.': {}, 'f:preferredDuringSchedulingIgnoredDuringExecution': {} } },
          'f:containers': Object.fromEntries(containers.map((c) => [`k:{"name":"${c.name}"}`, containerFields(c)])),
          'f:dnsPolicy': {},
          'f:enableServiceLinks': {},
          'f:nodeSelector': {},
          'f:restartPolicy': {},
          'f:schedulerName': {},
          'f:securityContext': { '.': {}, 'f:fsGroup': {}, 'f:seccompProfile': { '.': {}, 'f:type': {} } },
          'f:serviceAccount': {},
          'f:serviceAccountName': {},
          'f:terminationGracePeriodSeconds': {},
          'f:tolerations': {},
          'f:topologySpreadConstraints': {
            '.': {},
            'k:{"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"ScheduleAnyway"}': {
              '.': {},
              'f:labelSelector': {},
              'f:maxSkew': {},
              'f:topologyKey': {},
              'f:whenUnsatisfiable': {},
            },
          },
          'f:volumes': Object.fromEntries(['config', 'tls', 'tmp'].map((v) => [`k:{"name":"${v}"}`, { '.': {}, 'f:name': {} }])),
        },
      },
    },
    {
      manager: 'kubelet',
      operation: 'Update',
      apiVersion: 'v1',
      time: iso(p.createdAt + 5_000),
      fieldsType: 'FieldsV1',
      subresource: 'status',
      fieldsV1: {
        'f:status': {
          'f:conditions': Object.fromEntries(
            ['ContainersReady', 'Initialized', 'PodReadyToStartContainers', 'Ready'].map((t) => [`k:{"type":"${t}"}`, condition]),
          ),
          'f:containerStatuses': {},
          'f:hostIP': {},
          'f:hostIPs': { '.': {}, [`k:{"ip":"${hostIp}"}`]: { '.': {}, 'f:ip': {} } },
          'f:phase': {},
          'f:podIP': {},
          'f:podIPs': { '.': {}, [`k:{"ip":"${podIp}"}`]: { '.': {}, 'f:ip': {} } },
          'f:startTime': {},
        },
      },
    },
  ];
}

/** A Pod as a real API server returns it: the lean object plus everything the ledger does not read. */
export function realisticPodObject(p: SimPod, phase: ServedPhase, hostIp: string, template?: SimPodTemplate) {
  const lean = podObject(p, phase, hostIp, undefined, template);
  const app = p.labels.app ?? p.ownerName;
  const token = `kube-api-access-${hexOf(p.uid, 5).replace(/[0-9]/g, (d) => 'bcdfghjklm'[Number(d)])}`;
  const podIp = podIpOf(p);
  const labels: Record<string, string> = {
    ...p.labels,
    'app.kubernetes.io/name': app,
    'app.kubernetes.io/instance': `${app}-${p.namespace}`,
    'app.kubernetes.io/version': '1.4.2',
    'app.kubernetes.io/component': p.ownerKind === 'Job' ? 'batch' : 'server',
    'app.kubernetes.io/part-of': p.namespace,
    'app.kubernetes.io/managed-by': 'Helm',
    'helm.sh/chart': `${app}-0.14.2`,
    'security.istio.io/tlsMode': 'istio',
    'service.istio.io/canonical-name': app,
    'service.istio.io/canonical-revision': '1.4.2',
  };
  const annotations: Record<string, string> = {
    ...p.annotations,
    'checksum/config': hexOf(`${p.namespace}/${app}/config`, 64),
    'checksum/secret': hexOf(`${p.namespace}/${app}/secret`, 64),
    'kubectl.kubernetes.io/default-container': p.containers[0]?.name ?? app,
    'kubectl.kubernetes.io/restartedAt': iso(p.createdAt - 86_400_000),
    'prometheus.io/scrape': 'true',
    'prometheus.io/port': '9090',
    'prometheus.io/path': '/metrics',
    'cluster-autoscaler.kubernetes.io/safe-to-evict': 'true',
    'vpc.amazonaws.com/pod-ips': podIp,
  };
  const base = { metadata: { labels, annotations } };
  const running = phase === 'Running';
  const transition = (dt: number) => ({ lastProbeTime: null, lastTransitionTime: iso(p.createdAt + dt) });
  return {
    ...lean,
    metadata: {
      ...lean.metadata,
      generateName: `${p.ownerName}-`,
      labels,
      annotations,
      managedFields: managedFields(p, base, p.containers, podIp, hostIp),
    },
    spec: {
      volumes: [
        { name: 'config', configMap: { name: `${app}-config`, defaultMode: 420 } },
        { name: 'tls', secret: { secretName: `${app}-tls`, defaultMode: 420 } },
        { name: 'tmp', emptyDir: {} },
        {
          name: token,
          projected: {
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
              { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
              { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
            ],
            defaultMode: 420,
          },
        },
      ],
      ...(p.initContainers.length ? { initContainers: p.initContainers.map((c) => container(p, c, token)) } : {}),
      containers: p.containers.map((c) => container(p, c, token)),
      restartPolicy: lean.spec.restartPolicy,
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      ...(lean.spec.nodeSelector ? { nodeSelector: lean.spec.nodeSelector } : {}),
      serviceAccountName: 'default',
      serviceAccount: 'default',
      nodeName: p.nodeName,
      securityContext: { fsGroup: 10001, seccompProfile: { type: 'RuntimeDefault' } },
      affinity: {
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app } }, topologyKey: 'kubernetes.io/hostname' } },
          ],
        },
      },
      schedulerName: 'default-scheduler',
      tolerations: [
        ...p.tolerations,
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: 'topology.kubernetes.io/zone',
          whenUnsatisfiable: 'ScheduleAnyway',
          labelSelector: { matchLabels: { app } },
        },
      ],
    },
    status: {
      phase,
      conditions: [
        { type: 'PodReadyToStartContainers', status: running ? 'True' : 'False', ...transition(3_000) },
        { type: 'Initialized', status: 'True', ...transition(3_000) },
        { type: 'Ready', status: running ? 'True' : 'False', ...transition(5_000), ...(running ? {} : { reason: 'PodCompleted' }) },
        {
          type: 'ContainersReady',
          status: running ? 'True' : 'False',
          ...transition(5_000),
          ...(running ? {} : { reason: 'PodCompleted' }),
        },
        { type: 'PodScheduled', status: 'True', ...transition(0) },
      ],
      hostIP: hostIp,
      hostIPs: [{ ip: hostIp }],
      podIP: podIp,
      podIPs: [{ ip: podIp }],
      startTime: iso(p.createdAt),
      ...(p.initContainers.length
        ? { initContainerStatuses: p.initContainers.map((c) => containerStatus(p, c, token, running, true)) }
        : {}),
      containerStatuses: p.containers.map((c) => containerStatus(p, c, token, running, false)),
      qosClass: 'Burstable',
    },
  };
}
