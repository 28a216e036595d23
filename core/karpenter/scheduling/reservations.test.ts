import { describe, expect, it } from 'vitest';
import { loadInstanceCatalog } from '../../instance-catalog.js';
import { buildBuiltInCatalogue, type CatalogueEntry, validateCatalogue } from './catalogue.js';
import { CatalogueError } from './catalogue.js';
import type { KubeEC2NodeClass } from './kube-types.js';
import { simulate } from './simulate.js';
import { fakeAssorted, fakePrice, fakeType, node, nodePool, pod } from './test-support.js';

/**
 * Capacity reservations as Karpenter prices and fills them. "scheduling/suite_test.go:N" and
 * "consolidation_test.go:N" cite kubernetes-sigs/karpenter@v1.14.1 pkg/controllers/provisioning/scheduling/ and
 * pkg/controllers/disruption/; "instancetype/suite_test.go:N" and "capacitytype/suite_test.go:N" cite
 * aws/karpenter-provider-aws@v1.14.1 pkg/providers/instancetype/ and pkg/controllers/capacityreservation/capacitytype/.
 */

const NOW = Date.parse('2026-08-01T00:00:00Z');
const AGO = '2026-07-01T00:00:00Z';

describe('the pessimistic reservation count (scheduling/suite_test.go:4676 "Reserved Instance Types")', () => {
  // large (6 CPU), medium (3 CPU), small (2 CPU); medium and small each with one reserved instance in test-zone-1,
  // priced at their resource price / 100,000
  const types: CatalogueEntry[] = [
    ['large-instance-type', '6', '6Gi'],
    ['medium-instance-type', '3', '3Gi'],
    ['small-instance-type', '2', '2Gi'],
  ].map(([name, cpu, memory], i) => {
    const e = fakeType(name, { resources: { cpu, memory } });
    if (i > 0)
      e.offerings.push({
        zone: 'test-zone-1',
        capacityType: 'reserved',
        priceUsdPerHour: fakePrice({ cpu, memory }) / 100_000,
        available: true,
        reservationId: `cr-${name.split('-')[0]}`,
        reservationCapacity: 1,
      });
    return e;
  });
  const run = (pods: number, pools = [nodePool('default')]) =>
    simulate({
      nodePools: pools,
      pods: Array.from({ length: pods }, (_, i) => pod(`p${i}`, { requests: { cpu: '1800m' } })),
      catalogue: types,
      now: NOW,
    });
  it('scheduling/suite_test.go:4715 three 1800m pods: small reserved, then medium reserved, then small without a reservation; never a large', () => {
    const r = run(3);
    expect(r.provisioning.nodeClaims.map((nc) => [nc.instanceType, nc.capacityType, nc.reservationId ?? null, nc.pods.length])).toEqual([
      ['small-instance-type', 'reserved', 'cr-small', 1],
      ['medium-instance-type', 'reserved', 'cr-medium', 1],
      ['small-instance-type', 'spot', null, 1],
    ]);
    expect(r.reservations).toEqual([
      { reservationId: 'cr-medium', nodes: 0, launched: 1, instancesLeft: 0 },
      { reservationId: 'cr-small', nodes: 0, launched: 1, instancesLeft: 0 },
    ]);
  });
  it('scheduling/suite_test.go:4767 two NodePools share a reservation: one pod gets it, the other (hostname anti-affinity) goes without', () => {
    const anti = {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'test' } } },
        ],
      },
    };
    const sel = (pool: string) => ({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            {
              matchExpressions: [
                { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['small-instance-type'] },
                { key: 'karpenter.sh/nodepool', operator: 'In', values: [pool] },
              ],
            },
          ],
        },
      },
    });
    const r = simulate({
      nodePools: [nodePool('np-1'), nodePool('np-2')],
      pods: ['np-1', 'np-2'].map((np, i) => pod(`p${i}`, { labels: { app: 'test' }, spec: { affinity: { ...anti, ...sel(np) } } })),
      catalogue: types,
      now: NOW,
    });
    expect(r.provisioning.nodeClaims.map((nc) => [nc.nodePool, nc.capacityType, nc.reservationId ?? null])).toEqual([
      ['np-1', 'reserved', 'cr-small'],
      ['np-2', 'spot', null],
    ]);
  });
  it('a reservation with no instance left (reservationCapacity 0) is not offered at all', () => {
    const full = types.map((e) => ({
      ...e,
      offerings: e.offerings.map((o) => (o.capacityType === 'reserved' ? { ...o, reservationCapacity: 0 } : o)),
    }));
    const r = simulate({ nodePools: [nodePool('default')], pods: [pod('p', { requests: { cpu: '1800m' } })], catalogue: full, now: NOW });
    expect(r.provisioning.nodeClaims.map((nc) => [nc.instanceType, nc.capacityType])).toEqual([['small-instance-type', 'spot']]);
  });
});

