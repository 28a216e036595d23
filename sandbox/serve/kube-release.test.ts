import type { CoreV1Event } from '@kubernetes/client-node';
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
  /** karpenter.sh/v1alpha1 NodeOverlays, or the HTTP status the list answered with. */
  rawOverlays: { metadata: { name: string }; spec: Record<string, unknown>; status?: unknown }[] | number;
  rawNodeClasses: { metadata: { name: string }; status: { capacityReservations?: Record<string, unknown>[] } }[];
  /** Every event of the history (the clock at the end). */
  rawEvents: CoreV1Event[];
}
const served = new Map<string, Served>();

beforeAll(async () => {
  for (const version of [CURRENT_KARPENTER_VERSION, LEGACY_KARPENTER_VERSION]) {
    const sb = await startSandbox({ karpenterVersion: version });
    sb.ctx.clock.set(sb.scenario.start + 2 * DAY_MS);
    const k = createKubeClients({ kubeconfig: sb.kubeconfigPath });
    const list = async (plural: string) =>
      ((await k.custom.listClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural })) as { items: unknown[] }).items;
    const rawPools = (await list('nodepools')) as Served['rawPools'];
    const rawClaims = (await list('nodeclaims')) as Served['rawClaims'];
    const snapshot = await collectKubeSnapshot(k, sb.scenario.start + 2 * DAY_MS);
    sb.ctx.clock.set(sb.scenario.end);
    const rawOverlays = await k.custom
      .listClusterCustomObject({ group: 'karpenter.sh', version: 'v1alpha1', plural: 'nodeoverlays' })
      .then((l) => (l as { items: Exclude<Served['rawOverlays'], number> }).items)
      .catch((err: { code?: number }) => err.code ?? -1);
    const rawNodeClasses = (
      (await k.custom.listClusterCustomObject({ group: 'karpenter.k8s.aws', version: 'v1', plural: 'ec2nodeclasses' })) as {
        items: Served['rawNodeClasses'];
      }
    ).items;
    // Events live an hour in the API server (--event-ttl): the history's, listed every 55 minutes, by uid.
    const seen = new Map<string, CoreV1Event>();
    for (let t = sb.scenario.start; t <= sb.scenario.end; t += DAY_MS / 26) {
      sb.ctx.clock.set(t);
      for (const e of (await k.core.listEventForAllNamespaces({})).items) seen.set(e.metadata.uid ?? '', e);
    }
    const rawEvents = [...seen.values()];
    served.set(version, {
      sb,
      rawPools,
      rawClaims,
      snapshot,
      rawOverlays,
      rawNodeClasses,
      rawEvents,
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
    // coredns' zone spread puts the two system nodes in us-east-1a and us-east-1b; only us-east-1b holds the reservation
    expect(system(CURRENT_KARPENTER_VERSION).map((n) => [n.zone, n.capacityType])).toEqual([
      ['us-east-1a', 'on-demand'],
      ['us-east-1b', 'reserved'],
    ]);
    const reserved = system(CURRENT_KARPENTER_VERSION).find((n) => n.capacityType === 'reserved');
    if (!reserved) throw new Error('no reserved system node');
    expect(reserved.labels).toMatchObject({
      'karpenter.sh/capacity-type': 'reserved',
      'karpenter.k8s.aws/capacity-reservation-id': 'cr-0a1b2c3d4e5f60718',
      'karpenter.k8s.aws/capacity-reservation-type': 'default',
      'karpenter.k8s.aws/capacity-reservation-interruptible': 'false',
    });
    const legacy = system(LEGACY_KARPENTER_VERSION).find((n) => n.name === reserved.name);
    if (!legacy) throw new Error('no such system node on the legacy release');
    // Same node, same zone, on-demand.
    expect([legacy.instanceType, legacy.zone, legacy.capacityType]).toEqual([reserved.instanceType, 'us-east-1b', 'on-demand']);
    expect(Object.keys(legacy.labels).filter((k) => k.includes('capacity-reservation'))).toEqual([]);
    expect(get(LEGACY_KARPENTER_VERSION).snapshot.nodePools.find((p) => p.name === 'system')?.capacityTypes).toEqual(['on-demand']);
  });
});

/**
 * The v1.14 profile of issue 22: what Karpenter v1.14.1 adds to a cluster's API (kubernetes-sigs/karpenter v1.14.1
 * pkg/apis/v1alpha1/nodeoverlay.go, pkg/apis/v1/nodepool.go, disruption/events/events.go; aws/karpenter-provider-aws
 * v1.14.1 pkg/apis/v1/ec2nodeclass_status.go), listed through @kubernetes/client-node, against 1.5.0, which has none.
 */
