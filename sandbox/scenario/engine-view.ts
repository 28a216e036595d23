import {
  type EngineContext,
  type KubeEC2NodeClass,
  type KubeNode,
  type KubePersistentVolume,
  type KubePersistentVolumeClaim,
  type KubePod,
  type KubePodDisruptionBudget,
  prepare,
} from '../../core/karpenter/scheduling/index.js';
import { ANNOTATION_DO_NOT_DISRUPT, LABEL_CAPACITY_TYPE } from '../../core/labels.js';
import { HOUR_MS as HOUR } from '../../core/time.js';
import { reservationWithRoom } from './capacity-reservations.js';
import { kubeNodePool } from './engine-cluster.js';
import { nodeClassObject } from './node-classes.js';
import { pdbObject, pdbStatus } from './pdb-status.js';
import { kubePodOf } from './pod-templates.js';
import { CLUSTER_AGE, type DaemonSetState, type LivePod, type SimState, type Workload } from './sim-state.js';
import { claimObject, volumeObject } from './storage.js';
import type { EpochMs, SimNodePool } from './types.js';

const heldNode = (k: KubeNode): KubeNode => ({
  ...k,
  metadata: { ...k.metadata, annotations: { ...(k.metadata?.annotations ?? {}), [ANNOTATION_DO_NOT_DISRUPT]: 'true' } },
});

/**
 * The cluster as Karpenter's engine reads it at a time: the Kubernetes objects of the live nodes, pods, PDBs (with
 * their status), claims, volumes and EC2NodeClasses, each rebuilt only when what it is made from changed.
 */
export class EngineView {
  private volumeObjects: { version: number; claims: KubePersistentVolumeClaim[]; volumes: KubePersistentVolume[] } | null = null;
  private nodeClassObjects: { generation: string; objects: KubeEC2NodeClass[] } | null = null;

  constructor(private readonly s: SimState) {}

  /** The Kubernetes object of a pod as the engine reads it (rebuilt when it is bound or unbound). */
  private kubePod(pod: LivePod): KubePod {
    if (pod.kube) return pod.kube;
    const shape = pod.workload ? pod.workload.shape : (pod.daemonSet as DaemonSetState).shape;
    pod.kube = kubePodOf(shape, {
      name: pod.name,
      uid: pod.record?.uid ?? `${shape.namespace}/${pod.name}`,
      createdAt: pod.createdAt,
      startedAt: pod.record?.createdAt ?? null,
      ownerName: pod.ownerName,
      nodeName: pod.node ? pod.node.node.name : null,
      volumes: pod.volumes,
    });
    return pod.kube;
  }

  /**
   * The PodDisruptionBudgets with the status the disruption controller gives them now: healthy = its pods bound to
   * a node (the sandbox's pods are Ready once bound), expected = its controller's replicas (or its pods).
   */
  private pdbObjects(t: EpochMs): KubePodDisruptionBudget[] {
    return this.s.pdbs.map((b) => {
      const w = this.s.workloads.find((x) => x.shape.workloadKey === b.workload);
      const selected = w ? w.pods : [];
      const healthy = selected.filter((p) => p.node !== null && p.node.terminateAt === null).length;
      return pdbObject(b, pdbStatus(b, healthy, selected.length, w ? this.desiredNow(w) : 0), t);
    });
  }

  /** The replicas a controller wants now (its last reconcile). */
  private desiredNow(w: Workload): number {
    return w.replicas[w.replicas.length - 1]?.replicas ?? w.pods.length;
  }

  /** PVCs and PVs as the API holds them now (rebuilt only when a claim was made or bound). */
  private volumeInputs(t: EpochMs): { claims: KubePersistentVolumeClaim[]; volumes: KubePersistentVolume[] } {
    const s = this.s;
    if (this.volumeObjects?.version !== s.claimsVersion) {
      const claims = [...s.claims.values()];
      this.volumeObjects = {
        version: s.claimsVersion,
        claims: claims.map((c) => claimObject(c, t, {}, null)),
        volumes: claims.flatMap((c) => volumeObject(c) ?? []),
      };
    }
    return this.volumeObjects;
  }

