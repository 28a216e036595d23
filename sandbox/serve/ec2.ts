import { createHash, randomUUID } from 'node:crypto';
import { indexSpotMarkets, publishedSpotUsd } from '../scenario/bill.js';
import { unlaunchedSpotPrices } from '../scenario/spot-prices.js';
import type { EpochMs, Scenario, SpotPricePoint } from '../scenario/types.js';
import { checkEc2, signingScope } from './aws-account.js';
import type { FaultRule, SandboxContext, SandboxHandler, SandboxRequest, SandboxResponse } from './context.js';

/**
 * EC2 query protocol (form-encoded POST, XML answers): DescribeSpotPriceHistory over the scenario's simulated
 * spot prices, for every market the sandbox could launch: those the simulation priced (what its spot nodes were
 * billed at) and, for every other instance type a NodePool admits in every zone, a walk of its own
 * (unlaunchedSpotPrices), as EC2 prices every market whether anyone runs there or not. As on EC2: for a window, the price in effect at StartTime plus every change within it, never
 * after now; newest first; MaxResults up to 1000 with NextToken paging, the last page ending with an empty
 * `<nextToken/>`; every product description when none is asked for (SUSE, Red Hat and Windows markets beside the
 * Linux one, as in the AWS CLI's published example), and each Linux market under one name: `Linux/UNIX`, or
 * `Linux/UNIX (Amazon VPC)` in the zones an account from the EC2-Classic era has them filed so. Other EC2 actions
 * are left to other adapters (null).
 */

const XMLNS = 'http://ec2.amazonaws.com/doc/2016-11-15/';
const MAX_RESULTS = 1000;
const HISTORY_MS = 90 * 86_400_000;
const LINUX = 'Linux/UNIX';
const LINUX_VPC = 'Linux/UNIX (Amazon VPC)';
/** Other products' markets beside each Linux one, at a simulated premium over the Linux price (not AWS's). */
const OTHER_PRODUCTS: readonly [string, number][] = [
  ['Red Hat Enterprise Linux', 1.5],
  ['SUSE Linux', 1.25],
  ['Windows', 1.8],
];

export interface Ec2Options {
  /** Zones whose Linux markets the account has filed under `Linux/UNIX (Amazon VPC)` (EC2-Classic era accounts). */
  amazonVpcZones?: readonly string[];
}

class Ec2Error extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

const xmlEscape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function xml(status: number, body: string): SandboxResponse {
  return { status, headers: { 'content-type': 'text/xml;charset=UTF-8' }, body: `<?xml version="1.0" encoding="UTF-8"?>\n${body}` };
}

export function ec2ErrorResponse(status: number, code: string, message: string): SandboxResponse {
  return xml(
    status,
    `<Response><Errors><Error><Code>${xmlEscape(code)}</Code><Message>${xmlEscape(message)}</Message></Error></Errors><RequestID>${randomUUID()}</RequestID></Response>`,
  );
}

/** EC2 throttles with RequestLimitExceeded (the SDK retries it); 500 is InternalError, other 5xx Unavailable. */
function faultResponse(rule: FaultRule): SandboxResponse {
  if (rule.status < 500 || rule.status === 503) return ec2ErrorResponse(rule.status, 'RequestLimitExceeded', 'Request limit exceeded.');
  if (rule.status === 500) return ec2ErrorResponse(500, 'InternalError', 'An internal error has occurred.');
  return ec2ErrorResponse(rule.status, 'Unavailable', "The server is overloaded and can't handle the request.");
}

/** `Name.1=a&Name.2=b` -> ['a', 'b'] in index order. */
function list(params: URLSearchParams, name: string): string[] {
  const out: [number, string][] = [];
  for (const [k, v] of params) {
    const m = new RegExp(`^${name.replace('.', '\\.')}\\.(\\d+)$`).exec(k);
    if (m) out.push([Number(m[1]), v]);
  }
  return out.sort((a, b) => a[0] - b[0]).map(([, v]) => v);
}

