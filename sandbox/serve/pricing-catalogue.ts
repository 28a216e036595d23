import { createHash } from 'node:crypto';
import { loadCatalog, loadOnDemandPrices } from '../scenario/catalog.js';
import type { Scenario } from '../scenario/types.js';

/**
 * The EC2 products the simulated Pricing API knows, shaped like the real price list: for every instance type
 * with an on-demand price in the scenario's region, the Linux/Shared/Used product Karpenter asks for plus the
 * neighbours a loose filter would also catch (capacity reservations, Windows, dedicated tenancy, SQL Web).
 * Variant prices other than Linux/Shared/Used are simulated, not AWS's.
 */

export const ON_DEMAND_TERM = 'JRTCKXETXF';
export const HOURLY_RATE = '6YS6EN2CT7';
const RESERVED_NO_UPFRONT = '4NA7Y494T4';
const RESERVED_ALL_UPFRONT = '6QCMYABX3D';
const UPFRONT_FEE_RATE = '2TG2D8R56U';
const PUBLISHED = '2026-10-01T00:00:00Z';

const LOCATIONS: Record<string, string> = {
  'us-east-1': 'US East (N. Virginia)',
  'us-east-2': 'US East (Ohio)',
  'us-west-1': 'US West (N. California)',
  'us-west-2': 'US West (Oregon)',
  'eu-west-1': 'EU (Ireland)',
  'eu-central-1': 'EU (Frankfurt)',
  'ap-south-1': 'Asia Pacific (Mumbai)',
};

const FAMILIES: Record<string, string> = {
  c: 'Compute optimized',
  m: 'General purpose',
  t: 'General purpose',
  a: 'General purpose',
  r: 'Memory optimized',
  x: 'Memory optimized',
  z: 'Memory optimized',
  u: 'Memory optimized',
  i: 'Storage optimized',
  d: 'Storage optimized',
  h: 'Storage optimized',
  g: 'GPU instance',
  p: 'GPU instance',
  inf: 'Machine Learning ASIC Instances',
  trn: 'Machine Learning ASIC Instances',
  f: 'FPGA Instances',
};

export interface CatalogueProduct {
  sku: string;
  productFamily: string;
  attributes: Record<string, string>;
  usdPerHour: number;
  /** Some products also list Reserved terms, as the real price list does: readers must pick OnDemand. */
  reserved: boolean;
}

interface Variant {
  name: string;
  operatingSystem: string;
  tenancy: string;
  preInstalledSw: string;
  capacitystatus: string;
  usagePrefix: string;
  operation: string;
  price: (base: number, vcpu: number) => number;
}

const VARIANTS: Variant[] = [
  {
    name: 'linux',
    operatingSystem: 'Linux',
    tenancy: 'Shared',
    preInstalledSw: 'NA',
    capacitystatus: 'Used',
    usagePrefix: 'BoxUsage',
    operation: 'RunInstances',
    price: (b) => b,
  },
  {
    name: 'unused-cr',
    operatingSystem: 'Linux',
    tenancy: 'Shared',
    preInstalledSw: 'NA',
    capacitystatus: 'UnusedCapacityReservation',
    usagePrefix: 'UnusedBox',
    operation: 'RunInstances',
    price: (b) => b,
  },
  {
    name: 'allocated-cr',
    operatingSystem: 'Linux',
    tenancy: 'Shared',
    preInstalledSw: 'NA',
    capacitystatus: 'AllocatedCapacityReservation',
    usagePrefix: 'Reservation',
    operation: 'RunInstances',
    price: () => 0,
  },
  {
    name: 'windows',
    operatingSystem: 'Windows',
    tenancy: 'Shared',
    preInstalledSw: 'NA',
    capacitystatus: 'Used',
    usagePrefix: 'BoxUsage',
    operation: 'RunInstances:0002',
    price: (b, v) => b + 0.046 * v,
  },
  {
    name: 'dedicated',
    operatingSystem: 'Linux',
    tenancy: 'Dedicated',
    preInstalledSw: 'NA',
    capacitystatus: 'Used',
    usagePrefix: 'DedicatedUsage',
    operation: 'RunInstances',
    price: (b) => b * 1.1,
  },
  {
    name: 'sql-web',
    operatingSystem: 'Linux',
    tenancy: 'Shared',
    preInstalledSw: 'SQL Web',
    capacitystatus: 'Used',
    usagePrefix: 'BoxUsage',
    operation: 'RunInstances:0200',
    price: (b, v) => b + 0.0245 * v,
  },
];

