import type { UsageModel } from '../scenario/usage.js';
import { LABEL_CAPACITY_RESERVATION_ID, LABEL_CAPACITY_TYPE, LABEL_NODECLASS, LABEL_NODEPOOL, LABEL_ZONE } from '../../core/labels.js';
import { formatCpu, formatMemory } from '../../core/quantity.js';
import { loadCatalog } from '../scenario/catalog.js';
import { disruptionReasonCondition } from '../scenario/karpenter-events.js';
import { karpenterProfile } from '../scenario/karpenter-profile.js';
import type { EpochMs, Scenario, SimEvent, SimNode, SimNodePool, SimPod } from '../scenario/types.js';
import { uidFor } from '../scenario/uid.js';
import { UNSCHEDULABLE_TAINT } from '../scenario/engine-cluster.js';
import { daemonPodTolerations, servedToleration } from './kube-workloads.js';
import { EBS_ZONE_LABEL } from '../scenario/storage.js';
import type { SimPodTemplate } from '../scenario/types.js';

/** Builds Kubernetes API objects (the JSON the real API server returns) from the simulated history. */

const iso = (t: EpochMs): string => new Date(t).toISOString().replace('.000Z', 'Z');
export { uidFor } from '../scenario/uid.js';

const JOB_POD_LINGER_MS = 10 * 60_000;

/** The phase a pod is served in. */
export type ServedPhase = 'Running' | 'Succeeded' | 'Failed';

/**
 * When a pod leaves the API: a deleted one when it stops; a finished one when its Job or its node goes
 * (`listedUntil`; null: never within the history), by default ten minutes after it finished.
 */
export function podListedUntil(p: SimPod): EpochMs | null {
  if (p.deletedAt === null) return null;
  if (p.endPhase === 'Deleted') return p.deletedAt;
  return p.listedUntil === undefined ? p.deletedAt + JOB_POD_LINGER_MS : p.listedUntil;
}

/** Pods visible at t: running ones, and finished Job pods (Succeeded or Failed) while they stay listed (they no longer count). */
export function podPhaseAt(p: SimPod, t: EpochMs): ServedPhase | null {
  if (p.createdAt > t) return null;
  if (p.deletedAt === null || p.deletedAt > t) return 'Running';
  if (p.endPhase === 'Deleted') return null;
  const until = podListedUntil(p);
  return until === null || t < until ? p.endPhase : null;
}

export const nodeAliveAt = (n: SimNode, t: EpochMs): boolean => n.createdAt <= t && (n.deletedAt === null || n.deletedAt > t);

/**
 * What the AWS provider puts on a node launched into a capacity reservation (cloudprovider.go instanceToNodeClaim),
 * as the imitated release does: the reservation id; its type from v1.6 (an ODCR is `default`, a Capacity Block
 * `capacity-block`); whether it is interruptible from v1.10.
 */
function reservationLabels(scenario: Scenario, id: string): Record<string, string> {
  const profile = karpenterProfile(scenario.karpenterVersion);
  return {
    [LABEL_CAPACITY_RESERVATION_ID]: id,
    ...(profile.capacityReservationTypeLabel ? { 'karpenter.k8s.aws/capacity-reservation-type': 'default' } : {}),
    ...(profile.capacityReservationInterruptibleLabel ? { 'karpenter.k8s.aws/capacity-reservation-interruptible': 'false' } : {}),
  };
}