describe('the v1.14 profile: NodeOverlays, a static and a Balanced NodePool, reservations in the EC2NodeClass, consolidation events', () => {
  const current = () => get(CURRENT_KARPENTER_VERSION);
  const legacy = () => get(LEGACY_KARPENTER_VERSION);
  const pool = (s: Served, name: string) =>
    s.rawPools.find((p) => p.metadata.name === name) as
      { spec: Record<string, unknown> & { disruption: { consolidationPolicy: string } }; status: Record<string, unknown> } | undefined;

  it(`${CURRENT_KARPENTER_VERSION} serves karpenter.sh/v1alpha1 NodeOverlays (spec as written, no status: the NodeOverlay gate is off); ${LEGACY_KARPENTER_VERSION} has no such API (404)`, () => {
    expect(current().rawOverlays).toEqual([
      {
        apiVersion: 'karpenter.sh/v1alpha1',
        kind: 'NodeOverlay',
        metadata: expect.objectContaining({ name: 'edp-discount' }),
        spec: {
          requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }],
          priceAdjustment: '-12%',
          weight: 10,
        },
      },
      {
        apiVersion: 'karpenter.sh/v1alpha1',
        kind: 'NodeOverlay',
        metadata: expect.objectContaining({ name: 'graviton-preference' }),
        spec: {
          requirements: [
            { key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] },
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
          ],
          priceAdjustment: '-0.02',
          weight: 20,
        },
      },
    ]);
    expect(legacy().rawOverlays).toBe(404);
  });

  it(`${CURRENT_KARPENTER_VERSION} serves the static NodePool load-test (spec.replicas 0, no weight, limits.nodes only, status.nodes 0) and the collector keeps it; ${LEGACY_KARPENTER_VERSION} (before v1.8) has none`, () => {
    const p = pool(current(), 'load-test');
    expect(p?.spec).toMatchObject({ replicas: 0, limits: { nodes: 6 } });
    expect(p?.spec).not.toHaveProperty('weight');
    expect(p?.status.nodes).toBe(0);
    expect(current().snapshot.nodePools.find((x) => x.name === 'load-test')).toMatchObject({ weight: null, limits: { nodes: '6' } });
    expect(current().snapshot.nodes.filter((n) => n.nodePool === 'load-test')).toEqual([]);
    expect(pool(legacy(), 'load-test')).toBeUndefined();
    // the dynamic NodePools keep their weight and carry no replicas
    expect(pool(current(), 'general')?.spec).toMatchObject({ weight: 50 });
    expect(pool(current(), 'general')?.spec).not.toHaveProperty('replicas');
  });

  it(`${CURRENT_KARPENTER_VERSION}: steady consolidates Balanced (the collector reads it so); ${LEGACY_KARPENTER_VERSION} (before v1.14) WhenEmptyOrUnderutilized`, () => {
    expect(pool(current(), 'steady')?.spec.disruption.consolidationPolicy).toBe('Balanced');
    expect(current().snapshot.nodePools.find((x) => x.name === 'steady')?.consolidationPolicy).toBe('Balanced');
    expect(pool(legacy(), 'steady')?.spec.disruption.consolidationPolicy).toBe('WhenEmptyOrUnderutilized');
  });

  it(`${CURRENT_KARPENTER_VERSION}: the system EC2NodeClass lists its capacity reservation in status.capacityReservations with type and interruptible (v1.6, v1.10); ${LEGACY_KARPENTER_VERSION}: none`, () => {
    const system = (s: Served) => s.rawNodeClasses.find((c) => c.metadata.name === 'system')?.status.capacityReservations;
    expect(system(current())).toEqual([
      {
        availabilityZone: 'us-east-1b',
        id: 'cr-0a1b2c3d4e5f60718',
        instanceMatchCriteria: 'targeted',
        instanceType: 'm6i.large',
        ownerID: current().sb.scenario.accountId,
        reservationType: 'default',
        state: 'active',
        interruptible: false,
      },
    ]);
    expect(system(legacy())).toBeUndefined();
    expect(current().rawNodeClasses.find((c) => c.metadata.name === 'default')?.status.capacityReservations).toBeUndefined();
  });

  const byReason = (s: Served, reason: string) => s.rawEvents.filter((e) => e.reason === reason);
  const nodeAt = (s: Served, name: string) => s.sb.scenario.nodes.find((n) => n.name === name);

  it(`${CURRENT_KARPENTER_VERSION}: a ConsolidationCandidate on the Node and its NodeClaim for each replace command, with Karpenter's wording and EstimatedSavings (old price less the replacement's, by hand from the history); ${LEGACY_KARPENTER_VERSION} (before v1.9): none`, () => {
    const sc = current().sb.scenario;
    const candidates = byReason(current(), 'ConsolidationCandidate');
    expect(candidates.length).toBeGreaterThan(0);
    expect(byReason(legacy(), 'ConsolidationCandidate')).toEqual([]);
    const onNodes = candidates.filter((e) => e.involvedObject.kind === 'Node');
    expect(candidates.filter((e) => e.involvedObject.kind === 'NodeClaim')).toHaveLength(onNodes.length);
    const spotAt = (type: string, zone: string, t: number) =>
      sc.spotPrices.filter((p) => p.instanceType === type && p.zone === zone && p.at <= t).at(-1)?.usdPerHour;
    const priceAt = (n: { instanceType: string; zone: string; capacityType: string }, t: number) =>
      n.capacityType === 'spot' ? spotAt(n.instanceType, n.zone, t) : sc.onDemandUsdPerHour[n.instanceType];
    let checked = 0;
    for (const e of onNodes) {
      const m = /^Consolidation candidate: replace: \[([^\]]+)\] -> \[1 replacement\] \(savings: \$(\d+\.\d\d)\)$/.exec(e.message ?? '');
      if (!m) {
        expect(e.message).toMatch(
          /^Consolidation candidate: replace: \[[^\]]+\] \(part of \d+-node consolidation\) \(savings: \$-?\d+\.\d\d\)$/,
        );
        continue;
      }
      expect(e.involvedObject.name).toBe(m[1]);
      const old = nodeAt(current(), m[1]);
      const t = Date.parse(String(e.firstTimestamp));
      // Karpenter disrupts it in the same round, and its replacement names it
      expect(old?.disruptedAt ?? old?.deletedAt).toBe(t);
      const replacement = sc.nodes.find(
        (n) => n.launchReason.kind === 'replacement' && n.launchReason.replaces.includes(old?.nodeClaimName ?? ''),
      );
      if (!old || !replacement || replacement.capacityType !== old.capacityType || old.capacityType !== 'on-demand') continue;
      // on-demand for on-demand: the replacement launched is the cheapest option Karpenter priced the saving with
      expect(Number(m[2])).toBeCloseTo((priceAt(old, t) ?? NaN) - (priceAt(replacement, t) ?? NaN), 2);
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
  });

  it("both releases: Unconsolidatable on the Node and its NodeClaim with consolidation.go's messages, each true of its node (a spot node for the SpotToSpotConsolidation one, a general node while week4 has its policy WhenEmpty)", () => {
    // week4 sets general's consolidationPolicy to WhenEmpty from 11-11 19:00 to 11-12 07:00 (sandbox/scenarios/week4.json):
    // its non-empty nodes then say so, in each release's words (v1.14.1 consolidation.go:132, v1.5.0 consolidation.go:116).
    const editFrom = Date.parse('2026-11-11T19:00:00Z');
    const editTo = Date.parse('2026-11-12T07:00:00Z');
    const whenEmpty = new Map([
      [current(), 'NodePool "general" has consolidation policy WhenEmpty, but node is not empty'],
      [legacy(), 'NodePool "general" has non-empty consolidation disabled'],
    ]);
    for (const s of [current(), legacy()]) {
      const events = byReason(s, 'Unconsolidatable');
      expect(events.length).toBeGreaterThan(0);
      for (const e of events) {
        if (e.message === whenEmpty.get(s)) {
          const t = Date.parse(String(e.firstTimestamp));
          expect(t >= editFrom && t < editTo).toBe(true);
          if (e.involvedObject.kind === 'Node') expect(nodeAt(s, e.involvedObject.name ?? '')?.nodePool).toBe('general');
          continue;
        }
        expect(e.message).toMatch(
          /^(SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node|Can't replace with a cheaper node)$/,
        );
        if (e.involvedObject.kind !== 'Node') continue;
        if (e.message?.startsWith('SpotToSpot')) expect(nodeAt(s, e.involvedObject.name ?? '')?.capacityType).toBe('spot');
      }
      expect(events.filter((e) => e.message === whenEmpty.get(s)).length).toBeGreaterThan(0);
    }
    // Not the same events on both: v1.14 consolidates week4 later and less (sandbox/scenario/simulate.test.ts), so
    // other nodes stay, and say why, at other times.
  });
});
