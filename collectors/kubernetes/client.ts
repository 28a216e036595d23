import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { Agent as HttpsAgent } from 'node:https';
import { delimiter, join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, KubeConfig, type RequestContext } from '@kubernetes/client-node';

export interface KubeClientConfig {
  /** Path of a kubeconfig; default: $KUBECONFIG, then in-cluster (in a pod), then ~/.kube/config. */
  kubeconfig?: string;
  context?: string;
  /** The environment to read KUBECONFIG / KUBERNETES_SERVICE_HOST from (tests). */
  env?: NodeJS.ProcessEnv;
}

export interface KubeClients {
  config: KubeConfig;
  core: CoreV1Api;
  custom: CustomObjectsApi;
  /** Which kubeconfig/context/server was used, for error messages (never the credentials). */
  describe: string;
}

/**
 * client-node (1.4.0) builds a new https.Agent for every request (applySecurityAuthentication -> createAgent), so
 * every list and every page of one paid a whole TLS handshake: the largest single cost of a snapshot against a TLS
 * API server. This keeps one keep-alive agent per distinct set of TLS options (CA, client certificate and key, server
 * name, verification), so the connection is reused; a rotated client certificate gives a new agent. Proxy and plain
 * http agents are left as client-node made them. Idle keep-alive sockets do not hold the process open.
 */
export class KeepAliveKubeConfig extends KubeConfig {
  readonly #agents = new Map<string, HttpsAgent>();

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    const made = context.getAgent();
    if (!(made instanceof HttpsAgent) || made.constructor !== HttpsAgent) return;
    const { ca, cert, key, pfx, passphrase, rejectUnauthorized, servername } = made.options;
    const id = JSON.stringify([ca, cert, key, pfx, passphrase, rejectUnauthorized, servername]);
    let agent = this.#agents.get(id);
    if (agent === undefined) {
      agent = new HttpsAgent({ ...made.options, keepAlive: true });
      this.#agents.set(id, agent);
    }
    made.destroy();
    context.setAgent(agent);
  }
}

/** No kubeconfig anywhere, a context that does not exist, a file that cannot be read: says what was tried. */
export class KubeConfigError extends Error {}

/**
 * Builds the Kubernetes clients the standard way: an explicit kubeconfig, else $KUBECONFIG (the files it lists),
 * else the pod's service account when running in a cluster (KUBERNETES_SERVICE_HOST set), else ~/.kube/config.
 */
export function createKubeClients(cfg: KubeClientConfig = {}): KubeClients {
  const env = cfg.env ?? process.env;
  const kc = new KeepAliveKubeConfig();
  const homeConfig = join(homedir(), '.kube', 'config');
  let source: string;
  try {
    if (cfg.kubeconfig) {
      source = `kubeconfig ${cfg.kubeconfig}`;
      kc.loadFromFile(cfg.kubeconfig);
    } else if (env.KUBECONFIG) {
      source = `kubeconfig ${env.KUBECONFIG} (from $KUBECONFIG)`;
      // Several files, as kubectl merges them: the first one's current context wins.
      const [first, ...rest] = env.KUBECONFIG.split(delimiter).filter((f) => f !== '');
      kc.loadFromFile(first);
      for (const file of rest) {
        const other = new KubeConfig();
        other.loadFromFile(file);
        kc.mergeConfig(other, true);
      }
    } else if (env.KUBERNETES_SERVICE_HOST) {
      source = 'in-cluster service account';
      kc.loadFromCluster();
    } else if (existsSync(homeConfig)) {
      source = `kubeconfig ${homeConfig}`;
      kc.loadFromFile(homeConfig);
    } else {
      throw new KubeConfigError(
        `no Kubernetes configuration found: pass --kubeconfig, set KUBECONFIG, or run in a pod (tried ${homeConfig})`,
      );
    }
  } catch (err) {
    if (err instanceof KubeConfigError) throw err;
    throw new KubeConfigError(
      `cannot read the Kubernetes configuration (${cfg.kubeconfig ?? env.KUBECONFIG ?? homeConfig}): ${(err as Error).message}`,
    );
  }
  if (cfg.context) {
    const names = kc.getContexts().map((c) => c.name);
    if (!names.includes(cfg.context)) {
      throw new KubeConfigError(`context "${cfg.context}" is not in ${source} (contexts: ${names.join(', ') || 'none'})`);
    }
    kc.setCurrentContext(cfg.context);
  }
  const cluster = kc.getCurrentCluster();
  return {
    config: kc,
    core: kc.makeApiClient(CoreV1Api),
    custom: kc.makeApiClient(CustomObjectsApi),
    describe: `${source}, context ${kc.getCurrentContext() || '(none)'}, server ${cluster?.server ?? '(none)'}`,
  };
}
