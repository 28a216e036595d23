import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../index.js';
import { podPhaseAt } from './kube-objects.js';

/*
 * The sandbox's metrics.k8s.io through the real kubectl (/usr/bin/kubectl, Debian's kubernetes-client): discovery,
 * then `kubectl top` reads PodMetrics and NodeMetrics exactly as it does from metrics-server. kubectl sends bearer
 * tokens only over TLS and the sandbox speaks plain HTTP, so it runs without a token here (still 127.0.0.1 only).
 */

const run = promisify(execFile);
const KUBECTL = '/usr/bin/kubectl';
const AT = Date.parse('2026-11-05T17:00:00Z');
let sb: RunningSandbox;

beforeAll(async () => {
  sb = await startSandbox({ at: AT, auth: false });
});
afterAll(async () => sb?.close());

const kubectl = async (...args: string[]): Promise<string[]> => {
  const { stdout } = await run(KUBECTL, ['--kubeconfig', sb.kubeconfigPath, ...args], { timeout: 60_000 });
  return stdout
    .trim()
    .split('\n')
    .map((l) => l.trim());
};

describe.skipIf(!existsSync(KUBECTL))('kubectl top against the sandbox', () => {
  it('top pods -A lists every running pod with its CPU in millicores and memory in Mi', async () => {
    const lines = await kubectl('top', 'pods', '-A');
    expect(lines[0].split(/\s+/)).toEqual(['NAMESPACE', 'NAME', 'CPU(cores)', 'MEMORY(bytes)']);
    const running = sb.scenario.pods.filter((p) => podPhaseAt(p, AT) === 'Running');
    expect(lines.length - 1).toBe(running.length);
    // kubectl rounds CPU up to whole millicores and memory down to Mi: the same numbers the API carries.
    const ledger = running.find((p) => p.labels.app === 'ledger-db');
    const row = lines.find((l) => ledger !== undefined && l.includes(` ${ledger.name} `));
    expect(row).toBeDefined();
    const [, , cpu, mem] = row?.split(/\s+/) ?? [];
    const api = (await fetch(`${sb.url}/apis/metrics.k8s.io/v1beta1/namespaces/payments/pods/${ledger?.name}`).then((r) => r.json())) as {
      containers: { usage: { cpu: string; memory: string } }[];
    };
    const nanocores = Number(api.containers[0].usage.cpu.replace('n', ''));
    const kib = Number(api.containers[0].usage.memory.replace('Ki', ''));
    expect(cpu).toBe(`${Math.ceil(nanocores / 1e6)}m`);
    expect(mem).toBe(`${Math.floor(kib / 1024)}Mi`);
  });

  it('top pods --containers in one namespace, and top nodes with percentages of allocatable', async () => {
    const containers = await kubectl('top', 'pods', '-n', 'monitoring', '--containers');
    expect(containers[0].split(/\s+/)).toEqual(['POD', 'NAME', 'CPU(cores)', 'MEMORY(bytes)']);
    expect(containers.some((l) => /^grafana-\S+\s+grafana\s+\d+m\s+\d+Mi$/.test(l))).toBe(true);
    const nodes = await kubectl('top', 'nodes');
    expect(nodes[0].split(/\s+/)).toEqual(['NAME', 'CPU(cores)', 'CPU%', 'MEMORY(bytes)', 'MEMORY%']);
    const alive = sb.scenario.nodes.filter((n) => n.createdAt <= AT && (n.deletedAt === null || n.deletedAt > AT));
    expect(nodes.length - 1).toBe(alive.length);
    for (const l of nodes.slice(1)) expect(l).toMatch(/^ip-\S+\s+\d+m\s+\d+%\s+\d+Mi\s+\d+%$/);
  });

  it('a pod metrics-server does not know is NotFound, as from metrics-server', async () => {
    const res = await fetch(`${sb.url}/apis/metrics.k8s.io/v1beta1/namespaces/payments/pods/no-such-pod`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
  });
});