  /** The EC2NodeClasses as they stand (rebuilt when an AMI alias changes). */
  private nodeClassInputs(t: EpochMs): KubeEC2NodeClass[] {
    const s = this.s;
    const generation = s.nodeClasses.map((c) => c.amiAliases.length).join(',');
    if (this.nodeClassObjects?.generation !== generation) {
      const ctx = {
        clusterName: s.file.clusterName,
        zones: s.file.zones,
        accountId: s.file.accountId,
        createdAt: s.start - CLUSTER_AGE,
        reservations: s.file.capacityReservations ?? [],
        profile: s.profile,
      };
      this.nodeClassObjects = { generation, objects: s.nodeClasses.map((c) => nodeClassObject(ctx, c, t)) };
    }
    return this.nodeClassObjects.objects;
  }

  /**
   * The pool as Karpenter can launch it at `t`: during a spot-shortage incident every spot offering is unavailable,
   * which for the pool's launches is its capacity-type requirement without spot (on-demand where it allows it).
   */
  private spotShort(pool: SimNodePool, t: EpochMs): SimNodePool {
    const short = this.s.file.incidents.some(
      (inc) =>
        inc.kind === 'spot-shortage' && inc.nodePool === pool.name && t >= Date.parse(inc.at) && t < Date.parse(inc.at) + inc.hours * HOUR,
    );
    if (!short) return pool;
    return {
      ...pool,
      requirements: pool.requirements.map((r) =>
        r.key === LABEL_CAPACITY_TYPE && r.operator === 'In' ? { ...r, values: (r.values ?? []).filter((v) => v !== 'spot') } : r,
      ),
    };
  }

  /**
   * The cluster as it stands at t, prepared for the engine. `paused` NodePools are given consolidateAfter Never:
   * their nodes are no consolidation candidates this round but still take pods.
   */
  at(
    t: EpochMs,
    paused: ReadonlySet<string> = new Set(),
    held: ReadonlySet<string> = new Set(),
  ): { ctx: EngineContext; podByKey: Map<string, LivePod> } {
    const s = this.s;
    const podByKey = new Map<string, LivePod>();
    const pods: KubePod[] = [];
    const add = (p: LivePod) => {
      const k = this.kubePod(p);
      podByKey.set(`${k.metadata.namespace}/${k.metadata.name}`, p);
      pods.push(k);
    };
    for (const live of s.live) for (const p of live.pods) add(p);
    for (const w of s.workloads) for (const p of w.pods) if (p.node === null) add(p);
    const volumes = this.volumeInputs(t);
    const ctx = prepare({
      nodePools: s.pools.map((p) => kubeNodePool(this.spotShort(p, t), paused.has(p.name))),
      // `held` nodes are no candidates this round (annotated do-not-disrupt for the engine only), still destinations
      nodes: s.live.map((n) => (held.has(n.node.name) ? heldNode(n.kube) : n.kube)),
      pods,
      daemonSetPods: s.daemonTemplates,
      podDisruptionBudgets: this.pdbObjects(t),
      namespaces: s.namespaceObjects,
      nodeClasses: this.nodeClassInputs(t),
      persistentVolumeClaims: volumes.claims,
      persistentVolumes: volumes.volumes,
      storageClasses: s.storageClassObjects,
      csiNodes: s.live.map((n) => n.csiNode),
      catalogue: s.prices.at(
        t,
        (r) =>
          reservationWithRoom(
            [r],
            r.instanceType,
            s.live.map((n) => n.node),
          ) !== null,
      ),
      now: t,
      lastPodEventAt: new Map(s.live.map((n) => [n.node.name, n.lastPodChangeAt])),
      featureGates: { spotToSpotConsolidation: s.file.featureGates?.spotToSpotConsolidation ?? false },
      karpenterVersion: s.karpenterVersion,
    });
    return { ctx: s.domainSources.apply(ctx), podByKey };
  }
}
