import type { EpochMs } from '../scenario/types.js';
import { AwsJsonError } from './aws-json.js';
import { DAY_MS, HOUR_MS } from '../../core/time.js';

/**
 * Cost Explorer request validation: the JSON input of GetCostAndUsage(WithResources) turned into a typed query,
 * or a ValidationException with the reason, as the real service answers a malformed query.
 */

export type Granularity = 'DAILY' | 'HOURLY' | 'MONTHLY';

export type MatchOption = 'EQUALS' | 'ABSENT' | 'STARTS_WITH' | 'ENDS_WITH' | 'CONTAINS' | 'CASE_SENSITIVE' | 'CASE_INSENSITIVE';
const MATCH_OPTIONS: readonly MatchOption[] = [
  'EQUALS',
  'ABSENT',
  'STARTS_WITH',
  'ENDS_WITH',
  'CONTAINS',
  'CASE_SENSITIVE',
  'CASE_INSENSITIVE',
];

export type Expression =
  | { kind: 'and'; items: Expression[] }
  | { kind: 'or'; items: Expression[] }
  | { kind: 'not'; item: Expression }
  | { kind: 'dimension'; key: string; values: string[]; options: MatchOption[] }
  | { kind: 'tag'; key: string; values: string[] | null; options: MatchOption[] }
  | { kind: 'costCategory'; key: string; values: string[]; options: MatchOption[] };

export type GroupDef = { type: 'DIMENSION' | 'TAG' | 'COST_CATEGORY'; key: string };

/** Metrics as requested (the response echoes the requested spelling) and what they measure. */
export interface MetricRequest {
  name: string;
  measure: 'cost' | 'usage';
}

export interface CeQuery {
  start: EpochMs;
  end: EpochMs;
  granularity: Granularity;
  metrics: MetricRequest[];
  filter: Expression | null;
  groupBy: GroupDef[];
  nextPageToken: string | null;
}

/** Dimensions the sandbox can filter on (every dimension a compute usage record carries). */
export const FILTER_DIMENSIONS = new Set([
  'SERVICE',
  'SERVICE_CODE',
  'PURCHASE_TYPE',
  'INSTANCE_TYPE',
  'INSTANCE_TYPE_FAMILY',
  'REGION',
  'AZ',
  'LINKED_ACCOUNT',
  'USAGE_TYPE',
  'USAGE_TYPE_GROUP',
  'OPERATION',
  'PLATFORM',
  'OPERATING_SYSTEM',
  'TENANCY',
  'RECORD_TYPE',
  'RESOURCE_ID',
]);
/** GroupBy DIMENSION values the API documents (RESOURCE_ID only with resources). */
export const GROUP_DIMENSIONS = new Set([
  'AZ',
  'INSTANCE_TYPE',
  'LEGAL_ENTITY_NAME',
  'INVOICING_ENTITY',
  'LINKED_ACCOUNT',
  'OPERATION',
  'PLATFORM',
  'PURCHASE_TYPE',
  'SERVICE',
  'TENANCY',
  'RECORD_TYPE',
  'USAGE_TYPE',
  'REGION',
  'RESOURCE_ID',
]);

const COST_METRICS = ['AmortizedCost', 'BlendedCost', 'NetAmortizedCost', 'NetUnblendedCost', 'UnblendedCost'];
const USAGE_METRICS = ['UsageQuantity'];
const normalizeMetric = (name: string): string => name.replace(/_/g, '').toLowerCase();

export const invalid = (message: string): AwsJsonError => new AwsJsonError('ValidationException', message);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

/** Parses `2026-11-01` or `2026-11-01T00:00:00Z` as UTC; null when not a real date. */
export function parseCeDate(text: string): EpochMs | null {
  const m = DATE.exec(text) ?? DATE_TIME.exec(text);
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0'] = m;
  const t = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const back = new Date(t);
  if (back.getUTCMonth() !== Number(mo) - 1 || back.getUTCDate() !== Number(d) || Number(h) > 23) return null;
  return t;
}

function parseTimePeriod(raw: unknown, granularity: Granularity): { start: EpochMs; end: EpochMs } {
  if (!isObject(raw) || typeof raw.Start !== 'string' || typeof raw.End !== 'string') {
    throw invalid('TimePeriod with Start and End is required');
  }
  const start = parseCeDate(raw.Start);
  const end = parseCeDate(raw.End);
  if (start === null) throw invalid(`Start date ${raw.Start} is not a valid date: use yyyy-MM-dd, or yyyy-MM-ddTHH:mm:ssZ for HOURLY`);
  if (end === null) throw invalid(`End date ${raw.End} is not a valid date: use yyyy-MM-dd, or yyyy-MM-ddTHH:mm:ssZ for HOURLY`);
  const unit = granularity === 'HOURLY' ? HOUR_MS : DAY_MS;
  if (start % unit !== 0 || end % unit !== 0) {
    throw invalid(
      granularity === 'HOURLY' ? 'HOURLY time periods must start and end on the hour' : `${granularity} time periods must be whole days`,
    );
  }
  if (start >= end) throw invalid('Start date (and hour) should be before end date (and hour)');
  return { start, end };
}

