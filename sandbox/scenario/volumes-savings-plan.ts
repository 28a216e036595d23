import type { BillLine } from './bill.js';
import type { EpochMs, Scenario } from './types.js';

/**
 * The rest of a NodePool's bill, beside its instance hours (bill.ts): the EBS root volume and a little data
 * transfer per instance (billed under "EC2 - Other", tagged with the NodePool as Karpenter tags volumes and network
 * interfaces at launch), and a Compute Savings Plan covering part of the on-demand compute, applied hour by hour.
 * Pure and deterministic per seed. Cost Explorer (serve/ce-query.ts) reads it; a CUR writer can read the same lines.
 */

/**
 * gp3 storage, USD per GB-month, from the Amazon EBS pricing page (https://aws.amazon.com/ebs/pricing/, "General
 * Purpose SSD (gp3) - Storage", On-Demand, as published in 2026). Regions not listed use us-east-1's price.
 */
export const GP3_USD_PER_GB_MONTH: Readonly<Record<string, number>> = {
  'us-east-1': 0.08,
  'us-east-2': 0.08,
  'us-west-2': 0.08,
  'us-west-1': 0.096,
  'eu-west-1': 0.088,
  'eu-central-1': 0.0952,
};
/** Data transfer between Availability Zones in a region, USD per GB each way (EC2 on-demand pricing page). */
export const INTER_AZ_USD_PER_GB = 0.01;
/** Karpenter's EC2NodeClass default root volume (AL2023 and Bottlerocket's data volume): 20 GiB gp3. */
export const DEFAULT_ROOT_VOLUME_GIB = 20;

export const EC2_OTHER_SERVICE = 'EC2 - Other';
/** Cost Explorer's USAGE_TYPE_GROUP names for these lines, as AWS spells them. */
export const GROUP_EBS_GP3 = 'EC2: EBS - SSD(gp3)';
export const GROUP_INTER_AZ = 'EC2: Data Transfer - Inter AZ';

/**
 * A Compute Savings Plan: a commitment in USD per hour of usage at the plan's rates, which are the on-demand rate
 * less `discountFraction` (AWS publishes a rate per instance type; one discount for every type keeps it legible).
 */
export interface SavingsPlanSpec {
  arn: string;
  commitmentUsdPerHour: number;
  discountFraction: number;
}

export interface BillModelOptions {
  /** Root volume size per node (GiB); Karpenter's default when unset. */
  rootVolumeGiB?: number;
  /** null: no Savings Plan. */
  savingsPlan?: SavingsPlanSpec | null;
  /** Credits and private pricing, as a fraction off the gross cost (net metrics); 0 by default. */
  netDiscountFraction?: number;
}

/**
 * The sandbox account's plan: USD 0.10 per hour at 28 % off on-demand (a 1-year no-upfront Compute Savings Plan
 * for m6i in us-east-1 is about that), so it covers about USD 0.139 of on-demand compute each hour: part of the
 * always-on `system` pool, never all of the cluster.
 */
export const defaultSavingsPlan = (scenario: Scenario): SavingsPlanSpec => ({
  arn: `arn:aws:savingsplans::${scenario.accountId}:savingsplan/sp-sandbox-${scenario.seed}`,
  commitmentUsdPerHour: 0.1,
  discountFraction: 0.28,
});

/** The four cost metrics Cost Explorer reports for a line, full precision. */
export interface LineCosts {
  unblendedUsd: number;
  amortizedUsd: number;
  netUnblendedUsd: number;
  netAmortizedUsd: number;
}

/** An instance hour with what the Savings Plan did to it. */
export interface CoveredComputeLine {
  line: BillLine;
  /** The on-demand cost the plan covered (0 for spot and uncovered hours). */
  coveredOnDemandUsd: number;
  /** What the covered part cost at the plan's rate: the share of the commitment it used. */
  savingsPlanEffectiveUsd: number;
  costs: LineCosts;
}

/** One "EC2 - Other" line: a volume's or a network interface's share of an instance hour. */
export interface OtherLine {
  hourStart: EpochMs;
  nodePool: string | null;
  instanceId: string;
  zone: string;
  /** Cost Explorer's USAGE_TYPE without the region prefix, e.g. EBS:VolumeUsage.gp3, DataTransfer-Regional-Bytes. */
  usageType: string;
  usageTypeGroup: string;
  usageQuantity: number;
  /** GB-Mo for storage, GB for data transfer. */
  usageUnit: 'GB-Mo' | 'GB';
  costs: LineCosts;
}

export interface SavingsPlanHour {
  hourStart: EpochMs;
  commitmentUsd: number;
  usedUsd: number;
  /** The unused commitment: billed to the account as the plan's fee, untagged. */
  unusedUsd: number;
}

const hoursInMonth = (t: EpochMs): number => {
  const d = new Date(t);
  return (Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)) / 3_600_000;
};

