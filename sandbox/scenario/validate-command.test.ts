import { describe, expect, it } from 'vitest';
import { consolidate, prepare, provision } from '../../core/karpenter/scheduling/index.js';
import { fakeType, node, nodePool, onDemand, pod } from '../../core/karpenter/scheduling/test-support.js';
import { commandForNode, validateCommand } from './validate-command.js';

/*
 * Karpenter's validation 15 s after a command (kubernetes-sigs/karpenter v1.14.1 validation.go isValid, reasons from
 * getValidationFailureReason), against the one change the sandbox knows of in that window: a node starting to be
 * deleted. Worked by hand over one NodePool and one instance type `box` (4 CPU; overhead 100m, so 3900m allocatable
 * is what the node objects say), on-demand $0.40/h:
 *   a: 1 pod of 1 CPU; b: 1 pod of 2 CPU; c: 1 pod of 3 CPU. Consolidation deletes a (its pod fits b's 1.9 CPU
 *   free room, not c's 0.9): "delete: [a]" saving $0.40/h.
 *   - c starts being deleted: its 3-CPU pod must go too, and with a's 1 CPU onto b's 1.9 free it does not fit: a
 *     NodeClaim is needed where the command expected none: scheduling.
 *   - a itself is being deleted: a candidate no longer passes candidate filtering: churn (checked first).
 *   - budget nodes: "1": c being deleted already uses it: allowed 1 − disrupting 1 = 0 for a: budget.
 */

const NOW = Date.parse('2026-02-01T00:00:00Z');
const BOX = fakeType('box', { resources: { cpu: '4', memory: '16Gi', pods: '10' }, offerings: onDemand(0.4, 'test-zone-1') });
const boxNode = (name: string) =>
  node(name, { nodePool: 'default', instanceType: 'box', allocatable: { cpu: '3900m', memory: '15Gi', pods: '10' } });
const podOn = (name: string, nodeName: string, cpu: string) =>
  pod(name, { nodeName, requests: { cpu, memory: '1Gi' }, ownerKind: 'ReplicaSet', ownerName: 'rs', createdAt: '2026-01-01T00:00:00Z' });

function round(budget: string) {
  const ctx = prepare({
    nodePools: [nodePool('default', { consolidateAfter: '0s', budgets: [{ nodes: budget }] })],
    nodes: [boxNode('a'), boxNode('b'), boxNode('c')],
    pods: [podOn('p-a', 'a', '1'), podOn('p-b', 'b', '2'), podOn('p-c', 'c', '3')],
    catalogue: [BOX],
    now: NOW,
  });
  const { command } = consolidate(ctx, provision(ctx));
  if (command === null) throw new Error('no command');
  return { ctx, command };
}

describe('a consolidation command validated 15 s later (validation.go), with a node being deleted in between', () => {
  const { ctx, command } = round('100%');

  it('the command: delete a, $0.40/h, named as Command.StringForNode names it', () => {
    expect(command.candidates.map((c) => c.node.name)).toEqual(['a']);
    expect(command.replacement).toBeNull();
    expect(command.savingsUsdPerHour).toBeCloseTo(0.4, 9);
    expect(commandForNode(command, 'a')).toBe('delete: [a]');
  });

  it('a candidate being deleted: churn (validateCandidates, checked first)', () => {
    expect(validateCommand(ctx, command, 'a')).toBe('churn');
  });

  it('the node whose room the move does not use (c) being deleted: its pod needs a node too: scheduling', () => {
    expect(validateCommand(ctx, command, 'c')).toBe('scheduling');
  });

  it('a node nobody is deleting: the command stands', () => {
    expect(validateCommand(ctx, command, 'no-such-node')).toBeNull();
  });

  it('budget nodes "1": the node being deleted takes the only disruption the NodePool allows: budget', () => {
    const tight = round('1');
    expect(validateCommand(tight.ctx, tight.command, 'c')).toBe('budget');
  });
});