function parseOptions(raw: unknown, allowed: readonly MatchOption[]): MatchOption[] {
  if (raw === undefined) return [];
  if (!isStringArray(raw)) throw invalid('MatchOptions must be a list of strings');
  for (const o of raw) {
    if (!allowed.includes(o as MatchOption)) throw invalid(`MatchOptions value ${o} is not valid here`);
  }
  return raw as MatchOption[];
}

export function parseExpression(raw: unknown, dimensions: ReadonlySet<string>): Expression {
  if (!isObject(raw)) throw invalid('Expression must be an object');
  const present = ['And', 'Or', 'Not', 'Dimensions', 'Tags', 'CostCategories'].filter((k) => raw[k] !== undefined);
  if (present.length !== 1) throw invalid('Expression must have exactly one of And, Or, Not, Dimensions, Tags, CostCategories');
  const [kind] = present;
  if (kind === 'And' || kind === 'Or') {
    const list = raw[kind];
    if (!Array.isArray(list) || list.length < 2) throw invalid(`${kind} expression must have at least 2 operands`);
    const items = list.map((e) => parseExpression(e, dimensions));
    return kind === 'And' ? { kind: 'and', items } : { kind: 'or', items };
  }
  if (kind === 'Not') return { kind: 'not', item: parseExpression(raw.Not, dimensions) };
  const body = raw[kind];
  if (!isObject(body) || typeof body.Key !== 'string' || body.Key === '') throw invalid(`${kind} requires a Key`);
  if (body.Values !== undefined && !isStringArray(body.Values)) throw invalid(`${kind}.Values must be a list of strings`);
  const values = body.Values === undefined ? null : (body.Values as string[]);
  if (kind === 'Dimensions') {
    if (!dimensions.has(body.Key)) throw invalid(`Dimension ${body.Key} is not allowed in this filter`);
    if (!values || values.length === 0) throw invalid(`Dimensions ${body.Key} requires Values`);
    const options = parseOptions(body.MatchOptions, [
      'EQUALS',
      'STARTS_WITH',
      'ENDS_WITH',
      'CONTAINS',
      'CASE_SENSITIVE',
      'CASE_INSENSITIVE',
    ]);
    return { kind: 'dimension', key: body.Key, values, options };
  }
  const options = parseOptions(body.MatchOptions, MATCH_OPTIONS);
  if (kind === 'Tags') return { kind: 'tag', key: body.Key, values, options };
  return { kind: 'costCategory', key: body.Key, values: values ?? [], options };
}

function parseGroupBy(raw: unknown, dimensions: ReadonlySet<string>): GroupDef[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw invalid('GroupBy must be a list');
  if (raw.length > 2) throw invalid('You can only group by up to two different groups (GroupBy has at most 2 entries)');
  const groups = raw.map((g): GroupDef => {
    if (!isObject(g) || typeof g.Key !== 'string' || g.Key === '') throw invalid('GroupBy entries need Type and Key');
    if (g.Type !== 'DIMENSION' && g.Type !== 'TAG' && g.Type !== 'COST_CATEGORY')
      throw invalid(`GroupBy Type ${String(g.Type)} is not valid`);
    if (g.Type === 'DIMENSION' && !dimensions.has(g.Key)) throw invalid(`Group Definition dimension ${g.Key} is not valid`);
    return { type: g.Type, key: g.Key };
  });
  if (groups.length === 2 && groups[0].type === groups[1].type && groups[0].key === groups[1].key) {
    throw invalid('Group Definition keys must be unique');
  }
  return groups;
}

function parseMetrics(raw: unknown): MetricRequest[] {
  if (!isStringArray(raw) || raw.length === 0) throw invalid('Metrics is required');
  return raw.map((name) => {
    const n = normalizeMetric(name);
    if (COST_METRICS.some((m) => normalizeMetric(m) === n)) return { name, measure: 'cost' };
    if (USAGE_METRICS.some((m) => normalizeMetric(m) === n)) return { name, measure: 'usage' };
    throw invalid(`Metric ${name} is not supported`);
  });
}

export interface ParseOptions {
  withResources: boolean;
}

/** Validates a GetCostAndUsage / GetCostAndUsageWithResources input. */
export function parseCeQuery(input: Record<string, unknown>, { withResources }: ParseOptions): CeQuery {
  const granularity = input.Granularity ?? 'DAILY';
  if (granularity !== 'DAILY' && granularity !== 'HOURLY' && granularity !== 'MONTHLY') {
    throw invalid(`Granularity ${String(granularity)} is not valid: DAILY, MONTHLY or HOURLY`);
  }
  const filterDims = withResources ? FILTER_DIMENSIONS : new Set([...FILTER_DIMENSIONS].filter((d) => d !== 'RESOURCE_ID'));
  const groupDims = withResources ? GROUP_DIMENSIONS : new Set([...GROUP_DIMENSIONS].filter((d) => d !== 'RESOURCE_ID'));
  const { start, end } = parseTimePeriod(input.TimePeriod, granularity);
  const metrics = parseMetrics(input.Metrics);
  const filter = input.Filter === undefined ? null : parseExpression(input.Filter, filterDims);
  const groupBy = parseGroupBy(input.GroupBy, groupDims);
  const token = input.NextPageToken;
  if (token !== undefined && typeof token !== 'string') throw invalid('NextPageToken must be a string');
  return { start, end, granularity, metrics, filter, groupBy, nextPageToken: token ?? null };
}
