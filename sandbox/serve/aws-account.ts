import { isRegionName, type Partition, partitionOf } from '../../core/partitions.js';
import type { SandboxContext, SandboxRequest } from './context.js';

/**
 * What the simulated AWS account checks on every AWS request, as AWS does: credentials belong to one partition
 * (keys of a China or GovCloud account are "invalid" at a commercial endpoint, and the reverse), and a service
 * answers only where it has an endpoint. The SDK signs each request for the region of the endpoint it resolved
 * (the credential scope of SigV4: `Credential=AKID/20261115/cn-northwest-1/pricing/aws4_request`), so the
 * signing region tells which endpoint a real client would have called, even when AWS_ENDPOINT_URL_* points it
 * at the sandbox. The sandbox logs that region with each request (never the key).
 */

export interface SigningScope {
  accessKeyId: string;
  region: string;
  service: string;
  /** X-Amz-Security-Token: sent with the keys of a temporary session (AssumeRole's), absent for long-term keys. */
  sessionToken?: string;
}

/** The SigV4 credential scope of a request; null for unsigned requests (curl), which are not checked. */
export function signingScope(req: SandboxRequest): SigningScope | null {
  const header = req.headers.authorization;
  const value = Array.isArray(header) ? header[0] : header;
  const m = /Credential=([^/,\s]+)\/\d{8}\/([^/]+)\/([^/]+)\/aws4_request/.exec(value ?? '');
  if (!m) return null;
  const token = req.headers['x-amz-security-token'];
  const sessionToken = Array.isArray(token) ? token[0] : token;
  return { accessKeyId: m[1], region: m[2], service: m[3], ...(sessionToken !== undefined ? { sessionToken } : {}) };
}

/** The partition the account's credentials belong to: set per key by a test, else the scenario's region's. */
export function credentialPartition(ctx: SandboxContext, accessKeyId: string): Partition {
  return ctx.credentialPartitions?.[accessKeyId] ?? ctx.stsSessions?.get(accessKeyId)?.partition ?? partitionOf(ctx.scenario.region);
}

/** A refusal in the service's own words: [HTTP status, error code, message]. */
export type Refusal = [number, string, string];

const INVALID_TOKEN = 'The security token included in the request is invalid.';

/**
 * Keys of a temporary session (ASIA…) are known only as AssumeRole issued them (sandbox/serve/sts.ts): with the
 * session token issued beside them and until they expire; the account's then, as the role's. Long-term keys (AKIA…)
 * are the account's whatever they are.
 */
export function sessionRefusal(ctx: SandboxContext, scope: SigningScope): Refusal | null {
  if (!scope.accessKeyId.startsWith('ASIA')) return null;
  const session = ctx.stsSessions?.get(scope.accessKeyId);
  if (session === undefined || session.sessionToken !== scope.sessionToken) return [403, 'UnrecognizedClientException', INVALID_TOKEN];
  if (Date.now() >= session.expiresAtMs) return [403, 'ExpiredTokenException', 'The security token included in the request is expired'];
  return null;
}

/** Credentials of another partition than the endpoint's (or a session AWS never issued): AWS does not know them there. */
export function crossPartition(ctx: SandboxContext, scope: SigningScope): Refusal | null {
  const session = sessionRefusal(ctx, scope);
  if (session) return session;
  if (!isRegionName(scope.region))
    return [400, 'InvalidSignatureException', `Credential should be scoped to a valid region, not '${scope.region}'.`];
  const endpoint = partitionOf(scope.region);
  const own = credentialPartition(ctx, scope.accessKeyId);
  return endpoint === own ? null : [403, 'UnrecognizedClientException', INVALID_TOKEN];
}

/** The regions the Price List query API is served from, by partition (none in GovCloud or the isolated ones). */
export const PRICING_ENDPOINT_REGIONS: Readonly<Partial<Record<Partition, readonly string[]>>> = {
  aws: ['us-east-1', 'eu-central-1', 'ap-south-1'],
  'aws-cn': ['cn-northwest-1'],
};

/** Cost Explorer has one endpoint per partition. */
export const COST_EXPLORER_REGIONS: Readonly<Partial<Record<Partition, string>>> = {
  aws: 'us-east-1',
  'aws-cn': 'cn-northwest-1',
};

/** Pricing: only at its endpoints, with credentials of their partition. */
export function checkPricing(ctx: SandboxContext, req: SandboxRequest): Refusal | null {
  const scope = signingScope(req);
  if (scope === null) return null;
  const refusal = crossPartition(ctx, scope);
  if (refusal) return refusal;
  const endpoints = PRICING_ENDPOINT_REGIONS[partitionOf(scope.region)] ?? [];
  if (!endpoints.includes(scope.region)) {
    const where = endpoints.length === 0 ? 'none in this partition' : endpoints.join(', ');
    return [
      404,
      'UnknownEndpoint',
      `there is no Price List API endpoint in ${scope.region} (endpoints: ${where}); a real client fails to resolve its host`,
    ];
  }
  return null;
}

/**
 * Cost Explorer: one endpoint per partition. A GovCloud account has no bill of its own: "billing information for
 * GovCloud accounts and regions are only available in the commercial partition", in the associated standard
 * account (AWS GovCloud (US) User Guide, Billing and Payment), so the bill of a GovCloud scenario is served at the
 * commercial endpoint to that account's (commercial) credentials.
 */
export function checkCostExplorer(ctx: SandboxContext, req: SandboxRequest): Refusal | null {
  const scope = signingScope(req);
  if (scope === null) return null;
  const session = sessionRefusal(ctx, scope);
  if (session) return session;
  const clusterPartition = partitionOf(ctx.scenario.region);
  const billedIn: Partition = clusterPartition === 'aws-us-gov' ? 'aws' : clusterPartition;
  if (!isRegionName(scope.region)) return crossPartition(ctx, scope);
  const endpointPartition = partitionOf(scope.region);
  if (clusterPartition === 'aws-us-gov' && endpointPartition === 'aws-us-gov')
    return [
      400,
      'ValidationException',
      'Billing data of AWS GovCloud (US) accounts is only available in the associated standard AWS account',
    ];
  const own = credentialPartition(ctx, scope.accessKeyId);
  if (own !== endpointPartition || endpointPartition !== billedIn) return [403, 'UnrecognizedClientException', INVALID_TOKEN];
  const endpoint = COST_EXPLORER_REGIONS[endpointPartition];
  if (endpoint !== scope.region)
    return [
      404,
      'UnknownEndpoint',
      `Cost Explorer has no endpoint in ${scope.region} (the ${endpointPartition} partition's is ${endpoint ?? 'unknown'})`,
    ];
  return null;
}

/** EC2: the account's credentials, and the sandbox simulates the scenario's region only. */
export function checkEc2(ctx: SandboxContext, req: SandboxRequest): Refusal | null {
  const scope = signingScope(req);
  if (scope === null) return null;
  const refusal = crossPartition(ctx, scope);
  if (refusal) return [401, 'AuthFailure', 'AWS was not able to validate the provided access credentials'];
  if (scope.region !== ctx.scenario.region)
    return [400, 'InvalidRequest', `the sandbox simulates EC2 in ${ctx.scenario.region} only; this request was signed for ${scope.region}`];
  return null;
}
