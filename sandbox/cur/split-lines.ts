import type { AttributedPod } from '../../core/attribution/attributed-pod.js';
import { type AwsSplitResource, awsSplit } from '../../core/attribution/aws-split.js';
import type { Capacity } from '../../core/attribution/capacity.js';
import { eksPodArn, SPLIT_USAGE_SUFFIX } from '../../core/cur/split-lines.js';
import { HOUR_MS, MINUTE_MS } from '../../core/time.js';
import { onDemandUsd } from '../scenario/bill.js';
import type { EpochMs, Scenario, SimNode, SimPod } from '../scenario/types.js';
import type { UsageModel } from '../scenario/usage.js';
import type { CoveredComputeLine } from '../scenario/volumes-savings-plan.js';
import type { CommonOf } from './compute-lines.js';
import { type CurLineItem, type CurRow, lineItemId, regionalUsageType } from './cur-common.js';

/**
 * Split cost allocation data for Amazon EKS (AWS Data Exports User Guide, "Understanding split cost allocation data"
 * and "Split line item columns"): for every instance hour, two lines per pod that ran on it (vCPU and memory; a third, GPU, on an accelerated instance),
 * product AmazonEKS, operation `EKSPod-EC2`, resource id the pod's ARN
 * (`arn:aws:eks:<region>:<account>:pod/<cluster>/<namespace>/<pod>/<uid>`), the instance in
 * split_line_item_parent_resource_id. The split itself is core/attribution/aws-split.ts (AWS's method: allocated =
 * max(reserved, actual), split usage ratio over the instance type's vCPU and memory, weights 9:1, unused capacity
 * shared by allocation) applied to the instance hour's amortized cost, its net amortized cost and its public
 * on-demand cost. The pod lines carry no unblended cost of their own: the instance's lines already do. Pure.
 *
 * Amounts are per hour of usage within the hour: a pod or node present for 20 minutes reserves a third of its
 * request, and the instance offers a third of its capacity.
 */

const STEP_MS = 5 * MINUTE_MS;

/** What the split needs of a node's instance type (core/attribution/capacity.ts's Capacity). */
export type CapacityOf = (instanceType: string) => Capacity;

/** The usage types AWS gives the pod lines (before the region prefix), and their units. */
const USAGE_TYPES: Readonly<Record<AwsSplitResource, { usageType: string; unit: string; label: string }>> = {
  cpu: { usageType: SPLIT_USAGE_SUFFIX.vcpu, unit: 'vCPU-Hours', label: 'vCPU' },
  memory: { usageType: SPLIT_USAGE_SUFFIX.memory, unit: 'GB-Hours', label: 'Memory' },
  gpu: { usageType: SPLIT_USAGE_SUFFIX.gpu, unit: 'GPU-Hours', label: 'GPU' },
};

/** The pods that ever ran on each node, by node name. */
export function podsByNode(pods: readonly SimPod[]): Map<string, SimPod[]> {
  const out = new Map<string, SimPod[]>();
  for (const p of pods) {
    if (p.nodeName === '') continue;
    const list = out.get(p.nodeName);
    if (list) list.push(p);
    else out.set(p.nodeName, [p]);
  }
  return out;
}

/** The pod's mean usage over [from, to), sampled at each 5-minute step the model steps by (at `from` if none). */
function meanUsage(usage: UsageModel, p: SimPod, from: EpochMs, to: EpochMs): { cpuMillicores: number; memoryBytes: number } {
  let cpu = 0;
  let memory = 0;
  let samples = 0;
  const first = Math.ceil(from / STEP_MS) * STEP_MS;
  for (let t = first < to ? first : from; t < to || samples === 0; t += STEP_MS) {
    for (const c of p.containers) {
      const u = usage.usageAt(p, c, t);
      cpu += u.cpuMillicores;
      memory += u.memoryBytes;
    }
    samples += 1;
  }
  return { cpuMillicores: cpu / samples, memoryBytes: memory / samples };
}

/** Kubernetes' tags on the pod lines (AWS: `aws:eks:*` cost allocation tags), original keys. */
export function podTags(scenario: Scenario, p: SimPod): Record<string, string> {
  const deployment = p.ownerKind === 'ReplicaSet' && p.labels['pod-template-hash'] !== undefined ? (p.labels.app ?? null) : null;
  const tags: Record<string, string> = {
    'aws:eks:cluster-name': scenario.clusterName,
    'aws:eks:namespace': p.namespace,
    'aws:eks:node': p.nodeName,
    'aws:eks:workload-type': deployment !== null ? 'Deployment' : p.ownerKind,
    'aws:eks:workload-name': deployment ?? p.ownerName,
  };
  if (deployment !== null) tags['aws:eks:deployment'] = deployment;
  return tags;
}

export interface SplitContext {
  scenario: Scenario;
  common: CommonOf;
  capacityOf: CapacityOf;
  /** What the containers used; without it AWS falls back to the reservations ("if usage data is unavailable"). */
  usage: UsageModel | null;
  /** Tags in resource_tags form (normalised keys). */
  tags: (raw: Record<string, string>) => Readonly<Record<string, string>>;
  /** The pod's tags once made (a pod has lines in every hour it runs). */
  podTagMemo?: WeakMap<SimPod, Readonly<Record<string, string>>>;
}

