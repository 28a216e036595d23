import type { Capacity } from '../../core/attribution/capacity.js';
import { curTagKey } from '../../core/cur/tag-keys.js';
import { LABEL_INSTANCE_GPU_COUNT } from '../../core/labels.js';
import { computeBill } from '../scenario/bill.js';
import { loadCatalog } from '../scenario/catalog.js';
import type { EpochMs, Scenario, SimNode } from '../scenario/types.js';
import type { UsageModel } from '../scenario/usage.js';
import { applySavingsPlan, otherLines } from '../scenario/volumes-savings-plan.js';
import { launchTags, sandboxBillModel } from '../serve/ce-query.js';
import { instanceHourLines, savingsPlanFeeLine } from './compute-lines.js';
import { billingPeriodBounds, billingPeriodOf, commonColumnsOf, type CurLineItem } from './cur-common.js';
import { otherLineItem } from './other-lines.js';
import { podsByNode, splitLinesOfHour } from './split-lines.js';
import { HOUR_MS } from '../../core/time.js';

/**
 * The Cost and Usage Report AWS would write for the simulated history, hourly (CUR 2.0's TIME_GRANULARITY HOURLY,
 * resources included, split cost allocation data included), from the same bill model Cost Explorer answers from
 * (serve/ce-query.ts usageRecords: computeBill, sandboxBillModel, applySavingsPlan, otherLines), so the two agree
 * line for line. Pure.
 */

export interface CurHistoryOptions {
  /** Nothing after this is billed (default: the end of the scenario, as the sandbox's clock starts). */
  asOf?: EpochMs;
  /** What containers used (the split's "actual usage"); null: reservations only, as AWS does without usage data. */
  usage?: UsageModel | null;
}

/** A billing period's lines. */
export interface CurPeriod {
  /** `YYYY-MM`. */
  billingPeriod: string;
  rows: CurLineItem[];
}

const MiB = 1024 ** 2;

/** The instance type's vCPU, memory and GPUs from the sandbox's catalogue; the node's allocatable if it is not there. */
function capacityLookup(nodes: readonly SimNode[]): (instanceType: string) => Capacity {
  const catalog = loadCatalog();
  const fallback = new Map(nodes.map((n) => [n.instanceType, n.allocatable]));
  const memo = new Map<string, Capacity>();
  return (instanceType) => {
    let c = memo.get(instanceType);
    if (c === undefined) {
      const t = catalog.get(instanceType);
      const a = fallback.get(instanceType);
      c = t
        ? { cpuMillicores: t.vcpu * 1000, memoryBytes: t.memoryMiB * MiB, gpu: Number(t.labels[LABEL_INSTANCE_GPU_COUNT] ?? 0) }
        : { cpuMillicores: a?.cpuMillicores ?? 0, memoryBytes: a?.memoryBytes ?? 0, gpu: a?.gpu ?? 0 };
      memo.set(instanceType, c);
    }
    return c;
  };
}

/** Every line of the history, one list per billing period (calendar month, UTC), periods in order. */
export function curHistory(scenario: Scenario, options: CurHistoryOptions = {}): CurPeriod[] {
  const asOf = options.asOf ?? scenario.end;
  const model = sandboxBillModel(scenario);
  const plan = model.savingsPlan ?? null;
  const compute = computeBill(scenario, asOf);
  const covered = applySavingsPlan(compute, plan, model.netDiscountFraction);
  const nodeClassByPool = new Map(scenario.nodePools.map((p) => [p.name, p.nodeClassName]));
  const nodeByInstance = new Map(scenario.nodes.map((n) => [n.instanceId, n]));
  const normalise = (raw: Record<string, string>): Record<string, string> =>
    Object.fromEntries(Object.entries(raw).map(([k, v]) => [curTagKey(k), v]));
  const noneInactive = new Set<string>();
  // One tag map per (NodePool, NodeClaim): thousands of lines share each.
  const tagMemo = new Map<string, Readonly<Record<string, string>>>();
  const tagsOf = (nodePool: string | null, nodeClaim: string | null): Readonly<Record<string, string>> => {
    const key = `${nodePool ?? ''}\u0000${nodeClaim ?? ''}`;
    let tags = tagMemo.get(key);
    if (tags === undefined) {
      tags = normalise(launchTags(scenario, nodeClassByPool, nodePool, nodeClaim, noneInactive));
      tagMemo.set(key, tags);
    }
    return tags;
  };
  const pods = podsByNode(scenario.pods);
  const common = commonColumnsOf(scenario);
  const splitCtx = {
    scenario,
    common,
    capacityOf: capacityLookup(scenario.nodes),
    usage: options.usage ?? null,
    tags: normalise,
    podTagMemo: new WeakMap(),
  };

  const periods = new Map<string, CurLineItem[]>();
  const push = (hourStart: EpochMs, rows: readonly CurLineItem[]): void => {
    const key = billingPeriodOf(hourStart);
    let list = periods.get(key);
    if (list === undefined) {
      list = [];
      periods.set(key, list);
    }
    for (const r of rows) list.push(r);
  };
  for (const c of covered.lines) {
    const node = nodeByInstance.get(c.line.instanceId);
    push(
      c.line.hourStart,
      instanceHourLines(scenario, common, c, plan, (x) => tagsOf(x.line.nodePool, x.line.nodeClaim)),
    );
    if (node) push(c.line.hourStart, splitLinesOfHour(splitCtx, c, node, pods.get(node.name) ?? []));
  }
  for (const l of otherLines(scenario, compute, model)) push(l.hourStart, [otherLineItem(scenario, common, l, tagsOf(l.nodePool, null))]);
  if (plan !== null) {
    for (const h of covered.hours) {
      const bounds = billingPeriodBounds(billingPeriodOf(h.hourStart));
      push(h.hourStart, [savingsPlanFeeLine(scenario, common, plan, h, (bounds.end - bounds.start) / HOUR_MS)]);
    }
  }
  return [...periods.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([billingPeriod, rows]) => ({ billingPeriod, rows }));
}