/** Filter.N.Name / Filter.N.Value.M as name -> values. */
function filters(params: URLSearchParams): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [k, name] of params) {
    const m = /^Filter\.(\d+)\.Name$/.exec(k);
    if (m) out.set(name, list(params, `Filter.${m[1]}.Value`));
  }
  return out;
}

function time(params: URLSearchParams, name: string): EpochMs | null {
  const v = params.get(name);
  if (v === null || v === '') return null;
  const t = Date.parse(v);
  if (Number.isNaN(t))
    throw new Ec2Error('InvalidParameterValue', `Value (${v}) for parameter ${name} is invalid. Expected an ISO 8601 date-time.`);
  return t;
}

interface Item {
  point: SpotPricePoint;
  description: string;
  /** The product's price as a multiple of the Linux market's. */
  factor: number;
}

const marketsCache = new WeakMap<Scenario, Map<string, SpotPricePoint[]>>();
function marketsOf(scenario: Scenario): Map<string, SpotPricePoint[]> {
  let markets = marketsCache.get(scenario);
  if (!markets) {
    markets = indexSpotMarkets([...scenario.spotPrices, ...unlaunchedSpotPrices(scenario)]);
    marketsCache.set(scenario, markets);
  }
  return markets;
}

/** The price in effect at `start` and the changes in (start, end] of one market. */
function windowOf(points: readonly SpotPricePoint[], start: EpochMs, end: EpochMs): SpotPricePoint[] {
  let inEffect: SpotPricePoint | null = null;
  const changes: SpotPricePoint[] = [];
  for (const p of points) {
    if (p.at <= start) inEffect = p;
    else if (p.at <= end) changes.push(p);
    else break;
  }
  return inEffect ? [inEffect, ...changes] : changes;
}

function describeSpotPriceHistory(options: Ec2Options, params: URLSearchParams, ctx: SandboxContext): string {
  const now = ctx.clock.now();
  if (params.get('AvailabilityZone') && params.get('AvailabilityZoneId')) {
    throw new Ec2Error('InvalidParameterCombination', 'Only one of AvailabilityZone and AvailabilityZoneId can be specified.');
  }
  const startTime = time(params, 'StartTime');
  const endTime = time(params, 'EndTime');
  if (startTime !== null && endTime !== null && startTime > endTime) {
    throw new Ec2Error('InvalidParameterValue', 'The StartTime must be before the EndTime.');
  }
  const end = Math.min(endTime ?? now, now);
  // A start after now (a client's wall clock ahead of the sandbox's) asks for the prices in effect now.
  const start = Math.min(Math.max(startTime ?? end - HISTORY_MS, now - HISTORY_MS), end);
  const maxText = params.get('MaxResults');
  const requestedMax = maxText === null ? MAX_RESULTS : Number(maxText);
  if (!Number.isInteger(requestedMax) || requestedMax < 1)
    throw new Ec2Error('InvalidParameterValue', `Value (${maxText}) for parameter MaxResults is invalid.`);
  // Larger values are served as the maximum rather than refused.
  const max = Math.min(requestedMax, MAX_RESULTS);

  const f = filters(params);
  const types = new Set([...list(params, 'InstanceType'), ...(f.get('instance-type') ?? [])]);
  const zones = new Set([
    ...(f.get('availability-zone') ?? []),
    ...(params.get('AvailabilityZone') ? [params.get('AvailabilityZone') as string] : []),
  ]);
  const descriptions = [...list(params, 'ProductDescription'), ...(f.get('product-description') ?? [])];
  const wanted = (d: string): boolean => descriptions.length === 0 || descriptions.includes(d);
  const vpcZones = new Set(options.amazonVpcZones ?? []);

  const items: Item[] = [];
  for (const points of marketsOf(ctx.scenario).values()) {
    const { instanceType, zone } = points[0];
    if ((types.size > 0 && !types.has(instanceType)) || (zones.size > 0 && !zones.has(zone))) continue;
    const products: [string, number][] = [[vpcZones.has(zone) ? LINUX_VPC : LINUX, 1], ...OTHER_PRODUCTS];
    for (const point of windowOf(points, start, end))
      for (const [description, factor] of products) if (wanted(description)) items.push({ point, description, factor });
  }
  // Newest first, as EC2 lists history; ties in a stable order so pages do not overlap.
  items.sort(
    (a, b) =>
      b.point.at - a.point.at ||
      a.point.instanceType.localeCompare(b.point.instanceType) ||
      a.point.zone.localeCompare(b.point.zone) ||
      a.description.localeCompare(b.description),
  );

  const fingerprint = createHash('sha256')
    .update(JSON.stringify([start, end, [...types].sort(), [...zones].sort(), descriptions]))
    .digest('hex')
    .slice(0, 16);
  let offset = 0;
  const token = params.get('NextToken');
  if (token !== null && token !== '') {
    const m = /^(\d+)\.([0-9a-f]{16})$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
    if (!m || m[2] !== fingerprint) throw new Ec2Error('InvalidParameterValue', 'The value for NextToken is invalid for this request.');
    offset = Number(m[1]);
  }
  const page = items.slice(offset, offset + max);
  const next = offset + max < items.length ? Buffer.from(`${offset + max}.${fingerprint}`).toString('base64url') : null;
  const rows = page.map(({ point, description, factor }) =>
    [
      '<item>',
      `<instanceType>${xmlEscape(point.instanceType)}</instanceType>`,
      `<productDescription>${xmlEscape(description)}</productDescription>`,
      `<spotPrice>${publishedSpotUsd(point.usdPerHour * factor).toFixed(6)}</spotPrice>`,
      `<timestamp>${new Date(point.at).toISOString()}</timestamp>`,
      `<availabilityZone>${xmlEscape(point.zone)}</availabilityZone>`,
      '</item>',
    ].join(''),
  );
  return `<DescribeSpotPriceHistoryResponse xmlns="${XMLNS}"><requestId>${randomUUID()}</requestId><spotPriceHistorySet>${rows.join('')}</spotPriceHistorySet>${next ? `<nextToken>${next}</nextToken>` : '<nextToken/>'}</DescribeSpotPriceHistoryResponse>`;
}

