import { writeFileSync } from 'node:fs';

/**
 * A kubeconfig (JSON is valid YAML) pointing at a sandbox's Kubernetes API with a bearer token (none when null).
 * With the CA certificate of an https server it is what kubectl needs (kubectl sends a token only over TLS);
 * without one, the server is plain http on loopback, which client-node reads only with TLS verification marked off.
 */
export function writeKubeconfig(path: string, server: string, token: string | null, clusterName: string, caCertPem?: string): void {
  writeKubeconfigContexts(path, [{ server, token, clusterName, caCertPem }]);
}

export interface KubeconfigCluster {
  server: string;
  token: string | null;
  clusterName: string;
  caCertPem?: string;
}

/** One context per cluster (`sandbox-<clusterName>`), the first the current one: the sandbox's clusters in one file. */
export function writeKubeconfigContexts(path: string, entries: readonly KubeconfigCluster[]): void {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: entries.map(({ server, clusterName, caCertPem }) => ({
      name: clusterName,
      cluster:
        caCertPem === undefined
          ? { server, 'insecure-skip-tls-verify': true }
          : { server, 'certificate-authority-data': Buffer.from(caCertPem).toString('base64') },
    })),
    users: entries.map(({ clusterName, token }) => ({ name: `${clusterName}-reader`, user: token === null ? {} : { token } })),
    contexts: entries.map(({ clusterName }) => ({
      name: `sandbox-${clusterName}`,
      context: { cluster: clusterName, user: `${clusterName}-reader` },
    })),
    'current-context': `sandbox-${entries[0].clusterName}`,
    preferences: {},
  };
  writeFileSync(path, JSON.stringify(config, null, 2), { mode: 0o600 });
}
