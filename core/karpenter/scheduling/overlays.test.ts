import { describe, expect, it } from 'vitest';
import type { CatalogueEntry } from './catalogue.js';
import { type EngineInput, prepare } from './engine.js';
import { EngineInputError } from './errors.js';
import type { KubeNodeOverlay } from './kube-types.js';
import { adjustedPrice, checkOverlaySchema, overlayPricedTypes, runtimeValidation } from './overlays.js';
import type { SelectorRequirement } from './requirements.js';
import { simulate } from './simulate.js';
import { fakeDefaultCatalogue, fakeType, node, nodePool, pod } from './test-support.js';

/**
 * NodeOverlay (gate NodeOverlay). "nodeoverlay_validation_test.go:N" cites kubernetes-sigs/karpenter@v1.14.1
 * pkg/apis/v1alpha1/nodeoverlay_validation_test.go (CRD and RuntimeValidate), "nodeoverlay/suite_test.go:N"
 * pkg/controllers/nodeoverlay/suite_test.go (weights, conflicts, application), "cloudprovider/suite_test.go:N"
 * pkg/cloudprovider/suite_test.go (AdjustedPrice); the fake cloud provider's types are test-support.ts's.
 */

const NOW = Date.parse('2026-08-01T00:00:00Z');
const overlay = (name: string, spec: Partial<KubeNodeOverlay['spec']> & { requirements?: SelectorRequirement[] }): KubeNodeOverlay => ({
  apiVersion: 'karpenter.sh/v1alpha1',
  kind: 'NodeOverlay',
  metadata: { name },
  spec: { requirements: [], ...spec },
});
const types = (...names: string[]): SelectorRequirement[] => [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: names }];
const input = (nodeOverlays: KubeNodeOverlay[], o: Partial<EngineInput> = {}): EngineInput => ({
  nodePools: [nodePool('default')],
  catalogue: fakeDefaultCatalogue(),
  now: NOW,
  featureGates: { nodeOverlay: true },
  nodeOverlays,
  ...o,
});
/** A NodePool's price for a type's offering in a zone and capacity type, as Karpenter sees it. */
function priceOf(
  ctx: ReturnType<typeof prepare>,
  pool: string,
  type: string,
  zone = 'test-zone-1',
  capacityType = 'on-demand',
): number | undefined {
  const list = ctx.poolCatalogues.get(pool) ?? ctx.catalogue;
  return list.find((it) => it.name === type)?.offerings.find((o) => o.zone === zone && o.capacityType === capacityType)?.priceUsdPerHour;
}
// fake.PriceFromResources: 4 CPU + 4Gi = 0.4 + 0.4294967296
const DEFAULT_PRICE = 0.4 + (0.1 * 4 * 2 ** 30) / 1e9;
const SMALL_PRICE = 0.2 + (0.1 * 2 * 2 ** 30) / 1e9;