function isForm(req: SandboxRequest): boolean {
  const type = req.headers['content-type'];
  return req.method === 'POST' && typeof type === 'string' && type.includes('application/x-www-form-urlencoded');
}

export function createEc2Handler(options: Ec2Options = {}): SandboxHandler {
  const actions: Record<string, (params: URLSearchParams, ctx: SandboxContext) => string> = {
    DescribeSpotPriceHistory: (params, ctx) => describeSpotPriceHistory(options, params, ctx),
  };
  return (req, ctx) => serveEc2(actions, req, ctx);
}

function serveEc2(
  actions: Record<string, (params: URLSearchParams, ctx: SandboxContext) => string>,
  req: SandboxRequest,
  ctx: SandboxContext,
): SandboxResponse | null {
  if (!isForm(req)) return null;
  const params = new URLSearchParams(req.body.toString('utf8'));
  const action = params.get('Action');
  if (action === null || !Object.hasOwn(actions, action)) return null;
  const region = signingScope(req)?.region;
  ctx.requestLog.push({ at: ctx.clock.now(), operation: `ec2:${action}`, ...(region !== undefined ? { region } : {}) });
  const refusal = checkEc2(ctx, req);
  if (refusal) return ec2ErrorResponse(...refusal);
  const rule = ctx.faults.find((r) => r.remaining > 0 && r.match === action);
  if (rule) {
    rule.remaining -= 1;
    return faultResponse(rule);
  }
  if (params.get('DryRun') === 'true')
    return ec2ErrorResponse(412, 'DryRunOperation', 'Request would have succeeded, but DryRun flag is set.');
  try {
    return xml(200, actions[action](params, ctx));
  } catch (err) {
    if (err instanceof Ec2Error) return ec2ErrorResponse(err.status, err.code, err.message);
    throw err;
  }
}

/** The default adapter for the sandbox server: a current account (every Linux market under `Linux/UNIX`). */
export const ec2Handler: SandboxHandler = createEc2Handler();
