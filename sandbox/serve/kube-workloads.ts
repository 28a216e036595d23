import { daemonControllerTolerations } from '../scenario/pod-templates.js';
import type { EpochMs, SimContainer, SimJob, SimPodTemplate, SimWorkload } from '../scenario/types.js';
import { isoSeconds as iso, uidFor } from '../scenario/uid.js';

/**
 * The controllers of the simulated history as the API server returns them: apps/v1 Deployments, ReplicaSets,
 * StatefulSets and DaemonSets, batch/v1 Jobs and CronJobs, each with the pod template its pods were made from and
 * the status its controller reports at a time.
 */

const ownerRef = (apiVersion: string, kind: string, namespace: string, name: string) => ({
  apiVersion,
  kind,
  name,
  uid: uidFor(kind, `${namespace}/${name}`),
  controller: true,
  blockOwnerDeletion: true,
});

const container = (c: SimContainer) => ({
  name: c.name,
  image: c.image,
  ...(c.ports ? { ports: c.ports } : {}),
  resources: { requests: c.resources.requests },
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
  imagePullPolicy: 'IfNotPresent',
});

/** A toleration as the API prints it: empty fields left out. */
export const servedToleration = (t: SimPodTemplate['tolerations'][number]) =>
  Object.fromEntries(Object.entries(t).filter(([, v]) => v !== '' && v !== undefined));

/** The pod spec of a template (what a Pod made from it carries before the scheduler and admission add theirs). */
export function templatePodSpec(t: SimPodTemplate, restartPolicy: 'Always' | 'Never') {
  return {
    ...(t.volumes?.length ? { volumes: t.volumes } : {}),
    ...(t.initContainers.length ? { initContainers: t.initContainers.map(container) } : {}),
    containers: t.containers.map(container),
    restartPolicy,
    terminationGracePeriodSeconds: 30,
    dnsPolicy: t.hostNetwork ? 'ClusterFirstWithHostNet' : 'ClusterFirst',
    ...(Object.keys(t.nodeSelector).length ? { nodeSelector: t.nodeSelector } : {}),
    serviceAccountName: 'default',
    serviceAccount: 'default',
    ...(t.hostNetwork ? { hostNetwork: true } : {}),
    securityContext: {},
    ...(t.affinity ? { affinity: t.affinity } : {}),
    schedulerName: 'default-scheduler',
    ...(t.tolerations.length ? { tolerations: t.tolerations.map(servedToleration) } : {}),
    ...(t.priorityClassName ? { priorityClassName: t.priorityClassName } : {}),
    ...(t.topologySpreadConstraints ? { topologySpreadConstraints: t.topologySpreadConstraints } : {}),
  };
}

/** The DaemonSet controller's pod: its template plus the tolerations the controller adds. */
export const daemonPodTolerations = (t: SimPodTemplate) => [
  ...t.tolerations.map(servedToleration),
  ...daemonControllerTolerations(t.hostNetwork === true),
];

const meta = (kind: string, w: { namespace: string; name: string; createdAt: EpochMs }, at: EpochMs, labels: Record<string, string>) => ({
  name: w.name,
  namespace: w.namespace,
  uid: uidFor(kind, `${w.namespace}/${w.name}`),
  resourceVersion: String(Math.floor(at / 1000)),
  generation: 1,
  creationTimestamp: iso(w.createdAt),
  labels,
});

/** The app label the scenario's pods carry, as their controllers select them. */
const appSelector = (w: SimWorkload) => ({ app: w.template.labels.app ?? w.name });

const templateMeta = (t: SimPodTemplate) => {
  const { 'pod-template-hash': _hash, ...labels } = t.labels;
  return { labels, ...(Object.keys(t.annotations).length ? { annotations: t.annotations } : {}) };
};

const condition = (type: string, reason: string, message: string, since: EpochMs, at: EpochMs) => ({
  type,
  status: 'True',
  lastUpdateTime: iso(at),
  lastTransitionTime: iso(since),
  reason,
  message,
});

