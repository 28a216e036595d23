import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClients } from '../../collectors/kubernetes/client.js';
import { collectKubeSnapshot } from '../../collectors/kubernetes/collect.js';
import type { KubePod } from '../../core/karpenter/scheduling/kube-types.js';
import { buildSnapshotRows } from '../../core/rollup.js';
import { buildApp } from '../../server/app.js';
import type { PredictResponse, WhyNotResponse } from '../../server/schemas/whatif.js';
import { openDb, type Db } from '../../db/open-db.js';
import { type ClusterSnapshot, createClusterSnapshotRepository } from '../../db/repositories/cluster-snapshot-repository.js';
import { createKarpenterExplanationsRepository } from '../../db/repositories/karpenter-explanations-repository.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { createPricesRepository } from '../../db/repositories/prices-repository.js';
import { writeKubeconfig } from '../../sandbox/kubeconfig.js';
import { json, type SandboxHandler } from '../../sandbox/serve/context.js';
import {
  CANDIDATE_MESSAGE,
  CLAIM_B,
  clusterAt,
  DEDICATED_TOLERATION,
  DND_POD,
  EC2_NODE_CLASS_STATUS,
  JOB_POD,
  JOB_POD_FINISHED_AT,
  type KubeListing,
  NODE_A,
  NODE_B,
  NODE_C,
  PV_NAME,
  REJECTED_MESSAGE,
  T1,
  T2,
  ZONE_SPREAD,
} from '../fixtures/kube-cluster-objects.js';
import { newContext, serveHandlers, type ServedHandlers } from '../fixtures/serve-handlers.js';
import { tinyScenario } from '../fixtures/tiny-scenario.js';

/*
 * The kinds Karpenter decides on, served as the Kubernetes API serves them (test/fixtures/kube-cluster-objects.ts)
 * by a tiny endpoint on loopback, read by the real collector (@kubernetes/client-node lists, paged 2 at a time),
 * written as two snapshots ten minutes apart into SQLite, and read back at each as ClusterObjects
 * (db/repositories/cluster-snapshot-repository.ts): issue 21 items 1-3 and the do-not-disrupt duration of item 8.
 */

const dir = mkdtempSync(join(tmpdir(), 'ledger-cluster-objects-'));
let served: ServedHandlers;
let db: Db;
let at1: ClusterSnapshot;
let at2: ClusterSnapshot;
let app: ReturnType<typeof buildApp> | undefined;
let base: string;
const requested: string[] = [];

/** A Kubernetes API listing what `now()` says, `limit` items a page (continue = the next index). */
function listingApi(now: () => KubeListing): SandboxHandler {
  return (req) => {
    const answer = now()[req.url.pathname];
    if (answer === undefined) return null;
    requested.push(req.url.pathname);
    if ('status' in answer)
      return json(answer.status, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: answer.message,
        reason: answer.reason,
        code: answer.status,
      });
    const limit = Number(req.url.searchParams.get('limit') ?? '0') || answer.items.length;
    const from = Number(req.url.searchParams.get('continue') ?? '0');
    const items = answer.items.slice(from, from + limit);
    const more = from + limit < answer.items.length;
    return json(200, {
      kind: answer.kind,
      apiVersion: answer.apiVersion,
      metadata: { resourceVersion: '19700700', ...(more ? { continue: String(from + limit) } : {}) },
      items,
    });
  };
}

