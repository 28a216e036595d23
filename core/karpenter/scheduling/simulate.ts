import { type ConsolidationOutcome, Consolidator } from './consolidation.js';
import { type EngineContext, type EngineInput, nodePrice, prepare } from './engine.js';
import type { ExistingNodeSpec } from './nodes.js';
import type { SchedPod } from './pods.js';
import { provision, type ProvisionedNodeClaim, type ProvisioningOutcome } from './provisioning.js';
import { LABEL_CAPACITY_TYPE, LABEL_HOSTNAME, LABEL_NODE_INITIALIZED, LABEL_NODEPOOL, LABEL_ZONE } from './well-known.js';

/** The engine's answer, in the shape `nodepool-ledger simulate --json` prints (issue 14). Prices are USD per hour. */
export interface SimulationResult {
  provisioning: {
    nodeClaims: {
      nodePool: string;
      /** The cheapest compatible available offering it would launch on. */
      instanceType: string;
      /** Every type the NodeClaim allows, cheapest first (at most 600). */
      instanceTypeOptions: string[];
      capacityType: string;
      zone: string;
      usdPerHour: number;
      /** "namespace/name", in the order they were placed. */
      pods: string[];
    }[];
    unschedulable: { pod: string; reason: string }[];
  };
  consolidation: {
    /** One disruption round: the command Karpenter would run next (at most one). */
    decisions: {
      action: 'delete' | 'replace';
      reason: 'Empty' | 'Underutilized';
      method: 'emptiness' | 'multi-node' | 'single-node';
      candidates: string[];
      replacement: { instanceType: string; instanceTypeOptions: string[]; capacityType: string; zone: string; usdPerHour: number } | null;
      savingsUsdPerHour: number;
    }[];
    /** Every node that stays, with the reason and what keeping it costs. */
    unconsolidatable: {
      node: string;
      nodePool: string | null;
      reason: string;
      wording: 'karpenter' | 'ledger';
      usdPerHour: number | null;
    }[];
  };
  costUsdPerHour: { before: number; after: number };
  /** Nodes the catalogue cannot price (left out of the costs). */
  unpricedNodes: string[];
  /** NodePools whose requirements allow no instance type, with Karpenter's message. */
  skippedNodePools: { nodePool: string; reason: string }[];
  warnings: string[];
}

/** A provisioned NodeClaim as a node that now exists (for the consolidation round that follows). */
function launchedNode(ctx: EngineContext, nc: ProvisionedNodeClaim, i: number): ExistingNodeSpec {
  const name = `${nc.nodePool}-provisioned-${String(i + 1).padStart(4, '0')}`;
  const it = nc.launch.instanceType;
  const pool = ctx.poolByName.get(nc.nodePool);
  const labels = {
    ...it.labels,
    ...(pool?.labels ?? {}),
    [LABEL_NODEPOOL]: nc.nodePool,
    [LABEL_ZONE]: nc.launch.zone,
    [LABEL_CAPACITY_TYPE]: nc.launch.capacityType,
    [LABEL_HOSTNAME]: name,
    [LABEL_NODE_INITIALIZED]: 'true',
  };
  return {
    name,
    labels,
    annotations: {},
    taints: pool?.taints ?? [],
    allocatable: it.allocatable,
    capacity: it.capacity,
    createdAt: ctx.now,
    nodePool: nc.nodePool,
    initialized: true,
    markedForDeletion: false,
    ready: true,
    lastPodEventAt: ctx.now,
    pods: nc.pods.map((p) => bind(p, name, ctx.now)),
    instanceType: it.name,
    capacityType: nc.launch.capacityType,
    zone: nc.launch.zone,
    hostname: name,
  };
}

const bind = (p: SchedPod, nodeName: string, now: number): SchedPod => ({ ...p, nodeName, phase: 'Running', startTime: now });

