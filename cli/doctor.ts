import { type CostExplorerClient, GetCostAndUsageCommand } from '@aws-sdk/client-cost-explorer';
import { DescribeSpotPriceHistoryCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { GetProductsCommand, type PricingClient } from '@aws-sdk/client-pricing';
import {
  type AllocationTagStatus,
  checkCostAllocationTags,
  chooseClusterTag,
  type ClusterTag,
} from '../collectors/cost-explorer/allocation-tags.js';
import { createCostExplorerClient } from '../collectors/cost-explorer/client.js';
import { clusterComputeFilter } from '../collectors/cost-explorer/collect.js';
import { kubeErrorText } from '../collectors/kubernetes/api-error.js';
import { createKubeClients, type KubeClients } from '../collectors/kubernetes/client.js';
import { EXTRA_KINDS, kindStateOf } from '../collectors/kubernetes/kinds.js';
import { METRICS_GROUP, METRICS_VERSION, metricsMessage, metricsStateOf } from '../collectors/kubernetes/metrics.js';
import { createPricingClient } from '../collectors/pricing/client.js';
import { createEc2Client } from '../collectors/spot/client.js';
import { clusterOwnedTag, TAG_CLUSTER_NAME, TAG_NODEPOOL } from '../core/labels.js';
import { isRegionName, type RegionFacts, regionFacts } from '../core/partitions.js';
import { staticTableFor } from '../core/static-prices.js';
import { resolve } from 'node:path';
import { DEFAULT_DB_PATH } from './default-db-path.js';
import { checkStore } from './doctor-store.js';
import { UsageError } from './usage-error.js';
import { DAY_MS } from '../core/time.js';

export const DOCTOR_HELP = `Usage: nodepool-ledger doctor --cluster NAME [--region R] [--kubeconfig PATH] [--context NAME] [--billing-profile P]
                               [--db .ledger/ledger.db]

Checks what 'collect' needs, and says how to fix what is missing:
  - the cost allocation tags karpenter.sh/nodepool and the cluster tag (eks:eks-cluster-name or
    kubernetes.io/cluster/NAME) are Active (ce:ListCostAllocationTags);
  - the IAM actions ce:GetCostAndUsage (one request: USD 0.01), ce:ListCostAllocationTags, pricing:GetProducts and
    ec2:DescribeSpotPriceHistory (a dry run) are allowed for the credentials the standard AWS chain finds (Cost
    Explorer: those of --billing-profile when given), each at the endpoint of the cluster's partition; where collect
    makes no Pricing call (GovCloud, isolated partitions) it says why;
  - the cluster answers lists of nodes, pods, NodeClaims, NodePools and events (naming the kubeconfig, context and
    server it tried);
  - the cluster answers lists of what the what-ifs read beyond nodes and pods (PodDisruptionBudgets, DaemonSets,
    PersistentVolumeClaims and PersistentVolumes, StorageClasses, CSINodes, EC2NodeClasses, NodeOverlays): one the
    role does not grant is named with the rule to add; one the cluster does not serve (NodeOverlay before Karpenter
    v1.7) is a note;
  - metrics-server answers metrics.k8s.io (what pods really use); without it collect goes on with requests only, so
    this is a warning (!), not a problem;
  - the database (--db): its size, whether it shrinks as retention deletes, how long 5-minute and hourly snapshots
    are kept, what is folded so far and the last retention pass (read only: nothing is written).
Exit code 0 when everything is in order, 1 otherwise.`;

export const DOCTOR_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  cluster: { type: 'string' },
  region: { type: 'string' },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  'billing-profile': { type: 'string' },
  db: { type: 'string' },
} as const;

export interface DoctorOptions {
  cluster: string;
  region?: string;
  kubeconfig?: string;
  context?: string;
  /** The AWS profile that reads Cost Explorer (GovCloud: the associated standard account's). */
  billingProfile?: string;
  /** The database collect writes (its size and retention are checked); default .ledger/ledger.db. */
  dbPath?: string;
}

export interface DoctorIo {
  out?: (line: string) => void;
  now?: () => number;
  env?: NodeJS.ProcessEnv;
}

export interface DoctorReport {
  problems: number;
  lines: string[];
}

const BILLING_CONSOLE_PATH = 'AWS Billing and Cost Management console > Cost allocation tags > User-defined cost allocation tags';