export function deploymentObject(w: SimWorkload, replicas: number, at: EpochMs) {
  const rs = `${w.name}-${w.templateHash ?? ''}`;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { ...meta('Deployment', w, at, appSelector(w)), annotations: { 'deployment.kubernetes.io/revision': '1' } },
    spec: {
      replicas,
      selector: { matchLabels: appSelector(w) },
      template: { metadata: templateMeta(w.template), spec: templatePodSpec(w.template, 'Always') },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    },
    status: {
      observedGeneration: 1,
      replicas,
      updatedReplicas: replicas,
      readyReplicas: replicas,
      availableReplicas: replicas,
      conditions: [
        condition('Available', 'MinimumReplicasAvailable', 'Deployment has minimum availability.', w.createdAt, at),
        condition('Progressing', 'NewReplicaSetAvailable', `ReplicaSet "${rs}" has successfully progressed.`, w.createdAt, at),
      ],
    },
  };
}

export function replicaSetObject(w: SimWorkload, replicas: number, at: EpochMs) {
  const hash = w.templateHash ?? '';
  const name = `${w.name}-${hash}`;
  const labels = { ...appSelector(w), 'pod-template-hash': hash };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      ...meta('ReplicaSet', { ...w, name }, at, labels),
      annotations: {
        'deployment.kubernetes.io/desired-replicas': String(replicas),
        'deployment.kubernetes.io/max-replicas': String(replicas + Math.ceil(replicas / 4)),
        'deployment.kubernetes.io/revision': '1',
      },
      ownerReferences: [ownerRef('apps/v1', 'Deployment', w.namespace, w.name)],
    },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { ...templateMeta(w.template), labels: { ...templateMeta(w.template).labels, 'pod-template-hash': hash } },
        spec: templatePodSpec(w.template, 'Always'),
      },
    },
    status: { replicas, fullyLabeledReplicas: replicas, readyReplicas: replicas, availableReplicas: replicas, observedGeneration: 1 },
  };
}

export function statefulSetObject(w: SimWorkload, replicas: number, at: EpochMs) {
  const revision = `${w.name}-${uidFor('revision', `${w.namespace}/${w.name}`).replaceAll('-', '').slice(0, 10)}`;
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: meta('StatefulSet', w, at, appSelector(w)),
    spec: {
      replicas,
      selector: { matchLabels: appSelector(w) },
      template: { metadata: templateMeta(w.template), spec: templatePodSpec(w.template, 'Always') },
      ...(w.volumeClaimTemplates
        ? {
            volumeClaimTemplates: w.volumeClaimTemplates.map((v) => ({
              apiVersion: 'v1',
              kind: 'PersistentVolumeClaim',
              metadata: { name: v.name },
              spec: {
                accessModes: ['ReadWriteOnce'],
                storageClassName: v.storageClassName,
                resources: { requests: { storage: v.storage } },
                volumeMode: 'Filesystem',
              },
              status: { phase: 'Pending' },
            })),
          }
        : {}),
      serviceName: w.name,
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      revisionHistoryLimit: 10,
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
    },
    status: {
      observedGeneration: 1,
      replicas,
      readyReplicas: replicas,
      currentReplicas: replicas,
      updatedReplicas: replicas,
      currentRevision: revision,
      updateRevision: revision,
      collisionCount: 0,
      availableReplicas: replicas,
    },
  };
}

export function daemonSetObject(w: SimWorkload, scheduled: number, at: EpochMs) {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { ...meta('DaemonSet', w, at, appSelector(w)), annotations: { 'deprecated.daemonset.template.generation': '1' } },
    spec: {
      selector: { matchLabels: appSelector(w) },
      template: { metadata: templateMeta(w.template), spec: templatePodSpec(w.template, 'Always') },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      revisionHistoryLimit: 10,
    },
    status: {
      currentNumberScheduled: scheduled,
      numberMisscheduled: 0,
      desiredNumberScheduled: scheduled,
      numberReady: scheduled,
      observedGeneration: 1,
      updatedNumberScheduled: scheduled,
      numberAvailable: scheduled,
    },
  };
}