export function nodeLabels(scenario: Scenario, n: SimNode): Record<string, string> {
  const type = loadCatalog().get(n.instanceType);
  const pool = scenario.nodePools.find((p) => p.name === n.nodePool);
  const labels: Record<string, string> = {
    ...(type?.labels ?? {}),
    'beta.kubernetes.io/arch': type?.labels['kubernetes.io/arch'] ?? 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/hostname': n.name,
    [LABEL_ZONE]: n.zone,
    'topology.kubernetes.io/region': scenario.region,
    'topology.k8s.aws/zone-id': `use1-az${scenario.zones.indexOf(n.zone) + 1}`,
    // the kubelet copies the EBS CSI driver's node topology onto the node (scenarios with the driver installed)
    ...(scenario.volumeClaims !== undefined ? { [EBS_ZONE_LABEL]: n.zone } : {}),
  };
  if (n.nodePool) {
    labels[LABEL_NODEPOOL] = n.nodePool;
    labels[LABEL_CAPACITY_TYPE] = n.capacityType;
    if (n.capacityReservationId !== undefined) Object.assign(labels, reservationLabels(scenario, n.capacityReservationId));
    labels[LABEL_NODECLASS] = pool?.nodeClassName ?? 'default';
    labels['karpenter.sh/initialized'] = 'true';
    labels['karpenter.sh/registered'] = 'true';
  } else {
    labels['eks.amazonaws.com/nodegroup'] = 'karpenter-mng';
    labels['eks.amazonaws.com/capacityType'] = 'ON_DEMAND';
  }
  return Object.fromEntries(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));
}

function capacityOf(n: SimNode): Record<string, string> {
  const type = loadCatalog().get(n.instanceType);
  return {
    cpu: String(type?.vcpu ?? 0),
    'ephemeral-storage': '20959212Ki',
    memory: `${(type?.memoryMiB ?? 0) * 1024}Ki`,
    pods: type?.allocatable.pods ?? '0',
  };
}

/** What changed on a Node since it registered: an operator's cordon, Karpenter's disruption (taint, deletion). */
export interface NodeState {
  /** Cordoned since then (spec.unschedulable and the node lifecycle controller's taint). */
  cordonedAt: EpochMs | null;
  /** Being disrupted by Karpenter since then: tainted karpenter.sh/disrupted:NoSchedule, deleted, draining. */
  disruptedAt: EpochMs | null;
  /** When this state began (its resourceVersion). */
  since: EpochMs;
}

export const registeredState = (n: SimNode): NodeState => ({ cordonedAt: null, disruptedAt: null, since: n.createdAt });

/** The Node's states over its life, in order. */
export function nodeStates(n: SimNode): NodeState[] {
  const changes: { at: EpochMs; cordoned?: boolean; disrupted?: boolean }[] = [];
  if (n.cordoned) {
    changes.push({ at: n.cordoned.from, cordoned: true });
    if (n.cordoned.until !== null) changes.push({ at: n.cordoned.until, cordoned: false });
  }
  if (n.disruptedAt !== undefined) changes.push({ at: n.disruptedAt, disrupted: true });
  changes.sort((a, b) => a.at - b.at);
  const out = [registeredState(n)];
  for (const c of changes) {
    if (n.deletedAt !== null && c.at >= n.deletedAt) continue;
    const prev = out[out.length - 1];
    const next: NodeState = {
      cordonedAt: c.cordoned === undefined ? prev.cordonedAt : c.cordoned ? c.at : null,
      disruptedAt: c.disrupted ? c.at : prev.disruptedAt,
      since: c.at,
    };
    if (prev.since === c.at) out[out.length - 1] = next;
    else out.push(next);
  }
  return out;
}