export function doctorOptionsFrom(v: Record<string, string | boolean | undefined>): DoctorOptions {
  const str = (k: string): string | undefined => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
  const cluster = str('cluster');
  if (!cluster) throw new UsageError('doctor needs --cluster NAME (the EKS cluster name)');
  const region = str('region');
  if (region !== undefined && !isRegionName(region))
    throw new UsageError(`--region must be an AWS region name like us-east-1, eu-west-1 or cn-north-1, got "${region}"`);
  return {
    cluster,
    region,
    kubeconfig: str('kubeconfig'),
    context: str('context'),
    billingProfile: str('billing-profile'),
    dbPath: resolve(str('db') ?? DEFAULT_DB_PATH),
  };
}

interface AwsErrorLike {
  name: string;
  message: string;
  status: number | undefined;
}

const awsError = (err: unknown): AwsErrorLike => {
  const e = err as { name?: unknown; message?: unknown; $metadata?: { httpStatusCode?: unknown } } | null;
  return {
    name: typeof e?.name === 'string' ? e.name : 'Error',
    message: typeof e?.message === 'string' ? e.message : String(err),
    status: typeof e?.$metadata?.httpStatusCode === 'number' ? e.$metadata.httpStatusCode : undefined,
  };
};

/** Error names with which AWS refuses an action the identity's policies do not allow. */
const DENIED = new Set(['AccessDeniedException', 'AccessDenied', 'UnauthorizedOperation', 'UnauthorizedException']);
/** Error names that mean the credentials themselves are missing, wrong or expired. */
const NO_CREDENTIALS = new Set([
  'CredentialsProviderError',
  'UnrecognizedClientException',
  'InvalidClientTokenId',
  'ExpiredToken',
  'ExpiredTokenException',
  'AuthFailure',
  'InvalidSignatureException',
]);

/** What to tell the user about a failed AWS call made for `action`. */
export function explainAwsFailure(action: string, err: unknown, credentialSource: string): string {
  const e = awsError(err);
  if (DENIED.has(e.name) || e.status === 403) {
    // AWS names the identity and the action: "User: arn:... is not authorized to perform: ce:GetCostAndUsage ...".
    const identity = /User: (\S+) is not authorized/.exec(e.message)?.[1];
    const named = /not authorized to perform:? ([a-z0-9-]+:[A-Za-z0-9]+)/.exec(e.message)?.[1] ?? action;
    return `${named} is not allowed${identity ? ` for ${identity}` : ''}: add the IAM action ${named} to the policy of the identity ${credentialSource} gives (${e.name})`;
  }
  if (NO_CREDENTIALS.has(e.name)) {
    return `${action}: the AWS credentials were not usable (${e.name}: ${e.message}); ${credentialSource} was tried: set AWS_PROFILE or refresh the credentials (e.g. aws sso login)`;
  }
  return `${action} failed: ${e.name}: ${e.message}`;
}

/** Where the standard chain will find credentials, as far as the environment tells (never the secrets). */
export function credentialSourceOf(env: NodeJS.ProcessEnv): string {
  if (env.AWS_ACCESS_KEY_ID) return 'the environment (AWS_ACCESS_KEY_ID)';
  if (env.AWS_PROFILE) return `profile ${env.AWS_PROFILE} (AWS_PROFILE)`;
  if (env.AWS_WEB_IDENTITY_TOKEN_FILE) return 'web identity (AWS_WEB_IDENTITY_TOKEN_FILE, e.g. IRSA)';
  if (env.AWS_CONTAINER_CREDENTIALS_FULL_URI || env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI)
    return 'the container credentials endpoint (e.g. EKS Pod Identity)';
  return 'the default chain (profile default, SSO, instance role)';
}

function tagFix(keys: string[]): string[] {
  return [
    `      fix: ${BILLING_CONSOLE_PATH}: select ${keys.join(' and ')}, Activate`,
    `       or: aws ce update-cost-allocation-tags-status --cost-allocation-tags-status ${keys.map((k) => `TagKey=${k},Status=Active`).join(' ')}`,
    '      activation takes up to 24 h and is not retroactive: cost billed before it stays untagged',
    '      (a backfill of up to 12 months can be asked for once a day: aws ce start-cost-allocation-tag-backfill --backfill-from <first day of a month>)',
  ];
}

const statusWord = (key: string, tags: AllocationTagStatus): string =>
  tags.active.includes(key) ? 'Active' : tags.inactive.includes(key) ? 'Inactive' : 'not known to billing';

const NOT_KNOWN = 'a tag key is listed only after a billed resource carried it (up to 24 h after Karpenter first tags an instance)';