/** A Job at time t: running (its pods active), then Complete or Failed as the Job controller marks it. */
export function jobObject(job: SimJob, w: SimWorkload | undefined, t: EpochMs) {
  const uid = uidFor('Job', `${job.namespace}/${job.name}`);
  const selectorLabels = { 'batch.kubernetes.io/controller-uid': uid };
  const jobLabels = { ...selectorLabels, 'batch.kubernetes.io/job-name': job.name, 'controller-uid': uid, 'job-name': job.name };
  const template = w?.template;
  const done = job.finishedAt !== null && job.finishedAt <= t;
  const at = done && job.finishedAt !== null ? job.finishedAt : job.createdAt;
  const finishedConditions =
    done && job.finishedAt !== null
      ? job.failed
        ? [
            { type: 'FailureTarget', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' },
            { type: 'Failed', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' },
          ]
        : [
            { type: 'SuccessCriteriaMet', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' },
            { type: 'Complete', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' },
          ]
      : [];
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: job.name,
      namespace: job.namespace,
      uid,
      resourceVersion: String(Math.floor(at / 1000)),
      generation: 1,
      creationTimestamp: iso(job.createdAt),
      labels: { ...(template ? { app: template.labels.app } : {}), ...jobLabels },
      annotations: { 'batch.kubernetes.io/job-tracking': '' },
      ...(w?.kind === 'CronJob' ? { ownerReferences: [ownerRef('batch/v1', 'CronJob', w.namespace, w.name)] } : {}),
    },
    spec: {
      parallelism: job.parallelism,
      completions: job.parallelism,
      backoffLimit: job.backoffLimit,
      ...(job.ttlSecondsAfterFinished !== undefined ? { ttlSecondsAfterFinished: job.ttlSecondsAfterFinished } : {}),
      completionMode: 'NonIndexed',
      suspend: false,
      manualSelector: false,
      podReplacementPolicy: 'TerminatingOrFailed',
      selector: { matchLabels: selectorLabels },
      template: {
        metadata: { labels: { ...(template ? templateMeta(template).labels : {}), ...jobLabels } },
        spec: template ? templatePodSpec(template, 'Never') : { containers: [], restartPolicy: 'Never' },
      },
    },
    status: {
      startTime: iso(job.createdAt),
      ...(done && job.finishedAt !== null
        ? {
            ...(job.failed ? { failed: 1 } : { succeeded: job.parallelism, completionTime: iso(job.finishedAt) }),
            conditions: finishedConditions.map((c) => ({
              ...c,
              status: 'True',
              lastProbeTime: iso(job.finishedAt ?? at),
              lastTransitionTime: iso(job.finishedAt ?? at),
            })),
            ready: 0,
          }
        : { active: job.parallelism, ready: job.parallelism }),
      terminating: 0,
      uncountedTerminatedPods: {},
    },
  };
}

/** A CronJob at time t: its running Jobs, its last scheduled and last successful times. */
export function cronJobObject(w: SimWorkload, jobs: readonly SimJob[], t: EpochMs) {
  const started = jobs.filter((j) => j.createdAt <= t);
  const active = started.filter((j) => j.finishedAt === null || j.finishedAt > t);
  const succeeded = started.filter((j) => !j.failed && j.finishedAt !== null && j.finishedAt <= t);
  const last = started[started.length - 1];
  const lastSuccess = succeeded[succeeded.length - 1];
  const changedAt = Math.max(last?.createdAt ?? w.createdAt, lastSuccess?.finishedAt ?? w.createdAt);
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: meta('CronJob', w, changedAt, appSelector(w)),
    spec: {
      schedule: w.cron?.schedule ?? '',
      concurrencyPolicy: 'Allow',
      suspend: false,
      successfulJobsHistoryLimit: w.cron?.successfulJobsHistoryLimit ?? 3,
      failedJobsHistoryLimit: w.cron?.failedJobsHistoryLimit ?? 1,
      jobTemplate: {
        metadata: { creationTimestamp: null },
        spec: {
          backoffLimit: 0,
          template: { metadata: templateMeta(w.template), spec: templatePodSpec(w.template, 'Never') },
        },
      },
    },
    status: {
      ...(active.length
        ? {
            active: active.map((j) => ({
              kind: 'Job',
              namespace: j.namespace,
              name: j.name,
              uid: uidFor('Job', `${j.namespace}/${j.name}`),
              apiVersion: 'batch/v1',
              resourceVersion: String(Math.floor(j.createdAt / 1000)),
            })),
          }
        : {}),
      ...(last ? { lastScheduleTime: iso(last.createdAt) } : {}),
      ...(lastSuccess?.finishedAt ? { lastSuccessfulTime: iso(lastSuccess.finishedAt) } : {}),
    },
  };
}