/** SKUs look like the real ones (16 characters of A-Z0-9) and are stable: a hash of type and variant. */
export function skuOf(key: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  const bytes = createHash('sha256').update(key).digest();
  return Array.from(bytes.subarray(0, 16), (b) => alphabet[b % alphabet.length]).join('');
}

const familyOf = (type: string): string => {
  const prefix = /^[a-z]+/.exec(type)?.[0] ?? '';
  return FAMILIES[prefix] ?? FAMILIES[prefix.slice(0, 3)] ?? FAMILIES[prefix[0]] ?? 'General purpose';
};

/** "8 GiB", "0.5 GiB", "3.75 GiB", as the price list prints memory. */
const memoryText = (mib: number): string => `${Number((mib / 1024).toFixed(3))} GiB`;

const cache = new WeakMap<Scenario, CatalogueProduct[]>();

/** Every product of the scenario's region, built once per scenario. */
export function pricingCatalogue(scenario: Scenario): CatalogueProduct[] {
  const hit = cache.get(scenario);
  if (hit) return hit;
  // The scenario's own prices win; the static table fills in every other type of the region.
  const prices: Record<string, number> = { ...loadOnDemandPrices(scenario.region), ...scenario.onDemandUsdPerHour };
  const catalog = loadCatalog();
  const location = LOCATIONS[scenario.region] ?? scenario.region;
  const products: CatalogueProduct[] = [];
  for (const type of Object.keys(prices).sort()) {
    const info = catalog.get(type);
    const vcpu = info?.vcpu ?? 0;
    for (const v of VARIANTS) {
      const sku = skuOf(`${scenario.region}|${type}|${v.name}`);
      const attributes: Record<string, string> = {
        servicecode: 'AmazonEC2',
        servicename: 'Amazon Elastic Compute Cloud',
        location,
        locationType: 'AWS Region',
        regionCode: scenario.region,
        instanceType: type,
        instanceFamily: familyOf(type),
        currentGeneration: 'Yes',
        vcpu: info ? String(info.vcpu) : 'NA',
        memory: info ? memoryText(info.memoryMiB) : 'NA',
        storage: 'EBS only',
        processorArchitecture: '64-bit',
        operatingSystem: v.operatingSystem,
        tenancy: v.tenancy,
        preInstalledSw: v.preInstalledSw,
        licenseModel: 'No License required',
        capacitystatus: v.capacitystatus,
        marketoption: 'OnDemand',
        usagetype: `${v.usagePrefix}:${type}`,
        operation: v.operation,
      };
      const gpus = info?.labels['karpenter.k8s.aws/instance-gpu-count'];
      if (gpus !== undefined) attributes.gpu = gpus;
      products.push({
        sku,
        // Bare metal is a family of its own in the price list, so a `Compute Instance` filter skips it.
        productFamily: type.endsWith('.metal') || type.includes('.metal-') ? 'Compute Instance (bare metal)' : 'Compute Instance',
        attributes,
        usdPerHour: v.price(prices[type], vcpu),
        reserved: v.name === 'linux' && (sku.charCodeAt(0) & 1) === 0,
      });
    }
  }
  cache.set(scenario, products);
  return products;
}

const usd = (x: number): string => x.toFixed(10);