export function nodeObject(
  scenario: Scenario,
  n: SimNode,
  pool: SimNodePool | undefined,
  driftedHash: string | null,
  state: NodeState = registeredState(n),
) {
  const type = loadCatalog().get(n.instanceType);
  const taints = [
    ...(pool?.taints ?? []),
    ...(state.cordonedAt !== null ? [{ ...UNSCHEDULABLE_TAINT, timeAdded: iso(state.cordonedAt) }] : []),
    ...(state.disruptedAt !== null ? [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }] : []),
  ];
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: n.name,
      uid: uidFor('Node', n.name),
      resourceVersion: String(Math.floor(state.since / 1000)),
      creationTimestamp: iso(n.createdAt),
      ...(state.disruptedAt !== null ? { deletionTimestamp: iso(state.disruptedAt) } : {}),
      labels: nodeLabels(scenario, n),
      annotations: {
        'alpha.kubernetes.io/provided-node-ip': n.privateIp,
        ...(n.nodePool
          ? { 'karpenter.k8s.aws/ec2nodeclass-hash': n.nodeClassHash, 'karpenter.sh/nodepool-hash': driftedHash ?? n.nodeClassHash }
          : {}),
        'node.alpha.kubernetes.io/ttl': '0',
      },
      ...(n.nodeClaimName
        ? {
            ownerReferences: [
              {
                apiVersion: 'karpenter.sh/v1',
                kind: 'NodeClaim',
                name: n.nodeClaimName,
                uid: uidFor('NodeClaim', n.nodeClaimName),
                blockOwnerDeletion: true,
              },
            ],
            finalizers: ['karpenter.sh/termination'],
          }
        : {}),
    },
    spec: {
      providerID: `aws:///${n.zone}/${n.instanceId}`,
      ...(taints.length ? { taints } : {}),
      ...(state.cordonedAt !== null ? { unschedulable: true } : {}),
    },
    status: {
      capacity: capacityOf(n),
      allocatable: { ...(type?.allocatable ?? {}) },
      addresses: [
        { type: 'InternalIP', address: n.privateIp },
        { type: 'InternalDNS', address: n.name },
        { type: 'Hostname', address: n.name },
      ],
      conditions: [
        {
          type: 'MemoryPressure',
          status: 'False',
          reason: 'KubeletHasSufficientMemory',
          message: 'kubelet has sufficient memory available',
          lastHeartbeatTime: iso(n.createdAt),
          lastTransitionTime: iso(n.createdAt),
        },
        {
          type: 'Ready',
          status: 'True',
          reason: 'KubeletReady',
          message: 'kubelet is posting ready status',
          lastHeartbeatTime: iso(n.createdAt),
          lastTransitionTime: iso(n.createdAt + 40_000),
        },
      ],
      nodeInfo: {
        architecture: type?.labels['kubernetes.io/arch'] ?? 'amd64',
        containerRuntimeVersion: 'containerd://1.7.27',
        kernelVersion: '6.1.141-155.222.amzn2023.x86_64',
        kubeProxyVersion: 'v1.31.7-eks-473151a',
        kubeletVersion: 'v1.31.7-eks-473151a',
        operatingSystem: 'linux',
        osImage: 'Amazon Linux 2023.7.20251105',
        machineID: n.instanceId.replace('i-', 'ec2'),
        systemUUID: uidFor('system', n.instanceId),
        bootID: uidFor('boot', n.instanceId),
      },
    },
  };
}

/**
 * A NodeClaim as the API server returns it. `final`: as its DELETED watch event shows it, the disruption decided at
 * its deletion (the simulation removes a node in the step it decides to): the DisruptionReason condition the imitated
 * release sets (null before v1.2, and for interruptions) and its deletionTimestamp.
 */
