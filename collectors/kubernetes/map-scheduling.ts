import type { V1Pod } from '@kubernetes/client-node';
import type { KarpenterVersionRecord, PodRecord, PodSchedulingRef, PodSchedulingSpec, PodVolumeRecord } from '../../core/model.js';
import { parseGoDuration } from '../../core/duration.js';
import { effectiveRequestList } from '../../core/pod-requests.js';
import { parseBaseUnits, parseCpuMillicores } from '../../core/quantity.js';
import { canonicalJson, contentHash } from './canonical-json.js';

/**
 * Pure: what the scheduling engine reads of a pod, beyond what the pod row already keeps (its owner, labels,
 * effective cpu/memory/GPU requests). The part replicas share (node selector, affinity, tolerations, topology
 * spread, priority, every effective request, host ports) is one canonical JSON text under a content hash, so the
 * store keeps it once per distinct spec, as the kube-scheduler groups pods into equivalence classes; what differs
 * per pod (volumes, deletion cost, do-not-disrupt, start time) stays on the pod.
 */

export const ANNOTATION_POD_DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';
/** Where the DaemonSet controller's own-node term names the node; put back by the reader. */
const NODE_NAME_FIELD = 'metadata.name';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined);
const nonEmpty = <T>(a: T[] | undefined): T[] | undefined => (a !== undefined && a.length > 0 ? a : undefined);

/** Resources a pod may set at pod level (Kubernetes' PodLevelResources: cpu, memory and hugepages). */
const podLevelResource = (name: string): boolean => name === 'cpu' || name === 'memory' || name.startsWith('hugepages-');
const amount = (name: string, q: string | number): number => (name === 'cpu' ? parseCpuMillicores(String(q)) : parseBaseUnits(String(q)));
const quantityText = (name: string, v: number): string => (name === 'cpu' ? `${v}m` : String(v));

/**
 * Effective requests as Kubernetes computes them (resourcehelper.PodRequests, which Karpenter's resources.Ceiling
 * calls): max(Σ containers, max init container) per resource, then pod-level requests replace the resources they
 * name, then the RuntimeClass overhead is added.
 */
export function podRequestList(p: V1Pod): Record<string, number> {
  const spec = p.spec;
  const list = effectiveRequestList(
    (spec?.containers ?? []).map((c) => ({ resources: { requests: c.resources?.requests as Record<string, string> | undefined } })),
    (spec?.initContainers ?? []).map((c) => ({
      resources: { requests: c.resources?.requests as Record<string, string> | undefined },
      restartPolicy: c.restartPolicy,
    })),
  );
  const podLevel = (spec?.resources?.requests ?? {}) as Record<string, string>;
  for (const name of Object.keys(podLevel)) if (podLevelResource(name)) list[name] = amount(name, podLevel[name]);
  const overhead = (spec?.overhead ?? {}) as Record<string, string>;
  for (const name of Object.keys(overhead)) list[name] = (list[name] ?? 0) + amount(name, overhead[name]);
  return list;
}

/** podRequestList as quantity strings (cpu in millicores, `250m`; the rest in base units), names sorted. */
export function requestQuantities(list: Readonly<Record<string, number>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(list).sort()) out[name] = quantityText(name, list[name]);
  return out;
}

export const podRequests = (p: V1Pod): Record<string, string> => requestQuantities(podRequestList(p));

/**
 * The required node affinity without the DaemonSet controller's own-node term, and whether it had one: the
 * controller writes `matchFields: [{key: metadata.name, operator: In, values: [<node>]}]` into every term, which
 * would make each of a DaemonSet's pods a spec of its own.
 */
function withoutOwnNodeTerm(affinity: Json | undefined, nodeName: string | undefined): { affinity: Json | undefined; own: boolean } {
  const nodeAffinity = obj(affinity?.nodeAffinity);
  const required = obj(nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution);
  const terms = required?.nodeSelectorTerms;
  if (nodeName === undefined || !Array.isArray(terms) || terms.length === 0) return { affinity, own: false };
  const isOwn = (t: unknown): boolean => {
    const fields = obj(t)?.matchFields;
    if (!Array.isArray(fields) || fields.length !== 1) return false;
    const f = obj(fields[0]);
    const values = f?.values;
    return f?.key === NODE_NAME_FIELD && f.operator === 'In' && Array.isArray(values) && values.length === 1 && values[0] === nodeName;
  };
  if (!terms.every(isOwn)) return { affinity, own: false };
  const stripped = terms.map((t) => ({ ...obj(t), matchFields: undefined }));
  return {
    affinity: {
      ...affinity,
      nodeAffinity: { ...nodeAffinity, requiredDuringSchedulingIgnoredDuringExecution: { ...required, nodeSelectorTerms: stripped } },
    },
    own: true,
  };
}

