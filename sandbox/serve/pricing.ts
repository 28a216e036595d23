import { createHash } from 'node:crypto';
import { checkPricing } from './aws-account.js';
import { AwsJsonError, serveAwsJson } from './aws-json.js';
import type { SandboxContext, SandboxHandler } from './context.js';
import { type CatalogueProduct, EC2_ATTRIBUTE_NAMES, pricingCatalogue, productDocument } from './pricing-catalogue.js';

/**
 * AWS Price List query API (awsJson1_1, target prefix AWSPriceListService): GetProducts and DescribeServices
 * for AmazonEC2 in the scenario's region. PriceList is an array of JSON strings, as on the real service. It answers
 * only at its real endpoints (us-east-1, eu-central-1, ap-south-1; cn-northwest-1 in China, in CNY), to
 * credentials of that partition (see aws-account.ts).
 */

export interface PricingOptions {
  /** Instance types the price list does not list (yet): a new type, or one not sold in the region. */
  unlistedTypes?: readonly string[];
}

const MAX_RESULTS = 100;
const FILTER_TYPES = ['TERM_MATCH', 'EQUALS', 'CONTAINS', 'ANY_OF', 'NONE_OF'] as const;
type FilterType = (typeof FILTER_TYPES)[number];
interface Filter {
  type: FilterType;
  field: string;
  value: string;
}

const invalidParameter = (message: string): AwsJsonError => new AwsJsonError('InvalidParameterException', message);

function parseFilters(raw: unknown): Filter[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw invalidParameter('Filters must be a list');
  return raw.map((f: unknown): Filter => {
    if (typeof f !== 'object' || f === null) throw invalidParameter('Each filter needs Type, Field and Value');
    const { Type, Field, Value } = f as Record<string, unknown>;
    if (!FILTER_TYPES.includes(Type as FilterType)) throw invalidParameter(`Filter Type ${String(Type)} is not valid`);
    if (typeof Field !== 'string' || Field === '' || typeof Value !== 'string')
      throw invalidParameter('Each filter needs Type, Field and Value');
    return { type: Type as FilterType, field: Field, value: Value };
  });
}

/** Field names match whatever their case ("capacitystatus", "CapacityStatus"); so do TERM_MATCH values. */
function fieldValue(p: CatalogueProduct, field: string): string | undefined {
  const f = field.toLowerCase();
  if (f === 'servicecode') return 'AmazonEC2';
  if (f === 'productfamily') return p.productFamily;
  if (f === 'sku') return p.sku;
  const key = Object.keys(p.attributes).find((k) => k.toLowerCase() === f);
  return key === undefined ? undefined : p.attributes[key];
}

function matches(p: CatalogueProduct, filter: Filter): boolean {
  const actual = fieldValue(p, filter.field);
  if (actual === undefined) return filter.type === 'NONE_OF';
  const list = filter.value.split(',').map((s) => s.trim());
  switch (filter.type) {
    case 'TERM_MATCH':
      return actual.toLowerCase() === filter.value.toLowerCase();
    case 'EQUALS':
      return actual === filter.value;
    case 'CONTAINS':
      return actual.includes(filter.value);
    case 'ANY_OF':
      return list.includes(actual);
    case 'NONE_OF':
      return !list.includes(actual);
  }
}

const fingerprintOf = (input: Record<string, unknown>): string => {
  const { NextToken: _ignored, MaxResults: _max, ...rest } = input;
  return createHash('sha256').update(JSON.stringify(rest)).digest('hex').slice(0, 16);
};

function readToken(token: unknown, fingerprint: string): number {
  if (token === undefined) return 0;
  try {
    if (typeof token === 'string') {
      const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
      if (
        typeof value === 'object' &&
        value !== null &&
        'o' in value &&
        'f' in value &&
        typeof value.o === 'number' &&
        value.f === fingerprint
      ) {
        return value.o;
      }
    }
  } catch {
    // reported below
  }
  throw new AwsJsonError('InvalidNextTokenException', 'The pagination token is invalid. Try again without a pagination token.');
}

function checkFormat(input: Record<string, unknown>): void {
  if (input.FormatVersion !== undefined && input.FormatVersion !== 'aws_v1') throw invalidParameter('FormatVersion must be aws_v1');
}

/**
 * The products a query selects, per catalogue and query (its fingerprint), kept by each handler (whose unlisted types
 * are fixed): a collector pages through hundreds of products 100 at a time, and filtering the whole catalogue again
 * for every page was most of the sandbox's work in a collect (a file collecting a dozen ledgers: ~10 CPU s).
 */
type Selections = WeakMap<CatalogueProduct[], Map<string, CatalogueProduct[]>>;

function getProducts(
  options: PricingOptions,
  selections: Selections,
  input: Record<string, unknown>,
  ctx: SandboxContext,
): Record<string, unknown> {
  if (typeof input.ServiceCode !== 'string' || input.ServiceCode === '') throw invalidParameter('ServiceCode is required');
  checkFormat(input);
  const filters = parseFilters(input.Filters);
  const max = input.MaxResults ?? MAX_RESULTS;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > MAX_RESULTS)
    throw invalidParameter(`MaxResults must be between 1 and ${MAX_RESULTS}`);
  const fingerprint = fingerprintOf(input);
  const offset = readToken(input.NextToken, fingerprint);
  // Only EC2 is simulated; other services have no products here.
  const catalogue = pricingCatalogue(ctx.scenario);
  let selected = selections.get(catalogue);
  if (selected === undefined) {
    selected = new Map();
    selections.set(catalogue, selected);
  }
  let wanted = selected.get(fingerprint);
  if (wanted === undefined) {
    const unlisted = new Set(options.unlistedTypes ?? []);
    const all = input.ServiceCode === 'AmazonEC2' ? catalogue.filter((p) => !unlisted.has(p.attributes.instanceType)) : [];
    wanted = all.filter((p) => filters.every((f) => matches(p, f)));
    selected.set(fingerprint, wanted);
  }
  const out: Record<string, unknown> = { FormatVersion: 'aws_v1', PriceList: wanted.slice(offset, offset + max).map(productDocument) };
  if (offset + max < wanted.length) out.NextToken = Buffer.from(JSON.stringify({ o: offset + max, f: fingerprint })).toString('base64url');
  return out;
}

function describeServices(input: Record<string, unknown>): Record<string, unknown> {
  checkFormat(input);
  const code = input.ServiceCode;
  if (code !== undefined && code !== 'AmazonEC2')
    throw new AwsJsonError('NotFoundException', `Service ${String(code)} is not simulated in the sandbox`);
  return { FormatVersion: 'aws_v1', Services: [{ ServiceCode: 'AmazonEC2', AttributeNames: EC2_ATTRIBUTE_NAMES }] };
}

export function createPricingHandler(options: PricingOptions = {}): SandboxHandler {
  const selections: Selections = new WeakMap();
  const operations = {
    GetProducts: (input: Record<string, unknown>, ctx: SandboxContext) => getProducts(options, selections, input, ctx),
    DescribeServices: describeServices,
  };
  return (req, ctx) => serveAwsJson(req, ctx, 'AWSPriceListService', 'pricing', operations, checkPricing);
}

/** The default adapter for the sandbox server: every type of the region listed. */
export const pricingHandler: SandboxHandler = createPricingHandler();
