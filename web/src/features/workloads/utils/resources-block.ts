import type { RecommendationRow } from '@schemas/workloads';

/**
 * What to paste: the recommended requests as a container's `resources:` block and as a `kubectl set resources`
 * command. Quantities in the forms Kubernetes writes them: CPU in millicores ("250m", "2" for whole cores), memory
 * in Mi (the recommendation is whole MiB) or Gi when whole.
 */

const MIB = 2 ** 20;

export const cpuQuantity = (millicores: number): string => {
  const m = Math.ceil(millicores);
  return m % 1000 === 0 ? `${m / 1000}` : `${m}m`;
};

export const memoryQuantity = (bytes: number): string => {
  const mib = Math.ceil(bytes / MIB);
  return mib % 1024 === 0 ? `${mib / 1024}Gi` : `${mib}Mi`;
};

type Row = Pick<
  RecommendationRow,
  'namespace' | 'workloadKind' | 'workloadName' | 'container' | 'recommendedCpuMillicores' | 'recommendedMemoryBytes'
>;

/** The container's `resources:` block (requests only: limits are the owner's policy, not a usage figure). */
export function resourcesBlock(r: Row): string {
  return [
    'resources:',
    '  requests:',
    `    cpu: ${cpuQuantity(r.recommendedCpuMillicores)}`,
    `    memory: ${memoryQuantity(r.recommendedMemoryBytes)}`,
  ].join('\n');
}

/** kubectl's resource name for the owner kinds it can set resources on; null for others (a bare Pod cannot be changed in place). */
const KUBECTL_KIND: Record<string, string> = {
  Deployment: 'deployment',
  StatefulSet: 'statefulset',
  DaemonSet: 'daemonset',
  ReplicaSet: 'replicaset',
  Job: 'job',
  CronJob: 'cronjob',
};

/** `kubectl set resources deployment/web -n shop --containers=app --requests=cpu=250m,memory=230Mi`; null for a bare Pod. */
export function kubectlLine(r: Row): string | null {
  const kind = KUBECTL_KIND[r.workloadKind];
  if (kind === undefined) return null;
  return `kubectl set resources ${kind}/${r.workloadName} -n ${r.namespace} --containers=${r.container} --requests=cpu=${cpuQuantity(
    r.recommendedCpuMillicores,
  )},memory=${memoryQuantity(r.recommendedMemoryBytes)}`;
}
