import { parseDocument } from 'yaml';
import { isRegionName } from '../core/partitions.js';

/**
 * `--clusters FILE` (YAML) or a repeated `--context`: the clusters one ledger collects (docs/clusters.md). The whole
 * file is checked before anything is stored; every problem names its entry (`clusters[1] (staging): …`).
 */

export interface ClusterEntry {
  /** The EKS cluster name: eks:eks-cluster-name on its instances and bill lines. */
  name: string;
  /** kubeconfig context; null when in-cluster. */
  context: string | null;
  inCluster: boolean;
  /** AWS region of the cluster; null: the context's or the environment's. */
  region: string | null;
  /** 12-digit AWS account id; null: learnt from the credentials. */
  account: string | null;
  /** AWS profile of the cluster's account, or the role to assume for it (never both); null: the default chain. */
  profile: string | null;
  roleArn: string | null;
  prometheusUrl: string | null;
}

export class ClustersFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    super(`${file}: ${problems.length === 1 ? problems[0] : `${problems.length} problems:\n  ${problems.join('\n  ')}`}`);
    this.name = 'ClustersFileError';
  }
}

const KEYS = ['name', 'context', 'inCluster', 'region', 'account', 'profile', 'roleArn', 'prometheus'] as const;
/** IAM role ARNs in every partition (aws, aws-cn, aws-us-gov, …); the role name may carry a path. */
const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/;
const HTTP_URL = /^https?:\/\/[^/\s]+/;
/** A name Cost Explorer can carry in a tag value and a URL can carry in ?cluster= unescaped. */
const CLUSTER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One entry's value, or the problem with it. */
function entryOf(raw: unknown): ClusterEntry | string {
  if (!isRecord(raw)) return 'expected a mapping (name, context or inCluster, region, …)';
  const unknown = Object.keys(raw).filter((k) => !(KEYS as readonly string[]).includes(k));
  if (unknown.length > 0) return `unknown key ${unknown.map((k) => `"${k}"`).join(', ')} (known: ${KEYS.join(', ')})`;
  const text = (k: (typeof KEYS)[number]): string | null | undefined => {
    const v = raw[k];
    if (v === undefined || v === null) return null;
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
  };
  const name = text('name');
  if (name === null || name === undefined) return 'name: the EKS cluster name is required (its eks:eks-cluster-name tag)';
  if (!CLUSTER_NAME.test(name)) return `name: "${name}" is not an EKS cluster name (letters, digits, - and _, 100 at most)`;
  const inCluster = raw.inCluster ?? false;
  if (typeof inCluster !== 'boolean') return 'inCluster: true or false';
  const context = text('context');
  if (context === undefined) return 'context: a kubeconfig context name';
  if (inCluster && context !== null) return 'context and inCluster: one or the other, not both';
  if (!inCluster && context === null) return 'context: a kubeconfig context is required (or inCluster: true)';
  const region = text('region');
  if (region === undefined || (region !== null && !isRegionName(region)))
    return `region: an AWS region name like us-west-2, got ${JSON.stringify(raw.region)}`;
  const account = typeof raw.account === 'number' ? String(raw.account).padStart(12, '0') : text('account');
  if (account === undefined || (account !== null && !/^\d{12}$/.test(account)))
    return `account: a 12-digit AWS account id (quoted, so YAML keeps its leading zeros), got ${JSON.stringify(raw.account)}`;
  const profile = text('profile');
  if (profile === undefined) return 'profile: an AWS profile name';
  const roleArn = text('roleArn');
  if (roleArn === undefined || (roleArn !== null && !ROLE_ARN.test(roleArn)))
    return `roleArn: an IAM role ARN like arn:aws:iam::111111111111:role/ledger-read, got ${JSON.stringify(raw.roleArn)}`;
  if (profile !== null && roleArn !== null) return 'profile and roleArn: one or the other, not both';
  if (roleArn !== null && account !== null && roleArn.split(':')[4] !== account)
    return `roleArn: its account ${roleArn.split(':')[4]} is not the entry's account ${account}`;
  const prometheusUrl = text('prometheus');
  if (prometheusUrl === undefined || (prometheusUrl !== null && !HTTP_URL.test(prometheusUrl)))
    return `prometheus: an http(s) URL such as http://prometheus.monitoring:9090, got ${JSON.stringify(raw.prometheus)}`;
  return { name, context, inCluster, region, account, profile, roleArn, prometheusUrl };
}

/** The clusters of a file's text, or a ClustersFileError naming every bad entry. */
export function parseClustersFile(file: string, text: string): ClusterEntry[] {
  const doc = parseDocument(text);
  if (doc.errors.length > 0)
    throw new ClustersFileError(
      file,
      doc.errors.map((e) => `bad YAML: ${e.message.split('\n')[0]}`),
    );
  const root: unknown = doc.toJS();
  if (!isRecord(root) || !Array.isArray(root.clusters) || Object.keys(root).some((k) => k !== 'clusters'))
    throw new ClustersFileError(file, ['expected a mapping with one key, clusters: a list of clusters']);
  if (root.clusters.length === 0) throw new ClustersFileError(file, ['clusters: the list is empty']);
  const problems: string[] = [];
  const entries: ClusterEntry[] = [];
  const byName = new Map<string, number>();
  const byContext = new Map<string, number>();
  let inClusterAt: number | null = null;
  root.clusters.forEach((raw: unknown, i: number) => {
    const named = isRecord(raw) && typeof raw.name === 'string' ? ` (${raw.name})` : '';
    const where = `clusters[${i}]${named}`;
    const e = entryOf(raw);
    if (typeof e === 'string') {
      problems.push(`${where}: ${e}`);
      return;
    }
    const sameName = byName.get(e.name);
    if (sameName !== undefined) problems.push(`${where}: name: "${e.name}" is clusters[${sameName}]'s too`);
    byName.set(e.name, i);
    if (e.context !== null) {
      const sameContext = byContext.get(e.context);
      if (sameContext !== undefined) problems.push(`${where}: context: "${e.context}" is clusters[${sameContext}]'s too`);
      byContext.set(e.context, i);
    }
    if (e.inCluster) {
      if (inClusterAt !== null)
        problems.push(`${where}: inCluster: only one cluster can be the collector's own (clusters[${inClusterAt}] is)`);
      inClusterAt = i;
    }
    entries.push(e);
  });
  if (problems.length > 0) throw new ClustersFileError(file, problems);
  return entries;
}

/** A repeated `--context`: one cluster per context, named by `nameOf` (the context's cluster in the kubeconfig). */
export function clustersOfContexts(contexts: readonly string[], nameOf: (context: string) => string): ClusterEntry[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const entries = contexts.map((context, i) => {
    if (seen.has(context)) problems.push(`--context ${context}: given twice`);
    seen.add(context);
    // An EKS context's cluster is its ARN (arn:aws:eks:REGION:ACCOUNT:cluster/NAME): the name is its last part.
    const kubeCluster = nameOf(context);
    const arn = /^arn:aws[a-z-]*:eks:([a-z0-9-]+):(\d{12}):cluster\/(.+)$/.exec(kubeCluster);
    const name = arn?.[3] ?? kubeCluster;
    if (!CLUSTER_NAME.test(name))
      problems.push(`--context ${context} (#${i + 1}): its cluster "${kubeCluster}" is not an EKS cluster name`);
    return {
      name,
      context,
      inCluster: false,
      region: arn?.[1] ?? null,
      account: arn?.[2] ?? null,
      profile: null,
      roleArn: null,
      prometheusUrl: null,
    };
  });
  if (problems.length > 0) throw new ClustersFileError('--context', problems);
  return entries;
}