describe('reserved offerings in consolidation (consolidation_test.go "Reserved Capacity")', () => {
  const MOST = '64-cpu-128-mem-amd64-linux-test-zone-1-on-demand';
  const BIG = { cpu: '32', pods: '100', memory: '128Gi' };
  // the most expensive type also reserved (cr-most) at its price / 1,000,000, ten instances left (:4784)
  const catalogue = (): CatalogueEntry[] =>
    fakeAssorted().map((e) =>
      e.name === MOST
        ? {
            ...e,
            offerings: [
              ...e.offerings,
              {
                zone: 'test-zone-1',
                capacityType: 'reserved',
                priceUsdPerHour: e.offerings[0].priceUsdPerHour / 1e6,
                available: true,
                reservationId: 'cr-most',
                reservationCapacity: 10,
              },
            ],
          }
        : e,
    );
  it.each(['on-demand', 'spot'])(
    'consolidation_test.go:4888 can consolidate into reserved capacity for the same instance pool (from %s)',
    (ct) => {
      const type = ct === 'spot' ? '64-cpu-128-mem-amd64-linux-test-zone-1-spot' : MOST;
      const r = simulate({
        nodePools: [nodePool('default', { consolidateAfter: '0s', budgets: [{ nodes: '100%' }] })],
        nodes: [node('n', { nodePool: 'default', instanceType: type, capacityType: ct, allocatable: BIG, createdAt: AGO })],
        pods: [pod('p', { nodeName: 'n', ownerKind: 'ReplicaSet', createdAt: AGO })],
        catalogue: catalogue(),
        now: NOW,
      });
      expect(r.consolidation.decisions[0]).toMatchObject({
        action: 'replace',
        candidates: ['n'],
        replacement: { instanceType: MOST, capacityType: 'reserved', reservationId: 'cr-most' },
      });
    },
  );
});

