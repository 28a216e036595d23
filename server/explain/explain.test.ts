import { describe, expect, it } from 'vitest';
import { buildDisruptions, type DisruptionEventInput } from '../../core/karpenter/disruptions.js';
import type { BillGroupBy } from '../schemas/bill.js';
import { explainLines } from './explain.js';
import { capacityReason, instanceTypeReason, nextSmallerType } from './reasons.js';
import type { EventFact, ExplainContext, InstanceTypeFact, LaunchFact, LineFact, NodeFact, NodePoolFact } from './facts.js';
import type { PricePoint } from './price-timeline.js';
import { DAY_MS } from '../../core/time.js';

const T = (s: string): number => Date.parse(s);
const GiB = 2 ** 30;
const DAY0 = T('2026-11-02T00:00:00Z');

const typeLabels = (type: string): Record<string, string> => {
  const [family, size] = type.split('.');
  return {
    'node.kubernetes.io/instance-type': type,
    'karpenter.k8s.aws/instance-family': family,
    'karpenter.k8s.aws/instance-size': size,
    'karpenter.k8s.aws/instance-category': family[0],
    'kubernetes.io/arch': 'amd64',
  };
};
const catalogEntry = (name: string, cpuMillicores: number, memoryBytes: number, pods: number): InstanceTypeFact => ({
  name,
  labels: typeLabels(name),
  allocatable: { cpuMillicores, memoryBytes, pods },
});
const TYPES = new Map([
  ['m5.large', catalogEntry('m5.large', 1930, 7 * GiB, 29)],
  ['m5.xlarge', catalogEntry('m5.xlarge', 3920, 14 * GiB, 58)],
  ['c5.xlarge', catalogEntry('c5.xlarge', 3920, 6 * GiB, 58)],
]);
const CATALOG = { types: TYPES, labelKeys: new Set(Object.keys(typeLabels('m5.large'))) };

const node = (n: Partial<NodeFact> & Pick<NodeFact, 'name' | 'instanceType' | 'capacityType' | 'launchedAtMs'>): NodeFact => ({
  nodeClaim: null,
  nodePool: null,
  zone: 'us-east-1a',
  instanceId: `i-${n.name}`,
  firstSeenMs: n.launchedAtMs,
  lastSeenMs: n.launchedAtMs,
  deletedAtMs: null,
  disruptionReason: null,
  allocatable: TYPES.get(n.instanceType)?.allocatable ?? { cpuMillicores: 0, memoryBytes: 0, pods: 0 },
  labels: { ...typeLabels(n.instanceType), 'karpenter.sh/capacity-type': n.capacityType },
  ...n,
});