/** Lines about the cost allocation tags; returns the problems found. */
function reportTags(o: DoctorOptions, tags: AllocationTagStatus, say: (line: string) => void): number {
  let problems = 0;
  if (tags.active.includes(TAG_NODEPOOL)) say(`  ✓ ${TAG_NODEPOOL} is an Active cost allocation tag`);
  else {
    problems += 1;
    const known = tags.inactive.includes(TAG_NODEPOOL);
    say(
      `  ✗ ${TAG_NODEPOOL} is ${known ? 'Inactive' : 'not known to billing'} as a cost allocation tag: Cost Explorer shows all of the cluster's cost as untagged, none per NodePool`,
    );
    if (!known) say(`      ${NOT_KNOWN}`);
    for (const l of tagFix([TAG_NODEPOOL])) say(l);
  }
  const owned = clusterOwnedTag(o.cluster);
  const choice = chooseClusterTag(o.cluster, tags);
  if (choice.active) {
    const other = choice.tag.key === TAG_CLUSTER_NAME ? owned : TAG_CLUSTER_NAME;
    say(
      `  ✓ cluster tag ${choice.tag.key} is Active (${other}: ${statusWord(other, tags)}); collect filters the bill by ${choice.tag.key}=${choice.tag.value}`,
    );
  } else {
    problems += 1;
    say(
      `  ✗ neither cluster tag is Active (${TAG_CLUSTER_NAME}: ${statusWord(TAG_CLUSTER_NAME, tags)}, ${owned}: ${statusWord(owned, tags)}): the bill cannot be filtered to this cluster`,
    );
    if (!tags.inactive.includes(TAG_CLUSTER_NAME) && !tags.inactive.includes(owned)) say(`      ${NOT_KNOWN}`);
    for (const l of tagFix([TAG_CLUSTER_NAME])) say(l);
  }
  return problems;
}

interface AwsCheck {
  o: DoctorOptions;
  io: Required<DoctorIo>;
  say: (line: string) => void;
  /** Records a failed call and says how to fix it; true when the credentials themselves were unusable. */
  failed: (action: string, err: unknown, credentialSource: string) => boolean;
}

/**
 * The bill: cost allocation tags and one GetCostAndUsage, with the Cost Explorer credentials. Returns false when
 * those credentials are unusable and are the only ones (every other check would fail the same way).
 */
async function checkBill(c: AwsCheck, ce: CostExplorerClient, credentials: string, problems: { n: number }): Promise<boolean> {
  const { o, io, say } = c;
  let clusterTag: ClusterTag = { key: TAG_CLUSTER_NAME, value: o.cluster };
  try {
    const tags = await checkCostAllocationTags(ce, o.cluster);
    say('  ✓ ce:ListCostAllocationTags allowed');
    problems.n += reportTags(o, tags, say);
    clusterTag = chooseClusterTag(o.cluster, tags).tag;
  } catch (err) {
    if (c.failed('ce:ListCostAllocationTags', err, credentials) && o.billingProfile === undefined) return false;
  }
  const today = Math.floor(io.now() / DAY_MS) * DAY_MS;
  const yesterday = new Date(today - DAY_MS).toISOString().slice(0, 10);
  try {
    const out = await ce.send(
      new GetCostAndUsageCommand({
        TimePeriod: { Start: yesterday, End: new Date(today).toISOString().slice(0, 10) },
        Granularity: 'DAILY',
        Metrics: ['UnblendedCost'],
        Filter: clusterComputeFilter(o.cluster, clusterTag),
      }),
    );
    const total = out.ResultsByTime?.[0]?.Total?.UnblendedCost;
    const amount = Number(total?.Amount ?? '0');
    const unit = total?.Unit ?? 'USD';
    say(
      `  ✓ ce:GetCostAndUsage allowed (this check made 1 request, USD 0.01): EC2 compute tagged ${clusterTag.key}=${clusterTag.value} on ${yesterday}: ${unit} ${amount.toFixed(2)}`,
    );
    if (amount === 0)
      say(`  ! no cost found for ${clusterTag.key}=${clusterTag.value} on ${yesterday}: check --cluster and the cluster tag above`);
  } catch (err) {
    c.failed('ce:GetCostAndUsage', err, credentials);
  }
  return true;
}

