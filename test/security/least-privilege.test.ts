import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runCollect, type CollectOptions } from '../../cli/collect.js';
import { runDoctor } from '../../cli/doctor.js';
import { createKubeClients } from '../../collectors/kubernetes/client.js';
import { EXTRA_KINDS, type ExtraKind, statusOf } from '../../collectors/kubernetes/kinds.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { DAY_MS } from '../../core/time.js';

/*
 * Least privilege, checked against what the code really sends: a full collection (one pass, then --watch for a
 * few snapshots) and `doctor` run against the sandbox, whose request log records every AWS operation and every
 * Kubernetes request. deploy/iam-policy.json must allow exactly the AWS actions seen (no fewer: the collector would
 * fail; no more: needless privilege), and the ClusterRole in deploy/kubernetes must cover every list and watch
 * seen, on exactly the resources read.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
let sb: RunningSandbox;
const notServed: ExtraKind[] = [];
const dir = mkdtempSync(join(tmpdir(), 'ledger-least-privilege-'));

beforeAll(async () => {
  sb = await startSandbox({});
  for (const [k, v] of Object.entries(sb.awsEnv)) vi.stubEnv(k, v);
  vi.stubEnv('AWS_MAX_ATTEMPTS', '');
  const options: CollectOptions = {
    cluster: sb.scenario.clusterName,
    region: sb.scenario.region,
    sinceMs: 14 * DAY_MS,
    watch: false,
    intervalMs: 200,
    kubeconfig: sb.kubeconfigPath,
    dbPath: join(dir, 'ledger.db'),
    quiet: true,
  };
  const io = { now: () => sb.ctx.clock.now(), out: () => {}, err: () => {} };
  const once = await runCollect(options, io);
  expect(once.failures).toEqual([]);
  // --watch: the watch cache (list + watch), a snapshot per interval; stopped after a few.
  const stop = new AbortController();
  const watching = runCollect({ ...options, watch: true, dbPath: join(dir, 'watch.db') }, { ...io, signal: stop.signal });
  const deadline = Date.now() + 30_000;
  while (sb.ctx.requestLog.filter((r) => r.operation.startsWith('kube:WATCH')).length < 6 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 500));
  stop.abort();
  expect((await watching).failures).toEqual([]);
  const doctor = await runDoctor(
    { cluster: sb.scenario.clusterName, region: sb.scenario.region, kubeconfig: sb.kubeconfigPath },
    { out: () => {}, now: () => sb.ctx.clock.now() },
  );
  expect(doctor.lines.join('\n')).not.toMatch(/not allowed/);
  // Which extra kinds the sandbox serves (a 404 to the collector's own list call).
  const k = createKubeClients({ kubeconfig: sb.kubeconfigPath });
  for (const x of EXTRA_KINDS)
    await x
      .list(
        k,
        1,
      )(undefined)
      .catch((err: unknown) => {
        if (statusOf(err) === 404) notServed.push(x);
        else throw err;
      });
}, 120_000);

afterAll(async () => {
  vi.unstubAllEnvs();
  await sb?.close();
});

const operations = (): string[] => [...new Set(sb.ctx.requestLog.map((r) => r.operation))].sort();

describe('deploy/iam-policy.json', () => {
  const policy = JSON.parse(readFileSync(join(ROOT, 'deploy', 'iam-policy.json'), 'utf8')) as {
    Version: string;
    Statement: { Effect: string; Action: string[] | string; Resource: string; Condition?: unknown }[];
  };
  const allowed = policy.Statement.filter((s) => s.Effect === 'Allow')
    .flatMap((s) => [s.Action].flat())
    .sort();

  it('is a valid policy document that allows only, and never with wildcards', () => {
    expect(policy.Version).toBe('2012-10-17');
    expect(policy.Statement.every((s) => s.Effect === 'Allow')).toBe(true);
    for (const action of allowed) expect(action).toMatch(/^(ce|pricing|ec2):[A-Z][A-Za-z]+$/);
    expect(new Set(allowed).size).toBe(allowed.length);
  });

  it('allows exactly the AWS actions a full collection and doctor send, both ways', () => {
    // The sandbox logs AWS calls as <service>:<Operation>, which is also the IAM action's name.
    const sent = operations().filter((op) => /^(ce|pricing|ec2):/.test(op));
    expect(sent.length).toBeGreaterThanOrEqual(5);
    expect(allowed).toEqual(sent);
  });
});

describe('the ClusterRole in deploy/kubernetes', () => {
  const role = parseAllDocuments(readFileSync(join(ROOT, 'deploy', 'kubernetes', 'clusterrole.yaml'), 'utf8'))
    .map((d) => d.toJS() as { kind: string; rules?: { apiGroups: string[]; resources: string[]; verbs: string[] }[] })
    .find((o) => o.kind === 'ClusterRole');
  const granted = new Set(
    (role?.rules ?? []).flatMap((r) => r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => `${g}/${res}:${v}`)))),
  );

  /** `kube:GET /api/v1/pods` -> "/pods:list"; `kube:WATCH /apis/karpenter.sh/v1/nodeclaims` -> "karpenter.sh/nodeclaims:watch". */
  const requested = (): { rbac: string[]; discovery: string[] } => {
    const rbac = new Set<string>();
    const discovery = new Set<string>();
    for (const op of operations().filter((o) => o.startsWith('kube:'))) {
      const [, method, path] = /^kube:(\S+) (\S+)$/.exec(op) ?? [];
      const m =
        /^\/api\/v1\/(?:namespaces\/[^/]+\/)?([a-z]+)$/.exec(path) ??
        // resource names may hold digits (ec2nodeclasses)
        /^\/apis\/([^/]+)\/[^/]+\/(?:namespaces\/[^/]+\/)?([a-z0-9]+)$/.exec(path);
      if (m === null) {
        discovery.add(`${method} ${path}`);
        continue;
      }
      const [group, resource] = m.length === 2 ? ['', m[1]] : [m[1], m[2]];
      rbac.add(`${group}/${resource}:${method === 'WATCH' ? 'watch' : 'list'}`);
    }
    return { rbac: [...rbac].sort(), discovery: [...discovery].sort() };
  };

  it('grants exactly the lists and watches the collector sends, both ways, metrics.k8s.io included (no get: nothing is read by name)', () => {
    const { rbac } = requested();
    expect(rbac).toEqual(
      expect.arrayContaining([
        '/pods:list',
        '/pods:watch',
        'karpenter.sh/nodeclaims:watch',
        'metrics.k8s.io/pods:list',
        'metrics.k8s.io/nodes:list',
        // Every kind the what-ifs read beyond nodes and pods is listed (collectors/kubernetes/kinds.ts).
        ...EXTRA_KINDS.map((x) => `${x.group}/${x.resource}:list`),
      ]),
    );
    // A kind the sandbox does not serve answers its list 404, so `collect --watch` has nothing to watch; on a cluster
    // that serves it the collector watches it (watch-cache.test.ts), so the role grants that watch too.
    const unwatched = notServed.map((x) => `${x.group}/${x.resource}:watch`);
    for (const w of unwatched) expect(rbac).not.toContain(w);
    expect([...granted].sort()).toEqual([...rbac, ...unwatched].sort());
  });

  it('matches the code: the collectors and doctor call only list* on the Kubernetes API clients (watches go through Watch)', () => {
    // A read*/get* call would need the `get` verb the ClusterRole no longer grants; this catches one before a cluster does.
    const files = [
      'collectors/kubernetes/collect.ts',
      'collectors/kubernetes/watch-cache.ts',
      'collectors/kubernetes/client.ts',
      'collectors/kubernetes/kinds.ts',
      'cli/doctor.ts',
      'cli/collect.ts',
    ];
    const calls = files.flatMap((f) => [...readFileSync(join(ROOT, f), 'utf8').matchAll(/\.(?:core|custom)\.(\w+)\(/g)].map((m) => m[1]));
    expect(calls.length).toBeGreaterThanOrEqual(10);
    expect(calls.filter((c) => !c.startsWith('list'))).toEqual([]);
  });

  it('names no resource the collector never reads', () => {
    const read = new Set(requested().rbac.map((r) => r.split(':')[0]));
    const named = new Set([...granted].map((g) => g.split(':')[0]));
    expect([...named].filter((r) => !read.has(r))).toEqual([]);
  });

  it('leaves only API discovery outside RBAC resources (allowed to every authenticated user)', () => {
    for (const d of requested().discovery) expect(d).toMatch(/^GET \/(version|api|apis)(\/[a-z0-9.-]+(\/v[0-9a-z]+)?)?$/);
  });
});