describe('the CRD refuses (EngineInputError naming the overlay)', () => {
  const refused = (spec: Partial<KubeNodeOverlay['spec']>) => () => checkOverlaySchema(overlay('o', spec));
  it('nodeoverlay_validation_test.go:238 price and priceAdjustment together', () => {
    expect(refused({ price: '0.432', priceAdjustment: '+10%' })).toThrow("NodeOverlay o: cannot set both 'price' and 'priceAdjustment'");
  });
  it.each(['+42', '.5', '42.', '42%', '3,14', '1e10', '0x42', 'forty-two', '42a', '42 ', ' 42', '42.0.0', '-', '.', '-.42'])(
    'nodeoverlay_validation_test.go:296 price %j',
    (price) => expect(refused({ price })).toThrow(EngineInputError),
  );
  it.each(['1%', '1', '1.3', '-101%', '-100.0%'])(
    'nodeoverlay_validation_test.go:263-272 priceAdjustment %j (unsigned, or below -100%%)',
    (priceAdjustment) => expect(refused({ priceAdjustment })).toThrow(EngineInputError),
  );
  it.each(['+1%', '-1%', '-100%', '+100.102%', '+298%', '+43', '-43', '+34.43', '-34.43'])(
    'nodeoverlay_validation_test.go:273-301 priceAdjustment %j is allowed',
    (priceAdjustment) => expect(refused({ priceAdjustment })).not.toThrow(),
  );
  it.each([
    ['In without values (:53)', [{ key: 'Test', operator: 'In' }]],
    ['NotIn without values (:60)', [{ key: 'Test', operator: 'NotIn' }]],
    ['an invalid key (:84)', [{ key: 'test.com.com}', operator: 'Exists' }]],
    ['an upper-case domain (:84)', [{ key: 'Test.com/test', operator: 'Exists' }]],
    ['two slashes (:84)', [{ key: 'test/test/test', operator: 'Exists' }]],
    ['Gt with a negative value (:205)', [{ key: 'topology.kubernetes.io/zone', operator: 'Gt', values: ['-1'] }]],
    ['Gte with two values (:221)', [{ key: 'topology.kubernetes.io/zone', operator: 'Gte', values: ['1', '2'] }]],
    ['an unknown operator (:132)', [{ key: 'topology.kubernetes.io/zone', operator: 'unknown', values: ['test'] }]],
    ['the karpenter.sh domain', [{ key: 'karpenter.sh/test', operator: 'In', values: ['test'] }]],
  ])('nodeoverlay_validation_test.go requirements: %s', (_name, requirements) => {
    expect(refused({ requirements: requirements as SelectorRequirement[] })).toThrow(EngineInputError);
  });
  it.each(['cpu', 'memory', 'pods', 'ephemeral-storage'])(
    'nodeoverlay_validation_test.go:313-334 capacity %s (extended resources only)',
    (r) => {
      expect(refused({ capacity: { [r]: '1' } })).toThrow('NodeOverlay o: spec.capacity: invalid resource restricted');
    },
  );
  it.each([0, 10001, 1.5])('weight %d (1 to 10000)', (weight) => expect(refused({ weight })).toThrow(EngineInputError));
  it('nodeoverlay_validation_test.go:67-119 valid keys, the nodepool label, every operator and a custom resource pass', () => {
    expect(
      refused({
        requirements: [
          { key: 'Test', operator: 'Exists' },
          { key: 'test.com/Test', operator: 'Exists' },
          { key: 'karpenter.sh/nodepool', operator: 'In', values: ['x'] },
          { key: 'topology.kubernetes.io/zone', operator: 'Gte', values: ['1'] },
          { key: 'topology.kubernetes.io/zone', operator: 'NotIn', values: ['1'] },
        ],
        capacity: { 'smarter-devices/fuse': '1' },
      }),
    ).not.toThrow();
  });
});

describe('RuntimeValidate: the overlay exists but is not applied (ValidationSucceeded=False, RuntimeValidation)', () => {
  it('nodeoverlay_validation_test.go:141 a restricted domain (karpenter.k8s.aws/test)', () => {
    const o = overlay('aws', { requirements: [{ key: 'karpenter.k8s.aws/test', operator: 'In', values: ['test'] }], price: '1' });
    expect(runtimeValidation(o)).toMatch(/^using label karpenter.k8s.aws\/test is not allowed/);
    const ctx = prepare(input([o]));
    expect(ctx.overlays).toEqual([expect.objectContaining({ name: 'aws', applied: false, reason: 'RuntimeValidation' })]);
    expect(ctx.poolCatalogues.size).toBe(0);
  });
  it('nodeoverlay_validation_test.go:108 a key whose name part is longer than 63 characters', () => {
    expect(
      runtimeValidation(overlay('long', { requirements: [{ key: `test.com.test/test-${'a'.repeat(250)}`, operator: 'Exists' }] })),
    ).toMatch(/is not a qualified name/);
  });
});

describe('AdjustedPrice (cloudprovider/suite_test.go:183-213)', () => {
  it.each([
    ['-10%', 10, 9],
    ['+10%', 10, 11],
    ['-50%', 10, 5],
    ['+100%', 10, 20],
    ['-100%', 10, 0],
    ['-200%', 10, 0],
    ['-25%', 1.5, 1.125],
    ['+0', 10, 10],
    ['+5', 10, 15],
    ['-2.5', 10, 7.5],
    ['-10', 10, 0],
    ['-15', 10, 0],
    ['+0.75', 1.25, 2],
    ['+100', 0.001, 100.001],
    ['+0.0001', 0.0001, 0.0002],
    ['80.0', 82781, 80],
    ['', 82781, 82781],
  ])('%j on %d → %d', (change, price, out) => expect(adjustedPrice(price, change)).toBeCloseTo(out, 10));
});