/** pricing:GetProducts at the partition's endpoint, or why collect makes no such call. */
async function checkPricing(c: AwsCheck, facts: RegionFacts, pricing: PricingClient | null, credentials: string): Promise<void> {
  if (pricing === null || facts.pricing.region === null) {
    const table = staticTableFor(facts.region);
    const why = facts.pricing.region === null ? facts.pricing.why : 'no endpoint';
    const from = table ? `Karpenter's static table (${table.region}, ${table.currency})` : 'nowhere: no static table fits this partition';
    c.say(`  ✓ no Pricing API call in ${facts.region}, so pricing:GetProducts is not needed: ${why}; on-demand prices come from ${from}`);
    return;
  }
  try {
    await pricing.send(
      new GetProductsCommand({
        ServiceCode: 'AmazonEC2',
        MaxResults: 1,
        Filters: [
          { Type: 'TERM_MATCH', Field: 'regionCode', Value: facts.region },
          { Type: 'TERM_MATCH', Field: 'instanceType', Value: 'm5.large' },
        ],
      }),
    );
    c.say(`  ✓ pricing:GetProducts allowed (endpoint ${facts.pricing.region}, prices in ${facts.currency})`);
  } catch (err) {
    c.failed('pricing:GetProducts', err, credentials);
  }
}

async function checkSpot(c: AwsCheck, region: string, ec2: EC2Client, credentials: string): Promise<void> {
  try {
    await ec2.send(new DescribeSpotPriceHistoryCommand({ DryRun: true, ProductDescriptions: ['Linux/UNIX'], MaxResults: 5 }));
    c.say(`  ✓ ec2:DescribeSpotPriceHistory allowed (${region})`);
  } catch (err) {
    // A dry run that would have succeeded answers DryRunOperation.
    if (awsError(err).name === 'DryRunOperation') c.say(`  ✓ ec2:DescribeSpotPriceHistory allowed (dry run in ${region})`);
    else c.failed('ec2:DescribeSpotPriceHistory', err, credentials);
  }
}

async function checkAws(o: DoctorOptions, io: Required<DoctorIo>, say: (line: string) => void): Promise<number> {
  const region = o.region ?? io.env.AWS_REGION ?? io.env.AWS_DEFAULT_REGION;
  const credentials = credentialSourceOf(io.env);
  const clusterRegion = region ?? 'us-east-1';
  if (!isRegionName(clusterRegion)) {
    say('AWS');
    say(`  ✗ the cluster's region "${clusterRegion}" is not an AWS region name: pass --region (like us-east-1 or cn-north-1)`);
    return 1;
  }
  const facts = regionFacts(clusterRegion);
  say(
    `AWS (credentials: ${credentials}; cluster region ${region ?? 'us-east-1 (assumed: no --region or $AWS_REGION)'}, partition ${facts.partition}, prices in ${facts.currency})`,
  );
  const ceCredentials = o.billingProfile === undefined ? credentials : `profile ${o.billingProfile} (--billing-profile)`;
  const ce = createCostExplorerClient({
    region: facts.costExplorer.region,
    ...(o.billingProfile !== undefined ? { profile: o.billingProfile } : {}),
  });
  const pricing = facts.pricing.region === null ? null : createPricingClient({ region: facts.pricing.region });
  const ec2 = createEc2Client({ region: clusterRegion });
  const problems = { n: 0 };
  const check: AwsCheck = {
    o,
    io,
    say,
    failed: (action, err, source) => {
      problems.n += 1;
      say(`  ✗ ${explainAwsFailure(action, err, source)}`);
      return NO_CREDENTIALS.has(awsError(err).name);
    },
  };
  try {
    if (facts.costExplorer.otherAccount && o.billingProfile === undefined) {
      // A GovCloud account's bill is in its associated standard account, which these credentials cannot read.
      say(`  ! Cost Explorer not checked: ${facts.costExplorer.note}`);
      say(
        '      pass --billing-profile <profile of that account> to doctor and collect to read the bill; prices and estimates work without it',
      );
    } else if (!(await checkBill(check, ce, ceCredentials, problems))) return problems.n;
    await checkPricing(check, facts, pricing, credentials);
    await checkSpot(check, clusterRegion, ec2, credentials);
    return problems.n;
  } finally {
    ce.destroy();
    pricing?.destroy();
    ec2.destroy();
  }
}

const kubeStatus = (err: unknown): number | undefined => {
  const e = err as { code?: unknown; statusCode?: unknown } | null;
  return typeof e?.code === 'number' ? e.code : typeof e?.statusCode === 'number' ? e.statusCode : undefined;
};