/** The scheduling spec of a pod (see PodSchedulingSpec); `requests` when the caller has them already (podRequestList). */
export function podSchedulingSpec(p: V1Pod, requests: Record<string, number> = podRequestList(p)): PodSchedulingSpec {
  const spec = p.spec;
  const { affinity, own } = withoutOwnNodeTerm(obj(spec?.affinity), spec?.nodeName);
  const hostPorts: NonNullable<PodSchedulingSpec['hostPorts']> = [];
  for (const c of [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])])
    for (const port of c.ports ?? [])
      if (port.hostPort !== undefined && port.hostPort > 0)
        hostPorts.push({ hostPort: port.hostPort, protocol: port.protocol ?? 'TCP', ...(port.hostIP ? { hostIP: port.hostIP } : {}) });
  const nodeSelector = spec?.nodeSelector;
  return {
    ...(nodeSelector && Object.keys(nodeSelector).length > 0 ? { nodeSelector } : {}),
    ...(affinity && Object.keys(affinity).length > 0 ? { affinity: affinity as PodSchedulingSpec['affinity'] } : {}),
    tolerations: nonEmpty(spec?.tolerations as PodSchedulingSpec['tolerations']),
    topologySpreadConstraints: nonEmpty(spec?.topologySpreadConstraints as PodSchedulingSpec['topologySpreadConstraints']),
    priority: spec?.priority,
    priorityClassName: spec?.priorityClassName,
    preemptionPolicy: spec?.preemptionPolicy,
    schedulingGates: nonEmpty(spec?.schedulingGates?.map((g) => g.name)),
    requests: requestQuantities(requests),
    hostPorts: nonEmpty(hostPorts),
    ...(own ? { ownNodeAffinity: true as const } : {}),
  };
}

/**
 * One shared {hash, json} per distinct scheduling spec: its canonical text is the key, so it is hashed once however
 * many replicas carry it, and the pod records of a snapshot share the object. Canonical (keys sorted), not
 * JSON.stringify's: a list gives the client's model objects (fields in its declared order, alphabetical) and a
 * watch the API server's JSON (Go's struct order), and the same pod must give the same spec either way. Bounded: a
 * long-running watch cache starts afresh past `maxSpecs` distinct ones (pods mapped before keep theirs).
 */
export function createSpecTable(maxSpecs = 100_000): (spec: PodSchedulingSpec) => PodSchedulingRef {
  let seen = new Map<string, PodSchedulingRef>();
  return (spec) => {
    const json = canonicalJson(spec);
    let ref = seen.get(json);
    if (ref === undefined) {
      if (seen.size >= maxSpecs) seen = new Map();
      ref = { hash: contentHash(json), json };
      seen.set(json, ref);
    }
    return ref;
  };
}

/** The PersistentVolumeClaim and generic ephemeral volumes of a pod (others do not pin or limit placement). */
export function podVolumes(p: V1Pod): PodVolumeRecord[] | undefined {
  const out: PodVolumeRecord[] = [];
  for (const v of p.spec?.volumes ?? []) {
    if (v.persistentVolumeClaim?.claimName) out.push({ name: v.name, claimName: v.persistentVolumeClaim.claimName });
    else if (v.ephemeral) out.push({ name: v.name, ephemeralStorageClass: v.ephemeral.volumeClaimTemplate?.spec?.storageClassName ?? '' });
  }
  return nonEmpty(out);
}

/**
 * Whether Karpenter honours a karpenter.sh/do-not-disrupt value at some time (pkg/utils/pod/scheduling.go
 * IsDoNotDisruptActive at v1.14.1): "true" always; a positive Go duration ("30m", v1.12.0+) until the pod has run
 * that long; anything else is ignored (as if absent).
 */
