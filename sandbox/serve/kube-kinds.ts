import { loadCatalog } from '../scenario/catalog.js';
import { karpenterProfile } from '../scenario/karpenter-profile.js';
import { nodeClassObject } from '../scenario/node-classes.js';
import { nodeOverlayObject } from '../scenario/node-overlays.js';
import { pdbObject, pdbStatus, type PdbStatus } from '../scenario/pdb-status.js';
import { claimObject, csiNodeObject, ebsAttachLimit, storageClasses, volumeObject } from '../scenario/storage.js';
import type { EpochMs, Scenario, SimJob, SimPodDisruptionBudget, SimWorkload } from '../scenario/types.js';
import { cronJobObject, daemonSetObject, deploymentObject, jobObject, replicaSetObject, statefulSetObject } from './kube-workloads.js';

/** One object of a list: its sort key ("ns/name" or name), namespace and JSON. */
export interface Item {
  key: string;
  namespace: string | null;
  json: string;
}

/** A watch event of one kind. */
export interface Change {
  at: EpochMs;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  namespace: string | null;
  json: () => string;
}

/** One kind of object: its list at a time, and what changed between two times (for watches). */
export interface Kind {
  kind: string;
  apiVersion: string;
  list: (t: EpochMs) => Item[];
  /** Sorted by time. */
  timeline: Change[];
}

/** resourceVersion of a clock time: whole seconds, so it grows with the clock and a watch can resume from it. */
export const rvOf = (t: EpochMs): string => String(Math.floor(t / 1000));

/** The object as last seen, with the resourceVersion of its deletion (what a DELETED watch event carries). */
export function deletedCopy(text: string, at: EpochMs): string {
  const o = JSON.parse(text) as { metadata: { resourceVersion?: string } };
  o.metadata.resourceVersion = rvOf(at);
  return JSON.stringify(o);
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A JSON text built on first use and kept. */
function once(build: () => unknown): () => string {
  let text: string | undefined;
  return () => (text ??= JSON.stringify(build()));
}

/** An object over its life: made at createdAt (its first version), changed at each later version, deleted or not. */
export interface Versioned {
  key: string;
  namespace: string | null;
  createdAt: EpochMs;
  deletedAt: EpochMs | null;
  /** Sorted by time; the first at createdAt. */
  versions: { at: EpochMs; json: () => string }[];
}

function versionAt(o: Versioned, t: EpochMs): { at: EpochMs; json: () => string } {
  let lo = 0;
  let hi = o.versions.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (o.versions[mid].at <= t) lo = mid;
    else hi = mid - 1;
  }
  return o.versions[lo];
}

/** A kind whose objects are given with their versions over time. */
export function versionedKind(kind: string, apiVersion: string, objects: Versioned[]): Kind {
  const sorted = [...objects].sort((a, b) => cmp(a.key, b.key) || a.createdAt - b.createdAt);
  const timeline: Change[] = [];
  for (const o of sorted) {
    o.versions.forEach((v, i) => {
      if (o.deletedAt !== null && v.at >= o.deletedAt) return;
      timeline.push({ at: v.at, type: i === 0 ? 'ADDED' : 'MODIFIED', namespace: o.namespace, json: v.json });
    });
    if (o.deletedAt !== null) {
      const end = o.deletedAt;
      const last = versionAt(o, end - 1);
      timeline.push({ at: end, type: 'DELETED', namespace: o.namespace, json: () => deletedCopy(last.json(), end) });
    }
  }
  timeline.sort((a, b) => a.at - b.at);
  return {
    kind,
    apiVersion,
    timeline,
    list: (t) =>
      sorted
        .filter((o) => o.createdAt <= t && (o.deletedAt === null || o.deletedAt > t))
        .map((o) => ({ key: o.key, namespace: o.namespace, json: versionAt(o, t).json() })),
  };
}

/** The versions of a value that changes at given times: one version per change, the first at `from`. */
function stepVersions<V>(from: EpochMs, changes: readonly { at: EpochMs; value: V }[], initial: V, build: (v: V, at: EpochMs) => unknown) {
  const out: { at: EpochMs; json: () => string }[] = [];
  let value = initial;
  for (const c of changes) if (c.at <= from) value = c.value;
  out.push({ at: from, json: once(() => build(value, from)) });
  for (const c of changes) {
    if (c.at <= from) continue;
    const v = c.value;
    out.push({ at: c.at, json: once(() => build(v, c.at)) });
  }
  return out;
}

const CLUSTER_AGE_MS = 30 * 86_400_000;