/** What a failed list means, in the user's terms. */
function explainKubeFailure(what: string, err: unknown): string {
  const status = kubeStatus(err);
  if (status === 401)
    return `list ${what}: the API server refused the credentials (401 Unauthorized): refresh them (e.g. aws eks update-kubeconfig) or check the context`;
  if (status === 403) return `list ${what}: forbidden (403): the identity needs RBAC get/list/watch on ${what}`;
  if (status === 404 && (what === 'NodeClaims' || what === 'NodePools'))
    return `list ${what}: not found (404): Karpenter's karpenter.sh/v1 CRDs are not installed (Karpenter v1 or later is needed)`;
  const message = kubeErrorText(err);
  return `list ${what}: ${status && !message.includes(String(status)) ? `HTTP ${status}: ` : ''}${message}`;
}

async function checkKubernetes(o: DoctorOptions, io: Required<DoctorIo>, say: (line: string) => void): Promise<number> {
  let k: KubeClients;
  try {
    k = createKubeClients({ kubeconfig: o.kubeconfig, context: o.context, env: io.env });
  } catch (err) {
    say('Kubernetes');
    say(`  ✗ ${(err as Error).message}`);
    return 1;
  }
  say(`Kubernetes (${k.describe})`);
  const custom = (plural: string) => () => k.custom.listClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural, limit: 1 });
  const lists: [string, () => Promise<unknown>][] = [
    ['nodes', () => k.core.listNode({ limit: 1 })],
    ['pods', () => k.core.listPodForAllNamespaces({ limit: 1 })],
    ['NodeClaims', custom('nodeclaims')],
    ['NodePools', custom('nodepools')],
    ['events', () => k.core.listEventForAllNamespaces({ limit: 1 })],
  ];
  let problems = 0;
  let refused = false;
  for (const [what, list] of lists) {
    try {
      await list();
      say(`  ✓ list ${what}`);
    } catch (err) {
      problems += 1;
      say(`  ✗ ${explainKubeFailure(what, err)} (tried ${k.describe})`);
      // An unreachable server fails every list the same way: one line says it.
      if (kubeStatus(err) === undefined) return problems;
      if (kubeStatus(err) === 401) refused = true;
    }
  }
  // What the what-ifs read beyond nodes and pods (collectors/kubernetes/kinds.ts). collect goes on without any of them;
  // a kind not served (a CRD of a newer Karpenter) is a note, one the role does not grant is a problem with its fix.
  if (!refused)
    for (const x of EXTRA_KINDS) {
      try {
        await x.list(k, 1)(undefined);
        say(`  ✓ list ${x.title}`);
      } catch (err) {
        const state = kindStateOf(x, err);
        if (state.state === 'absent') say(`  ! ${state.message}; without them the what-ifs do not know ${x.usedFor}`);
        else {
          problems += 1;
          say(`  ✗ list ${x.title}: ${state.state === 'forbidden' ? state.message.replace(`${x.kind}: `, '') : kubeErrorText(err)}`);
          say(`      without them the what-ifs do not know ${x.usedFor}`);
        }
      }
    }
  // Usage: optional (collect carries on with requests only), so a warning rather than a problem.
  try {
    await k.custom.listClusterCustomObject({ group: METRICS_GROUP, version: METRICS_VERSION, plural: 'nodes', limit: 1 });
    say(`  ✓ list ${METRICS_GROUP} nodes (metrics-server answers: usage is collected with every snapshot)`);
  } catch (err) {
    const state = metricsStateOf(kubeStatus(err));
    say(`  ! ${metricsMessage(state, state === 'absent' ? undefined : kubeErrorText(err))}`);
  }
  return problems;
}

/** Runs every check and prints what is wrong and how to fix it. */
export async function runDoctor(o: DoctorOptions, io: DoctorIo = {}): Promise<DoctorReport> {
  const full: Required<DoctorIo> = { out: io.out ?? ((l) => console.log(l)), now: io.now ?? Date.now, env: io.env ?? process.env };
  const lines: string[] = [];
  const say = (line: string): void => {
    lines.push(line);
    full.out(line);
  };
  say(`nodepool-ledger doctor for cluster ${o.cluster}`);
  let problems = await checkAws(o, full, say);
  problems += await checkKubernetes(o, full, say);
  if (o.dbPath !== undefined) problems += checkStore(o.dbPath, say);
  say(problems === 0 ? 'everything collect needs is in place' : `${problems} problem${problems === 1 ? '' : 's'} found`);
  return { problems, lines };
}
