import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClients } from '../../collectors/kubernetes/client.js';
import { collectKubeSnapshot } from '../../collectors/kubernetes/collect.js';
import type { KubeSnapshot } from '../../core/model.js';
import { DAY_MS } from '../../core/time.js';
import { startSandbox, type RunningSandbox } from '../index.js';
import { CURRENT_KARPENTER_VERSION, LEGACY_KARPENTER_VERSION } from '../scenario/karpenter-profile.js';

/**
 * week4's NodePools and nodes as each imitated Karpenter release serves them, read through @kubernetes/client-node:
 * the raw JSON (numbers stay numbers) and what the collector maps from it.
 */
interface Served {
  sb: RunningSandbox;
  rawPools: {
    metadata: { name: string };
    spec: { limits: Record<string, unknown>; template: { spec: { requirements: { operator: string }[] } } };
  }[];
  rawClaims: { spec: { requirements: { operator: string }[] } }[];
  snapshot: KubeSnapshot;
}
const served = new Map<string, Served>();

beforeAll(async () => {
  for (const version of [CURRENT_KARPENTER_VERSION, LEGACY_KARPENTER_VERSION]) {
    const sb = await startSandbox({ karpenterVersion: version });
    sb.ctx.clock.set(sb.scenario.start + 2 * DAY_MS);
    const k = createKubeClients({ kubeconfig: sb.kubeconfigPath });
    const list = async (plural: string) =>
      ((await k.custom.listClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural })) as { items: unknown[] }).items;
    served.set(version, {
      sb,
      rawPools: (await list('nodepools')) as Served['rawPools'],
      rawClaims: (await list('nodeclaims')) as Served['rawClaims'],
      snapshot: await collectKubeSnapshot(k, sb.scenario.start + 2 * DAY_MS),
    });
  }
}, 120_000);
afterAll(async () => {
  for (const s of served.values()) await s.sb.close();
});

const get = (version: string): Served => {
  const s = served.get(version);
  if (!s) throw new Error(version);
  return s;
};
const operators = (s: Served) =>
  new Set(
    [...s.rawPools.flatMap((p) => p.spec.template.spec.requirements), ...s.rawClaims.flatMap((c) => c.spec.requirements)].map(
      (r) => r.operator,
    ),
  );

describe.each([CURRENT_KARPENTER_VERSION, LEGACY_KARPENTER_VERSION])('Karpenter %s', (version) => {
  it('serves limits as Karpenter examples write them: cpu and nodes JSON numbers, memory a string; the collector keeps all', () => {
    const general = get(version).rawPools.find((p) => p.metadata.name === 'general');
    expect(general?.spec.limits).toEqual({ cpu: 400, memory: '1600Gi', nodes: 50 });
    expect(get(version).snapshot.nodePools.find((p) => p.name === 'general')?.limits).toEqual({
      cpu: '400',
      memory: '1600Gi',
      nodes: '50',
    });
  });
});

describe('what differs between the releases', () => {
  it(`${CURRENT_KARPENTER_VERSION}: NodePools and NodeClaims use Gte and Lte; ${LEGACY_KARPENTER_VERSION}: none of either, Gt and Lt instead`, () => {
    const current = operators(get(CURRENT_KARPENTER_VERSION));
    const legacy = operators(get(LEGACY_KARPENTER_VERSION));
    expect([current.has('Gte'), current.has('Lte')]).toEqual([true, true]);
    expect([legacy.has('Gte'), legacy.has('Lte'), legacy.has('Gt'), legacy.has('Lt')]).toEqual([false, false, true, true]);
    const general = (v: string) =>
      get(v)
        .snapshot.nodePools.find((p) => p.name === 'general')
        ?.requirements.filter((r) => /generation|cpu/.test(r.key));
    expect(general(CURRENT_KARPENTER_VERSION)).toEqual([
      { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gte', values: ['6'] },
      { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lte', values: ['16'] },
    ]);
    expect(general(LEGACY_KARPENTER_VERSION)).toEqual([
      { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gt', values: ['5'] },
      { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lt', values: ['17'] },
    ]);
  });

  it(`${CURRENT_KARPENTER_VERSION}: the system node is reserved, labelled with its reservation as the AWS provider labels it; ${LEGACY_KARPENTER_VERSION}: on-demand`, () => {
    const system = (v: string) => get(v).snapshot.nodes.filter((n) => n.nodePool === 'system');
    const [reserved] = system(CURRENT_KARPENTER_VERSION);
    expect(reserved.capacityType).toBe('reserved');
    expect(reserved.labels).toMatchObject({
      'karpenter.sh/capacity-type': 'reserved',
      'karpenter.k8s.aws/capacity-reservation-id': 'cr-0a1b2c3d4e5f60718',
      'karpenter.k8s.aws/capacity-reservation-type': 'default',
      'karpenter.k8s.aws/capacity-reservation-interruptible': 'false',
    });
    const [legacy] = system(LEGACY_KARPENTER_VERSION);
    // Same node, on-demand; without a reservation to hold it to the reservation's zone, the engine takes the first
    // zone of equal price (us-east-1a), where the reserved one sits in the reservation's (us-east-1b).
    expect([legacy.name, legacy.instanceType, legacy.capacityType]).toEqual([reserved.name, reserved.instanceType, 'on-demand']);
    expect(legacy.zone).toBe('us-east-1a');
    expect(reserved.zone).toBe('us-east-1b');
    expect(Object.keys(legacy.labels).filter((k) => k.includes('capacity-reservation'))).toEqual([]);
    expect(get(LEGACY_KARPENTER_VERSION).snapshot.nodePools.find((p) => p.name === 'system')?.capacityTypes).toEqual(['on-demand']);
  });
});
