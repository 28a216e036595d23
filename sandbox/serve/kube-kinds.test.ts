import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PolicyV1Api,
  StorageV1Api,
  type V1Node,
  type V1Pod,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadInstanceCatalog } from '../../core/instance-catalog.js';
import { MINUTE_MS } from '../../core/time.js';
import { main } from '../../cli/main.js';
import type { SimulateJson } from '../../cli/simulate.js';
import { startSandbox, type RunningSandbox } from '../index.js';
import { scenarioCatalogue } from '../scenario/engine-cluster.js';
import { ebsAttachLimit } from '../scenario/storage.js';
import type { SimNode } from '../scenario/types.js';
import { loadCatalog } from '../scenario/catalog.js';

/**
 * The sandbox serves every kind a real cluster's API has for a what-if (issue 21), through @kubernetes/client-node
 * and kubectl: week4's first two days (a history of its own, kept in the scenario cache), which already hold the
 * dedicated and on-demand-only NodePools, the PDBs, the zone-spread and single-architecture Deployments, the
 * EBS-backed StatefulSet, the CronJob's finished pods, a disrupted node and a cordoned one.
 */

const KUBECTL = '/usr/bin/kubectl';
const DAYS = 2;
let sb: RunningSandbox;
let kc: KubeConfig;
let token: string;
const dir = mkdtempSync(join(tmpdir(), 'kube-kinds-'));

beforeAll(async () => {
  sb = await startSandbox({ days: DAYS, dir });
  kc = new KubeConfig();
  kc.loadFromFile(sb.kubeconfigPath);
  token = (JSON.parse(readFileSync(sb.kubeconfigPath, 'utf8')) as { users: { user: { token: string } }[] }).users[0].user.token;
}, 300_000);
afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