describe('reservations from EC2NodeClass status (aws reserved_capacity_resolver.go)', () => {
  const data = loadInstanceCatalog();
  const reservation = (state: string, endTime?: string) => ({
    nodeClass: 'default',
    reservation: {
      availabilityZone: 'us-east-1a',
      id: 'cr-123',
      instanceType: 'c6g.large',
      reservationType: 'capacity-block',
      state,
      ...(endTime ? { endTime } : {}),
    },
  });
  const reserved = (state: string, endTime?: string) =>
    buildBuiltInCatalogue(data, {
      region: 'us-east-1',
      zones: ['us-east-1a', 'us-east-1b'],
      onDemandUsdPerHour: new Map([['c6g.large', 0.068]]),
      capacityReservations: [reservation(state, endTime)],
      now: NOW,
    })[0].offerings.filter((o) => o.capacityType === 'reserved');
  it.each([
    ['active', true],
    ['expiring', false],
  ])(
    'instancetype/suite_test.go:3006 a capacity block %s: one reserved offering in its zone, available unless expiring, at on-demand ÷ 10^7',
    (state, available) => {
      expect(reserved(state)).toEqual([
        {
          zone: 'us-east-1a',
          capacityType: 'reserved',
          priceUsdPerHour: 0.068 / 10_000_000,
          available,
          reservationId: 'cr-123',
          reservationType: 'capacity-block',
          interruptible: false,
          nodeClass: 'default',
        },
      ]);
    },
  );
  it('a reservation whose endTime has passed is not offered', () => {
    expect(reserved('active', '2026-07-31T00:00:00Z')).toEqual([]);
  });

  // two r.large-like types: the catalogue as a file, the reservations and the nodes as objects
  const file: CatalogueEntry[] = validateCatalogue([
    {
      name: 'm.large',
      capacity: { cpu: '2', memory: '8Gi', pods: '29' },
      overhead: { cpu: '100m', memory: '256Mi' },
      labels: {},
      offerings: [
        { zone: 'z1', capacityType: 'on-demand', priceUsdPerHour: 0.096, available: true },
        {
          zone: 'z1',
          capacityType: 'reserved',
          priceUsdPerHour: 0.096 / 1e7,
          available: true,
          reservationId: 'cr-0a',
          reservationCapacity: 3,
        },
      ],
    },
  ]);
  const nodeClass = (endTime: string): KubeEC2NodeClass => ({
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name: 'default' },
    status: { capacityReservations: [{ availabilityZone: 'z1', id: 'cr-0a', instanceType: 'm.large', endTime }] },
  });
  const reservedNode = node('r', {
    nodePool: 'default',
    instanceType: 'm.large',
    capacityType: 'reserved',
    zone: 'z1',
    allocatable: { cpu: '1900m', pods: '29' },
    labels: { 'karpenter.k8s.aws/capacity-reservation-id': 'cr-0a' },
    createdAt: AGO,
  });
  const run = (endTime: string) =>
    simulate({
      nodePools: [nodePool('default', { consolidationPolicy: 'WhenEmpty', consolidateAfter: 'Never' })],
      nodes: [reservedNode],
      pods: [pod('p', { nodeName: 'r', ownerKind: 'ReplicaSet', createdAt: AGO })],
      nodeClasses: [nodeClass(endTime)],
      catalogue: file,
      now: NOW,
    });
  it('a reserved node in a live reservation is priced at the reservation (on-demand ÷ 10^7)', () => {
    expect(run('2026-09-01T00:00:00Z').costUsdPerHour.before).toBeCloseTo(0.096 / 1e7, 15);
  });
  it('capacitytype/suite_test.go:122 the reservation ended (endTime ≤ now): the node is demoted to on-demand and priced so', () => {
    const r = run('2026-08-01T00:00:00Z');
    expect(r.costUsdPerHour.before).toBe(0.096);
    expect(r.consolidation.unconsolidatable[0]).toMatchObject({ node: 'r', usdPerHour: 0.096 });
    expect(r.reservations).toEqual([{ reservationId: 'cr-0a', nodes: 0, launched: 0, instancesLeft: 3 }]);
  });
  it('the catalogue file checks reservation fields', () => {
    const bad = [
      {
        name: 'x',
        capacity: { cpu: '1', memory: '1Gi', pods: '1' },
        labels: {},
        offerings: [{ zone: 'z', capacityType: 'on-demand', priceUsdPerHour: 1, available: true, reservationId: 'cr-1' }],
      },
    ];
    expect(() => validateCatalogue(bad)).toThrow(CatalogueError);
    expect(() => validateCatalogue(bad)).toThrow('reservationId only go with capacityType "reserved"');
    const negative = [{ ...bad[0], offerings: [{ ...bad[0].offerings[0], capacityType: 'reserved', reservationCapacity: -1 }] }];
    expect(() => validateCatalogue(negative)).toThrow('reservationCapacity must be a whole number of instances ≥ 0, got -1');
  });
  it('the ReservedCapacity gate off: reserved offerings are not launched into', () => {
    const r = simulate({
      nodePools: [nodePool('default')],
      pods: [pod('p', { requests: { cpu: '1' } })],
      catalogue: file,
      now: NOW,
      featureGates: { reservedCapacity: false },
    });
    expect(r.provisioning.nodeClaims.map((nc) => [nc.capacityType, nc.reservationId ?? null])).toEqual([['on-demand', null]]);
    const on = simulate({ nodePools: [nodePool('default')], pods: [pod('p', { requests: { cpu: '1' } })], catalogue: file, now: NOW });
    expect(on.provisioning.nodeClaims.map((nc) => [nc.capacityType, nc.reservationId ?? null])).toEqual([['reserved', 'cr-0a']]);
  });
});