export function nodeClaimObject(
  scenario: Scenario,
  n: SimNode,
  pool: SimNodePool,
  podsByName: Map<string, SimPod>,
  currentHash: string,
  changedAt: EpochMs = n.createdAt,
  final = false,
) {
  const name = n.nodeClaimName ?? '';
  const type = loadCatalog().get(n.instanceType);
  // The requests of the pods it was launched for: what made Karpenter pick this size.
  let cpu = 0;
  let mem = 0;
  let pods = 0;
  if (n.launchReason.kind === 'pending-pods') {
    for (const podName of n.launchReason.podNames) {
      const p = podsByName.get(podName);
      if (!p) continue;
      cpu += p.requests.cpuMillicores;
      mem += p.requests.memoryBytes;
      pods += 1;
    }
  }
  const drifted = n.nodeClassHash !== currentHash;
  const conditions = [
    { type: 'Launched', status: 'True', reason: 'Launched', message: '', lastTransitionTime: iso(n.createdAt + 3_000) },
    { type: 'Registered', status: 'True', reason: 'Registered', message: '', lastTransitionTime: iso(n.createdAt + 35_000) },
    { type: 'Initialized', status: 'True', reason: 'Initialized', message: '', lastTransitionTime: iso(n.createdAt + 45_000) },
    { type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: iso(n.createdAt + 45_000) },
    ...(drifted
      ? [
          {
            type: 'Drifted',
            status: 'True',
            reason: 'NodeClassDrift',
            message: '',
            lastTransitionTime: iso(Math.max(n.createdAt, changedAt)),
          },
        ]
      : []),
  ];
  const decided =
    final && n.deletedAt !== null && n.deletionReason !== null
      ? disruptionReasonCondition(karpenterProfile(scenario.karpenterVersion), n.deletionReason, iso(n.deletedAt))
      : null;
  if (decided !== null) conditions.push(decided);
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name,
      uid: uidFor('NodeClaim', name),
      resourceVersion: String(Math.floor(Math.max(n.createdAt, changedAt) / 1000)),
      creationTimestamp: iso(n.createdAt),
      ...(final && n.deletedAt !== null ? { deletionTimestamp: iso(n.deletedAt) } : {}),
      generateName: `${pool.name}-`,
      labels: { ...nodeLabels(scenario, n), 'kubernetes.io/hostname': undefined },
      annotations: {
        'karpenter.k8s.aws/ec2nodeclass-hash': n.nodeClassHash,
        'karpenter.k8s.aws/ec2nodeclass-hash-version': 'v4',
        'karpenter.sh/nodepool-hash-version': 'v3',
      },
      ownerReferences: [
        { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', name: pool.name, uid: uidFor('NodePool', pool.name), blockOwnerDeletion: true },
      ],
      finalizers: ['karpenter.sh/termination'],
    },
    spec: {
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: pool.nodeClassName },
      requirements: [
        ...pool.requirements,
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: [n.instanceType] },
        { key: LABEL_NODEPOOL, operator: 'In', values: [pool.name] },
      ],
      resources: { requests: { cpu: formatCpu(cpu), memory: formatMemory(mem), pods: String(pods) } },
      expireAfter: pool.expireAfter,
      ...(pool.taints?.length ? { taints: pool.taints } : {}),
    },
    status: {
      providerID: `aws:///${n.zone}/${n.instanceId}`,
      nodeName: n.name,
      imageID: 'ami-0a1b2c3d4e5f60718',
      capacity: capacityOf(n),
      allocatable: { ...(type?.allocatable ?? {}) },
      conditions,
    },
  };
}

/**
 * A NodePool object; `edit`: how many times its spec was edited by now (generation) and when last (its resourceVersion,
 * as a watch resumes from clock seconds), absent or null: never.
 */
export function nodePoolObject(
  p: SimNodePool,
  start: EpochMs,
  edit: { generation: number; editedAt: EpochMs | null } = { generation: 1, editedAt: null },
) {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: {
      name: p.name,
      uid: uidFor('NodePool', p.name),
      resourceVersion: edit.editedAt === null ? '1' : String(Math.floor(edit.editedAt / 1000)),
      generation: edit.generation,
      creationTimestamp: iso(start - 30 * 86_400_000),
      annotations: { 'karpenter.sh/nodepool-hash': uidFor('hash', p.name).slice(0, 16), 'karpenter.sh/nodepool-hash-version': 'v3' },
    },
    spec: {
      // a static NodePool (spec.replicas) may not carry a weight (pkg/apis/v1/nodepool.go validation, v1.8+)
      ...(p.replicas === undefined ? { weight: p.weight } : { replicas: p.replicas }),
      template: {
        metadata: { labels: { 'ledger.sandbox/pool': p.name } },
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: p.nodeClassName },
          requirements: p.requirements,
          expireAfter: p.expireAfter,
          ...(p.taints?.length ? { taints: p.taints } : {}),
        },
      },
      disruption: { consolidationPolicy: p.consolidationPolicy, consolidateAfter: p.consolidateAfter, budgets: p.budgets },
      limits: p.limits,
    },
    status: {
      // a static NodePool's scale subresource reads status.nodes (it runs none: the sandbox serves it scaled to zero)
      ...(p.replicas === undefined ? {} : { nodes: 0 }),
      conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: iso(start - 30 * 86_400_000) }],
    },
  };
}