/** FNV-1a of the text: a stable number per instance and seed (no state, so the result does not depend on order). */
function hash01(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h / 0x1_0000_0000;
}

const net = (usd: number, fraction: number): number => usd * (1 - fraction);

/**
 * Applies the plan to the instance hours, hour by hour as AWS does: each hour's commitment covers eligible
 * on-demand usage (on-demand and capacity-reservation hours, not spot) at the plan's rate until it is used up; the
 * line that exhausts it is covered in part. Lines are taken in bill order (hour, then instance id), so the result is
 * deterministic. Unblended stays the on-demand cost; amortized = unblended − covered on-demand + its share of the
 * commitment (SavingsPlanCoveredUsage at the SP effective cost).
 */
export function applySavingsPlan(
  lines: readonly BillLine[],
  plan: SavingsPlanSpec | null,
  netDiscountFraction = 0,
): { lines: CoveredComputeLine[]; hours: SavingsPlanHour[] } {
  const out: CoveredComputeLine[] = [];
  const hours: SavingsPlanHour[] = [];
  let hour: SavingsPlanHour | null = null;
  for (const line of lines) {
    if (plan !== null && (hour === null || hour.hourStart !== line.hourStart)) {
      hour = { hourStart: line.hourStart, commitmentUsd: plan.commitmentUsdPerHour, usedUsd: 0, unusedUsd: plan.commitmentUsdPerHour };
      hours.push(hour);
    }
    let coveredOnDemandUsd = 0;
    let savingsPlanEffectiveUsd = 0;
    if (plan !== null && hour !== null && line.capacityType !== 'spot' && hour.unusedUsd > 0) {
      const atPlanRate = line.unblendedUsd * (1 - plan.discountFraction);
      savingsPlanEffectiveUsd = Math.min(atPlanRate, hour.unusedUsd);
      coveredOnDemandUsd = atPlanRate === 0 ? 0 : line.unblendedUsd * (savingsPlanEffectiveUsd / atPlanRate);
      hour.usedUsd += savingsPlanEffectiveUsd;
      hour.unusedUsd = Math.max(0, plan.commitmentUsdPerHour - hour.usedUsd);
    }
    const amortizedUsd = line.unblendedUsd - coveredOnDemandUsd + savingsPlanEffectiveUsd;
    out.push({
      line,
      coveredOnDemandUsd,
      savingsPlanEffectiveUsd,
      costs: {
        unblendedUsd: line.unblendedUsd,
        amortizedUsd,
        netUnblendedUsd: net(line.unblendedUsd, netDiscountFraction),
        netAmortizedUsd: net(amortizedUsd, netDiscountFraction),
      },
    });
  }
  return { lines: out, hours };
}

/**
 * Per instance hour, its root volume (GiB × hours ÷ hours in the month, in GB-months, at the region's gp3 price)
 * and its inter-AZ traffic (0.02–0.10 GB per hour, fixed per instance and seed). Both carry the instance's
 * NodePool tag, never its NodeClaim's (Karpenter adds that to the instance only). Not covered by the plan.
 */
export function otherLines(scenario: Scenario, lines: readonly BillLine[], options: BillModelOptions = {}): OtherLine[] {
  const gib = options.rootVolumeGiB ?? DEFAULT_ROOT_VOLUME_GIB;
  const usdPerGbMonth = GP3_USD_PER_GB_MONTH[scenario.region] ?? GP3_USD_PER_GB_MONTH['us-east-1'];
  const fraction = options.netDiscountFraction ?? 0;
  const costs = (usd: number): LineCosts => ({
    unblendedUsd: usd,
    amortizedUsd: usd,
    netUnblendedUsd: net(usd, fraction),
    netAmortizedUsd: net(usd, fraction),
  });
  const out: OtherLine[] = [];
  for (const l of lines) {
    const gbMonths = (gib * l.usageHours) / hoursInMonth(l.hourStart);
    const base = { hourStart: l.hourStart, nodePool: l.nodePool, instanceId: l.instanceId, zone: l.zone };
    out.push({
      ...base,
      usageType: 'EBS:VolumeUsage.gp3',
      usageTypeGroup: GROUP_EBS_GP3,
      usageQuantity: gbMonths,
      usageUnit: 'GB-Mo',
      costs: costs(gbMonths * usdPerGbMonth),
    });
    const gb = (0.02 + 0.08 * hash01(`${scenario.seed}:${l.instanceId}`)) * l.usageHours;
    out.push({
      ...base,
      usageType: 'DataTransfer-Regional-Bytes',
      usageTypeGroup: GROUP_INTER_AZ,
      usageQuantity: gb,
      usageUnit: 'GB',
      costs: costs(gb * INTER_AZ_USD_PER_GB),
    });
  }
  return out;
}