const at = (iso: string) => sb.ctx.clock.set(Date.parse(iso));
const get = async <T>(path: string): Promise<T> => {
  const res = await fetch(`${sb.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
};
type List = { metadata: { resourceVersion: string; continue?: string }; items: { metadata: { name: string; namespace?: string } }[] };

const COLLECTIONS = [
  '/apis/policy/v1/poddisruptionbudgets',
  '/apis/apps/v1/daemonsets',
  '/apis/apps/v1/deployments',
  '/apis/apps/v1/replicasets',
  '/apis/apps/v1/statefulsets',
  '/apis/batch/v1/jobs',
  '/apis/batch/v1/cronjobs',
  '/api/v1/persistentvolumeclaims',
  '/api/v1/persistentvolumes',
  '/apis/storage.k8s.io/v1/storageclasses',
  '/apis/storage.k8s.io/v1/csinodes',
  '/apis/karpenter.k8s.aws/v1/ec2nodeclasses',
  '/apis/karpenter.sh/v1alpha1/nodeoverlays',
];

describe('every kind, listed, paged and watched', () => {
  it.each(COLLECTIONS)('%s pages by limit/continue to the same items as one list', async (path) => {
    at('2026-11-02T17:00:00Z');
    const whole = await get<List>(path);
    const paged: string[] = [];
    let cont: string | undefined;
    do {
      const page: List = await get<List>(`${path}?limit=2${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
      paged.push(...page.items.map((i) => `${i.metadata.namespace ?? ''}/${i.metadata.name}`));
      cont = page.metadata.continue;
    } while (cont);
    expect(paged).toEqual(whole.items.map((i) => `${i.metadata.namespace ?? ''}/${i.metadata.name}`));
    expect(whole.items.length).toBeGreaterThan(0);
  });

  it('streams the PDB status the disruption controller writes as payments-api scales down in the evening', async () => {
    at('2026-11-02T21:00:00Z');
    const from = (await get<List>('/apis/policy/v1/namespaces/payments/poddisruptionbudgets')).metadata.resourceVersion;
    // the clock moves on first (within the hour a resourceVersion stays valid): the watch catches up to it
    at('2026-11-02T21:55:00Z');
    const ac = new AbortController();
    const res = await fetch(`${sb.url}/apis/policy/v1/namespaces/payments/poddisruptionbudgets?watch=true&resourceVersion=${from}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: ac.signal,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const { value } = await reader.read();
    ac.abort();
    const events = new TextDecoder()
      .decode(value)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; object: { status: { disruptionsAllowed: number; currentHealthy: number } } });
    expect(events.length).toBeGreaterThan(0);
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(['MODIFIED']));
    // the last status is the one of the pods listed now: minAvailable 2, so healthy − 2 may go
    const running = (
      await get<{ items: { metadata: { labels: Record<string, string> }; status: { phase: string } }[] }>(
        '/api/v1/namespaces/payments/pods',
      )
    ).items.filter((p) => p.metadata.labels.app === 'payments-api' && p.status.phase === 'Running').length;
    expect(events[events.length - 1].object.status).toMatchObject({
      currentHealthy: running,
      disruptionsAllowed: Math.max(0, running - 2),
    });
  });

  it('answers one object by name, as kubectl get pdb payments-api -n payments asks for it', async () => {
    at('2026-11-02T17:00:00Z');
    const pdb = await get<{ kind: string; metadata: { name: string } }>(
      '/apis/policy/v1/namespaces/payments/poddisruptionbudgets/payments-api',
    );
    expect(pdb).toMatchObject({ kind: 'PodDisruptionBudget', metadata: { name: 'payments-api' } });
    const res = await fetch(`${sb.url}/apis/policy/v1/namespaces/payments/poddisruptionbudgets/nope`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(404);
  });
});

describe('week4 holds what real clusters have', () => {
  const nodesAt = async () => (await kc.makeApiClient(CoreV1Api).listNode()).items;
  const podsAt = async () => (await kc.makeApiClient(CoreV1Api).listPodForAllNamespaces()).items;
  const labelOf = (n: V1Node, k: string) => n.metadata?.labels?.[k];
  const byName = (nodes: V1Node[]) => new Map(nodes.map((n) => [n.metadata?.name ?? '', n]));

  it('a tainted dedicated NodePool whose DaemonSet runs there alone, beside DaemonSets that tolerate every taint', async () => {
    at('2026-11-02T12:00:00Z');
    const pools = (await kc
      .makeApiClient(CustomObjectsApi)
      .listClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodepools' })) as {
      items: { metadata: { name: string }; spec: { template: { spec: { taints?: unknown[] } } } }[];
    };
    expect(pools.items.find((p) => p.metadata.name === 'dedicated')?.spec.template.spec.taints).toEqual([
      { key: 'dedicated', value: 'analytics', effect: 'NoSchedule' },
    ]);
    const nodes = byName(await nodesAt());
    const pods = await podsAt();
    const onPool = (ds: string) =>
      pods
        .filter((p) => p.metadata?.ownerReferences?.[0]?.name === ds)
        .map((p) => labelOf(nodes.get(p.spec?.nodeName ?? '') as V1Node, 'karpenter.sh/nodepool') ?? 'managed');
    expect(new Set(onPool('log-router'))).toEqual(new Set(['dedicated']));
    expect(onPool('aws-node')).toHaveLength(nodes.size);
    expect(onPool('node-exporter')).toHaveLength(nodes.size);
    const exporter = (await kc.makeApiClient(AppsV1Api).readNamespacedDaemonSet({ name: 'node-exporter', namespace: 'monitoring' })).spec
      ?.template.spec;
    expect(exporter?.tolerations).toEqual([{ effect: 'NoSchedule', operator: 'Exists' }]);
    // the DaemonSet controller adds its own tolerations to each pod (a cordoned node keeps its DaemonSet pods)
    const awsNode = pods.find((p) => p.metadata?.ownerReferences?.[0]?.name === 'aws-node');
    expect(awsNode?.spec?.tolerations).toContainEqual({
      key: 'node.kubernetes.io/unschedulable',
      operator: 'Exists',
      effect: 'NoSchedule',
    });
    expect(awsNode?.spec?.priorityClassName).toBe('system-node-critical');
    expect(awsNode?.spec?.priority).toBe(2000001000);
  });

  it('a PDB on payments-api holding its nodes at night: status as the disruption controller computes it from the listed pods', async () => {
    const policy = kc.makeApiClient(PolicyV1Api);
    for (const [time, running] of [
      ['2026-11-02T04:00:00Z', 2],
      ['2026-11-02T17:00:00Z', null],
    ] as const) {
      at(time);
      const pods = (await podsAt()).filter((p) => p.metadata?.labels?.app === 'payments-api' && p.status?.phase === 'Running');
      if (running !== null) expect(pods).toHaveLength(running);
      const pdb = await policy.readNamespacedPodDisruptionBudget({ name: 'payments-api', namespace: 'payments' });
      expect(pdb.spec?.minAvailable).toBe(2);
      // minAvailable 2: expected = the pods it selects, allowed = healthy − 2
      expect(pdb.status).toMatchObject({
        currentHealthy: pods.length,
        desiredHealthy: 2,
        expectedPods: pods.length,
        disruptionsAllowed: Math.max(0, pods.length - 2),
      });
    }
  });

  it('a zone-spread checkout Deployment, an arm64-only image and an amd64-only one on the on-demand-only NodePool', async () => {
    at('2026-11-02T12:00:00Z');
    const nodes = byName(await nodesAt());
    const pods = await podsAt();
    const of = (app: string) => pods.filter((p) => p.metadata?.labels?.app === app && p.status?.phase === 'Running');
    const nodeOf = (p: V1Pod) => nodes.get(p.spec?.nodeName ?? '') as V1Node;
    const perZone = new Map<string, number>();
    for (const p of of('checkout-web')) {
      const zone = labelOf(nodeOf(p), 'topology.kubernetes.io/zone') ?? '';
      perZone.set(zone, (perZone.get(zone) ?? 0) + 1);
    }
    // 6 replicas, maxSkew 1 over three zones: 2 in each
    expect([...perZone.values()]).toEqual([2, 2, 2]);
    expect(of('checkout-web')[0].spec?.topologySpreadConstraints).toEqual([
      {
        maxSkew: 1,
        topologyKey: 'topology.kubernetes.io/zone',
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: { app: 'checkout-web' } },
      },
    ]);
    expect(new Set(of('image-resizer').map((p) => labelOf(nodeOf(p), 'kubernetes.io/arch')))).toEqual(new Set(['arm64']));
    expect(new Set(of('fraud-scorer').map((p) => labelOf(nodeOf(p), 'kubernetes.io/arch')))).toEqual(new Set(['amd64']));
    expect(of('image-resizer')[0].spec?.nodeSelector).toMatchObject({ 'kubernetes.io/arch': 'arm64' });
    const steady = sb.scenario.nodePools.find((p) => p.name === 'steady');
    expect(steady?.capacityTypes).toEqual(['on-demand']);
    expect(steady?.instanceTypes.some((t) => t.startsWith('c7g.'))).toBe(true);
  });

  it('an EBS-backed StatefulSet pinned to the zone its pods first ran in, and every node’s attach limit', async () => {
    at('2026-11-02T12:00:00Z');
    const core = kc.makeApiClient(CoreV1Api);
    const nodes = byName(await nodesAt());
    const claims = (await core.listNamespacedPersistentVolumeClaim({ namespace: 'payments' })).items;
    expect(claims.map((c) => c.metadata?.name)).toEqual(['data-ledger-db-0', 'data-ledger-db-1', 'data-ledger-db-2']);
    const volumes = new Map((await core.listPersistentVolume()).items.map((v) => [v.metadata?.name, v]));
    for (const c of claims) {
      expect(c.status?.phase).toBe('Bound');
      const pv = volumes.get(c.spec?.volumeName);
      const pinned = pv?.spec?.nodeAffinity?.required?.nodeSelectorTerms[0].matchExpressions?.[0];
      const pod = await core.readNamespacedPod({ name: c.metadata?.name?.replace('data-', '') ?? '', namespace: 'payments' });
      expect(pinned).toEqual({
        key: 'topology.kubernetes.io/zone',
        operator: 'In',
        values: [labelOf(nodes.get(pod.spec?.nodeName ?? '') as V1Node, 'topology.kubernetes.io/zone')],
      });
      expect(pv?.spec?.csi?.driver).toBe('ebs.csi.aws.com');
      expect(pod.spec?.volumes).toContainEqual({ name: 'data', persistentVolumeClaim: { claimName: c.metadata?.name } });
    }
    const sc = (await kc.makeApiClient(StorageV1Api).listStorageClass()).items.find((s) => s.metadata?.name === 'gp3');
    expect(sc).toMatchObject({ provisioner: 'ebs.csi.aws.com', volumeBindingMode: 'WaitForFirstConsumer', parameters: { type: 'gp3' } });
    const csi = (await kc.makeApiClient(StorageV1Api).listCSINode()).items;
    const catalog = loadCatalog();
    for (const c of csi) {
      const node = nodes.get(c.metadata?.name ?? '');
      if (!node) continue; // registered a few seconds after its node
      const type = catalog.get(labelOf(node, 'node.kubernetes.io/instance-type') ?? '');
      expect(c.spec.drivers[0].allocatable?.count).toBe(type ? ebsAttachLimit({ labels: type.labels, vcpu: type.vcpu }) : -1);
    }
    expect(csi.filter((c) => nodes.has(c.metadata?.name ?? '')).length).toBe(nodes.size);
  });

  it('a CronJob whose finished pods stay listed, bound to their nodes, up to its history limits (3 succeeded, 1 failed)', async () => {
    at('2026-11-02T12:40:00Z');
    const batch = kc.makeApiClient(BatchV1Api);
    const cron = await batch.readNamespacedCronJob({ name: 'reconcile', namespace: 'payments' });
    expect(cron.spec).toMatchObject({ schedule: '15 * * * *', successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    const jobs = (await batch.listNamespacedJob({ namespace: 'payments' })).items;
    const complete = jobs.filter((j) => j.status?.conditions?.some((c) => c.type === 'Complete'));
    const failed = jobs.filter((j) => j.status?.conditions?.some((c) => c.type === 'Failed'));
    expect(complete).toHaveLength(3);
    expect(failed.map((j) => j.metadata?.name)).toEqual([`reconcile-${Date.parse('2026-11-01T09:15:00Z') / MINUTE_MS}`]);
    const pods = (await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: 'payments' })).items.filter(
      (p) => p.metadata?.labels?.app === 'reconcile',
    );
    const finished = pods.filter((p) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed');
    expect(finished.map((p) => p.status?.phase).sort()).toEqual(['Failed', 'Succeeded', 'Succeeded', 'Succeeded']);
    for (const p of finished) expect(p.spec?.nodeName).toMatch(/^ip-10-0-/);
  });

  it("Karpenter's own pods run the release's controller image; EC2NodeClasses with subnets, root volume and the system reservation", async () => {
    at('2026-11-02T12:00:00Z');
    const karpenter = (await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: 'karpenter' })).items;
    // charts/karpenter/values.yaml as the v1.14.1 release commit (c88abbb) wrote it
    expect(karpenter[0].spec?.containers[0].image).toBe(
      'public.ecr.aws/karpenter/controller:1.14.1@sha256:445baefaaa689029cc12ac1f659b916b0b82fb14308ce536f8521fcf079116fa',
    );
    // aws charts/karpenter/templates/deployment.yaml@v1.14.1 line 128 with values.yaml's defaults (reservedCapacity
    // true, the rest false): the env the collector reads the cluster's feature gates from.
    expect(karpenter[0].spec?.containers[0].env).toEqual([
      {
        name: 'FEATURE_GATES',
        value:
          'ReservedCapacity=true,SpotToSpotConsolidation=false,NodeRepair=false,NodeOverlay=false,StaticCapacity=false,CapacityBuffer=false',
      },
    ]);
    const classes = (
      (await kc
        .makeApiClient(CustomObjectsApi)
        .listClusterCustomObject({ group: 'karpenter.k8s.aws', version: 'v1', plural: 'ec2nodeclasses' })) as {
        items: { metadata: { name: string }; spec: Record<string, unknown>; status: Record<string, unknown> }[];
      }
    ).items;
    const system = classes.find((c) => c.metadata.name === 'system');
    expect(system?.spec.capacityReservationSelectorTerms).toEqual([{ id: 'cr-0a1b2c3d4e5f60718' }]);
    expect(system?.status.capacityReservations).toEqual([
      {
        availabilityZone: 'us-east-1b',
        id: 'cr-0a1b2c3d4e5f60718',
        instanceMatchCriteria: 'targeted',
        instanceType: 'm6i.large',
        ownerID: '111122223333',
        reservationType: 'default',
        state: 'active',
        interruptible: false,
      },
    ]);
    for (const c of classes) {
      expect((c.status.subnets as { zone: string }[]).map((s) => s.zone)).toEqual(['us-east-1a', 'us-east-1b', 'us-east-1c']);
      expect(c.spec.blockDeviceMappings).toEqual([
        {
          deviceName: '/dev/xvda',
          rootVolume: true,
          ebs: { volumeSize: '20Gi', volumeType: 'gp3', encrypted: true, deleteOnTermination: true },
        },
      ]);
    }
    const overlays = (await kc
      .makeApiClient(CustomObjectsApi)
      .listClusterCustomObject({ group: 'karpenter.sh', version: 'v1alpha1', plural: 'nodeoverlays' })) as {
      items: { metadata: { name: string } }[];
    };
    // week4's two NodeOverlays (issue 22; their specs are checked in kube-release.test.ts)
    expect(overlays.items.map((o) => o.metadata.name)).toEqual(['edp-discount', 'graviton-preference']);
  });

  it('a node Karpenter is disrupting carries karpenter.sh/disrupted and is being deleted; a cordoned node is unschedulable', async () => {
    const disrupted = sb.scenario.nodes.find((n) => n.disruptedAt !== undefined && n.deletionReason === 'Underutilized') as SimNode;
    sb.ctx.clock.set(disrupted.disruptedAt ?? 0);
    const node = await kc.makeApiClient(CoreV1Api).readNode({ name: disrupted.name });
    expect(node.spec?.taints).toContainEqual({ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' });
    expect(node.metadata?.deletionTimestamp).toBeDefined();
    // only its DaemonSet pods are left on it, draining with the instance
    const left = (await podsAt()).filter((p) => p.spec?.nodeName === disrupted.name);
    expect(new Set(left.map((p) => p.metadata?.ownerReferences?.[0]?.kind))).toEqual(new Set(['DaemonSet']));

    at('2026-11-02T11:00:00Z');
    const cordoned = (await nodesAt()).filter((n) => n.spec?.unschedulable === true);
    expect(cordoned).toHaveLength(1);
    expect(cordoned[0].spec?.taints).toContainEqual(
      expect.objectContaining({ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }),
    );
    at('2026-11-02T14:00:00Z');
    expect((await nodesAt()).filter((n) => n.spec?.unschedulable === true)).toHaveLength(0);
  });
});

describe.skipIf(!existsSync(KUBECTL))(
  'kubectl get … -o yaml of the sandbox is a real input for simulate (needs kubectl at /usr/bin/kubectl)',
  () => {
    it('dumps nodepools, nodes, pods, pdb and daemonsets and simulate --json runs on it, costing the nodes as the bill prices them', async () => {
      const now = Date.parse('2026-11-02T17:00:00Z');
      sb.ctx.clock.set(now);
      const dump = join(dir, 'cluster.yaml');
      // kubectl as a process (the sandbox answers it from this one: never block the event loop)
      const { stdout } = await promisify(execFile)(KUBECTL, ['get', 'nodepools,nodes,pods,pdb,daemonsets', '-A', '-o', 'yaml'], {
        env: { ...process.env, KUBECONFIG: sb.kubeconfigPath },
        maxBuffer: 256 * 2 ** 20,
      });
      writeFileSync(dump, stdout);
      const types = join(dir, 'types.json');
      writeFileSync(types, JSON.stringify(scenarioCatalogue(sb.scenario, now, loadInstanceCatalog())));
      const out: string[] = [];
      const err: string[] = [];
      vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
      vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
      const code = await main(['simulate', '--objects', dump, '--instance-types', types, '--now', new Date(now).toISOString(), '--json']);
      vi.restoreAllMocks();
      expect(err.join('\n')).toBe('');
      expect(code).toBe(0);
      const result = JSON.parse(out.join('\n')) as SimulateJson;
      expect(result.input.ignored).toEqual([]);
      const alive = sb.scenario.nodes.filter((n) => n.createdAt <= now && (n.deletedAt === null || n.deletedAt > now));
      // the managed node group's nodes carry no karpenter.sh/capacity-type: not Karpenter's, left out of the costs
      expect(result.unpricedNodes).toEqual(
        alive
          .filter((n) => n.nodePool === null)
          .map((n) => n.name)
          .sort(),
      );
      // every Karpenter node of the moment at its price: on-demand and reserved at the static rate, spot at the
      // simulated price of its zone then (worked from the history's own lists, not through a catalogue)
      const karpenter = alive.filter((n) => n.nodePool !== null);
      const spotAt = (type: string, zone: string) =>
        sb.scenario.spotPrices
          .filter((p) => p.instanceType === type && p.zone === zone && p.at <= now)
          .sort((a, b) => a.at - b.at)
          .pop()?.usdPerHour ?? NaN;
      const expected = karpenter.reduce(
        (s, n) => s + (n.capacityType === 'spot' ? spotAt(n.instanceType, n.zone) : sb.scenario.onDemandUsdPerHour[n.instanceType]),
        0,
      );
      expect(result.costUsdPerHour.before).toBeCloseTo(expected, 6);
      // the nodes held by payments-api's PDB or ledger-db's do-not-disrupt are never the round's candidates
      const held = new Set(
        sb.scenario.pods
          .filter((p) => p.labels.app === 'ledger-db' && p.createdAt <= now && (p.deletedAt === null || p.deletedAt > now))
          .map((p) => p.nodeName),
      );
      for (const d of result.consolidation.decisions) for (const c of d.candidates) expect(held.has(c)).toBe(false);
    }, 120_000);
  },
);