/** What the usage model adds to a Pod: its containers' limits, and their restarts (OOM kills) by the time served. */
export interface PodUsageView {
  limits: { cpu?: string; memory?: string } | null;
  restarts: { name: string; restartCount: number; lastOomKillAt: EpochMs | null }[];
}

export function podUsageView(model: UsageModel, p: SimPod, t: EpochMs): PodUsageView {
  return { limits: model.limitsOf(p), restarts: p.containers.map((c) => ({ name: c.name, ...model.restartsAt(p, c, t) })) };
}

/**
 * status.containerStatuses as the kubelet reports a restarted container: restartCount, and lastState.terminated
 * with reason OOMKilled and exit code 137 for the last kill. Served only for pods whose containers restarted.
 */
function restartStatuses(p: SimPod, view: PodUsageView, phase: ServedPhase) {
  return view.restarts.map((r) => {
    const c = p.containers.find((x) => x.name === r.name);
    const startedAt = r.lastOomKillAt ?? p.createdAt + 4_000;
    return {
      name: r.name,
      image: c?.image ?? '',
      ready: phase === 'Running',
      started: phase === 'Running',
      restartCount: r.restartCount,
      state: { running: { startedAt: iso(startedAt + 1_000) } },
      lastState:
        r.lastOomKillAt === null
          ? {}
          : { terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: iso(p.createdAt + 4_000), finishedAt: iso(r.lastOomKillAt) } },
    };
  });
}

/** A finished container as the kubelet reports it: exit 0 Completed, or exit 1 Error for a failed Job pod. */
function finishedStatuses(p: SimPod, phase: 'Succeeded' | 'Failed') {
  const end = p.deletedAt ?? p.createdAt;
  return p.containers.map((c) => ({
    name: c.name,
    image: c.image,
    ready: false,
    started: false,
    restartCount: 0,
    state: {
      terminated: {
        exitCode: phase === 'Succeeded' ? 0 : 1,
        reason: phase === 'Succeeded' ? 'Completed' : 'Error',
        startedAt: iso(p.createdAt + 4_000),
        finishedAt: iso(end),
      },
    },
    lastState: {},
  }));
}

/**
 * A Pod as the API server returns it: its own fields (node, labels, owner, requests, nodeSelector, tolerations) and
 * what its controller's template gives every pod (affinity, topology spread, priority, host network, volumes); a
 * DaemonSet pod carries the tolerations the DaemonSet controller adds.
 */
