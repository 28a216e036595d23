import { randomBytes, randomUUID } from 'node:crypto';
import type { Partition } from '../../core/partitions.js';
import { crossPartition, signingScope } from './aws-account.js';
import type { SandboxContext, SandboxHandler, SandboxRequest, SandboxResponse } from './context.js';

/**
 * STS query protocol (form-encoded POST, XML answers): AssumeRole of a role in the account the sandbox simulates
 * (the scenario's accountId). A role of any other account is refused as AWS refuses a role whose trust policy does
 * not name the caller (403 AccessDenied, the message naming the role). The session's keys (ASIA…, with a session
 * token) are remembered in the context: requests signed with them are the account's, as long as the token is the one
 * issued with them and has not expired (aws-account.ts). Other actions are left to other adapters (null).
 */

const XMLNS = 'https://sts.amazonaws.com/doc/2011-06-15/';
/** AssumeRole's default session length. */
const DEFAULT_DURATION_S = 3600;
const ROLE_ARN = /^arn:(aws|aws-cn|aws-us-gov):iam::(\d{12}):role\/([\w+=,.@/-]+)$/;

/** The keys of a session AssumeRole issued. Expiry is in real time: the SDK compares it with the machine's clock. */
export interface StsSession {
  sessionToken: string;
  partition: Partition;
  account: string;
  roleArn: string;
  expiresAtMs: number;
}

const xmlEscape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function xml(status: number, body: string): SandboxResponse {
  return { status, headers: { 'content-type': 'text/xml' }, body: `<?xml version="1.0" encoding="UTF-8"?>\n${body}` };
}

export function stsErrorResponse(status: number, code: string, message: string): SandboxResponse {
  const type = status >= 500 ? 'Receiver' : 'Sender';
  return xml(
    status,
    `<ErrorResponse xmlns="${XMLNS}"><Error><Type>${type}</Type><Code>${xmlEscape(code)}</Code><Message>${xmlEscape(message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
  );
}

/** An access key id of a temporary session: ASIA and 16 upper-case letters and digits, as AWS issues them. */
function sessionKeyId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  return `ASIA${[...randomBytes(16)].map((b) => alphabet[b % alphabet.length]).join('')}`;
}

function assumeRole(params: URLSearchParams, ctx: SandboxContext): SandboxResponse {
  const roleArn = params.get('RoleArn') ?? '';
  const sessionName = params.get('RoleSessionName') ?? '';
  if (!/^[\w+=,.@-]{2,64}$/.test(sessionName))
    return stsErrorResponse(
      400,
      'ValidationError',
      `1 validation error detected: Value '${sessionName}' at 'roleSessionName' failed to satisfy constraint`,
    );
  const m = ROLE_ARN.exec(roleArn);
  if (m === null) return stsErrorResponse(400, 'ValidationError', `${roleArn} is invalid`);
  const [, partition, account, roleName] = m;
  const caller = `arn:${partition}:iam::${ctx.scenario.accountId}:user/sandbox-ledger`;
  if (account !== ctx.scenario.accountId)
    return stsErrorResponse(403, 'AccessDenied', `User: ${caller} is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`);
  const durationS = Number(params.get('DurationSeconds') ?? DEFAULT_DURATION_S);
  if (!Number.isInteger(durationS) || durationS < 900 || durationS > 43_200)
    return stsErrorResponse(400, 'ValidationError', `DurationSeconds ${params.get('DurationSeconds')} is not between 900 and 43200`);
  const accessKeyId = sessionKeyId();
  const session: StsSession = {
    sessionToken: randomBytes(48).toString('base64'),
    partition: partition as Partition,
    account,
    roleArn,
    expiresAtMs: Date.now() + durationS * 1000,
  };
  ctx.stsSessions ??= new Map();
  ctx.stsSessions.set(accessKeyId, session);
  const roleId = `AROA${accessKeyId.slice(4)}`;
  return xml(
    200,
    `<AssumeRoleResponse xmlns="${XMLNS}"><AssumeRoleResult><AssumedRoleUser>` +
      `<Arn>arn:${partition}:sts::${account}:assumed-role/${xmlEscape(roleName)}/${xmlEscape(sessionName)}</Arn>` +
      `<AssumedRoleId>${roleId}:${xmlEscape(sessionName)}</AssumedRoleId></AssumedRoleUser>` +
      `<Credentials><AccessKeyId>${accessKeyId}</AccessKeyId>` +
      `<SecretAccessKey>${randomBytes(30).toString('base64')}</SecretAccessKey>` +
      `<SessionToken>${session.sessionToken}</SessionToken>` +
      `<Expiration>${new Date(session.expiresAtMs).toISOString()}</Expiration></Credentials>` +
      `</AssumeRoleResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></AssumeRoleResponse>`,
  );
}

const isForm = (req: SandboxRequest): boolean => {
  const type = req.headers['content-type'];
  return req.method === 'POST' && typeof type === 'string' && type.includes('application/x-www-form-urlencoded');
};

export const stsHandler: SandboxHandler = (req, ctx) => {
  if (!isForm(req)) return null;
  const params = new URLSearchParams(req.body.toString('utf8'));
  if (params.get('Action') !== 'AssumeRole') return null;
  const scope = signingScope(req);
  ctx.requestLog.push({ at: ctx.clock.now(), operation: 'sts:AssumeRole', ...(scope !== null ? { region: scope.region } : {}) });
  // AssumeRole is a signed call: the caller's own credentials must be known where it is asked.
  if (scope === null) return stsErrorResponse(403, 'MissingAuthenticationToken', 'Request is missing Authentication Token');
  const refusal = crossPartition(ctx, scope);
  if (refusal)
    return stsErrorResponse(refusal[0], refusal[1] === 'UnrecognizedClientException' ? 'InvalidClientTokenId' : refusal[1], refusal[2]);
  return assumeRole(params, ctx);
};