beforeAll(async () => {
  let current = clusterAt('t1');
  served = await serveHandlers([listingApi(() => current)], newContext(tinyScenario(), Date.parse(T1)));
  const kubeconfig = join(dir, 'kubeconfig');
  writeKubeconfig(kubeconfig, served.url, 'recorded-token', 'recorded');
  db = openDb({ path: join(dir, 'ledger.db') });
  const k = createKubeClients({ kubeconfig });
  const kube = createKubeRepository(db);
  for (const [moment, at] of [
    ['t1', T1],
    ['t2', T2],
  ] as const) {
    current = clusterAt(moment);
    const snapshot = await collectKubeSnapshot(k, Date.parse(at), { withEvents: true, limit: 2 });
    kube.writeSnapshot({
      snapshot,
      ...buildSnapshotRows(snapshot, () => ({ pricePerHour: 0.096, currency: 'USD', source: 'pricing-api' })),
      runId: null,
    });
  }
  const reader = createClusterSnapshotRepository(db);
  at1 = reader.clusterObjectsAt(Date.parse(T1)) as ClusterSnapshot;
  at2 = reader.clusterObjectsAt(Date.parse(T2)) as ClusterSnapshot;
  // The API's engine prices the cluster's types from stored on-demand prices: us-west-2 list prices (Linux, on demand).
  createPricesRepository(db).insertPrices(
    (
      [
        ['m5.large', 0.096],
        ['r5.large', 0.126],
        ['c5.large', 0.085],
        ['m5.xlarge', 0.192],
      ] as const
    ).map(([instanceType, pricePerHour]) => ({
      kind: 'on-demand' as const,
      region: 'us-west-2',
      instanceType,
      zone: '',
      effectiveAt: Date.parse('2026-11-01T00:00:00Z'),
      pricePerHour,
      currency: 'USD' as const,
      source: 'pricing-api' as const,
    })),
  );
  app = buildApp({ db, webRoot: join(dir, 'no-web'), now: () => Date.parse(T2) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await app?.close();
  db?.close();
  await served?.close();
  rmSync(dir, { recursive: true, force: true });
});

const podNamed = (s: ClusterSnapshot, name: string): KubePod | undefined => s.objects.pods.find((p) => p.metadata.name === name);

describe('a stored snapshot read back as the cluster Karpenter saw (issue 21)', () => {
  it('1. pods keep their scheduling spec: zone spread, tolerations, node selector, priority, deletion cost, volumes', () => {
    const web = podNamed(at2, 'web-6f7d9c8b4-4xq2n');
    expect(web?.spec.topologySpreadConstraints).toEqual([ZONE_SPREAD]);
    expect(web?.spec.nodeSelector).toEqual({ 'kubernetes.io/arch': 'amd64' });
    expect(web?.spec.tolerations?.map((t) => t.key)).toEqual([
      'workload',
      'node.kubernetes.io/not-ready',
      'node.kubernetes.io/unreachable',
    ]);
    expect(web?.spec.containers).toEqual([{ name: 'requests', resources: { requests: { cpu: '250m', memory: String(512 * 2 ** 20) } } }]);
    const payments = podNamed(at2, 'payments-0');
    expect(payments?.spec.tolerations?.[0]).toEqual(DEDICATED_TOLERATION);
    expect(payments?.spec).toMatchObject({
      nodeName: NODE_C,
      nodeSelector: { 'karpenter.sh/nodepool': 'dedicated' },
      priority: 1000000,
      priorityClassName: 'payments-critical',
      // Only the PVC volume: the projected token volume pins nothing.
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-payments-0' } }],
    });
    expect(payments?.metadata.annotations).toEqual({ 'controller.kubernetes.io/pod-deletion-cost': '100' });
    expect(payments?.metadata.ownerReferences).toEqual([
      { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'payments', controller: true },
    ]);
  });

  it('1. a DaemonSet pod gets its own-node affinity back, and its host port', () => {
    const exporter = at2.objects.pods.filter((p) => p.metadata.ownerReferences?.[0]?.kind === 'DaemonSet');
    expect(exporter.map((p) => p.spec.nodeName).sort()).toEqual([NODE_A, NODE_B, NODE_C].sort());
    for (const p of exporter) {
      expect(p.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms).toEqual([
        { matchFields: [{ key: 'metadata.name', operator: 'In', values: [p.spec.nodeName] }] },
      ]);
      expect(p.spec.containers[0].ports).toEqual([{ containerPort: 9100, hostPort: 9100, protocol: 'TCP' }]);
    }
  });

  it('1. the scheduling spec is stored once per distinct spec: 3 web replicas one row, 3 node-exporter pods one row', () => {
    const specsOf = (where: string) => db.prepare(`SELECT COUNT(DISTINCT spec_hash) FROM pods WHERE ${where}`).pluck().get() as number;
    expect(specsOf("namespace = 'shop' AND owner_name = 'web-6f7d9c8b4'")).toBe(1);
    expect(specsOf("namespace = 'monitoring'")).toBe(1);
    // Distinct specs, counted by hand from the fixture: web, node-exporter, payments-0, the Job pod (500m, 1Gi), the
    // pending batch pod (t2 only), and one the migrate pod and karpenter's share: both ask 250m and 512Mi with the
    // default tolerations and nothing else (their images, labels and annotations are not scheduling spec).
    expect(db.prepare('SELECT COUNT(*) FROM pod_specs').pluck().get()).toBe(6);
    expect(db.prepare('SELECT COUNT(*) FROM pods').pluck().get()).toBe(11);
  });

  it('1. a pod not yet bound at the snapshot comes back pending', () => {
    const batch = podNamed(at2, 'batch-5b6c7d8e9-w2x3y');
    expect(batch?.spec.nodeName).toBeUndefined();
    expect(batch?.status?.phase).toBe('Pending');
    expect(batch?.spec.containers[0].resources?.requests).toEqual({ cpu: '3000m', memory: String(6 * 2 ** 30) });
    expect(podNamed(at1, 'batch-5b6c7d8e9-w2x3y')).toBeUndefined();
  });

  it('2. PodDisruptionBudgets, the PVC, the PV pinned to its zone, the StorageClass and the CSINode attach limits are there', () => {
    expect(at2.objects.podDisruptionBudgets).toEqual([
      {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: 'payments', namespace: 'payments' },
        spec: { minAvailable: 1, selector: { matchLabels: { app: 'payments' } } },
        status: { currentHealthy: 1, desiredHealthy: 1, disruptionsAllowed: 0, expectedPods: 1 },
      },
    ]);
    expect(at2.objects.persistentVolumeClaims.map((c) => [c.metadata.namespace, c.metadata.name, c.spec?.volumeName])).toEqual([
      ['payments', 'data-payments-0', PV_NAME],
    ]);
    expect(at2.objects.persistentVolumes[0].spec?.nodeAffinity?.required?.nodeSelectorTerms).toEqual([
      { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-west-2a'] }] },
    ]);
    expect(at2.objects.storageClasses[0]).toMatchObject({ provisioner: 'ebs.csi.aws.com', volumeBindingMode: 'WaitForFirstConsumer' });
    expect(at2.objects.csiNodes.map((c) => [c.metadata.name, c.spec.drivers])).toEqual(
      [NODE_A, NODE_B, NODE_C]
        .sort()
        .map((n) => [n, [{ name: 'ebs.csi.aws.com', topologyKeys: ['topology.ebs.csi.aws.com/zone'], allocatable: { count: 25 } }]]),
    );
    // The three CSINodes say the same once their node ids are left out: one stored body.
    expect(db.prepare("SELECT COUNT(DISTINCT hash) FROM kube_object_versions WHERE kind = 'CSINode'").pluck().get()).toBe(1);
  });

  it('2. node taints and cordons as at each snapshot: karpenter.sh/disrupted appears on the node it disrupts', () => {
    const nodeB = (s: ClusterSnapshot) => s.objects.nodes.find((n) => n.metadata.name === NODE_B);
    expect(nodeB(at1)?.spec?.taints).toBeUndefined();
    expect(nodeB(at1)?.spec?.unschedulable).toBeUndefined();
    expect(nodeB(at2)?.spec).toMatchObject({ taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }], unschedulable: true });
    // The dedicated pool's node keeps its taint; allocatable has every resource the node reports.
    const nodeC = at2.objects.nodes.find((n) => n.metadata.name === NODE_C);
    expect(nodeC?.spec?.taints).toEqual([{ key: 'dedicated', value: 'payments', effect: 'NoSchedule' }]);
    expect(nodeC?.status?.allocatable).toEqual({ cpu: '1930m', 'ephemeral-storage': '18242267924', memory: '15896504Ki', pods: '29' });
  });

  it('2. DaemonSets as the pod template each node runs; the EC2NodeClass with its subnets and capacity reservations', () => {
    expect(at2.objects.daemonSetPods?.map((p) => [p.metadata.namespace, p.metadata.name, p.spec.containers[0].resources])).toEqual([
      ['monitoring', 'node-exporter', { requests: { cpu: '100m', memory: '180Mi' }, limits: { memory: '180Mi' } }],
    ]);
    expect(at2.objects.nodeClasses.map((c) => c.status)).toEqual([EC2_NODE_CLASS_STATUS]);
    expect(at2.objects.nodeClasses[0].spec?.blockDeviceMappings).toEqual([
      { deviceName: '/dev/xvda', rootVolume: true, ebs: { volumeSize: '100Gi', volumeType: 'gp3', encrypted: true } },
    ]);
  });

  it('3. a finished Job pod runs at t1; at t2, still listed, it is Succeeded since its container finished (10:06:30, not the snapshot)', () => {
    expect(podNamed(at1, JOB_POD)?.status?.phase).toBe('Running');
    const done = podNamed(at2, JOB_POD);
    expect(done?.spec.nodeName).toBe(NODE_B);
    expect(done?.status?.phase).toBe('Succeeded');
    expect(done?.status?.containerStatuses?.map((c) => c.state?.terminated?.finishedAt)).toEqual(['2026-11-03T10:06:30.000Z']);
    expect(db.prepare('SELECT phase, finished_at FROM pods WHERE name = ?').get(JOB_POD)).toEqual({
      phase: 'Succeeded',
      finished_at: Date.parse(JOB_POD_FINISHED_AT),
    });
  });

  it('8. a do-not-disrupt duration round-trips as written, with the start time it runs from', () => {
    const dnd = podNamed(at2, DND_POD);
    expect(dnd?.metadata.annotations).toEqual({ 'karpenter.sh/do-not-disrupt': '30m' });
    expect(dnd?.status?.startTime).toBe('2026-11-03T09:50:00.000Z');
    expect(db.prepare('SELECT do_not_disrupt FROM pods WHERE name = ?').pluck().get(DND_POD)).toBe(1);
  });

  it('8. the do-not-disrupt duration honoured through the API: at 10:00, 10 minutes into its 30m, /api/whatif/why-not keeps its node in Karpenter v1.14.1 wording (statenode.go)', async () => {
    const res = await fetch(`${base}/api/whatif/why-not?at=${T1}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as WhyNotResponse;
    expect(body.nodes.find((n) => n.node === NODE_B)).toMatchObject({
      decision: 'keep',
      reason: `Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=shop/${DND_POD})`,
      wording: 'karpenter',
    });
    expect(body.command?.candidates ?? []).not.toContain(NODE_B);
  });

  it('8. a what-if ?at= an older snapshot uses the NodePools of then: a pod both pools admit goes to dedicated (weight 20) at t1, when default weighed 10, and to default (50) at t2', async () => {
    // Tolerates the dedicated pool's taint and needs a node of its own (1500m: no node has that much free).
    const pod = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'both', namespace: 'shop' },
      spec: {
        tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'payments', effect: 'NoSchedule' }],
        containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '1500m', memory: '1Gi' } } }],
      },
    });
    const poolAt = async (at: string) => {
      const res = await fetch(`${base}/api/whatif/predict?at=${at}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: pod,
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as PredictResponse).nodeClaims.map((nc) => nc.nodePool);
    };
    expect(await poolAt(T1)).toEqual(['dedicated']);
    expect(await poolAt(T2)).toEqual(['default']);
  });

  it('NodePools as they were at each snapshot (versioned), not as last collected', () => {
    const weight = (s: ClusterSnapshot) => s.objects.nodePools.find((np) => np.metadata.name === 'default')?.spec.weight;
    expect(weight(at1)).toBe(10);
    expect(weight(at2)).toBe(50);
    expect(at2.objects.nodePools.find((np) => np.metadata.name === 'dedicated')?.spec.template?.spec?.taints).toEqual([
      { key: 'dedicated', value: 'payments', effect: 'NoSchedule' },
    ]);
    // The unchanged dedicated pool is one version spanning both snapshots; the default pool two.
    expect(
      db.prepare("SELECT name, first_seen, last_seen FROM kube_object_versions WHERE kind = 'NodePool' ORDER BY name, first_seen").all(),
    ).toEqual([
      { name: 'dedicated', first_seen: Date.parse(T1), last_seen: Date.parse(T2) },
      { name: 'default', first_seen: Date.parse(T1), last_seen: Date.parse(T1) },
      { name: 'default', first_seen: Date.parse(T2), last_seen: Date.parse(T2) },
    ]);
  });

  it('a kind the cluster does not serve (NodeOverlay before Karpenter v1.7) is noted, and the rest is kept', () => {
    expect(at2.kinds?.NodeOverlay).toEqual({
      state: 'absent',
      message:
        'NodeOverlay is not served (404): NodeOverlay (karpenter.sh/v1alpha1) comes with Karpenter v1.7.0 and later: nothing to do before',
    });
    expect(at2.objects.nodeOverlays).toEqual([]);
    expect(at2.gaps).toEqual([
      'NodeOverlays: NodeOverlay is not served (404): NodeOverlay (karpenter.sh/v1alpha1) comes with Karpenter v1.7.0 and later: nothing to do before',
    ]);
    // Asked once per snapshot (a 404 is not retried), every other list paged two at a time.
    expect(requested.filter((p) => p === '/apis/karpenter.sh/v1alpha1/nodeoverlays')).toHaveLength(2);
  });

  it("Karpenter's version from its controller's image tag, and its own explanations stored per node and NodeClaim", () => {
    expect(at2.karpenterVersion).toEqual({
      version: '1.14.1',
      source: 'image',
      image: 'public.ecr.aws/karpenter/controller:1.14.1@sha256:7c3b9d8e2f1a0b4c6d5e8f7a9b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c',
      seenAt: Date.parse(T2),
    });
    const explained = createKarpenterExplanationsRepository(db).inRange({ fromMs: Date.parse(T1), toMs: Date.parse(T2) + 1 });
    // One row per decision (the Node's copy of a NodeClaim's event folded), oldest first.
    expect(explained.map((e) => [e.at, e.kind, e.nodeName, e.nodeClaim, e.nodePool, e.decision, e.savings, e.rejection, e.cause])).toEqual([
      [Date.parse('2026-11-03T10:06:00Z'), 'unconsolidatable', NODE_C, 'dedicated-g5h6i', 'dedicated', null, null, null, 'not-cheaper'],
      [Date.parse('2026-11-03T10:07:00Z'), 'candidate', NODE_B, CLAIM_B, 'default', 'delete', 0.1, null, null],
      [Date.parse('2026-11-03T10:07:20Z'), 'rejected', NODE_B, CLAIM_B, 'default', 'delete', 0.1, 'scheduling', null],
    ]);
    expect(explained.map((e) => e.message)).toEqual(["Can't replace with a cheaper node", CANDIDATE_MESSAGE, REJECTED_MESSAGE]);
  });
});