/**
 * Consolidation runs on the cluster as provisioning leaves it: pending pods placed, new nodes launched.
 * `commandOnly`: stop at the round's command as Karpenter does (nodes not evaluated get no reason of their own).
 */
export function consolidate(
  ctx: EngineContext,
  provisioned: ProvisioningOutcome,
  opts: { commandOnly?: boolean } = {},
): ConsolidationOutcome {
  const nominated = new Set<string>();
  const nodes: ExistingNodeSpec[] = ctx.nodes.map((n) => {
    const extra = provisioned.onExistingNodes.get(n.name);
    if (!extra) return n;
    nominated.add(n.name);
    return { ...n, pods: [...n.pods, ...extra.map((p) => bind(p, n.name, ctx.now))], lastPodEventAt: ctx.now };
  });
  provisioned.nodeClaims.forEach((nc, i) => {
    const n = launchedNode(ctx, nc, i);
    nominated.add(n.name);
    nodes.push(n);
  });
  return new Consolidator(ctx, { nodes, nominated, commandOnly: opts.commandOnly ?? false }).run();
}

/** Provisioning for pending pods, then one consolidation round, priced: the whole `simulate` answer. */
export function simulate(input: EngineInput): SimulationResult {
  const ctx = prepare(input);
  const provisioned = provision(ctx);
  const consolidation = consolidate(ctx, provisioned);
  const names = (pods: readonly SchedPod[]) => pods.map((p) => p.key);
  const unpriced: string[] = [];
  let before = 0;
  let remaining = 0;
  const removed = new Set(consolidation.command?.candidates.map((c) => c.node.name) ?? []);
  for (const n of ctx.nodes) {
    const price = nodePrice(ctx, n);
    if (price === null) {
      unpriced.push(n.name);
      continue;
    }
    before += price;
    if (!n.markedForDeletion && !removed.has(n.name)) remaining += price;
  }
  const provisionedCost = provisioned.nodeClaims.reduce((s, nc) => s + nc.launch.usdPerHour, 0);
  const replacementCost = consolidation.command?.replacement?.launch.usdPerHour ?? 0;
  const cmd = consolidation.command;
  return {
    provisioning: {
      nodeClaims: provisioned.nodeClaims.map((nc) => ({
        nodePool: nc.nodePool,
        instanceType: nc.launch.instanceType.name,
        instanceTypeOptions: nc.claim.options.map((it) => it.name),
        capacityType: nc.launch.capacityType,
        zone: nc.launch.zone,
        usdPerHour: nc.launch.usdPerHour,
        pods: names(nc.pods),
      })),
      unschedulable: provisioned.unschedulable.map((u) => ({ pod: u.pod.key, reason: u.reason })),
    },
    consolidation: {
      decisions: cmd
        ? [
            {
              action: cmd.replacement ? 'replace' : 'delete',
              reason: cmd.reason,
              method: cmd.method,
              candidates: cmd.candidates.map((c) => c.node.name),
              replacement: cmd.replacement
                ? {
                    instanceType: cmd.replacement.launch.instanceType.name,
                    instanceTypeOptions: cmd.replacement.claim.options.map((it) => it.name),
                    capacityType: cmd.replacement.launch.capacityType,
                    zone: cmd.replacement.launch.zone,
                    usdPerHour: cmd.replacement.launch.usdPerHour,
                  }
                : null,
              savingsUsdPerHour: cmd.savingsUsdPerHour,
            },
          ]
        : [],
      unconsolidatable: consolidation.unconsolidatable
        .filter((v) => ctx.nodeByName.has(v.node.name))
        .map((v) => ({ node: v.node.name, nodePool: v.node.nodePool, reason: v.reason, wording: v.wording, usdPerHour: v.usdPerHour })),
    },
    costUsdPerHour: { before, after: remaining + provisionedCost + replacementCost },
    unpricedNodes: unpriced,
    skippedNodePools: ctx.skippedPools,
    warnings: ctx.warnings,
  };
}