/** Every kind issue 21 added to the sandbox's API, from the simulated history. */
export function workloadKinds(sc: Scenario): Record<string, Kind> {
  const workloads = sc.workloads ?? [];
  const byKey = new Map(workloads.map((w) => [`${w.kind}/${w.namespace}/${w.name}`, w]));
  const of = (kind: SimWorkload['kind']) => workloads.filter((w) => w.kind === kind);
  const replicaVersions = (w: SimWorkload, build: (w: SimWorkload, n: number, at: EpochMs) => unknown) =>
    stepVersions(
      w.createdAt,
      (w.replicas ?? []).map((r) => ({ at: r.at, value: r.replicas })),
      w.replicas?.[0]?.replicas ?? 0,
      (n, at) => build(w, n, at),
    );
  const controller = (
    kind: string,
    apiVersion: string,
    list: SimWorkload[],
    build: (w: SimWorkload, n: number, at: EpochMs) => unknown,
    name = (w: SimWorkload) => w.name,
  ) =>
    versionedKind(
      kind,
      apiVersion,
      list.map((w) => ({
        key: `${w.namespace}/${name(w)}`,
        namespace: w.namespace,
        createdAt: w.createdAt,
        deletedAt: null,
        versions: replicaVersions(w, build),
      })),
    );

  const jobsOf = new Map<string, SimJob[]>();
  for (const j of sc.jobs ?? []) jobsOf.set(j.workload, [...(jobsOf.get(j.workload) ?? []), j]);

  const created = sc.start - CLUSTER_AGE_MS;
  const profile = karpenterProfile(sc.karpenterVersion);
  const catalog = loadCatalog();
  const podsByName = new Map<string, { nodeName: string; createdAt: EpochMs }[]>();
  for (const p of sc.pods) podsByName.set(`${p.namespace}/${p.name}`, [...(podsByName.get(`${p.namespace}/${p.name}`) ?? []), p]);

  return {
    deployments: controller('DeploymentList', 'apps/v1', of('Deployment'), deploymentObject),
    replicasets: controller('ReplicaSetList', 'apps/v1', of('Deployment'), replicaSetObject, (w) => `${w.name}-${w.templateHash ?? ''}`),
    statefulsets: controller('StatefulSetList', 'apps/v1', of('StatefulSet'), statefulSetObject),
    daemonsets: versionedKind(
      'DaemonSetList',
      'apps/v1',
      of('DaemonSet').map((w) => ({
        key: `${w.namespace}/${w.name}`,
        namespace: w.namespace,
        createdAt: w.createdAt,
        deletedAt: null,
        versions: stepVersions(
          w.createdAt,
          (w.scheduled ?? []).map((s) => ({ at: s.at, value: s.count })),
          0,
          (n, at) => daemonSetObject(w, n, at),
        ),
      })),
    ),
    jobs: versionedKind(
      'JobList',
      'batch/v1',
      (sc.jobs ?? []).map((j) => {
        const w = byKey.get(j.workload);
        return {
          key: `${j.namespace}/${j.name}`,
          namespace: j.namespace,
          createdAt: j.createdAt,
          deletedAt: j.deletedAt,
          versions: [
            { at: j.createdAt, json: once(() => jobObject(j, w, j.createdAt)) },
            ...(j.finishedAt !== null ? [{ at: j.finishedAt, json: once(() => jobObject(j, w, j.finishedAt ?? j.createdAt)) }] : []),
          ],
        };
      }),
    ),
    cronjobs: versionedKind(
      'CronJobList',
      'batch/v1',
      of('CronJob').map((w) => {
        const jobs = jobsOf.get(`CronJob/${w.namespace}/${w.name}`) ?? [];
        const times = [...new Set(jobs.flatMap((j) => [j.createdAt, ...(j.finishedAt !== null ? [j.finishedAt] : [])]))].sort(
          (a, b) => a - b,
        );
        return {
          key: `${w.namespace}/${w.name}`,
          namespace: w.namespace,
          createdAt: w.createdAt,
          deletedAt: null,
          versions: [w.createdAt, ...times.filter((t) => t > w.createdAt)].map((at) => ({
            at,
            json: once(() => cronJobObject(w, jobs, at)),
          })),
        };
      }),
    ),
    poddisruptionbudgets: versionedKind(
      'PodDisruptionBudgetList',
      'policy/v1',
      (sc.podDisruptionBudgets ?? []).map((b) => ({
        key: `${b.namespace}/${b.name}`,
        namespace: b.namespace,
        createdAt: b.createdAt,
        deletedAt: null,
        versions: pdbVersions(sc, b, byKey.get(b.workload)),
      })),
    ),
    persistentvolumeclaims: versionedKind(
      'PersistentVolumeClaimList',
      'v1',
      (sc.volumeClaims ?? []).map((c) => {
        const owner = workloads.find((w) => w.kind === 'StatefulSet' && w.namespace === c.namespace && c.name.includes(`-${w.name}-`));
        const podName = owner ? c.name.slice(c.name.indexOf(`-${owner.name}-`) + 1) : '';
        const firstNode = (podsByName.get(`${c.namespace}/${podName}`) ?? []).find((p) => p.createdAt === c.boundAt)?.nodeName ?? null;
        const labels: Record<string, string> = owner ? { app: owner.template.labels.app ?? owner.name } : {};
        return {
          key: `${c.namespace}/${c.name}`,
          namespace: c.namespace,
          createdAt: c.createdAt,
          deletedAt: null,
          versions: [
            { at: c.createdAt, json: once(() => claimObject(c, c.createdAt, labels, firstNode)) },
            ...(c.boundAt !== null && c.boundAt > c.createdAt
              ? [{ at: c.boundAt, json: once(() => claimObject(c, c.boundAt ?? 0, labels, firstNode)) }]
              : []),
          ],
        };
      }),
    ),
    persistentvolumes: versionedKind(
      'PersistentVolumeList',
      'v1',
      (sc.volumeClaims ?? []).flatMap((c) => {
        const pv = volumeObject(c);
        return pv && c.boundAt !== null
          ? [
              {
                key: c.volumeName,
                namespace: null,
                createdAt: c.boundAt,
                deletedAt: null,
                versions: [{ at: c.boundAt, json: once(() => pv) }],
              },
            ]
          : [];
      }),
    ),
    storageclasses: versionedKind(
      'StorageClassList',
      'storage.k8s.io/v1',
      sc.volumeClaims === undefined
        ? []
        : storageClasses(created).map((s) => ({
            key: s.metadata.name,
            namespace: null,
            createdAt: created,
            deletedAt: null,
            versions: [{ at: created, json: once(() => s) }],
          })),
    ),
    csinodes: versionedKind(
      'CSINodeList',
      'storage.k8s.io/v1',
      sc.volumeClaims === undefined
        ? []
        : sc.nodes
            .filter((n) => n.deletedAt === null || n.deletedAt > n.createdAt + 30_000)
            .map((n) => {
              const type = catalog.get(n.instanceType);
              const limit = type ? ebsAttachLimit({ labels: type.labels, vcpu: type.vcpu }) : 25;
              return {
                key: n.name,
                namespace: null,
                createdAt: n.createdAt + 30_000,
                deletedAt: n.deletedAt,
                versions: [{ at: n.createdAt + 30_000, json: once(() => csiNodeObject(n, limit)) }],
              };
            }),
    ),
    ec2nodeclasses: versionedKind(
      'EC2NodeClassList',
      'karpenter.k8s.aws/v1',
      (sc.nodeClasses ?? []).map((cls) => {
        const ctx = {
          clusterName: sc.clusterName,
          zones: sc.zones,
          accountId: sc.accountId,
          createdAt: created,
          reservations: sc.capacityReservations ?? [],
          profile,
        };
        return {
          key: cls.name,
          namespace: null,
          createdAt: created,
          deletedAt: null,
          versions: cls.amiAliases.map((a) => ({ at: Math.max(a.at, created), json: once(() => nodeClassObject(ctx, cls, a.at)) })),
        };
      }),
    ),
    nodeoverlays: versionedKind(
      'NodeOverlayList',
      'karpenter.sh/v1alpha1',
      (sc.nodeOverlays ?? []).map((o) => ({
        key: o.name,
        namespace: null,
        createdAt: created,
        deletedAt: null,
        versions: [{ at: created, json: once(() => nodeOverlayObject(o, created)) }],
      })),
    ),
  };
}