function reservedTerms(p: CatalogueProduct): Record<string, unknown> {
  const type = p.attributes.instanceType;
  const base = { sku: p.sku, effectiveDate: PUBLISHED };
  const hourly = (term: string, usdPerHour: number) => ({
    [`${p.sku}.${term}.${HOURLY_RATE}`]: {
      unit: 'Hrs',
      endRange: 'Inf',
      description: `Linux/UNIX (Amazon VPC), ${type} reserved instance applied`,
      appliesTo: [],
      rateCode: `${p.sku}.${term}.${HOURLY_RATE}`,
      beginRange: '0',
      pricePerUnit: { USD: usd(usdPerHour) },
    },
  });
  return {
    [`${p.sku}.${RESERVED_NO_UPFRONT}`]: {
      ...base,
      offerTermCode: RESERVED_NO_UPFRONT,
      priceDimensions: hourly(RESERVED_NO_UPFRONT, p.usdPerHour * 0.62),
      termAttributes: { LeaseContractLength: '1yr', OfferingClass: 'standard', PurchaseOption: 'No Upfront' },
    },
    [`${p.sku}.${RESERVED_ALL_UPFRONT}`]: {
      ...base,
      offerTermCode: RESERVED_ALL_UPFRONT,
      priceDimensions: {
        ...hourly(RESERVED_ALL_UPFRONT, 0),
        [`${p.sku}.${RESERVED_ALL_UPFRONT}.${UPFRONT_FEE_RATE}`]: {
          unit: 'Quantity',
          description: 'Upfront Fee',
          appliesTo: [],
          rateCode: `${p.sku}.${RESERVED_ALL_UPFRONT}.${UPFRONT_FEE_RATE}`,
          pricePerUnit: { USD: String(Math.round(p.usdPerHour * 0.58 * 8760)) },
        },
      },
      termAttributes: { LeaseContractLength: '1yr', OfferingClass: 'standard', PurchaseOption: 'All Upfront' },
    },
  };
}

/** The product document, as the JSON string GetProducts puts in PriceList. */
export function productDocument(p: CatalogueProduct): string {
  const type = p.attributes.instanceType;
  const os = p.attributes.operatingSystem;
  const rate = `${p.sku}.${ON_DEMAND_TERM}.${HOURLY_RATE}`;
  const terms: Record<string, unknown> = {
    OnDemand: {
      [`${p.sku}.${ON_DEMAND_TERM}`]: {
        priceDimensions: {
          [rate]: {
            unit: 'Hrs',
            endRange: 'Inf',
            description: `$${Number(p.usdPerHour.toFixed(4))} per On Demand ${os} ${type} Instance Hour`,
            appliesTo: [],
            rateCode: rate,
            beginRange: '0',
            pricePerUnit: { USD: usd(p.usdPerHour) },
          },
        },
        sku: p.sku,
        effectiveDate: PUBLISHED,
        offerTermCode: ON_DEMAND_TERM,
        termAttributes: {},
      },
    },
  };
  if (p.reserved) terms.Reserved = reservedTerms(p);
  return JSON.stringify({
    product: { productFamily: p.productFamily, attributes: p.attributes, sku: p.sku },
    serviceCode: 'AmazonEC2',
    terms,
    version: '20261001000000',
    publicationDate: PUBLISHED,
  });
}

/** Attribute names DescribeServices reports for AmazonEC2 (those the catalogue fills). */
export const EC2_ATTRIBUTE_NAMES = [
  'capacitystatus',
  'currentGeneration',
  'gpu',
  'instanceFamily',
  'instanceType',
  'licenseModel',
  'location',
  'locationType',
  'marketoption',
  'memory',
  'operatingSystem',
  'operation',
  'preInstalledSw',
  'processorArchitecture',
  'productFamily',
  'regionCode',
  'servicecode',
  'servicename',
  'storage',
  'tenancy',
  'usagetype',
  'vcpu',
];
