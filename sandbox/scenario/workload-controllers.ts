import { effectiveRequests } from '../../core/pod-requests.js';
import { DAY_MS as DAY, HOUR_MS as HOUR, MINUTE_MS as MINUTE } from '../../core/time.js';
import type { Kubelet } from './kubelet.js';
import { claimVolumes, type PodShape, workloadTemplate } from './pod-templates.js';
import type { Rng } from './rng.js';
import { parseCronSchedule, type ScenarioFile, type WorkloadSpec } from './scenario-file.js';
import { CLUSTER_AGE, type LivePod, type SimState, type Workload } from './sim-state.js';
import { type EpochMs, type SimJob, type SimPod, type SimWorkload, workloadKey } from './types.js';

/** ttlSecondsAfterFinished of Jobs a scenario makes from a Job template (their pods stay listed that long). */
const DEFAULT_JOB_TTL_SECONDS = 600;

/** A controller of the scenario file as the simulation keeps it (its pod template hash drawn from the seed). */
export function makeWorkload(
  spec: WorkloadSpec,
  file: ScenarioFile,
  rng: Rng,
  karpenterVersion: string,
  /** The controller's FEATURE_GATES env as its release's chart writes it (karpenterFeatureGatesEnv). */
  featureGatesEnv: string,
): Workload {
  const templateHash = rng.suffix(9).slice(0, 9);
  const pool = file.nodePools.find((p) => p.name === spec.target);
  const template = workloadTemplate(spec, pool, karpenterVersion, spec.kind === 'Deployment' ? templateHash : null, featureGatesEnv);
  const ownerKind: SimPod['ownerKind'] = spec.kind === 'Deployment' ? 'ReplicaSet' : spec.kind === 'StatefulSet' ? 'StatefulSet' : 'Job';
  const shape: PodShape = {
    ...template,
    namespace: spec.namespace,
    ownerKind,
    ownerName: spec.kind === 'Deployment' ? `${spec.name}-${templateHash}` : spec.name,
    workloadKey: workloadKey(spec.kind, spec.namespace, spec.name),
  };
  return {
    spec,
    requests: effectiveRequests(template.containers, template.initContainers),
    templateHash,
    shape,
    pods: [],
    noiseHour: -1,
    noise: 0,
    replicas: [],
    succeeded: [],
    failed: [],
  };
}

/**
 * The workload controllers: Deployments and StatefulSets kept at their replicas (a daily curve with hourly noise),
 * Jobs started by the file's bursts, CronJobs on their schedule with their history limits, a StatefulSet's claims,
 * and a replacement for every pod evicted from a node.
 */
export class WorkloadControllers {
  constructor(
    private readonly s: SimState,
    private readonly kubelet: Kubelet,
  ) {}

  /** A controller's new pod for one evicted from its node (a StatefulSet keeps the name). */
  remake(pod: LivePod, t: EpochMs): void {
    const w = pod.workload;
    if (!w) return;
    const replacement = this.newPod(w, t, pod.ordinal, pod.job);
    replacement.jobEndsAt = pod.jobEndsAt;
    replacement.fails = pod.fails;
    w.pods.splice(w.pods.indexOf(pod), 1, replacement);
  }

  private newPod(w: Workload, t: EpochMs, ordinal?: number, job?: SimJob): LivePod {
    let name: string;
    let ownerName = w.shape.ownerName;
    if (w.spec.kind === 'StatefulSet') name = `${w.spec.name}-${ordinal ?? 0}`;
    else if (job) {
      name = `${job.name}-${this.s.rng.suffix(5)}`;
      ownerName = job.name;
      job.pods.push(name);
    } else name = `${w.spec.name}-${w.templateHash}-${this.s.rng.suffix(5)}`;
    const volumes = w.spec.volumeClaimTemplates ? claimVolumes(w.spec.volumeClaimTemplates, name) : [];
    for (const tpl of w.spec.volumeClaimTemplates ?? []) this.claimFor(w, `${tpl.name}-${name}`, tpl, t);
    return { name, workload: w, requests: w.requests, node: null, record: null, createdAt: t, ordinal, ownerName, job, volumes };
  }