const GENERAL: NodePoolFact = {
  name: 'general',
  capacityTypes: ['on-demand', 'spot'],
  requirements: [
    { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand', 'spot'] },
    { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm'] },
  ],
};

const line = (l: Partial<LineFact> & Pick<LineFact, 'nodePool' | 'unblendedUsd'>, groupBy: BillGroupBy = 'PURCHASE_TYPE'): LineFact => ({
  id: 1,
  currency: 'USD',
  source: 'cost-explorer',
  granularity: 'DAILY',
  periodStart: '2026-11-02T00:00:00.000Z',
  periodEnd: '2026-11-03T00:00:00.000Z',
  periodStartMs: DAY0,
  periodEndMs: DAY0 + DAY_MS,
  billAsOfMs: null,
  groupBy,
  dimensionValue: groupBy === 'PURCHASE_TYPE' ? 'On Demand Instances' : '',
  amortizedUsd: null,
  usageQuantity: null,
  usageUnit: null,
  estimated: false,
  ...l,
});

const onDemand: Record<string, number> = { 'm5.large': 0.096, 'm5.xlarge': 0.192, 'c5.xlarge': 0.17 };
/** Spot c5.xlarge in us-east-1b: 0.07 until 04:30, 0.08 until 09:00, 0.065 after. */
const SPOT_C5: PricePoint[] = [
  { atMs: T('2026-11-01T00:00:00Z'), usdPerHour: 0.07, source: 'spot-history' },
  { atMs: T('2026-11-02T04:30:00Z'), usdPerHour: 0.08, source: 'spot-history' },
  { atMs: T('2026-11-02T09:00:00Z'), usdPerHour: 0.065, source: 'spot-history' },
];

function context(nodes: NodeFact[], extra: Partial<ExplainContext> = {}): ExplainContext {
  return {
    nodes,
    nodePools: new Map([['general', GENERAL]]),
    launches: new Map(),
    events: [],
    disruptions: [],
    prices: (n) =>
      n.capacityType === 'spot'
        ? n.instanceType === 'c5.xlarge' && n.zone === 'us-east-1b'
          ? SPOT_C5
          : []
        : [{ atMs: 0, usdPerHour: onDemand[n.instanceType] ?? 0, source: 'pricing-api' }],
    catalog: CATALOG,
    coverage: { firstSnapshotMs: T('2026-11-01T00:00:00Z'), lastSnapshotMs: T('2026-11-14T23:55:00Z'), snapshotIntervalMs: 300_000 },
    nodePoolTag: 'unknown',
    ...extra,
  };
}

// general, on-demand: A (m5.large, 0.096/h) 06:30 -> 16:30 = 10 h -> 0.96; B (m5.xlarge, 0.192/h) 18:00 -> 22:30 = 4.5 h -> 0.864.
const A = node({
  name: 'a',
  nodeClaim: 'general-aaaaa',
  nodePool: 'general',
  instanceType: 'm5.large',
  capacityType: 'on-demand',
  launchedAtMs: T('2026-11-02T06:30:00Z'),
  lastSeenMs: T('2026-11-02T16:25:00Z'),
  deletedAtMs: T('2026-11-02T16:30:00Z'),
});
const B = node({
  name: 'b',
  nodeClaim: 'general-bbbbb',
  nodePool: 'general',
  instanceType: 'm5.xlarge',
  capacityType: 'on-demand',
  launchedAtMs: T('2026-11-02T18:00:00Z'),
  lastSeenMs: T('2026-11-02T22:25:00Z'),
  deletedAtMs: T('2026-11-02T22:30:00Z'),
});
// The managed node group's m5.large, all day: 24 h x 0.096 = 2.304.
const MNG = node({
  name: 'mng',
  instanceType: 'm5.large',
  capacityType: 'on-demand',
  launchedAtMs: T('2026-10-01T00:00:00Z'),
  lastSeenMs: T('2026-11-14T23:55:00Z'),
});
// Spot c5.xlarge in us-east-1b, 00:00 -> 12:00: 4.5 h x 0.07 + 4.5 h x 0.08 + 3 h x 0.065 = 0.315 + 0.36 + 0.195 = 0.87.
const S = node({
  name: 's',
  nodeClaim: 'general-sssss',
  nodePool: 'general',
  instanceType: 'c5.xlarge',
  capacityType: 'spot',
  zone: 'us-east-1b',
  launchedAtMs: DAY0,
  lastSeenMs: T('2026-11-02T11:55:00Z'),
  deletedAtMs: T('2026-11-02T12:00:00Z'),
});

describe('explainLines: the NodeClaims behind a line add up to it', () => {
  it('a line covered by two nodes of 10 h and 4.5 h: 0.96 + 0.864 = 1.824', () => {
    const [e] = explainLines([line({ nodePool: 'general', unblendedUsd: 1.824 })], context([A, B, MNG, S]));
    expect(e.status).toBe('explained');
    expect(e.nodeClaims.map((n) => [n.nodeClaim, n.hours, n.unitPriceUsdPerHour])).toEqual([
      ['general-aaaaa', 10, 0.096],
      ['general-bbbbb', 4.5, 0.192],
    ]);
    expect(e.nodeClaims[0].computedUsd).toBeCloseTo(0.96, 10);
    expect(e.nodeClaims[1].computedUsd).toBeCloseTo(0.864, 10);
    expect(e.computedUsd).toBeCloseTo(1.824, 10);
    expect(Math.abs(e.remainderUsd)).toBeLessThan(1e-9);
    expect(e.toleranceUsd).toBe(0.01);
    expect(e.remainderCauses).toEqual([]);
  });

  it('a spot line integrates the price history: 0.315 + 0.36 + 0.195 = 0.87, tolerance widened by the within-hour move', () => {
    const [e] = explainLines([line({ nodePool: 'general', dimensionValue: 'Spot Instances', unblendedUsd: 0.87 })], context([A, B, S]));
    expect(e.status).toBe('explained');
    expect(e.nodeClaims).toHaveLength(1);
    expect(e.computedUsd).toBeCloseTo(0.87, 10);
    expect(e.nodeClaims[0]).toMatchObject({ minUsdPerHour: 0.065, maxUsdPerHour: 0.08, priceChanges: 2, priceSource: 'spot-history' });
    // Hour-start pricing: 04:00-05:00 at 0.07 instead of half at 0.08 -> 0.865; the move is 0.005, tolerance 0.015.
    expect(e.toleranceUsd).toBeCloseTo(0.015, 10);
  });

  it('a spot line off by more than a cent but less than the within-hour move is explained by it', () => {
    // Exact 0.87, billed 0.883: remainder 0.013 > the cent, <= the 0.015 tolerance (a cent + the 0.005 move).
    const [e] = explainLines([line({ nodePool: 'general', dimensionValue: 'Spot Instances', unblendedUsd: 0.883 })], context([S]));
    expect(e.remainderUsd).toBeCloseTo(0.013, 10);
    expect(e.status).toBe('explained');
    expect(e.remainderCauses.map((c) => c.code)).toEqual(['spot-within-hour']);
  });

  it('the untagged line is the managed node group: 24 h x 0.096 = 2.304', () => {
    const [e] = explainLines([line({ nodePool: '', unblendedUsd: 2.304 })], context([A, B, MNG]));
    expect(e.status).toBe('explained');
    expect(e.nodeClaims.map((n) => [n.nodeName, n.nodeClaim, n.hours])).toEqual([['mng', null, 24]]);
    expect(e.nodeClaims[0].reasons.created.kind).toBe('not-karpenter');
  });
});

describe('explainLines: remainders and their causes', () => {
  // A's 10 hours (0.96) were billed without the NodePool tag: general shows only B, the untagged line MNG + A.
  const lines = [line({ id: 1, nodePool: 'general', unblendedUsd: 0.864 }), line({ id: 2, nodePool: '', unblendedUsd: 2.304 + 0.96 })];
  const [general, untagged] = explainLines(lines, context([A, B, MNG]));

  it('the tagged line is short by A: -0.96, untagged hours', () => {
    expect(general.status).toBe('partly-explained');
    expect(general.remainderUsd).toBeCloseTo(-0.96, 10);
    expect(general.remainderCauses.map((c) => c.code)).toEqual(['untagged-hours', 'deletion-time-uncertain']);
    // No termination events: each deletion is known to 5 minutes, A 5 min x 0.096 + B 5 min x 0.192 = 0.008 + 0.016.
    expect(general.remainderCauses[1].usd).toBeCloseTo(-0.024, 10);
  });

  it('the untagged line has +0.96 over the managed node, matched to NodeClaim general-aaaaa', () => {
    expect(untagged.status).toBe('partly-explained');
    expect(untagged.computedUsd).toBeCloseTo(2.304, 10);
    expect(untagged.remainderUsd).toBeCloseTo(0.96, 10);
    const cause = untagged.remainderCauses.find((c) => c.code === 'untagged-hours');
    expect(cause?.usd).toBeCloseTo(0.96, 10);
    expect(cause?.message).toContain('general-aaaaa (m5.large, $0.96 in the period)');
  });

  it('says plainly when the NodePool tag is not active: one untagged line for everything cannot be split', () => {
    const all = 0.96 + 0.864 + 2.304;
    const [e] = explainLines([line({ nodePool: '', unblendedUsd: all })], context([A, B, MNG]));
    expect(e.status).toBe('cannot-explain');
    expect(e.remainderCauses.map((c) => c.code)).toEqual(['tags-not-active']);
    expect(e.computedUsd).toBeCloseTo(all, 10);
    expect(e.summary).toContain('cannot be split');
  });

  it('a line with nothing behind it in the data says so, naming the missing snapshot coverage', () => {
    const late = line({
      nodePool: 'general',
      unblendedUsd: 5,
      periodStartMs: T('2026-11-20T00:00:00Z'),
      periodEndMs: T('2026-11-21T00:00:00Z'),
    });
    const [e] = explainLines([late], context([A, B]));
    expect(e.status).toBe('cannot-explain');
    expect(e.nodeClaims).toEqual([]);
    expect(e.remainderCauses.map((c) => c.code)).toEqual(['no-snapshot-data']);
  });

  it('a Savings Plans line is priced on demand, with the discount named as the cause', () => {
    const [e] = explainLines([line({ nodePool: 'general', dimensionValue: 'Savings Plans', unblendedUsd: 1.2 })], context([A, B]));
    expect(e.computedUsd).toBeCloseTo(1.824, 10);
    expect(e.remainderCauses.map((c) => c.code)).toContain('discounts');
  });
});

describe('reasons', () => {
  const launchOfB: LaunchFact = {
    observedAtMs: T('2026-11-02T18:00:00Z'),
    requested: { cpuMillicores: 2500, memoryBytes: 3 * GiB, pods: 3 },
    pods: [
      { namespace: 'shop', name: 'api-1', ownerKind: 'ReplicaSet', cpuMillicores: 1200, memoryBytes: GiB },
      { namespace: 'shop', name: 'api-2', ownerKind: 'ReplicaSet', cpuMillicores: 1200, memoryBytes: GiB },
      { namespace: 'kube-system', name: 'aws-node-x', ownerKind: 'DaemonSet', cpuMillicores: 100, memoryBytes: GiB },
    ],
  };
  // R replaced A (Underutilized) at 16:30; S was interrupted at 12:00. Written as Karpenter v1.6+ writes it: no
  // "/Replace" anywhere, so that the replacement is known from R's DisruptionLaunching event alone.
  const events: EventFact[] = [
    {
      atMs: T('2026-11-02T16:29:00Z'),
      reason: 'DisruptionLaunching',
      message: 'Launching NodeClaim: Underutilized',
      kind: 'NodeClaim',
      name: 'general-rrrrr',
    },
    {
      atMs: T('2026-11-02T16:30:00Z'),
      reason: 'DisruptionTerminating',
      message: 'Disrupting Node: Underutilized',
      kind: 'Node',
      name: 'a',
    },
    {
      atMs: T('2026-11-02T16:30:00Z'),
      reason: 'DisruptionTerminating',
      message: 'Disrupting NodeClaim: Underutilized',
      kind: 'NodeClaim',
      name: 'general-aaaaa',
    },
    {
      atMs: T('2026-11-02T12:00:00Z'),
      reason: 'SpotInterrupted',
      message: 'Spot interruption warning was triggered',
      kind: 'Node',
      name: 's',
    },
    {
      atMs: T('2026-11-02T12:00:00Z'),
      reason: 'TerminatingOnInterruption',
      message: 'Interruption triggered termination for the Node',
      kind: 'Node',
      name: 's',
    },
  ];
  const R = node({
    name: 'r',
    nodeClaim: 'general-rrrrr',
    nodePool: 'general',
    instanceType: 'm5.large',
    capacityType: 'on-demand',
    launchedAtMs: T('2026-11-02T16:29:00Z'),
    lastSeenMs: T('2026-11-02T23:55:00Z'),
  });
  // The kept disruptions, as the collector builds them from those events joined with their nodes (the repository's join).
  const joined = (e: EventFact, i: number): DisruptionEventInput => {
    const n = [A, B, R, S].find((x) => x.name === e.name || x.nodeClaim === e.name);
    return {
      uid: `e${i}`,
      ...e,
      nodeName: n?.name ?? null,
      nodeClaim: n?.nodeClaim ?? null,
      nodePool: n?.nodePool ?? null,
      instanceType: n?.instanceType ?? null,
      capacityType: n?.capacityType ?? null,
      nodeDeletedAtMs: n?.deletedAtMs ?? null,
    };
  };
  const disruptions = buildDisruptions(events.map(joined));
  const ctx = context([A, B, R, S], { events, disruptions, launches: new Map([['b', launchOfB]]) });
  const byName = new Map(
    explainLines(
      [line({ nodePool: 'general', unblendedUsd: 0 }), line({ nodePool: 'general', dimensionValue: 'Spot Instances', unblendedUsd: 0 })],
      ctx,
    )
      .flatMap((e) => e.nodeClaims)
      .map((n) => [n.nodeName, n.reasons]),
  );

  it('checks each NodePool requirement against the node labels', () => {
    const r = byName.get('b')?.instanceType;
    expect(r?.requirements).toEqual([
      {
        key: 'karpenter.sh/capacity-type',
        operator: 'In',
        values: ['on-demand', 'spot'],
        minValues: null,
        text: 'karpenter.sh/capacity-type In [on-demand, spot]',
        nodeValue: 'on-demand',
        satisfied: true,
      },
      {
        key: 'karpenter.k8s.aws/instance-category',
        operator: 'In',
        values: ['c', 'm'],
        minValues: null,
        text: 'karpenter.k8s.aws/instance-category In [c, m]',
        nodeValue: 'm',
        satisfied: true,
      },
    ]);
  });

  it('sizes from the pods at launch: 2500m requested does not fit m5.large (1930m), the next smaller type', () => {
    const size = byName.get('b')?.size;
    expect(size?.requested).toEqual({ cpuMillicores: 2500, memoryBytes: 3 * GiB, pods: 3 });
    expect(size?.smallerType).toEqual({
      instanceType: 'm5.large',
      allocatable: { cpuMillicores: 1930, memoryBytes: 7 * GiB, pods: 29 },
      fits: false,
    });
    expect(size?.summary).toContain('short of cpu');
    expect(size?.summary).toContain('shop/api-1, shop/api-2');
  });

  it('names the consolidation that removed A and the NodeClaim that replaced it, and the other way round', () => {
    expect(byName.get('a')?.removed).toMatchObject({
      kind: 'consolidation',
      reason: 'Underutilized',
      replacedBy: ['general-rrrrr'],
      at: '2026-11-02T16:30:00.000Z',
    });
    expect(byName.get('r')?.created).toMatchObject({ kind: 'replacement', reason: 'Underutilized', replaces: ['general-aaaaa'] });
    expect(byName.get('r')?.removed.kind).toBe('still-running');
    // Not "deleted because its pods fit elsewhere": the v1.6 message has no "/Replace", the launch event says it.
    expect(byName.get('a')?.removed.summary).toBe(
      'Consolidated at 2026-11-02T16:30:00.000Z (Underutilized): its pods fit a cheaper replacement, general-rrrrr, so it was replaced.',
    );
    // The events behind each reason are listed as they were written.
    expect(byName.get('r')?.created.events.map((e) => e.message)).toEqual([
      'Launching NodeClaim: Underutilized',
      'Disrupting Node: Underutilized',
      'Disrupting NodeClaim: Underutilized',
    ]);
  });

  it('names the spot interruption, and why spot: the NodePool allows both and spot is preferred', () => {
    expect(byName.get('s')?.removed).toMatchObject({ kind: 'interruption', reason: 'Interrupted', replacedBy: [] });
    expect(byName.get('s')?.capacityType).toMatchObject({ allowed: ['on-demand', 'spot'], chosen: 'spot' });
    expect(byName.get('b')?.capacityType.summary).toContain('allows spot too');
  });
});

describe('instanceTypeReason: requirements as Karpenter judges them', () => {
  // Karpenter's docs example (aws/karpenter-provider-aws@v1.14.1 website/content/en/docs/concepts/nodepools.md:387-389):
  // instance-generation Gte 3. An m5.large is generation 5.
  const pool = (requirements: NodePoolFact['requirements'], capacityTypes = ['on-demand', 'spot']): NodePoolFact => ({
    name: 'general',
    capacityTypes,
    requirements,
  });
  const m5 = node({
    name: 'g',
    nodeClaim: 'general-ggggg',
    nodePool: 'general',
    instanceType: 'm5.large',
    capacityType: 'on-demand',
    launchedAtMs: DAY0,
    labels: { ...typeLabels('m5.large'), 'karpenter.sh/capacity-type': 'on-demand', 'karpenter.k8s.aws/instance-generation': '5' },
  });

  it('Gte 3 and Lte 5 admit generation 5 (Karpenter v1.10+); the summary says it meets all', () => {
    const r = instanceTypeReason(
      m5,
      pool([
        { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gte', values: ['3'] },
        { key: 'karpenter.k8s.aws/instance-generation', operator: 'Lte', values: ['5'] },
      ]),
    );
    expect(r.requirements.map((c) => [c.text, c.nodeValue, c.satisfied])).toEqual([
      ['karpenter.k8s.aws/instance-generation Gte 3', '5', true],
      ['karpenter.k8s.aws/instance-generation Lte 5', '5', true],
    ]);
    expect(r.summary).toBe(
      'NodePool general admits m5.large: it meets all 2 requirements — karpenter.k8s.aws/instance-generation Gte 3 (5); karpenter.k8s.aws/instance-generation Lte 5 (5).',
    );
  });

  it('Gte 6 is not met by generation 5: the NodePool changed after the launch', () => {
    const r = instanceTypeReason(m5, pool([{ key: 'karpenter.k8s.aws/instance-generation', operator: 'Gte', values: ['6'] }]));
    expect(r.summary).toBe(
      'm5.large does not meet 1 requirement of NodePool general as stored now (karpenter.k8s.aws/instance-generation Gte 6: the node has 5): the NodePool changed after the launch.',
    );
  });

  it('a node relabelled on-demand once its capacity reservation ended does not meet reserved-only: says so', () => {
    const r = instanceTypeReason(m5, pool([{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['reserved'] }], ['reserved']));
    expect(r.summary).toContain('its capacity reservation ended after the launch (Karpenter then relabels the node on-demand)');
  });

  it('an operator this version does not know is not judged, and the summary says which and why', () => {
    const r = instanceTypeReason(
      m5,
      pool([
        { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['m'] },
        { key: 'karpenter.k8s.aws/instance-generation', operator: 'Between', values: ['3', '6'] },
      ]),
    );
    expect(r.requirements.map((c) => c.satisfied)).toEqual([true, null]);
    expect(r.summary).toContain('meets the 1 requirement of NodePool general that can be judged');
    expect(r.summary).toContain(
      '1 requirement cannot be judged here: karpenter.k8s.aws/instance-generation Between [3, 6]: operator "Between"',
    );
  });

  it('the next smaller type is chosen among types Gte/Lte admit, judged only on keys the catalogue carries', () => {
    const labels = (t: string, cpu: string) => ({ ...typeLabels(t), 'karpenter.k8s.aws/instance-cpu': cpu });
    const catalog = {
      types: new Map<string, InstanceTypeFact>([
        [
          'm5.large',
          { name: 'm5.large', labels: labels('m5.large', '2'), allocatable: { cpuMillicores: 1930, memoryBytes: 7 * GiB, pods: 29 } },
        ],
        [
          'm5.xlarge',
          { name: 'm5.xlarge', labels: labels('m5.xlarge', '4'), allocatable: { cpuMillicores: 3920, memoryBytes: 14 * GiB, pods: 58 } },
        ],
        [
          'm5.2xlarge',
          { name: 'm5.2xlarge', labels: labels('m5.2xlarge', '8'), allocatable: { cpuMillicores: 7910, memoryBytes: 29 * GiB, pods: 58 } },
        ],
      ]),
      labelKeys: new Set([...Object.keys(labels('m5.large', '2'))]),
    };
    const big = node({
      name: 'x',
      nodeClaim: 'general-xxxxx',
      nodePool: 'general',
      instanceType: 'm5.2xlarge',
      capacityType: 'spot',
      launchedAtMs: DAY0,
    });
    const reqs = pool([
      { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Gte', values: ['4'] }, // m5.large (2 vCPU) is out
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }, // not a type label: not judged on types
      { key: 'example.com/team', operator: 'In', values: ['web'] }, // a custom label: not judged on types
    ]);
    expect(nextSmallerType({ ...big, allocatable: { cpuMillicores: 7910, memoryBytes: 29 * GiB, pods: 58 } }, reqs, catalog)?.name).toBe(
      'm5.xlarge',
    );
  });
});

describe('capacityReason: capacity reservations', () => {
  const reserved = node({
    name: 'r',
    nodeClaim: 'system-rrrrr',
    nodePool: 'system',
    instanceType: 'm5.large',
    capacityType: 'reserved',
    launchedAtMs: DAY0,
    labels: {
      ...typeLabels('m5.large'),
      'karpenter.sh/capacity-type': 'reserved',
      'karpenter.k8s.aws/capacity-reservation-id': 'cr-0a1b2c3d4e5f60718',
    },
  });
  const system: NodePoolFact = { name: 'system', capacityTypes: ['reserved', 'on-demand'], requirements: [] };
  it('a reserved node: launched into a reservation with room, billed as On Demand usage', () => {
    expect(capacityReason(reserved, system)).toEqual({
      allowed: ['on-demand', 'reserved'],
      chosen: 'reserved',
      summary:
        'NodePool system allows on-demand and reserved; Karpenter launches into a capacity reservation with room (cr-0a1b2c3d4e5f60718) before spot or on-demand. AWS bills it at the on-demand rate, as On Demand usage.',
    });
  });
  it('an on-demand node of a NodePool that allows reserved: no reservation had room', () => {
    expect(capacityReason({ ...reserved, capacityType: 'on-demand' }, system).summary).toBe(
      'NodePool system allows on-demand and reserved; on-demand means no matching capacity reservation had room at the launch (or the pods required on-demand).',
    );
  });
});