describe('weights and conflicts (nodeoverlay/suite_test.go)', () => {
  it('suite_test.go:515 equal weights reaching the same offerings: overlay-b (later name, first) applies, overlay-a conflicts and applies nowhere', () => {
    const ctx = prepare(
      input([
        overlay('overlay-a', { requirements: types('default-instance-type', 'small-instance-type'), weight: 10, price: '1.03' }),
        overlay('overlay-b', { requirements: types('default-instance-type', 'gpu-vendor-instance-type'), weight: 10, price: '23' }),
      ]),
    );
    expect(ctx.overlays.map((o) => [o.name, o.applied, o.reason])).toEqual([
      ['overlay-b', true, undefined],
      ['overlay-a', false, 'Conflict'],
    ]);
    expect(priceOf(ctx, 'default', 'default-instance-type')).toBe(23);
    expect(priceOf(ctx, 'default', 'gpu-vendor-instance-type')).toBe(23);
    // overlay-a is rejected whole: small-instance-type, which only it reached, keeps its price
    expect(priceOf(ctx, 'default', 'small-instance-type')).toBeCloseTo(SMALL_PRICE, 10);
  });
  it('suite_test.go:565 equal weights conflict even when they set the same price (+100 and +100)', () => {
    const ctx = prepare(
      input([
        overlay('overlay-a', { requirements: types('default-instance-type', 'small-instance-type'), weight: 10, priceAdjustment: '+100' }),
        overlay('overlay-b', {
          requirements: types('default-instance-type', 'gpu-vendor-instance-type'),
          weight: 10,
          priceAdjustment: '+100',
        }),
      ]),
    );
    expect(ctx.overlays.find((o) => o.name === 'overlay-a')?.reason).toBe('Conflict');
  });
  it('suite_test.go:616 mutually exclusive requirements (In / NotIn the same type) at equal weight: both apply', () => {
    const ctx = prepare(
      input([
        overlay('overlay-a', { requirements: types('default-instance-type'), weight: 10, price: '54' }),
        overlay('overlay-b', {
          requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'NotIn', values: ['default-instance-type'] }],
          weight: 10,
          price: '23',
        }),
      ]),
    );
    expect(ctx.overlays.every((o) => o.applied)).toBe(true);
    expect([priceOf(ctx, 'default', 'default-instance-type'), priceOf(ctx, 'default', 'small-instance-type')]).toEqual([54, 23]);
  });
  it('suite_test.go:665 different weights on one offering: both valid, the heavier one prices it, adjustments never stack', () => {
    const ctx = prepare(
      input([
        overlay('overlay-a', { requirements: types('default-instance-type'), weight: 10, priceAdjustment: '-4' }),
        overlay('overlay-b', {
          requirements: types('default-instance-type', 'gpu-vendor-instance-type'),
          weight: 20,
          priceAdjustment: '-50%',
        }),
      ]),
    );
    expect(ctx.overlays.map((o) => [o.name, o.applied, o.pricedOfferings])).toEqual([
      ['overlay-b', true, 10],
      ['overlay-a', true, 0],
    ]);
    // −50% of 0.829497, not also −4 (which would floor at 0)
    expect(priceOf(ctx, 'default', 'default-instance-type')).toBeCloseTo(DEFAULT_PRICE / 2, 10);
    expect(ctx.poolCatalogues.get('default')?.find((it) => it.name === 'default-instance-type')?.offerings[0].priceOverlay).toBe(
      'overlay-b',
    );
  });
  it("suite_test.go:1042 an overlay on karpenter.sh/nodepool prices that NodePool's offerings only: +1000 on 1.02 is 1001.02", () => {
    const one = [
      fakeType('default-instance-type', {
        offerings: [{ zone: 'test-zone-1', capacityType: 'spot', priceUsdPerHour: 1.02, available: true }],
      }),
    ];
    const ctx = prepare(
      input(
        [
          overlay('pool-one', {
            requirements: [{ key: 'karpenter.sh/nodepool', operator: 'In', values: ['one'] }],
            weight: 10,
            priceAdjustment: '+1000',
          }),
        ],
        {
          nodePools: [nodePool('one'), nodePool('two')],
          catalogue: one,
        },
      ),
    );
    expect(priceOf(ctx, 'one', 'default-instance-type', 'test-zone-1', 'spot')).toBeCloseTo(1001.02, 10);
    expect(priceOf(ctx, 'two', 'default-instance-type', 'test-zone-1', 'spot')).toBe(1.02);
  });
  it('an overlay reaches only the offerings its requirements allow (zone and capacity type), floored at 0', () => {
    const ctx = prepare(
      input([
        overlay('spot-z1', {
          requirements: [
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] },
            { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['test-zone-1'] },
          ],
          priceAdjustment: '-5',
        }),
      ]),
    );
    expect(priceOf(ctx, 'default', 'default-instance-type', 'test-zone-1', 'spot')).toBe(0);
    expect(priceOf(ctx, 'default', 'default-instance-type', 'test-zone-2', 'spot')).toBeCloseTo(DEFAULT_PRICE, 10);
    expect(priceOf(ctx, 'default', 'default-instance-type', 'test-zone-1', 'on-demand')).toBeCloseTo(DEFAULT_PRICE, 10);
  });
  it('suite_test.go:2277 capacity from two weights: the heavier one wins per resource (fuse 99, not 5)', () => {
    const ctx = prepare(
      input([
        overlay('overlay-a', { requirements: types('default-instance-type'), weight: 10, capacity: { 'smarter-devices/fuse': '5' } }),
        overlay('overlay-b', { requirements: types('default-instance-type'), weight: 20, capacity: { 'smarter-devices/fuse': '99' } }),
      ]),
    );
    const it0 = ctx.poolCatalogues.get('default')?.find((it) => it.name === 'default-instance-type');
    expect(it0?.capacity['smarter-devices/fuse']).toBe(99);
    expect(it0?.capacityOverlays).toEqual(['overlay-b']);
  });
  it('suite_test.go:2188 capacity overlays merge resource by resource across weights (fuse from the heavier, hugepages from the lighter)', () => {
    const ctx = prepare(
      input([
        overlay('overlay-a', {
          requirements: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['test-zone-3'] }],
          weight: 20,
          capacity: { 'smarter-devices/fuse': '1' },
        }),
        overlay('overlay-b', {
          requirements: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['test-zone-3'] }],
          weight: 10,
          capacity: { 'hugepages-1Gi': '2Gi' },
        }),
      ]),
    );
    // test-zone-3 is on-demand only for the fake types: every type is reached, whole
    const it0 = ctx.poolCatalogues.get('default')?.find((it) => it.name === 'default-instance-type');
    expect([it0?.capacity['smarter-devices/fuse'], it0?.capacity['hugepages-1Gi']]).toEqual([1, 2 * 2 ** 30]);
  });
  it('the gate off (the default): overlays are not applied, and that is said', () => {
    const ctx = prepare(input([overlay('o', { requirements: types('default-instance-type'), price: '1' })], { featureGates: {} }));
    expect([ctx.poolCatalogues.size, ctx.overlays]).toEqual([0, []]);
    expect(ctx.warnings).toContain(
      '1 NodeOverlay(s) given but the NodeOverlay feature gate is off: not applied (Karpenter ignores them too)',
    );
  });
});