  /** A StatefulSet's claim, made with its first pod (the controller creates the PVC before the pod). */
  private claimFor(w: Workload, name: string, tpl: { storageClassName: string; storage: string }, t: EpochMs): void {
    const s = this.s;
    const key = `${w.spec.namespace}/${name}`;
    if (s.claims.has(key)) return;
    s.claims.set(key, {
      namespace: w.spec.namespace,
      name,
      storageClassName: tpl.storageClassName,
      storage: tpl.storage,
      createdAt: t,
      volumeName: `pvc-${s.rng.uuid()}`,
      volumeId: `vol-0${s.rng.hex(16)}`,
      boundAt: null,
      zone: null,
    });
    s.claimsVersion += 1;
  }

  /** Desired replicas of a workload at t. */
  private desired(w: Workload, t: EpochMs): number {
    const r = w.spec.replicas;
    if (!r) return 0;
    if ('fixed' in r) return r.fixed;
    const { min, max, peakHourUtc, weekendFactor } = r.daily;
    const hour = (t % DAY) / HOUR;
    const shape = 0.5 + 0.5 * Math.cos(((hour - peakHourUtc) / 24) * 2 * Math.PI);
    const weekday = new Date(t).getUTCDay();
    const factor = weekday === 0 || weekday === 6 ? weekendFactor : 1;
    // Noise changes once an hour, as real traffic does, rather than flapping every step.
    const hourIndex = Math.floor(t / HOUR);
    if (w.noiseHour !== hourIndex) {
      w.noiseHour = hourIndex;
      w.noise = this.s.rng.int(-1, 1);
    }
    const noise = w.noise;
    return Math.max(min, Math.round((min + (max - min) * shape) * factor) + noise);
  }

  /** Every controller's turn at t, in the file's order. */
  reconcileAll(t: EpochMs): void {
    for (const w of this.s.workloads) this.reconcile(w, t);
  }

  private reconcile(w: Workload, t: EpochMs): void {
    if (w.spec.kind === 'Job') return this.reconcileJob(w, t);
    if (w.spec.kind === 'CronJob') return this.reconcileCronJob(w, t);
    const want = this.desired(w, t);
    if (w.replicas[w.replicas.length - 1]?.replicas !== want) w.replicas.push({ at: t, replicas: want });
    while (w.pods.length > want) {
      const pod = w.pods.pop();
      if (pod) this.kubelet.unbind(pod, t);
    }
    while (w.pods.length < want) w.pods.push(this.newPod(w, t, w.pods.length));
  }

  /** A new Job of `w` at t (named `<name>-<minutes since the epoch>`, as the CronJob controller names them). */
  private newJob(w: Workload, t: EpochMs, parallelism: number, ttlSeconds: number | null): SimJob {
    const job: SimJob = {
      namespace: w.spec.namespace,
      name: `${w.spec.name}-${Math.floor(t / 60_000)}`,
      workload: w.shape.workloadKey,
      createdAt: t,
      parallelism,
      finishedAt: null,
      failed: false,
      deletedAt: null,
      ...(ttlSeconds !== null ? { ttlSecondsAfterFinished: ttlSeconds } : {}),
      backoffLimit: w.spec.kind === 'CronJob' ? 0 : 6,
      pods: [],
    };
    this.s.jobs.push(job);
    return job;
  }

  /** Finishes the pods whose run ended by t; returns the Jobs all of whose pods have now finished. */
  private finishJobPods(w: Workload, t: EpochMs): SimJob[] {
    const done = new Set<SimJob>();
    for (const pod of [...w.pods]) {
      if (pod.jobEndsAt === undefined || pod.jobEndsAt > t) continue;
      this.kubelet.unbind(pod, t, pod.fails ? 'Failed' : 'Succeeded');
      w.pods.splice(w.pods.indexOf(pod), 1);
      if (pod.job) done.add(pod.job);
    }
    return [...done].filter((job) => !w.pods.some((p) => p.job === job));
  }

  /** A Job is deleted at t: its finished pods leave the API with it. */
  private deleteJob(job: SimJob, t: EpochMs): void {
    job.deletedAt = t;
    for (const rec of this.s.jobRecords.get(job) ?? [])
      if (rec.listedUntil === null || (rec.listedUntil ?? Infinity) > t) rec.listedUntil = t;
  }

