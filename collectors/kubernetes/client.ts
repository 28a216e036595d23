import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';

export interface KubeClientConfig {
  /** Path of a kubeconfig; default: $KUBECONFIG, then ~/.kube/config, then in-cluster. */
  kubeconfig?: string;
  context?: string;
}

export interface KubeClients {
  config: KubeConfig;
  core: CoreV1Api;
  custom: CustomObjectsApi;
  /** Which kubeconfig/context/server was used, for error messages (never the credentials). */
  describe: string;
}

/** Builds the Kubernetes clients the standard way: kubeconfig file (and context) or in-cluster service account. */
export function createKubeClients(cfg: KubeClientConfig = {}): KubeClients {
  const kc = new KubeConfig();
  if (cfg.kubeconfig) kc.loadFromFile(cfg.kubeconfig);
  else kc.loadFromDefault();
  if (cfg.context) kc.setCurrentContext(cfg.context);
  const cluster = kc.getCurrentCluster();
  return {
    config: kc,
    core: kc.makeApiClient(CoreV1Api),
    custom: kc.makeApiClient(CustomObjectsApi),
    describe: `kubeconfig ${cfg.kubeconfig ?? process.env.KUBECONFIG ?? '~/.kube/config (or in-cluster)'}, context ${kc.getCurrentContext() || '(none)'}, server ${cluster?.server ?? '(none)'}`,
  };
}
