import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClients } from '../collectors/kubernetes/client.js';
import { writeKubeconfig } from '../sandbox/kubeconfig.js';
import { createKubeHandler } from '../sandbox/serve/kube.js';
import { newContext, serveHandlers, type ServedHandlers } from '../test/fixtures/serve-handlers.js';
import { tinyScenario, TINY_END } from '../test/fixtures/tiny-scenario.js';

/*
 * `nodepool-ledger sandbox --no-auth` as a process, read with the real kubectl: kubectl sends bearer tokens only
 * over TLS, so against the plain-HTTP sandbox it needs an API that asks for none. Skipped where kubectl is not
 * installed (CI installs kubernetes-client when it can).
 */
const hasKubectl = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;

/** kubectl, asynchronously: a sandbox served by this process must keep answering while it runs. */
const kubectl = (kubeconfig: string, ...args: string[]) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const p = spawn('kubectl', ['--kubeconfig', kubeconfig, '--request-timeout', '20s', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    p.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });

describe.skipIf(!hasKubectl)('sandbox --no-auth with kubectl (needs kubectl on PATH)', () => {
  let dir: string;
  let child: ChildProcess;
  let output = '';
  let kubeconfig: string;
  let withAuth: ServedHandlers;
  let withAuthKubeconfig: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-sandbox-cli-'));
    child = spawn(process.execPath, ['--import', 'tsx', 'cli/run.ts', 'sandbox', '--no-auth', '--port', '0', '--dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr?.on('data', (d: Buffer) => {
      output += d.toString();
    });
    // Meanwhile, a small cluster behind the same Kubernetes handler with the token a default sandbox requires.
    const token = randomBytes(16).toString('hex');
    withAuth = await serveHandlers([createKubeHandler(tinyScenario(), token)], newContext(tinyScenario(), TINY_END));
    withAuthKubeconfig = join(dir, 'with-token.kubeconfig');
    writeKubeconfig(withAuthKubeconfig, withAuth.url, token, 'tiny');
    const deadline = Date.now() + 60_000;
    while (!/^export KUBECONFIG=(\S+)$/m.test(output)) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the sandbox did not start: ${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    kubeconfig = /^export KUBECONFIG=(\S+)$/m.exec(output)?.[1] ?? '';
  }, 90_000);

  afterAll(async () => {
    if (child?.exitCode === null) child.kill('SIGTERM');
    await withAuth?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes a kubeconfig without a token, pointing at 127.0.0.1, and says kubectl works', () => {
    expect(kubeconfig).toBe(join(dir, 'kubeconfig'));
    const config = JSON.parse(readFileSync(kubeconfig, 'utf8')) as {
      clusters: { cluster: { server: string } }[];
      users: { user: Record<string, unknown> }[];
    };
    expect(config.users.map((u) => u.user)).toEqual([{}]);
    expect(config.clusters[0].cluster.server).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(output).toContain('# no token (--no-auth): kubectl get nodes works');
  });

  it("lets `kubectl get nodes` list the simulated cluster: the nodes the collectors' client reads there", async () => {
    const r = await kubectl(kubeconfig, 'get', 'nodes', '-o', 'name');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const viaKubectl = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.replace(/^node\//, ''))
      .sort();
    const k = createKubeClients({ kubeconfig });
    const viaClient = (await k.core.listNode()).items.map((n) => n.metadata?.name ?? '').sort();
    expect(viaClient.length).toBeGreaterThan(3);
    expect(viaKubectl).toEqual(viaClient);
  });

  it("is needed: kubectl gets 401 from a sandbox API that wants the kubeconfig's token (kubectl will not send it over HTTP)", async () => {
    const r = await kubectl(withAuthKubeconfig, 'get', 'nodes', '-o', 'name');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/Unauthorized|the server has asked for the client to provide credentials/); // 401
  });
});
