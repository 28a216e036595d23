import type { CapacityType, DisruptionReason } from '../../core/labels.js';
import { DAY_MS as DAY } from '../../core/time.js';
import { kubeNode, nodeLabels } from './engine-cluster.js';
import type { DaemonSetState, LiveNode, LivePod, SimState } from './sim-state.js';
import { csiNodeObject, ebsAttachLimit } from './storage.js';
import type { EpochMs, SimNode, SimNodePool, SimPod } from './types.js';

/**
 * The nodes' side of the cluster: instances launched and terminated (with the DaemonSet pods each runs), pods bound
 * to a node and unbound from it, cordons lifted. What a controller does about a pod evicted from a node is
 * `onEvicted` (workload-controllers.ts makes its replacement).
 */
export class Kubelet {
  constructor(
    private readonly s: SimState,
    private readonly onEvicted: (pod: LivePod, t: EpochMs) => void,
  ) {}

  private nextIp(): string {
    const n = this.s.ipCounter++;
    return `10.0.${32 + Math.floor(n / 250)}.${(n % 250) + 4}`;
  }

  launchManagedNodes(): void {
    const { file, start } = this.s;
    for (const m of file.managedNodes) {
      for (let i = 0; i < m.count; i++) {
        this.launch(null, m.instanceType, 'on-demand', file.zones[i % file.zones.length], start - 30 * DAY, { kind: 'static' }, m.name);
      }
    }
  }

  launch(
    pool: SimNodePool | null,
    typeName: string,
    capacityType: CapacityType,
    zone: string,
    t: EpochMs,
    launchReason: SimNode['launchReason'],
    managedNodeGroup: string | null = null,
  ): LiveNode {
    const s = this.s;
    const type = s.catalog.get(typeName);
    if (!type) throw new Error(`instance type ${typeName} is not in the catalogue`);
    const ip = this.nextIp();
    const node: SimNode = {
      name: `ip-${ip.replaceAll('.', '-')}.ec2.internal`,
      nodeClaimName: pool ? `${pool.name}-${s.rng.suffix(5)}` : null,
      nodePool: pool ? pool.name : null,
      instanceType: typeName,
      capacityType,
      zone,
      instanceId: `i-0${s.rng.hex(16)}`,
      privateIp: ip,
      createdAt: t,
      deletedAt: null,
      deletionReason: null,
      launchReason,
      nodeClassHash: pool ? (s.nodeClassHash.get(pool.nodeClassName) ?? '') : '',
      allocatable: { ...type.allocatableParsed },
      ...(capacityType === 'reserved' ? { capacityReservationId: s.reservationFor(typeName)?.id } : {}),
    };
    s.nodes.push(node);
    const labels = nodeLabels({
      name: node.name,
      typeLabels: type.labels,
      instanceType: typeName,
      region: s.file.region,
      zone,
      capacityType,
      nodePool: node.nodePool,
      managedNodeGroup,
    });
    const kubeInput = {
      name: node.name,
      labels,
      taints: pool?.taints ?? [],
      createdAt: t,
      allocatable: type.allocatable,
      capacity: s.prices.capacity(typeName),
    };
    const live: LiveNode = {
      node,
      type,
      pool,
      kube: kubeNode(kubeInput),
      kubeInput,
      csiNode: csiNodeObject(node, ebsAttachLimit({ labels: type.labels, vcpu: type.vcpu })),
      pods: [],
      finished: [],
      daemonSets: [],
      lastPodChangeAt: t,
      lastBlockedEventAt: -Infinity,
      terminateAt: null,
    };
    s.live.push(live);
    s.touch(pool);
    // the DaemonSet controller runs a pod of each DaemonSet whose node selection and tolerations admit the node
    const runs = s.daemonsOn(labels, kubeInput.taints);
    s.daemonSets.forEach((ds, i) => {
      if (!runs[i]) return;
      live.daemonSets.push(ds);
      this.countDaemonSet(ds, t, +1);
      const pod: LivePod = {
        name: `${ds.spec.name}-${s.rng.suffix(5)}`,
        workload: null,
        daemonSet: ds,
        requests: ds.requests,
        node: null,
        record: null,
        createdAt: t,
        ownerName: ds.spec.name,
        volumes: [],
      };
      this.bind(pod, live, t);
    });
    return live;
  }

  private countDaemonSet(ds: DaemonSetState, t: EpochMs, delta: number): void {
    const last = ds.scheduled[ds.scheduled.length - 1];
    const count = (last?.count ?? 0) + delta;
    if (last && last.at === t) last.count = count;
    else ds.scheduled.push({ at: t, count });
  }

  /** The node object the engine reads, after a change of its cordon or disruption. */
  rebuildKube(live: LiveNode): void {
    live.kube = kubeNode({
      ...live.kubeInput,
      cordoned: live.node.cordoned !== undefined && live.node.cordoned.until === null,
      ...(live.node.disruptedAt !== undefined ? { disruptedAt: live.node.disruptedAt } : {}),
    });
  }

