import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runDoctor } from '../../cli/doctor.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { podPhaseAt } from '../../sandbox/serve/kube-objects.js';
import { KUBE_SCHEDULER_POD_METRICS, MINIKUBE_NODE_METRICS } from '../../test/fixtures/metrics-server.js';
import { createKubeClients } from './client.js';
import { collectKubeSnapshot } from './collect.js';
import { collectUsage, PER_NAMESPACE_ABOVE_PODS, usageNamespaces } from './metrics.js';
import { mapNodeMetrics, mapPodMetrics } from './map-metrics.js';

/* The resource metrics API through the real @kubernetes/client-node, over HTTP on loopback. */

const AT = Date.parse('2026-11-05T17:00:00Z');

describe('usageNamespaces: one cluster-wide list up to PER_NAMESPACE_ABOVE_PODS pods, then one per namespace', () => {
  const pods = (n: number): { namespace: string }[] => Array.from({ length: n }, (_, i) => ({ namespace: `ns-${i % 3}` }));
  it.each([
    [1, undefined],
    [PER_NAMESPACE_ABOVE_PODS, undefined],
    [PER_NAMESPACE_ABOVE_PODS + 1, ['ns-0', 'ns-1', 'ns-2']],
  ])('%i pods -> %j', (n, want) => {
    expect(usageNamespaces(pods(n))).toEqual(want);
  });
});

describe('the real metrics-server samples map exactly', () => {
  it('PodMetrics: nanocores to fractional millicores, Ki to bytes, the window as a Go duration', () => {
    expect(mapPodMetrics(KUBE_SCHEDULER_POD_METRICS)).toEqual({
      namespace: 'kube-system',
      name: 'kube-scheduler-minikube',
      measuredAt: Date.parse('2022-01-27T19:24:31Z'),
      windowMs: 30_000,
      containers: [{ name: 'kube-scheduler', cpuMillicores: 9.55963, memoryBytes: 22244 * 1024 }],
    });
  });
  it('NodeMetrics', () => {
    expect(mapNodeMetrics(MINIKUBE_NODE_METRICS)).toEqual({
      name: 'minikube',
      measuredAt: Date.parse('2022-01-27T18:48:33Z'),
      windowMs: 30_000,
      cpuMillicores: 487.558164,
      memoryBytes: 732212 * 1024,
    });
  });
  it('an item whose quantities cannot be read is dropped, not taken as zero', () => {
    const bad = { ...KUBE_SCHEDULER_POD_METRICS, containers: [{ name: 'x', usage: { cpu: 'lots', memory: '1Ki' } }] };
    expect(mapPodMetrics(bad)).toBeNull();
    expect(mapNodeMetrics({ ...MINIKUBE_NODE_METRICS, timestamp: 'yesterday' })).toBeNull();
  });
});

describe('against the sandbox metrics-server', () => {
  let sb: RunningSandbox;
  beforeAll(async () => {
    sb = await startSandbox({ at: AT });
  });
  afterAll(async () => sb?.close());

  it('reads every running pod and node, with what the usage model says they use', async () => {
    const k = createKubeClients({ kubeconfig: sb.kubeconfigPath });
    const stats = { requests: 0, restarts: 0 };
    const usage = await collectUsage(k, AT, {}, stats);
    expect(usage.status.state).toBe('available');
    const running = sb.scenario.pods.filter((p) => podPhaseAt(p, AT) === 'Running');
    expect(usage.pods).toHaveLength(running.length);
    expect(usage.nodes.length).toBe(
      sb.scenario.nodes.filter((n) => n.createdAt <= AT && (n.deletedAt === null || n.deletedAt > AT)).length,
    );
    // metrics-server answers a list at once: one request each for pods and nodes, whatever the limit.
    expect(stats.requests).toBe(2);
    const grafana = running.find((p) => p.labels.app === 'grafana');
    const got = usage.pods.find((p) => p.name === grafana?.name);
    expect(got).toBeDefined();
    if (!grafana || !got) return;
    const want = sb.usage.usageAt(grafana, grafana.containers[0], got.measuredAt);
    expect(got.containers[0].cpuMillicores).toBeCloseTo(want.cpuMillicores, 6);
    expect(got.containers[0].memoryBytes).toBe(want.memoryBytes);
    expect(got.windowMs).toBeGreaterThanOrEqual(14_000);
    expect(got.measuredAt).toBeLessThan(AT);
  });

  it('listed namespace by namespace (large clusters) it reads the same pods, one request per namespace', async () => {
    const k = createKubeClients({ kubeconfig: sb.kubeconfigPath });
    const whole = await collectUsage(k, AT);
    const namespaces = [...new Set(sb.scenario.pods.map((p) => p.namespace))].sort();
    const stats = { requests: 0, restarts: 0 };
    const byNamespace = await collectUsage(k, AT, { namespaces }, stats);
    expect(byNamespace.status.state).toBe('available');
    const key = (p: { namespace: string; name: string }): string => `${p.namespace}/${p.name}`;
    expect(byNamespace.pods.map(key).sort()).toEqual(whole.pods.map(key).sort());
    expect(byNamespace.pods.length).toBeGreaterThan(0);
    expect(stats.requests).toBe(namespaces.length + 1);
  });

  it('the OOM-killed container is on its Pod: restartCount and lastState.terminated.reason OOMKilled, with its memory limit', async () => {
    const k = createKubeClients({ kubeconfig: sb.kubeconfigPath });
    const snap = await collectKubeSnapshot(k, AT);
    const grafana = snap.pods.find((p) => p.labels.app === 'grafana' && p.phase === 'Running');
    const c = grafana?.containers?.[0];
    expect(c?.restartCount).toBeGreaterThan(0);
    expect(c?.lastTermination).toMatchObject({ reason: 'OOMKilled', exitCode: 137 });
    expect(c?.limits.memoryBytes).toBe(768 * 2 ** 20);
    expect(c?.lastTermination?.finishedAt).toBeLessThanOrEqual(AT);
    // The throttled workload carries its CPU limit.
    const catalog = snap.pods.find((p) => p.labels.app === 'catalog-api');
    expect(catalog?.containers?.[0].limits.cpuMillicores).toBe(1500);
  });

  it('a 503 from an unavailable APIService is "unavailable", retried twice, and the snapshot goes on', async () => {
    const k = createKubeClients({ kubeconfig: sb.kubeconfigPath });
    sb.ctx.faults.push({ match: '/apis/metrics.k8s.io', status: 503, remaining: 10 });
    const stats = { requests: 0, restarts: 0 };
    try {
      const usage = await collectUsage(k, AT, {}, stats);
      expect(usage.status.state).toBe('unavailable');
      expect(usage.status.message).toContain('APIService v1beta1.metrics.k8s.io');
      expect(usage.pods).toEqual([]);
      expect(stats.requests).toBe(3);
    } finally {
      sb.ctx.faults.length = 0;
    }
  });
});

