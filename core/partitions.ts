/**
 * AWS partitions and what NodePool Ledger calls in each, as data. Pure: no I/O.
 *
 * A region belongs to one partition (commercial `aws`, China `aws-cn`, GovCloud `aws-us-gov`, the isolated
 * ones); credentials of one partition are not valid in another, and each partition prices in its own currency.
 * The rules follow Karpenter's pricing provider (aws/karpenter-provider-aws v1.14.1 pkg/providers/pricing/pricing.go):
 * the Pricing API is asked at us-east-1, at ap-south-1 for ap-* regions, eu-central-1 for eu-* and cn-northwest-1
 * for cn-* (prices in CNY); GovCloud gets no Pricing call (only the static table); the static table of the region is
 * used when it has one.
 */

export type Partition = 'aws' | 'aws-cn' | 'aws-us-gov' | 'aws-iso' | 'aws-iso-b' | 'aws-iso-e' | 'aws-iso-f';
export type Currency = 'USD' | 'CNY';
export const CURRENCIES: readonly Currency[] = ['USD', 'CNY'];

/** Whether and where the Pricing API (GetProducts) is asked for a region's on-demand prices. */
export type PricingEndpoint = { region: string } | { region: null; why: string };

/** Where the bill (Cost Explorer) of an account running in the partition is read. */
export interface CostExplorerPlace {
  /** The region the Cost Explorer client is created in; the SDK resolves the partition's endpoint from it. */
  region: string;
  /** True when the bill lives in another account than the cluster's (GovCloud: the associated standard account). */
  otherAccount: boolean;
  /** One sentence for the user on where the bill is and why. */
  note: string;
}

export interface RegionFacts {
  region: string;
  partition: Partition;
  /** The currency AWS prices and bills the partition in. */
  currency: Currency;
  pricing: PricingEndpoint;
  costExplorer: CostExplorerPlace;
  /**
   * Karpenter's static tables to try for the region, in order: the region's own, then the partition's fallback
   * (us-east-1 in aws, as Karpenter does; cn-north-1 in aws-cn, so that a CNY region never falls back to USD).
   */
  staticTableRegions: string[];
}

/** Prefix -> partition, longest prefixes first (us-isob- before us-iso-). */
const PREFIXES: readonly [string, Partition][] = [
  ['us-isob-', 'aws-iso-b'],
  ['us-isof-', 'aws-iso-f'],
  ['us-iso-', 'aws-iso'],
  ['eu-isoe-', 'aws-iso-e'],
  ['us-gov-', 'aws-us-gov'],
  ['cn-', 'aws-cn'],
];

/** Region names look like `us-east-1`, `ap-southeast-2`, `us-gov-west-1`, `us-isob-east-1`. */
const REGION_SHAPE = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;

export class RegionError extends Error {}

export function isRegionName(region: string): boolean {
  return REGION_SHAPE.test(region);
}

/**
 * The region of an availability zone, a Local Zone or a Wavelength Zone: the leading `<area>-<direction>-<n>` of its
 * name. us-east-1a -> us-east-1, us-west-2-lax-1a -> us-west-2, us-east-1-wl1-bos-wlz-1 -> us-east-1,
 * us-gov-west-1a -> us-gov-west-1. A name of another shape comes back without its last letter, as before.
 */
export function regionOfZone(zone: string): string {
  return /^([a-z]{2}(?:-[a-z]+)+-\d+)/.exec(zone)?.[1] ?? zone.replace(/[a-z]$/, '');
}

/** The partition of a region; a malformed name is a RegionError naming it. */
export function partitionOf(region: string): Partition {
  if (!isRegionName(region)) throw new RegionError(`"${region}" is not an AWS region name (like us-east-1 or cn-north-1)`);
  return PREFIXES.find(([prefix]) => region.startsWith(prefix))?.[1] ?? 'aws';
}

const ISOLATED_WHY = 'an isolated partition: the Pricing API is not reachable there, so only Karpenter\u2019s static table is used';

function pricingEndpoint(region: string, partition: Partition): PricingEndpoint {
  switch (partition) {
    case 'aws-us-gov':
      return { region: null, why: 'AWS GovCloud (US) has no Pricing API; Karpenter uses its static table there too' };
    case 'aws-cn':
      return { region: 'cn-northwest-1' };
    case 'aws':
      if (region.startsWith('ap-')) return { region: 'ap-south-1' };
      if (region.startsWith('eu-')) return { region: 'eu-central-1' };
      return { region: 'us-east-1' };
    default:
      return { region: null, why: ISOLATED_WHY };
  }
}

function costExplorerPlace(region: string, partition: Partition): CostExplorerPlace {
  switch (partition) {
    case 'aws':
      return { region: 'us-east-1', otherAccount: false, note: 'Cost Explorer of the account (endpoint ce.us-east-1.amazonaws.com)' };
    case 'aws-cn':
      return {
        region: 'cn-northwest-1',
        otherAccount: false,
        note: 'Cost Explorer of the China account (endpoint ce.cn-northwest-1.amazonaws.com.cn), amounts in CNY',
      };
    case 'aws-us-gov':
      // "billing information for GovCloud accounts and regions are only available in the commercial partition"
      // (AWS GovCloud (US) User Guide, Billing and Payment): the associated standard account's Cost Explorer.
      return {
        region: 'us-east-1',
        otherAccount: true,
        note: 'a GovCloud account is billed through its associated standard AWS account: its Cost Explorer (ce.us-east-1.amazonaws.com) with that account\u2019s credentials',
      };
    default:
      return { region, otherAccount: false, note: 'Cost Explorer of the partition, as the SDK resolves it for the region (not verified)' };
  }
}

const FALLBACK_TABLE: Record<Partition, string> = {
  aws: 'us-east-1',
  'aws-cn': 'cn-north-1',
  'aws-us-gov': 'us-gov-west-1',
  // Karpenter's us-east-1 table, as it uses there (prices in USD).
  'aws-iso': 'us-east-1',
  'aws-iso-b': 'us-east-1',
  'aws-iso-e': 'us-east-1',
  'aws-iso-f': 'us-east-1',
};

/** Everything region-dependent about prices and the bill, for one region. */
export function regionFacts(region: string): RegionFacts {
  const partition = partitionOf(region);
  const fallback = FALLBACK_TABLE[partition];
  return {
    region,
    partition,
    currency: partition === 'aws-cn' ? 'CNY' : 'USD',
    pricing: pricingEndpoint(region, partition),
    costExplorer: costExplorerPlace(region, partition),
    staticTableRegions: region === fallback ? [region] : [region, fallback],
  };
}

/** The label a price from Karpenter's static table carries: which table priced it. */
export const staticTableSource = (tableRegion: string): `static-table (${string})` => `static-table (${tableRegion})`;