/**
 * A PDB's status over time, as the disruption controller recomputes it whenever a pod it selects starts or stops
 * or its controller is scaled: one version per change of the status.
 */
function pdbVersions(sc: Scenario, b: SimPodDisruptionBudget, w: SimWorkload | undefined): Versioned['versions'] {
  const selects = (labels: Record<string, string>) => Object.entries(b.matchLabels).every(([k, v]) => labels[k] === v);
  const deltas = new Map<EpochMs, number>();
  for (const p of sc.pods) {
    if (p.namespace !== b.namespace || !selects(p.labels)) continue;
    deltas.set(p.createdAt, (deltas.get(p.createdAt) ?? 0) + 1);
    if (p.deletedAt !== null) deltas.set(p.deletedAt, (deltas.get(p.deletedAt) ?? 0) - 1);
  }
  const scale = new Map<EpochMs, number>((w?.replicas ?? []).map((r) => [r.at, r.replicas]));
  const times = [...new Set([...deltas.keys(), ...scale.keys()])].filter((t) => t > b.createdAt).sort((a, c) => a - c);
  const out: Versioned['versions'] = [];
  let healthy = 0;
  let replicas = w?.kind === 'DaemonSet' ? 0 : 0;
  let last: PdbStatus | null = null;
  const push = (at: EpochMs) => {
    const status = pdbStatus(b, healthy, healthy, replicas);
    if (last && JSON.stringify(last) === JSON.stringify(status)) return;
    last = status;
    const since = at;
    out.push({ at, json: once(() => pdbObject(b, status, since)) });
  };
  push(b.createdAt);
  for (const t of times) {
    healthy += deltas.get(t) ?? 0;
    replicas = scale.get(t) ?? replicas;
    push(t);
  }
  return out;
}