  /** Gone at t: its pods unbound (the controllers make new ones for evicted pods), its finished pods garbage-collected. */
  remove(live: LiveNode, t: EpochMs, reason: DisruptionReason | null): void {
    const s = this.s;
    live.node.deletedAt = t;
    live.node.deletionReason = reason;
    s.live.splice(s.live.indexOf(live), 1);
    s.touch(live.pool);
    for (const ds of live.daemonSets) this.countDaemonSet(ds, t, -1);
    for (const rec of live.finished) if (rec.listedUntil === null || (rec.listedUntil ?? Infinity) > t) rec.listedUntil = t;
    this.evict(live, t, false);
  }

  /** Unbinds the node's pods; a controller makes a new pod for each evicted one (onEvicted). */
  private evict(live: LiveNode, t: EpochMs, keepDaemons: boolean): void {
    for (const pod of [...live.pods]) {
      if (keepDaemons && !pod.workload) continue;
      this.unbind(pod, t);
      if (pod.workload) this.onEvicted(pod, t);
    }
  }

  /**
   * Karpenter disrupts the node at t: taints it karpenter.sh/disrupted:NoSchedule, deletes its NodeClaim and drains
   * it (the controllers remake the evicted pods at once); its DaemonSet pods run until the instance terminates at the
   * next step, when reap() removes it. Meanwhile the engine sees it tainted and being deleted: no destination, not a
   * candidate, counted against its NodePool's disruption budget.
   */
  disruptNode(live: LiveNode, t: EpochMs, reason: DisruptionReason): void {
    live.node.disruptedAt = t;
    live.node.deletionReason = reason;
    live.terminateAt = t + this.s.step;
    this.rebuildKube(live);
    this.s.touch(live.pool);
    this.evict(live, t, true);
  }

  /** Removes the disrupted nodes whose instances have terminated by t, and lifts the cordons whose time is up. */
  reap(t: EpochMs): void {
    const s = this.s;
    for (const live of s.live.filter((n) => n.terminateAt !== null && n.terminateAt <= t)) {
      this.remove(live, live.terminateAt ?? t, live.node.deletionReason);
    }
    for (const u of s.uncordons.filter((x) => x.at <= t)) {
      s.uncordons.splice(s.uncordons.indexOf(u), 1);
      const c = u.live.node.cordoned;
      if (!c || c.until !== null || u.live.node.deletedAt !== null) continue;
      c.until = t;
      this.rebuildKube(u.live);
      s.touch(u.live.pool);
    }
  }

  bind(pod: LivePod, live: LiveNode, t: EpochMs): void {
    const s = this.s;
    pod.node = live;
    pod.kube = undefined;
    live.pods.push(pod);
    live.lastPodChangeAt = t;
    const shape = pod.workload ? pod.workload.shape : (pod.daemonSet as DaemonSetState).shape;
    // WaitForFirstConsumer: a claim's volume is provisioned in the zone of the node its pod first runs on
    for (const v of pod.volumes) {
      const claim = s.claims.get(`${shape.namespace}/${v.persistentVolumeClaim?.claimName}`);
      if (claim && claim.boundAt === null) {
        claim.boundAt = t;
        claim.zone = live.node.zone;
        s.claimsVersion += 1;
      }
    }
    pod.record = {
      uid: s.rng.uuid(),
      namespace: shape.namespace,
      name: pod.name,
      ownerKind: shape.ownerKind,
      ownerName: pod.ownerName,
      workload: shape.workloadKey,
      ...(pod.volumes.length > 0 ? { volumes: pod.volumes } : {}),
      labels: pod.job ? { ...shape.labels, 'batch.kubernetes.io/job-name': pod.job.name, 'job-name': pod.job.name } : { ...shape.labels },
      annotations: { ...shape.annotations },
      containers: shape.containers,
      initContainers: shape.initContainers,
      nodeSelector: { ...shape.nodeSelector },
      tolerations: shape.tolerations,
      nodeName: live.node.name,
      createdAt: t,
      deletedAt: null,
      endPhase: 'Deleted',
      requests: pod.requests,
    };
    s.pods.push(pod.record);
  }

  unbind(pod: LivePod, t: EpochMs, phase: SimPod['endPhase'] = 'Deleted'): void {
    const s = this.s;
    const live = pod.node;
    if (!live) return;
    s.touch(live.pool);
    live.pods.splice(live.pods.indexOf(pod), 1);
    live.lastPodChangeAt = t;
    if (pod.record) {
      pod.record.deletedAt = t;
      pod.record.endPhase = phase;
      if (phase !== 'Deleted') {
        // finished: listed until its Job goes, or its node (set then)
        pod.record.listedUntil = null;
        live.finished.push(pod.record);
        if (pod.job) {
          const list = s.jobRecords.get(pod.job) ?? [];
          list.push(pod.record);
          s.jobRecords.set(pod.job, list);
        }
      }
    }
    pod.node = null;
    pod.kube = undefined;
  }
}