describe('a cluster without metrics-server', () => {
  let sb: RunningSandbox;
  beforeAll(async () => {
    sb = await startSandbox({ at: AT, metricsServer: false });
  });
  afterAll(async () => sb?.close());

  it('answers 404 on the group: "no metrics-server", one request, requests only', async () => {
    const k = createKubeClients({ kubeconfig: sb.kubeconfigPath });
    const stats = { requests: 0, restarts: 0 };
    const usage = await collectUsage(k, AT, {}, stats);
    expect(usage.status).toMatchObject({ state: 'absent', checkedAt: AT });
    expect(usage.status.message).toMatch(/^no metrics-server/);
    expect(stats.requests).toBe(1);
    expect(sb.ctx.requestLog.filter((r) => r.operation.includes('metrics.k8s.io'))).toHaveLength(1);
  });

  it('doctor says so once, as a warning with the fix, not as a problem', async () => {
    for (const [k, v] of Object.entries(sb.awsEnv)) vi.stubEnv(k, v);
    try {
      const report = await runDoctor(
        { cluster: sb.scenario.clusterName, region: sb.scenario.region, kubeconfig: sb.kubeconfigPath },
        { out: () => {}, now: () => AT },
      );
      const warnings = report.lines.filter((l) => l.includes('metrics-server'));
      expect(warnings).toEqual([expect.stringMatching(/^ {2}! no metrics-server: .*HTTP 404.*requests only.*metrics-server add-on/)]);
      expect(report.problems).toBe(0);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('paging, where an implementation pages (a tiny endpoint serving the real samples two pages long)', () => {
  let server: Server;
  let kubeconfig: string;
  const asked: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      asked.push(`${url.pathname}?${url.searchParams.toString()}`);
      const first = url.searchParams.get('continue') === null;
      const body =
        url.pathname === '/apis/metrics.k8s.io/v1beta1/pods'
          ? {
              kind: 'PodMetricsList',
              apiVersion: 'metrics.k8s.io/v1beta1',
              metadata: first ? { continue: 'page-2' } : {},
              items: [
                first
                  ? KUBE_SCHEDULER_POD_METRICS
                  : { ...KUBE_SCHEDULER_POD_METRICS, metadata: { ...KUBE_SCHEDULER_POD_METRICS.metadata, name: 'kube-scheduler-2' } },
              ],
            }
          : { kind: 'NodeMetricsList', apiVersion: 'metrics.k8s.io/v1beta1', metadata: {}, items: [MINIKUBE_NODE_METRICS] };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const dir = mkdtempSync(join(tmpdir(), 'ledger-metrics-paging-'));
    kubeconfig = join(dir, 'kubeconfig');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'u', user: { token: 't' } }],
        contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'ctx',
      }),
    );
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('follows continue with the limit it asked for', async () => {
    const usage = await collectUsage(createKubeClients({ kubeconfig }), Date.parse('2022-01-27T19:25:00Z'), { limit: 1 });
    expect(usage.pods.map((p) => p.name)).toEqual(['kube-scheduler-minikube', 'kube-scheduler-2']);
    expect(usage.nodes.map((n) => n.name)).toEqual(['minikube']);
    expect(asked).toEqual([
      '/apis/metrics.k8s.io/v1beta1/pods?limit=1',
      '/apis/metrics.k8s.io/v1beta1/pods?continue=page-2&limit=1',
      '/apis/metrics.k8s.io/v1beta1/nodes?limit=1',
    ]);
  });
});
