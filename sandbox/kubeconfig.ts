import { writeFileSync } from 'node:fs';

/**
 * A kubeconfig (JSON is valid YAML) pointing at a sandbox's Kubernetes API with a bearer token (none when null).
 * With the CA certificate of an https server it is what kubectl needs (kubectl sends a token only over TLS);
 * without one, the server is plain http on loopback, which client-node reads only with TLS verification marked off.
 */
export function writeKubeconfig(path: string, server: string, token: string | null, clusterName: string, caCertPem?: string): void {
  const cluster =
    caCertPem === undefined
      ? { server, 'insecure-skip-tls-verify': true }
      : { server, 'certificate-authority-data': Buffer.from(caCertPem).toString('base64') };
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: clusterName, cluster }],
    users: [{ name: `${clusterName}-reader`, user: token === null ? {} : { token } }],
    contexts: [{ name: `sandbox-${clusterName}`, context: { cluster: clusterName, user: `${clusterName}-reader` } }],
    'current-context': `sandbox-${clusterName}`,
    preferences: {},
  };
  writeFileSync(path, JSON.stringify(config, null, 2), { mode: 0o600 });
}
