import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createKubeClients, KubeConfigError } from './client.js';

/** Which configuration createKubeClients picks, and what it says it tried (no network involved). */
let dir: string;
const kubeconfig = (name: string, server: string, contexts: string[]): string => {
  const path = join(dir, name);
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: `${name}-cluster`, cluster: { server } }],
      users: [{ name: `${name}-user`, user: { token: 'not-a-secret' } }],
      contexts: contexts.map((c) => ({ name: c, context: { cluster: `${name}-cluster`, user: `${name}-user` } })),
      'current-context': contexts[0],
    }),
  );
  return path;
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-kubeconfig-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());

describe('createKubeClients', () => {
  it('uses the service account in a pod (KUBERNETES_SERVICE_HOST, no kubeconfig)', () => {
    vi.stubEnv('KUBERNETES_SERVICE_HOST', '10.100.0.1');
    vi.stubEnv('KUBERNETES_SERVICE_PORT', '443');
    const k = createKubeClients({ env: { KUBERNETES_SERVICE_HOST: '10.100.0.1', KUBERNETES_SERVICE_PORT: '443' } });
    expect(k.describe).toBe('in-cluster service account, context inClusterContext, server https://10.100.0.1:443');
  });

  it("prefers --kubeconfig, then $KUBECONFIG, to the pod's service account", () => {
    const a = kubeconfig('a', 'https://a.example:443', ['ctx-a']);
    const b = kubeconfig('b', 'https://b.example:443', ['ctx-b']);
    vi.stubEnv('KUBERNETES_SERVICE_HOST', '10.100.0.1');
    expect(createKubeClients({ kubeconfig: a, env: { KUBECONFIG: b, KUBERNETES_SERVICE_HOST: '10.100.0.1' } }).describe).toBe(
      `kubeconfig ${a}, context ctx-a, server https://a.example:443`,
    );
    expect(createKubeClients({ env: { KUBECONFIG: b, KUBERNETES_SERVICE_HOST: '10.100.0.1' } }).describe).toBe(
      `kubeconfig ${b} (from $KUBECONFIG), context ctx-b, server https://b.example:443`,
    );
  });

  it("merges the files $KUBECONFIG lists, the first one's context current, and switches with --context", () => {
    const a = kubeconfig('c', 'https://c.example:443', ['ctx-c']);
    const b = kubeconfig('d', 'https://d.example:443', ['ctx-d']);
    const env = { KUBECONFIG: [a, b].join(delimiter) };
    expect(createKubeClients({ env }).describe).toMatch(/context ctx-c, server https:\/\/c\.example:443$/);
    expect(createKubeClients({ env, context: 'ctx-d' }).describe).toMatch(/context ctx-d, server https:\/\/d\.example:443$/);
  });

  it('names the contexts there are when --context is not one of them, and the file when it cannot be read', () => {
    const a = kubeconfig('e', 'https://e.example:443', ['ctx-e', 'ctx-e2']);
    expect(() => createKubeClients({ kubeconfig: a, context: 'prod' })).toThrow(
      new KubeConfigError(`context "prod" is not in kubeconfig ${a} (contexts: ctx-e, ctx-e2)`),
    );
    expect(() => createKubeClients({ kubeconfig: join(dir, 'missing') })).toThrow(/cannot read the Kubernetes configuration \(.*missing\)/);
  });
});