  private reconcileJob(w: Workload, t: EpochMs): void {
    const ttl = w.spec.ttlSecondsAfterFinished ?? DEFAULT_JOB_TTL_SECONDS;
    for (const job of this.finishJobPods(w, t)) {
      job.finishedAt = t;
      // ttlSecondsAfterFinished: the TTL controller deletes it, and its pods with it
      this.deleteJob(job, t + ttl * 1000);
    }
    for (const b of w.spec.bursts ?? []) {
      const at = this.s.start + b.day * DAY + b.hourUtc * HOUR;
      if (at > t - this.s.step && at <= t) {
        const job = this.newJob(w, t, b.parallelism, ttl);
        for (let i = 0; i < b.parallelism; i++) {
          const pod = this.newPod(w, t, undefined, job);
          pod.jobEndsAt = at + b.hours * HOUR;
          w.pods.push(pod);
        }
      }
    }
  }

  /**
   * A CronJob: a Job at each scheduled time, one pod that runs `runMinutes` and ends Succeeded (Failed at the
   * scheduled times listed as failures); finished Jobs are kept up to successfulJobsHistoryLimit and
   * failedJobsHistoryLimit, the oldest deleted (with their pods) as a newer one finishes.
   */
  private reconcileCronJob(w: Workload, t: EpochMs): void {
    const cron = w.spec.cron;
    const when = cron ? parseCronSchedule(cron.schedule) : null;
    if (!cron || !when) return;
    for (const job of this.finishJobPods(w, t)) {
      job.finishedAt = t;
      const history = job.failed ? w.failed : w.succeeded;
      history.push(job);
      const limit = job.failed ? cron.failedJobsHistoryLimit : cron.successfulJobsHistoryLimit;
      while (history.length > limit) this.deleteJob(history.shift() as SimJob, t);
    }
    // the scheduled times in (t - step, t]
    for (let m = Math.floor((t - this.s.step) / MINUTE) + 1; m <= Math.floor(t / MINUTE); m++) {
      const at = m * MINUTE;
      const d = new Date(at);
      if (d.getUTCMinutes() !== when.minute || (when.hour !== null && d.getUTCHours() !== when.hour)) continue;
      if (at < this.s.start) continue;
      const job = this.newJob(w, at, 1, null);
      job.failed = (cron.failures ?? []).some((f) => Date.parse(f) === at);
      const pod = this.newPod(w, t, undefined, job);
      pod.jobEndsAt = at + cron.runMinutes * MINUTE;
      pod.fails = job.failed;
      w.pods.push(pod);
    }
  }

  /** The controllers as the API serves them. */
  simWorkloads(): SimWorkload[] {
    const s = this.s;
    const template = (shape: PodShape) => {
      const { namespace: _n, ownerKind: _k, ownerName: _o, workloadKey: _w, ...rest } = shape;
      return rest;
    };
    const out: SimWorkload[] = s.daemonSets.map((ds) => ({
      kind: 'DaemonSet',
      namespace: ds.spec.namespace,
      name: ds.spec.name,
      createdAt: s.start - CLUSTER_AGE,
      template: template(ds.shape),
      scheduled: ds.scheduled,
    }));
    for (const w of s.workloads) {
      out.push({
        kind: w.spec.kind,
        namespace: w.spec.namespace,
        name: w.spec.name,
        createdAt: s.start - CLUSTER_AGE,
        template: template(w.shape),
        ...(w.spec.kind === 'Deployment' || w.spec.kind === 'StatefulSet' ? { replicas: w.replicas } : {}),
        ...(w.spec.kind === 'Deployment' ? { templateHash: w.templateHash } : {}),
        ...(w.spec.volumeClaimTemplates ? { volumeClaimTemplates: w.spec.volumeClaimTemplates } : {}),
        ...(w.spec.cron
          ? {
              cron: {
                schedule: w.spec.cron.schedule,
                successfulJobsHistoryLimit: w.spec.cron.successfulJobsHistoryLimit,
                failedJobsHistoryLimit: w.spec.cron.failedJobsHistoryLimit,
              },
            }
          : {}),
      });
    }
    return out;
  }
}
