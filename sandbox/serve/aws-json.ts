import { type Refusal, signingScope } from './aws-account.js';
import type { FaultRule, SandboxContext, SandboxRequest, SandboxResponse } from './context.js';

/**
 * The awsJson1_1 protocol, shared by the Cost Explorer and Pricing adapters: POST /, the operation named by
 * `x-amz-target: <Service>.<Operation>`, JSON bodies, errors as `{"__type": ..., "message": ...}` with the
 * code also in `x-amzn-errortype` (the SDK reads either).
 */

export const AWS_JSON_CONTENT_TYPE = 'application/x-amz-json-1.1';

/** A modelled service error, thrown by operation code and turned into the awsJson error shape. */
export class AwsJsonError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
    /** Members a service adds to its error shape (Athena's AthenaErrorCode). */
    readonly fields: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** The operation name when the request targets `service`, else null (not this adapter's request). */
export function awsJsonOperation(req: SandboxRequest, service: string): string | null {
  const target = req.headers['x-amz-target'];
  const value = Array.isArray(target) ? target[0] : target;
  if (req.method !== 'POST' || !value?.startsWith(`${service}.`)) return null;
  return value.slice(service.length + 1);
}

let requestCounter = 0;
const requestId = (): string => {
  requestCounter += 1;
  return `00000000-0000-4000-8000-${requestCounter.toString(16).padStart(12, '0')}`;
};

export function awsJsonOk(value: unknown): SandboxResponse {
  return {
    status: 200,
    headers: { 'content-type': AWS_JSON_CONTENT_TYPE, 'x-amzn-requestid': requestId() },
    body: JSON.stringify(value),
  };
}

export function awsJsonError(status: number, type: string, message: string, fields: Record<string, string> = {}): SandboxResponse {
  return {
    status,
    headers: { 'content-type': AWS_JSON_CONTENT_TYPE, 'x-amzn-requestid': requestId(), 'x-amzn-errortype': type },
    body: JSON.stringify({ __type: type, message, ...fields }),
  };
}

/** Parses the JSON body as an object; a malformed body is the client's fault (SerializationException). */
export function parseJsonBody(req: SandboxRequest): Record<string, unknown> {
  try {
    const text = req.body.toString('utf8');
    const value: unknown = text.trim() === '' ? {} : JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through to the error below
  }
  throw new AwsJsonError('SerializationException', 'Request body is not a JSON object');
}

/** Consumes one matching fault rule (test-injected throttling or 5xx), if any. */
export function takeFault(ctx: SandboxContext, operation: string): FaultRule | null {
  const rule = ctx.faults.find((f) => f.remaining > 0 && f.match === operation);
  if (!rule) return null;
  rule.remaining -= 1;
  return rule;
}

/**
 * A fault in the awsJson shape: 403 an access denial (the SDK does not retry it), 400/429 throttling (the SDK
 * retries ThrottlingException), 5xx server errors.
 */
export function awsJsonFault(rule: FaultRule): SandboxResponse {
  if (rule.status === 403)
    return awsJsonError(
      403,
      'AccessDeniedException',
      'User: arn:aws:iam::123456789012:user/ledger is not authorized to perform this action',
    );
  if (rule.status < 500) return awsJsonError(rule.status, 'ThrottlingException', 'Rate exceeded');
  if (rule.status === 503) return awsJsonError(503, 'ServiceUnavailableException', 'Service is unavailable, please retry');
  return awsJsonError(rule.status, 'InternalFailure', 'The request processing has failed because of an unknown error');
}

/**
 * Runs one awsJson request: logs it, applies faults, turns thrown AwsJsonError into its shape.
 * `prefix` names the service in the request log ('ce', 'pricing').
 */
export function serveAwsJson(
  req: SandboxRequest,
  ctx: SandboxContext,
  service: string,
  prefix: string,
  operations: Record<string, (input: Record<string, unknown>, ctx: SandboxContext) => unknown>,
  /** The account's checks of where and with what credentials the request was sent (see aws-account.ts). */
  check?: (ctx: SandboxContext, req: SandboxRequest) => Refusal | null,
): SandboxResponse | null {
  const operation = awsJsonOperation(req, service);
  if (operation === null) return null;
  const region = signingScope(req)?.region;
  ctx.requestLog.push({ at: ctx.clock.now(), operation: `${prefix}:${operation}`, ...(region !== undefined ? { region } : {}) });
  const refusal = check?.(ctx, req) ?? null;
  if (refusal) return awsJsonError(...refusal);
  const fault = takeFault(ctx, operation);
  if (fault) return awsJsonFault(fault);
  const run = Object.hasOwn(operations, operation) ? operations[operation] : undefined;
  if (!run) return awsJsonError(400, 'UnknownOperationException', `The sandbox does not implement ${service}.${operation}`);
  try {
    return awsJsonOk(run(parseJsonBody(req), ctx));
  } catch (err) {
    if (err instanceof AwsJsonError) return awsJsonError(err.status, err.type, err.message, err.fields);
    throw err;
  }
}
