import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClients } from '../collectors/kubernetes/client.js';
import { cliProcess } from '../test/reliability/fixtures/cli.js';

/*
 * `nodepool-ledger sandbox` as a process, read with the real kubectl, curl and @kubernetes/client-node through the
 * kubeconfig it writes: https on the sandbox's port, a bearer token, and the CA of the certificate the sandbox made
 * at start. kubectl sends a token only over TLS, so these are what prove the sandbox speaks it.
 */
const hasKubectl = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A command, asynchronously: the sandbox process keeps answering while it runs. */
const run = (cmd: string, args: string[]) =>
  new Promise<Ran>((resolve) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
const kubectl = (kubeconfig: string, ...args: string[]) =>
  run('kubectl', ['--kubeconfig', kubeconfig, '--request-timeout', '20s', ...args]);

interface Kubeconfig {
  clusters: { cluster: Record<string, unknown> & { server: string } }[];
  users: { user: { token?: string } }[];
}

/** Starts `sandbox <args>` and waits for the kubeconfig line; stop with `child.kill`. */
async function startSandboxCli(args: string[], dir: string): Promise<{ child: ChildProcess; output: () => string; kubeconfig: string }> {
  const cli = cliProcess();
  const child = spawn(process.execPath, [...cli.argv, 'sandbox', '--port', '0', '--dir', dir, ...args], {
    env: cli.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const deadline = Date.now() + 60_000;
  while (!/^export KUBECONFIG=(\S+)$/m.test(output)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the sandbox did not start: ${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, output: () => output, kubeconfig: /^export KUBECONFIG=(\S+)$/m.exec(output)?.[1] ?? '' };
}

describe.skipIf(!hasKubectl)('sandbox over TLS, with kubectl and its token (needs kubectl on PATH)', () => {
  let dir: string;
  let sandbox: Awaited<ReturnType<typeof startSandboxCli>>;
  let config: Kubeconfig;
  let server: string;
  let token: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-sandbox-cli-'));
    sandbox = await startSandboxCli([], dir);
    config = JSON.parse(readFileSync(sandbox.kubeconfig, 'utf8')) as Kubeconfig;
    server = config.clusters[0].cluster.server;
    token = config.users[0].user.token ?? '';
  }, 90_000);

  afterAll(() => {
    if (sandbox?.child.exitCode === null) sandbox.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes a kubeconfig naming https://127.0.0.1, a token and the CA written beside it as ca.crt; says kubectl works', () => {
    expect(sandbox.kubeconfig).toBe(join(dir, 'kubeconfig'));
    expect(server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(token).toMatch(/^[0-9a-f]{48}$/);
    const caPem = readFileSync(join(dir, 'ca.crt'), 'utf8');
    expect(caPem).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(config.clusters[0].cluster).toEqual({ server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') });
    expect(sandbox.output()).toContain("# kubectl get nodes works (TLS, the kubeconfig's token)");
  });

  it('`kubectl get nodes` lists the simulated cluster with the token: the nodes @kubernetes/client-node reads there', async () => {
    const r = await kubectl(sandbox.kubeconfig, 'get', 'nodes', '-o', 'name');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const viaKubectl = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.replace(/^node\//, ''))
      .sort();
    const k = createKubeClients({ kubeconfig: sandbox.kubeconfig });
    const viaClient = (await k.core.listNode()).items.map((n) => n.metadata?.name ?? '').sort();
    expect(viaClient.length).toBeGreaterThan(3);
    expect(viaKubectl).toEqual(viaClient);
  });

  it('the token is checked: kubectl with another one gets 401', async () => {
    const wrong = join(dir, 'wrong-token.kubeconfig');
    const c = JSON.parse(readFileSync(sandbox.kubeconfig, 'utf8')) as Kubeconfig;
    c.users[0].user = { token: 'f'.repeat(48) };
    writeFileSync(wrong, JSON.stringify(c));
    const r = await kubectl(wrong, 'get', 'nodes', '-o', 'name');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/Unauthorized|the server has asked for the client to provide credentials/);
  });

  it('curl verifies the server with --cacert and lists nodes with the token; without the CA it refuses the certificate', async () => {
    const url = `${server}/api/v1/nodes?limit=2`;
    const ok = await run('curl', ['-sS', '--cacert', join(dir, 'ca.crt'), '-H', `Authorization: Bearer ${token}`, url]);
    expect(ok.code).toBe(0);
    const list = JSON.parse(ok.stdout) as { kind: string; items: unknown[] };
    expect({ kind: list.kind, items: list.items.length }).toEqual({ kind: 'NodeList', items: 2 });
    const viaLocalhost = await run('curl', [
      '-sS',
      '-o',
      '/dev/null',
      '-w',
      '%{http_code}',
      '--cacert',
      join(dir, 'ca.crt'),
      '-H',
      `Authorization: Bearer ${token}`,
      url.replace('127.0.0.1', 'localhost'),
    ]);
    expect(viaLocalhost.stdout).toBe('200');
    const untrusted = await run('curl', ['-sS', '-H', `Authorization: Bearer ${token}`, url]);
    expect(untrusted.code).toBe(60); // CURLE_PEER_FAILED_VERIFICATION: the certificate is the sandbox's own CA's
  });

  it('still answers plain HTTP on the same port (the AWS SDK and the clock use it)', async () => {
    const plain = server.replace('https:', 'http:');
    const clock = (await (await fetch(`${plain}/_sandbox/clock`)).json()) as { scenario: string };
    expect(clock.scenario).toBe('week4');
    expect((await fetch(`${plain}/api/v1/nodes?limit=1`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });
});

describe.skipIf(!hasKubectl)('sandbox --no-auth (needs kubectl on PATH)', () => {
  let dir: string;
  let sandbox: Awaited<ReturnType<typeof startSandboxCli>>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-sandbox-noauth-'));
    sandbox = await startSandboxCli(['--no-auth'], dir);
  }, 90_000);

  afterAll(() => {
    if (sandbox?.child.exitCode === null) sandbox.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes a kubeconfig without a token naming the plain-HTTP address, and kubectl lists nodes', async () => {
    const config = JSON.parse(readFileSync(sandbox.kubeconfig, 'utf8')) as Kubeconfig;
    expect(config.users.map((u) => u.user)).toEqual([{}]);
    expect(config.clusters[0].cluster.server).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const r = await kubectl(sandbox.kubeconfig, 'get', 'nodes', '-o', 'name');
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout.trim().split('\n').length).toBeGreaterThan(3);
  });
});