/** The split lines of one instance hour: for each pod present in it, a vCPU line and a memory line (and a GPU line). */
export function splitLinesOfHour(ctx: SplitContext, c: CoveredComputeLine, node: SimNode, pods: readonly SimPod[]): CurLineItem[] {
  const { scenario } = ctx;
  const l = c.line;
  const from = Math.max(l.hourStart, node.createdAt);
  const to = from + l.usageHours * HOUR_MS;
  const present: { pod: SimPod; hours: number; from: EpochMs; to: EpochMs }[] = [];
  for (const p of pods) {
    const pFrom = Math.max(from, p.createdAt);
    const pTo = Math.min(to, p.deletedAt ?? Number.POSITIVE_INFINITY);
    if (pTo > pFrom) present.push({ pod: p, hours: (pTo - pFrom) / HOUR_MS, from: pFrom, to: pTo });
  }
  if (present.length === 0) return [];
  const type = ctx.capacityOf(l.instanceType);
  const nodeHours = l.usageHours;
  // Resource-hours within the hour: what the instance offered and what each pod reserved and used.
  const capacity: Capacity = {
    cpuMillicores: type.cpuMillicores * nodeHours,
    memoryBytes: type.memoryBytes * nodeHours,
    gpu: type.gpu * nodeHours,
  };
  const attributed: AttributedPod[] = present.map(({ pod, hours, from: pFrom, to: pTo }) => {
    const requests = {
      cpuMillicores: pod.requests.cpuMillicores * hours,
      memoryBytes: pod.requests.memoryBytes * hours,
      pods: 1,
      gpu: pod.requests.gpu * hours,
    };
    if (ctx.usage === null) return { requests };
    const used = meanUsage(ctx.usage, pod, pFrom, pTo);
    return { requests, usage: { cpuMillicores: used.cpuMillicores * hours, memoryBytes: used.memoryBytes * hours } };
  });
  // The split is linear in the cost: work it out for 1 USD, then scale by each cost the columns report.
  const split = awsSplit({ costUsd: 1, capacity, pods: attributed });
  const amortizedUsd = c.costs.amortizedUsd;
  const netAmortizedUsd = c.costs.netAmortizedUsd;
  const publicOnDemandUsd = onDemandUsd(scenario, l.instanceType) * l.usageHours;
  const rows: CurLineItem[] = [];
  const hourColumns: CurRow = {
    line_item_line_item_type: 'Usage',
    line_item_product_code: 'AmazonEKS',
    line_item_operation: 'EKSPod-EC2',
    line_item_availability_zone: l.zone,
    line_item_unblended_cost: 0,
    line_item_net_unblended_cost: 0,
    product_servicecode: 'AmazonEKS',
    product_region_code: scenario.region,
    product: { region: scenario.region, servicecode: 'AmazonEKS' },
    split_line_item_parent_resource_id: l.instanceId,
  };
  const shared = [ctx.common(l.hourStart), hourColumns];
  // An instance with GPUs gets a third line per pod (AWS's accelerated-instance split).
  const resources: readonly AwsSplitResource[] = type.gpu > 0 ? ['cpu', 'memory', 'gpu'] : ['cpu', 'memory'];
  // awsSplit's units are vCPU and GiB (AWS's "GB"), so over hour-scaled inputs its amounts are vCPU-hours and GB-hours.
  present.forEach(({ pod }, i) => {
    const podArn = eksPodArn({
      region: scenario.region,
      accountId: scenario.accountId,
      cluster: scenario.clusterName,
      namespace: pod.namespace,
      pod: pod.name,
      uid: pod.uid,
    });
    let tags = ctx.podTagMemo?.get(pod);
    if (tags === undefined) {
      tags = ctx.tags(podTags(scenario, pod));
      ctx.podTagMemo?.set(pod, tags);
    }
    for (const resource of resources) {
      const r = split.pods[i].byResource[resource];
      const { usageType, unit: pricingUnit, label } = USAGE_TYPES[resource];
      rows.push({
        shared,
        own: {
          identity_line_item_id: lineItemId(`${podArn}|${l.hourStart}|${resource}`),
          line_item_usage_type: regionalUsageType(scenario, usageType),
          line_item_resource_id: podArn,
          line_item_usage_amount: r.allocatedUnits,
          line_item_line_item_description: `${label} split usage of pod ${pod.namespace}/${pod.name} on ${l.instanceId}`,
          pricing_unit: pricingUnit,
          resource_tags: tags,
          split_line_item_reserved_usage: r.reservedUnits,
          split_line_item_actual_usage: r.actualUnits,
          split_line_item_split_usage: r.allocatedUnits,
          split_line_item_split_usage_ratio: r.splitUsageRatio,
          split_line_item_split_cost: r.splitCostUsd * amortizedUsd,
          split_line_item_unused_cost: r.unusedCostUsd * amortizedUsd,
          split_line_item_net_split_cost: r.splitCostUsd * netAmortizedUsd,
          split_line_item_net_unused_cost: r.unusedCostUsd * netAmortizedUsd,
          split_line_item_public_on_demand_split_cost: r.splitCostUsd * publicOnDemandUsd,
          split_line_item_public_on_demand_unused_cost: r.unusedCostUsd * publicOnDemandUsd,
        },
      });
    }
  });
  return rows;
}