export function podObject(p: SimPod, phase: ServedPhase, hostIp: string, usage?: PodUsageView, template?: SimPodTemplate) {
  const ownerApi = p.ownerKind === 'Job' ? 'batch/v1' : 'apps/v1';
  const limits = usage?.limits ?? null;
  const restarted = usage !== undefined && usage.restarts.some((r) => r.restartCount > 0);
  const finished = phase !== 'Running';
  const volumes = [...(template?.volumes ?? []), ...(p.volumes ?? [])];
  const tolerations = p.ownerKind === 'DaemonSet' && template ? daemonPodTolerations(template) : p.tolerations.map(servedToleration);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: p.name,
      namespace: p.namespace,
      uid: p.uid,
      resourceVersion: String(Math.floor((finished && p.deletedAt !== null ? p.deletedAt : p.createdAt) / 1000)),
      creationTimestamp: iso(p.createdAt),
      labels: p.labels,
      ...(Object.keys(p.annotations).length ? { annotations: p.annotations } : {}),
      ownerReferences: [
        {
          apiVersion: ownerApi,
          kind: p.ownerKind,
          name: p.ownerName,
          uid: uidFor(p.ownerKind, `${p.namespace}/${p.ownerName}`),
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      nodeName: p.nodeName,
      containers: p.containers.map((c) => ({
        name: c.name,
        image: c.image,
        ...(c.ports ? { ports: c.ports } : {}),
        ...(c.env ? { env: c.env } : {}),
        resources: limits === null ? { requests: c.resources.requests } : { requests: c.resources.requests, limits },
        imagePullPolicy: 'IfNotPresent',
      })),
      ...(p.initContainers.length
        ? { initContainers: p.initContainers.map((c) => ({ name: c.name, image: c.image, resources: { requests: c.resources.requests } })) }
        : {}),
      ...(Object.keys(p.nodeSelector).length ? { nodeSelector: p.nodeSelector } : {}),
      ...(template?.affinity ? { affinity: template.affinity } : {}),
      tolerations,
      ...(template?.topologySpreadConstraints ? { topologySpreadConstraints: template.topologySpreadConstraints } : {}),
      ...(volumes.length ? { volumes } : {}),
      restartPolicy: p.ownerKind === 'Job' ? 'Never' : 'Always',
      schedulerName: 'default-scheduler',
      serviceAccountName: 'default',
      ...(template?.hostNetwork ? { hostNetwork: true } : {}),
      ...(template?.priorityClassName ? { priorityClassName: template.priorityClassName } : {}),
      priority: template?.priority ?? 0,
    },
    status: {
      phase,
      hostIP: hostIp,
      podIP: hostIp,
      qosClass: 'Burstable',
      startTime: iso(p.createdAt),
      conditions: [{ type: 'Ready', status: phase === 'Running' ? 'True' : 'False', lastTransitionTime: iso(p.createdAt + 5_000) }],
      ...(phase !== 'Running'
        ? { containerStatuses: finishedStatuses(p, phase) }
        : restarted && usage
          ? { containerStatuses: restartStatuses(p, usage, phase) }
          : {}),
    },
  };
}

export function namespaceObject(ns: Scenario['namespaces'][number], start: EpochMs) {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: ns.name,
      uid: uidFor('Namespace', ns.name),
      resourceVersion: '1',
      creationTimestamp: iso(start - 30 * 86_400_000),
      labels: { 'kubernetes.io/metadata.name': ns.name, ...ns.labels },
    },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  };
}

/**
 * An Event as Karpenter's recorder creates it: client-go's record.EventRecorder (controller-runtime
 * GetEventRecorderFor("karpenter"), pkg/operator/operator.go): named "<object>.<UnixNano in hex>", in "default" for
 * cluster-scoped objects, source.component and reportingComponent "karpenter", count 1, first and last timestamps
 * equal, the involved object's reference (apiVersion, kind, name, uid, resourceVersion).
 */
export function eventObject(e: SimEvent) {
  const apiVersion = e.involvedObject.kind === 'NodeClaim' || e.involvedObject.kind === 'NodePool' ? 'karpenter.sh/v1' : 'v1';
  // Nanoseconds below the millisecond from the uid: two events on one object in the same millisecond keep their names apart.
  const unixNano = BigInt(e.at) * 1_000_000n + BigInt(parseInt(e.uid.replaceAll('-', '').slice(0, 5), 16) % 1_000_000);
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      name: `${e.involvedObject.name}.${unixNano.toString(16)}`,
      namespace: e.involvedObject.namespace ?? 'default',
      uid: e.uid,
      resourceVersion: String(Math.floor(e.at / 1000)),
      creationTimestamp: iso(e.at),
    },
    involvedObject: {
      apiVersion,
      kind: e.involvedObject.kind,
      name: e.involvedObject.name,
      uid: uidFor(e.involvedObject.kind, e.involvedObject.name),
      resourceVersion: String(Math.floor(e.at / 1000)),
      ...(e.involvedObject.namespace ? { namespace: e.involvedObject.namespace } : {}),
    },
    reason: e.reason,
    message: e.message,
    type: e.type,
    source: { component: 'karpenter' },
    reportingComponent: 'karpenter',
    reportingInstance: '',
    firstTimestamp: iso(e.at),
    lastTimestamp: iso(e.at),
    count: 1,
  };
}
