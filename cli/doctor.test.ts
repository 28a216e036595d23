import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { writeKubeconfig } from '../sandbox/kubeconfig.js';
import { awsJsonError } from '../sandbox/serve/aws-json.js';
import type { SandboxHandler } from '../sandbox/serve/context.js';
import { createCostExplorerHandler } from '../sandbox/serve/cost-explorer.js';
import { ec2ErrorResponse, ec2Handler } from '../sandbox/serve/ec2.js';
import { createKubeHandler, status } from '../sandbox/serve/kube.js';
import { pricingHandler } from '../sandbox/serve/pricing.js';
import { newContext, serveHandlers, type ServedHandlers } from '../test/fixtures/serve-handlers.js';
import { TINY_END, tinyScenario } from '../test/fixtures/tiny-scenario.js';
import { type DoctorReport, runDoctor } from './doctor.js';

/**
 * `doctor` against the tiny scenario's account and cluster served on loopback; the clock stands at 11-15 00:00, so
 * "yesterday" is 11-14, when only the managed node ran: 24 h x USD 0.192 = USD 4.608.
 */
let dir: string;
let served: ServedHandlers | null = null;
const TOKEN = randomBytes(16).toString('hex');
const IDENTITY = 'arn:aws:iam::123456789012:user/ledger-reader';

/** Answers as AWS does when the identity's policies lack the action: AccessDeniedException (awsJson) or UnauthorizedOperation (EC2). */
const deny =
  (actions: string[]): SandboxHandler =>
  (req) => {
    const denied = (action: string): string =>
      `User: ${IDENTITY} is not authorized to perform: ${action} because no identity-based policy allows the ${action} action`;
    const target = req.headers['x-amz-target'];
    if (target === 'AWSInsightsIndexService.GetCostAndUsage' && actions.includes('ce:GetCostAndUsage'))
      return awsJsonError(400, 'AccessDeniedException', denied('ce:GetCostAndUsage'));
    if (target === 'AWSPriceListService.GetProducts' && actions.includes('pricing:GetProducts'))
      return awsJsonError(400, 'AccessDeniedException', denied('pricing:GetProducts'));
    if (req.body.toString('utf8').includes('Action=DescribeSpotPriceHistory') && actions.includes('ec2:DescribeSpotPriceHistory')) {
      return ec2ErrorResponse(
        403,
        'UnauthorizedOperation',
        `You are not authorized to perform this operation. ${denied('ec2:DescribeSpotPriceHistory')}`,
      );
    }
    return null;
  };

/** Answers as an API server does when the role lacks the resource: 403 Forbidden naming the user and resource. */
const forbid =
  (paths: string[]): SandboxHandler =>
  (req) => {
    const path = req.url.pathname;
    if (!paths.includes(path)) return null;
    const resource = path.split('/').at(-1) ?? '';
    const group = path.startsWith('/apis/') ? path.split('/')[2] : '';
    return status(
      403,
      'Forbidden',
      `${resource}${group ? `.${group}` : ''} is forbidden: User "system:serviceaccount:nodepool-ledger:nodepool-ledger" cannot list resource "${resource}" in API group "${group}" at the cluster scope`,
    );
  };

async function doctorAgainst(opts: {
  inactiveTags?: string[];
  denied?: string[];
  forbidden?: string[];
  kubeconfig?: { server?: string; token?: string };
}): Promise<DoctorReport> {
  served = await serveHandlers(
    [
      deny(opts.denied ?? []),
      forbid(opts.forbidden ?? []),
      createKubeHandler(tinyScenario(), TOKEN),
      createCostExplorerHandler({ inactiveTags: opts.inactiveTags }),
      pricingHandler,
      ec2Handler,
    ],
    newContext(tinyScenario(), TINY_END),
  );
  for (const key of ['AWS_ENDPOINT_URL_COST_EXPLORER', 'AWS_ENDPOINT_URL_PRICING', 'AWS_ENDPOINT_URL_EC2']) vi.stubEnv(key, served.url);
  const kubeconfig = join(dir, `kubeconfig-${randomBytes(4).toString('hex')}`);
  writeKubeconfig(kubeconfig, opts.kubeconfig?.server ?? served.url, opts.kubeconfig?.token ?? TOKEN, 'tiny-cluster');
  return runDoctor({ cluster: 'tiny-cluster', region: 'us-east-1', kubeconfig }, { out: () => {}, now: () => TINY_END });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-doctor-'));
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDDOCTORTEST');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'doctor-test-secret');
  vi.stubEnv('AWS_MAX_ATTEMPTS', '1');
});
afterEach(async () => {
  await served?.close();
  served = null;
});
afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

const FIX_NODEPOOL = [
  '      fix: AWS Billing and Cost Management console > Cost allocation tags > User-defined cost allocation tags: select karpenter.sh/nodepool, Activate',
  '       or: aws ce update-cost-allocation-tags-status --cost-allocation-tags-status TagKey=karpenter.sh/nodepool,Status=Active',
  '      activation takes up to 24 h and is not retroactive: cost billed before it stays untagged',
];