describe('overlays change decisions', () => {
  const two: CatalogueEntry[] = [
    { name: 'a.large', price: 0.1 },
    { name: 'b.large', price: 0.12 },
  ].map(({ name, price }) => ({
    name,
    capacity: { cpu: '2', memory: '8Gi', pods: '110' },
    overhead: { cpu: '100m', memory: '256Mi' },
    labels: { 'kubernetes.io/arch': 'amd64', 'kubernetes.io/os': 'linux' },
    offerings: [{ zone: 'z1', capacityType: 'on-demand', priceUsdPerHour: price, available: true }],
  }));
  it('a −50% overlay on b.large (our EDP on that family, say) makes it the launch at $0.06, priced by the overlay and annotated', () => {
    const plain = simulate({ nodePools: [nodePool('default')], pods: [pod('p', { requests: { cpu: '1' } })], catalogue: two, now: NOW });
    expect(plain.provisioning.nodeClaims[0]).toMatchObject({ instanceType: 'a.large', usdPerHour: 0.1 });
    const r = simulate(
      input([overlay('edp', { requirements: types('b.large'), priceAdjustment: '-50%' })], {
        pods: [pod('p', { requests: { cpu: '1' } })],
        catalogue: two,
      }),
    );
    expect(r.provisioning.nodeClaims[0]).toMatchObject({
      instanceType: 'b.large',
      instanceTypeOptions: ['b.large', 'a.large'],
      usdPerHour: 0.06,
      priceOverlay: 'edp',
      annotations: { 'karpenter.sh/price-overlay-applied': 'true' },
    });
    expect(r.overlays).toEqual([{ name: 'edp', weight: 0, applied: true, pricedOfferings: 1, capacityTypes: 0 }]);
  });
  it("an existing node is priced at its NodePool's overlaid price (Karpenter's view of the savings)", () => {
    const r = simulate(
      input([overlay('edp', { requirements: types('b.large'), priceAdjustment: '-50%' })], {
        nodes: [node('n', { nodePool: 'default', instanceType: 'b.large', zone: 'z1', allocatable: { cpu: '1900m', pods: '110' } })],
        catalogue: two,
      }),
    );
    expect(r.costUsdPerHour.before).toBe(0.06);
    expect(r.consolidation.decisions[0]).toMatchObject({ action: 'delete', savingsUsdPerHour: 0.06 });
  });
  it('a node that stays says which overlay priced it', () => {
    const r = simulate(
      input([overlay('edp', { requirements: types('b.large'), priceAdjustment: '-50%' })], {
        nodePools: [nodePool('default', { consolidateAfter: 'Never' })],
        nodes: [node('n', { nodePool: 'default', instanceType: 'b.large', zone: 'z1', allocatable: { cpu: '1900m', pods: '110' } })],
        catalogue: two,
      }),
    );
    expect(r.consolidation.unconsolidatable).toEqual([
      {
        node: 'n',
        nodePool: 'default',
        reason: 'NodePool "default" has consolidation disabled',
        wording: 'karpenter',
        usdPerHour: 0.06,
        priceOverlay: 'edp',
      },
    ]);
  });
  it('a capacity overlay adds the extended resource a pod asks for: unschedulable without it, on the overlaid type with it', () => {
    const fuse = pod('p', { requests: { cpu: '1', 'smarter-devices/fuse': '1' } });
    const without = simulate({ nodePools: [nodePool('default')], pods: [fuse], catalogue: two, now: NOW });
    expect(without.provisioning.unschedulable).toHaveLength(1);
    const r = simulate(
      input([overlay('fuse', { requirements: types('b.large'), capacity: { 'smarter-devices/fuse': '2' } })], {
        pods: [fuse],
        catalogue: two,
      }),
    );
    expect(r.provisioning.nodeClaims[0]).toMatchObject({
      instanceType: 'b.large',
      annotations: { 'karpenter.sh/capacity-overlay-applied': 'true' },
    });
  });
});

describe('preview instance types priced by an overlay (aws v1.14.0, offering.go GetOverlayPrice)', () => {
  it('only an overlay whose sole requirement is instance-type In and that sets a price counts; later names win', () => {
    const prices = overlayPricedTypes([
      overlay('b-later', { requirements: types('p7.preview'), price: '9.5' }),
      overlay('a-earlier', { requirements: types('p7.preview', 'p7.other'), price: '8' }),
      overlay('adjusts', { requirements: types('x.preview'), priceAdjustment: '+1' }),
      overlay('two-reqs', {
        requirements: [...types('y.preview'), { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }],
        price: '1',
      }),
    ]);
    expect([...prices]).toEqual([
      ['p7.preview', { usdPerHour: 9.5, overlay: 'b-later' }],
      ['p7.other', { usdPerHour: 8, overlay: 'a-earlier' }],
    ]);
  });
});