export function honoursDoNotDisrupt(value: string | null | undefined): boolean {
  if (value === null || value === undefined) return false;
  if (value === 'true') return true;
  const ms = parseGoDuration(value);
  return ms !== null && ms > 0;
}

/** Karpenter's controller image, tagged (`…/karpenter/controller:1.14.1@sha256:…`), of any container of the pod. */
export function karpenterImageOf(p: V1Pod): string | undefined {
  for (const c of p.spec?.containers ?? []) if (c.image !== undefined && karpenterVersionOfImage(c.image) !== null) return c.image;
  return undefined;
}

/**
 * The FEATURE_GATES env of the container running Karpenter's controller image, as written ("ReservedCapacity=true,
 * SpotToSpotConsolidation=false,…": the Helm chart's charts/karpenter/templates/deployment.yaml sets it from
 * settings.featureGates); undefined when that container has none given by value (Karpenter's defaults then apply).
 */
export function karpenterFeatureGatesOf(p: V1Pod): string | undefined {
  for (const c of p.spec?.containers ?? []) {
    if (c.image === undefined || karpenterVersionOfImage(c.image) === null) continue;
    const env = c.env?.find((e) => e.name === 'FEATURE_GATES');
    return env?.value === undefined || env.value === '' ? undefined : env.value;
  }
  return undefined;
}

/**
 * The release an image of Karpenter's controller carries in its tag: `public.ecr.aws/karpenter/controller:1.14.1@sha256:…`
 * -> 1.14.1 (also `v0.37.0`, a mirror's `…/karpenter/controller:1.8.0`); null for another image or a digest alone.
 */
export function karpenterVersionOfImage(image: string): string | null {
  const m = /(?:^|\/)karpenter\/controller:v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)(?:@sha256:[0-9a-f]+)?$/.exec(image.trim());
  return m === null ? null : m[1];
}

/** status.startTime (epoch ms), null when the pod has not started. */
export const startedAtOf = (p: V1Pod): number | null => {
  const t = p.status?.startTime;
  if (t === undefined) return null;
  const ms = new Date(t).getTime();
  return Number.isNaN(ms) ? null : ms;
};

/**
 * When a Succeeded or Failed pod finished: the latest state.terminated.finishedAt of its containers (epoch ms); null
 * for a pod not finished, or whose statuses carry no time.
 */
export const finishedAtOf = (p: V1Pod): number | null => {
  if (p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed') return null;
  let latest: number | null = null;
  for (const c of p.status.containerStatuses ?? []) {
    const t = c.state?.terminated?.finishedAt;
    if (t === undefined) continue;
    const ms = new Date(t).getTime();
    if (!Number.isNaN(ms) && (latest === null || ms > latest)) latest = ms;
  }
  return latest;
};

/** The per-pod annotations the engine reads, as written. */
export const annotationValue = (p: V1Pod, key: string): string | null => p.metadata?.annotations?.[key] ?? null;

/**
 * Karpenter's version from the image tag of its controller's pods (`public.ecr.aws/karpenter/controller:1.14.1@…`),
 * read off the pod list (no other permission needed); during a rolling upgrade the newest. Undefined when no pod
 * runs it (Karpenter outside the cluster, EKS Auto Mode) or its image carries no version tag.
 */
export function karpenterVersionOf(pods: readonly PodRecord[]): KarpenterVersionRecord | undefined {
  let best: KarpenterVersionRecord | undefined;
  for (const p of pods) {
    if (p.karpenterImage === undefined || p.phase !== 'Running') continue;
    const version = karpenterVersionOfImage(p.karpenterImage);
    if (version !== null && (best === undefined || compareVersions(version, best.version) > 0))
      best = {
        version,
        source: 'image',
        image: p.karpenterImage,
        ...(p.karpenterFeatureGates === undefined ? {} : { featureGates: p.karpenterFeatureGates }),
      };
  }
  return best;
}

const compareVersions = (a: string, b: string): number => {
  const pa = a.split(/[.-]/).map((x) => Number(x));
  const pb = b.split(/[.-]/).map((x) => Number(x));
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
};