describe('doctor', () => {
  it('says everything is in place when it is', async () => {
    const report = await doctorAgainst({});
    expect(report.problems).toBe(0);
    expect(report.lines).toContain(
      '  ✓ ce:GetCostAndUsage allowed (this check made 1 request, USD 0.01): EC2 compute tagged eks:eks-cluster-name=tiny-cluster on 2026-11-14: USD 4.61',
    );
    expect(report.lines.at(-1)).toBe('everything collect needs is in place');
  });

  it('names the inactive NodePool tag with the exact fix, and filters by the cluster tag that is active', async () => {
    const report = await doctorAgainst({ inactiveTags: ['karpenter.sh/nodepool', 'eks:eks-cluster-name'] });
    const at = report.lines.indexOf(
      "  ✗ karpenter.sh/nodepool is Inactive as a cost allocation tag: Cost Explorer shows all of the cluster's cost as untagged, none per NodePool",
    );
    expect(at).toBeGreaterThan(0);
    expect(report.lines.slice(at + 1, at + 4)).toEqual(FIX_NODEPOOL);
    expect(report.lines).toContain(
      '  ✓ cluster tag kubernetes.io/cluster/tiny-cluster is Active (eks:eks-cluster-name: Inactive); collect filters the bill by kubernetes.io/cluster/tiny-cluster=owned',
    );
    expect(report.lines).toContain(
      '  ✓ ce:GetCostAndUsage allowed (this check made 1 request, USD 0.01): EC2 compute tagged kubernetes.io/cluster/tiny-cluster=owned on 2026-11-14: USD 4.61',
    );
    expect(report.problems).toBe(1);
    expect(report.lines.at(-1)).toBe('1 problem found');
  });

  it('says when neither cluster tag is active, and that the bill then finds nothing', async () => {
    const report = await doctorAgainst({ inactiveTags: ['eks:eks-cluster-name', 'kubernetes.io/cluster/tiny-cluster'] });
    const at = report.lines.indexOf(
      '  ✗ neither cluster tag is Active (eks:eks-cluster-name: Inactive, kubernetes.io/cluster/tiny-cluster: Inactive): the bill cannot be filtered to this cluster',
    );
    expect(at).toBeGreaterThan(0);
    expect(report.lines[at + 2]).toBe(
      '       or: aws ce update-cost-allocation-tags-status --cost-allocation-tags-status TagKey=eks:eks-cluster-name,Status=Active',
    );
    expect(report.lines).toContain(
      '  ! no cost found for eks:eks-cluster-name=tiny-cluster on 2026-11-14: check --cluster and the cluster tag above',
    );
    expect(report.problems).toBe(1);
  });

  it('names each IAM action that is missing (AccessDeniedException, UnauthorizedOperation)', async () => {
    const report = await doctorAgainst({ denied: ['ce:GetCostAndUsage', 'pricing:GetProducts', 'ec2:DescribeSpotPriceHistory'] });
    const missing = (action: string, error: string) =>
      `  ✗ ${action} is not allowed for ${IDENTITY}: add the IAM action ${action} to the policy of the identity the environment (AWS_ACCESS_KEY_ID) gives (${error})`;
    expect(report.lines.filter((l) => l.startsWith('  ✗'))).toEqual([
      missing('ce:GetCostAndUsage', 'AccessDeniedException'),
      missing('pricing:GetProducts', 'AccessDeniedException'),
      missing('ec2:DescribeSpotPriceHistory', 'UnauthorizedOperation'),
    ]);
    expect(report.lines).toContain('  ✓ ce:ListCostAllocationTags allowed');
    expect(report.problems).toBe(3);
  });

  it('names a kind the role does not grant (a problem, with the rule to add) and one the cluster does not serve (a note)', async () => {
    const report = await doctorAgainst({ forbidden: ['/apis/policy/v1/poddisruptionbudgets'] });
    const at = report.lines.findIndex((l) => l.startsWith('  ✗'));
    expect(report.lines.slice(at, at + 2)).toEqual([
      '  ✗ list PodDisruptionBudgets: forbidden (403): grant list and watch on policy poddisruptionbudgets (deploy/kubernetes/clusterrole.yaml has it: re-apply it)',
      '      without them the what-ifs do not know which nodes Karpenter may not empty ("Pdb prevents pod evictions")',
    ]);
    expect(report.problems).toBe(1);
    // A kind the tiny scenario's API does not serve (404) is a note, not a problem, e.g. NodeOverlay before Karpenter v1.7.
    for (const l of report.lines.filter((x) => x.includes('is not served (404)')))
      expect(l).toMatch(/^ {2}! [A-Za-z0-9]+ is not served \(404\): .*; without them the what-ifs do not know /);
  });

  it('says which kubeconfig, context and server it tried when the cluster cannot be reached or refuses the token', async () => {
    const unreachable = await doctorAgainst({ kubeconfig: { server: 'http://127.0.0.1:9' } });
    const tried = unreachable.lines.find((l) => l.startsWith('Kubernetes ('));
    expect(tried).toMatch(
      /^Kubernetes \(kubeconfig \S+kubeconfig-[0-9a-f]{8}, context sandbox-tiny-cluster, server http:\/\/127\.0\.0\.1:9\)$/,
    );
    const failures = unreachable.lines.filter((l) => l.startsWith('  ✗ list'));
    // An unreachable server: one line, not five.
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(
      /^ {2}✗ list nodes: .*ECONNREFUSED.* \(tried kubeconfig \S+, context sandbox-tiny-cluster, server http:\/\/127\.0\.0\.1:9\)$/,
    );
    expect(unreachable.problems).toBe(1);
    await served?.close();

    const refused = await doctorAgainst({ kubeconfig: { token: 'wrong-token' } });
    const lines = refused.lines.filter((l) => l.startsWith('  ✗ list'));
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(
      /^ {2}✗ list nodes: the API server refused the credentials \(401 Unauthorized\): refresh them \(e\.g\. aws eks update-kubeconfig\) or check the context \(tried kubeconfig \S+, context sandbox-tiny-cluster, server http:\/\/127\.0\.0\.1:\d+\)$/,
    );
  });
});
