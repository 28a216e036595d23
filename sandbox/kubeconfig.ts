import { writeFileSync } from 'node:fs';

/** A kubeconfig (JSON is valid YAML) pointing at the sandbox's Kubernetes API with a bearer token (none when null). */
export function writeKubeconfig(path: string, server: string, token: string | null, clusterName: string): void {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    // client-node refuses plain http unless TLS verification is marked off; the sandbox speaks http on loopback only.
    clusters: [{ name: clusterName, cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [{ name: `${clusterName}-reader`, user: token === null ? {} : { token } }],
    contexts: [{ name: `sandbox-${clusterName}`, context: { cluster: clusterName, user: `${clusterName}-reader` } }],
    'current-context': `sandbox-${clusterName}`,
    preferences: {},
  };
  writeFileSync(path, JSON.stringify(config, null, 2), { mode: 0o600 });
}
