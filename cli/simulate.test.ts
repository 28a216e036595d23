import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { parse, stringify } from 'yaml';
import { GETTING_STARTED_LIST_YAML, INFLATE_DEPLOYMENT_YAML, ZONE_SPREAD_DEPLOYMENT_YAML } from '../test/fixtures/kubectl-objects.js';
import { openDb } from '../db/open-db.js';
import { createPricesRepository } from '../db/repositories/prices-repository.js';
import { loadStaticTables } from '../core/static-prices.js';
import { main } from './main.js';
import type { SimulateJson } from './simulate.js';

/**
 * `nodepool-ledger simulate` through main() in-process: real files in a temp folder, the real engine and catalogue,
 * stdout and stderr as the console receives them. (The one real-process run is in simulate-process.test.ts.)
 */

const dir = mkdtempSync(join(tmpdir(), 'simulate-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

let files = 0;
function file(text: string, ext = 'yaml'): string {
  const path = join(dir, `f${++files}.${ext}`);
  writeFileSync(path, text);
  return path;
}
const yamlStream = (...objs: unknown[]) => objs.map((o) => (typeof o === 'string' ? o : stringify(o))).join('---\n');

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  const code = await main(['simulate', ...argv]);
  vi.restoreAllMocks();
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const NOW = '2026-12-03T12:00:00Z';

async function json(objects: string, extra: string[] = []): Promise<SimulateJson> {
  const r = await run(['--objects', objects, '--now', NOW, '--json', ...extra]);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.out) as SimulateJson;
}

/** A small catalogue file: hand-picked capacities and prices so every expected figure can be worked by hand. */
const zones = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
function type(name: string, cpu: number, memoryGi: number, onDemand: number, spot: number, unavailable: string[] = []) {
  return {
    name,
    capacity: { cpu: String(cpu), memory: `${memoryGi}Gi`, pods: '30' },
    overhead: { cpu: '100m', memory: '256Mi' },
    labels: { 'kubernetes.io/arch': 'amd64', 'kubernetes.io/os': 'linux' },
    offerings: zones.flatMap((zone) => [
      { zone, capacityType: 'on-demand', priceUsdPerHour: onDemand, available: !unavailable.includes(`${zone}/on-demand`) },
      { zone, capacityType: 'spot', priceUsdPerHour: spot, available: true },
    ]),
  };
}
const CATALOGUE = [type('t.small', 2, 4, 0.05, 0.02), type('t.large', 4, 16, 0.2, 0.07), type('t.xlarge', 8, 32, 0.4, 0.14)];
const catalogueFile = (entries: unknown = CATALOGUE) => file(JSON.stringify(entries), 'json');

function nodePool(name: string, o: { capacityTypes?: string[]; limits?: Record<string, unknown>; requirements?: unknown[] } = {}) {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name },
    spec: {
      ...(o.limits ? { limits: o.limits } : {}),
      disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '1m', budgets: [{ nodes: '10%' }] },
      template: {
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
          requirements: [
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: o.capacityTypes ?? ['on-demand'] },
            ...(o.requirements ?? []),
          ],
        },
      },
    },
  };
}

function deployment(name: string, replicas: number, requests: Record<string, string>, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'shop' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', resources: { requests } }], ...spec } },
    },
  };
}

function node(
  name: string,
  type: string,
  o: { zone?: string; capacityType?: string; allocatable?: Record<string, string>; pool?: string } = {},
) {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      creationTimestamp: '2026-12-03T10:00:00Z',
      labels: <Record<string, string>>{
        'karpenter.sh/nodepool': o.pool ?? 'general',
        'karpenter.sh/initialized': 'true',
        'karpenter.sh/registered': 'true',
        'karpenter.sh/capacity-type': o.capacityType ?? 'on-demand',
        'node.kubernetes.io/instance-type': type,
        'topology.kubernetes.io/zone': o.zone ?? 'us-east-1a',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/os': 'linux',
        'kubernetes.io/hostname': name,
      },
    },
    status: {
      allocatable: o.allocatable ?? { cpu: '3900m', memory: '15872Mi', pods: '30' },
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  };
}

/** Karpenter's examples/workloads/inflate.yaml (as kubectl prints it) with a different replica count and spec. */
function inflate(replicas: number, spec: Record<string, unknown> = {}): string {
  const d = parse(INFLATE_DEPLOYMENT_YAML) as { spec: { replicas: number; template: { spec: Record<string, unknown> } } };
  d.spec.replicas = replicas;
  Object.assign(d.spec.template.spec, spec);
  return stringify(d);
}

describe('simulate: the syllabus exercises on recorded objects (built-in catalogue)', () => {
  const antiAffinity = {
    affinity: {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { labelSelector: { matchLabels: { app: 'inflate' } }, topologyKey: 'kubernetes.io/hostname' },
        ],
      },
    },
  };

  it('20 replicas of inflate with hostname podAntiAffinity → 20 NodeClaims of one pod each, the cheapest c/m/r large', async () => {
    // the getting-started NodePool without its cpu limit (the next test shows what the limit does)
    const list = parse(GETTING_STARTED_LIST_YAML) as { items: { spec: { limits?: unknown } }[] };
    delete list.items[0].spec.limits;
    const r = await json(file(yamlStream(list, inflate(20, antiAffinity))), ['--region', 'us-east-1']);
    expect(r.provisioning.nodeClaims).toHaveLength(20);
    expect(r.provisioning.nodeClaims.every((nc) => nc.pods.length === 1)).toBe(true);
    expect(new Set(r.provisioning.nodeClaims.flatMap((nc) => nc.pods)).size).toBe(20);
    expect(r.provisioning.unschedulable).toEqual([]);
    // 1 vCPU + 256M fits a 2-vCPU large (1930m allocatable); every claim launches the same cheapest offering
    const first = r.provisioning.nodeClaims[0];
    expect(first.instanceType).toMatch(/^[cmr]\d+[a-z-]*\.large$/);
    expect(first.instanceTypeOptions[0]).toBe(first.instanceType);
    expect(new Set(r.provisioning.nodeClaims.map((nc) => `${nc.instanceType} ${nc.capacityType} ${nc.usdPerHour}`)).size).toBe(1);
    expect(r.costUsdPerHour.after).toBeCloseTo(20 * first.usdPerHour, 6);
    expect(r.input.workloads.map((w) => [w.workload, w.replicas, w.pods.length])).toEqual([['Deployment default/inflate', 20, 20]]);
  });

  it('the same with the recorded cpu limit 1000: each NodeClaim counts its largest option (scheduler.go:786@v1.14.1 subtractMax), so the limit stops the round early', async () => {
    const r = await json(file(yamlStream(GETTING_STARTED_LIST_YAML, inflate(20, antiAffinity))), ['--region', 'us-east-1']);
    const placed = r.provisioning.nodeClaims.length;
    expect(placed).toBeGreaterThan(0);
    expect(placed).toBeLessThan(20);
    expect(r.provisioning.unschedulable).toHaveLength(20 - placed);
    expect(new Set(r.provisioning.unschedulable.map((u) => u.reason))).toEqual(
      new Set(['all available instance types exceed limits for nodepool (NodePool=default)']),
    );
  });

  it('zone-spread (topologySpreadConstraint maxSkew 1 over zones), 6 replicas → 2 pods in each of us-east-1a/b/c', async () => {
    const r = await json(file(yamlStream(GETTING_STARTED_LIST_YAML, ZONE_SPREAD_DEPLOYMENT_YAML)), ['--region', 'us-east-1']);
    const perZone = new Map<string, number>();
    for (const nc of r.provisioning.nodeClaims) perZone.set(nc.zone, (perZone.get(nc.zone) ?? 0) + nc.pods.length);
    expect(Object.fromEntries(perZone)).toEqual({ 'us-east-1a': 2, 'us-east-1b': 2, 'us-east-1c': 2 });
  });

  it('a pod larger than every allowed type is listed unschedulable with Karpenter reason, and the JSON still printed with exit 0', async () => {
    const huge = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'huge', namespace: 'default' },
      spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1000' } } }] },
    };
    const r = await json(file(yamlStream(GETTING_STARTED_LIST_YAML, INFLATE_DEPLOYMENT_YAML, huge)), ['--region', 'us-east-1']);
    expect(r.provisioning.unschedulable).toHaveLength(1);
    expect(r.provisioning.unschedulable[0].pod).toBe('default/huge');
    expect(r.provisioning.unschedulable[0].reason).toMatch(
      /^no instance type has enough resources, requirements=.*resources=\{"cpu":"1000","pods":"1"\}$/,
    );
    // inflate's 5 pods are still placed
    expect(r.provisioning.nodeClaims.flatMap((nc) => nc.pods)).toHaveLength(5);
  });

  it('the readable table: what was read, the NodeClaims, the unschedulable pod, no consolidation, the costs', async () => {
    const huge = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'huge', namespace: 'default' },
      spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1000' } } }] },
    };
    const r = await run([
      '--objects',
      file(yamlStream(GETTING_STARTED_LIST_YAML, INFLATE_DEPLOYMENT_YAML, huge)),
      '--region',
      'us-east-1',
      '--now',
      NOW,
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      'Simulated at 2026-12-03T12:00:00.000Z on 1 NodePool, 0 nodes, 6 pods; catalogue built-in us-east-1 (1,345 instance types).',
    );
    expect(r.out).toContain('Deployment default/inflate: 5 replicas, 5 pending pods added');
    expect(r.out).toContain(
      "Karpenter v1.14.1's rules; --feature-gates SpotToSpotConsolidation=false,NodeOverlay=false,StaticCapacity=false,ReservedCapacity=true; --min-values-policy Strict.",
    );
    expect(r.out).not.toContain('Ignored');
    expect(r.out).toMatch(/NODEPOOL +INSTANCE TYPE +CAPACITY +ZONE +USD\/H +PODS +OPTIONS/);
    expect(r.out).toMatch(/Unschedulable: 1 pod\n +POD +REASON\n +default\/huge +no instance type has enough resources/);
    expect(r.out).toContain('Consolidation (the next disruption round):\n  no action');
    expect(r.out).toMatch(/Cost per hour: before \$0\.0000, after \$\d+\.\d{4} \(\+\$\d+\.\d{4}\/h, \+\$\d+\.\d{2}\/month\)/);
  });
});

describe('simulate: hand-worked cases on a small catalogue file', () => {
  const web = deployment('web', 1, { cpu: '1', memory: '1Gi' });

  it('the same workload on an on-demand NodePool and on a spot NodePool: t.small at $0.05/h vs $0.02/h', async () => {
    const types = catalogueFile();
    const onDemand = await json(file(yamlStream(nodePool('od', { capacityTypes: ['on-demand'] }), web)), ['--instance-types', types]);
    const spot = await json(file(yamlStream(nodePool('sp', { capacityTypes: ['spot'] }), web)), ['--instance-types', types]);
    const pick = (r: SimulateJson) => r.provisioning.nodeClaims.map((nc) => [nc.nodePool, nc.instanceType, nc.capacityType, nc.usdPerHour]);
    // 1 CPU + 1Gi fits t.small (1900m, 3840Mi allocatable); zone a is first of three equal prices
    expect(pick(onDemand)).toEqual([['od', 't.small', 'on-demand', 0.05]]);
    expect(pick(spot)).toEqual([['sp', 't.small', 'spot', 0.02]]);
    // one NodePool allowing both: spot when the pod allows it, on-demand when it asks for it
    const both = nodePool('both', { capacityTypes: ['spot', 'on-demand'] });
    const pinned = deployment('web', 1, { cpu: '1', memory: '1Gi' }, { nodeSelector: { 'karpenter.sh/capacity-type': 'on-demand' } });
    expect(pick(await json(file(yamlStream(both, web)), ['--instance-types', types]))).toEqual([['both', 't.small', 'spot', 0.02]]);
    expect(pick(await json(file(yamlStream(both, pinned)), ['--instance-types', types]))).toEqual([['both', 't.small', 'on-demand', 0.05]]);
  });

  it('an empty node → a delete decision: before $0.20 (t.large on-demand), after $0, savings $0.20', async () => {
    const r = await json(file(yamlStream(nodePool('general'), node('ip-10-0-1-1', 't.large'))), ['--instance-types', catalogueFile()]);
    expect(r.consolidation.decisions).toEqual([
      {
        action: 'delete',
        reason: 'Empty',
        method: 'emptiness',
        candidates: ['ip-10-0-1-1'],
        replacement: null,
        savingsUsdPerHour: 0.2,
        scores: [],
      },
    ]);
    expect(r.costUsdPerHour).toEqual({ before: 0.2, after: 0 });
  });

  it('an offering with available: false prices an existing node on it but is never launched', async () => {
    const types = catalogueFile([
      type('t.small', 2, 4, 0.05, 0.02),
      type('t.large', 4, 16, 0.2, 0.07, ['us-east-1a/on-demand']),
      type('t.xlarge', 8, 32, 0.4, 0.14),
    ]);
    const zoneA = [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] }];
    // 3 CPU needs t.large (3900m allocatable) or bigger; t.large cannot launch in us-east-1a, so t.xlarge at $0.40
    const big = deployment('big', 1, { cpu: '3' }, { nodeSelector: { 'topology.kubernetes.io/zone': 'us-east-1a' } });
    const busy = node('ip-10-0-1-2', 't.large', { allocatable: { cpu: '3900m', memory: '15872Mi', pods: '30' } });
    const hog = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'hog', namespace: 'shop', creationTimestamp: '2026-12-03T10:00:00Z' },
      spec: { nodeName: 'ip-10-0-1-2', containers: [{ name: 'c', resources: { requests: { cpu: '3500m' } } }] },
      status: { phase: 'Running', startTime: '2026-12-03T10:00:00Z' },
    };
    const r = await json(file(yamlStream(nodePool('general', { requirements: zoneA }), busy, hog, big)), ['--instance-types', types]);
    expect(r.provisioning.nodeClaims.map((nc) => [nc.instanceType, nc.zone, nc.usdPerHour])).toEqual([['t.xlarge', 'us-east-1a', 0.4]]);
    expect(r.provisioning.nodeClaims[0].instanceTypeOptions).toEqual(['t.xlarge']);
    expect(r.costUsdPerHour.before).toBe(0.2);
    expect(r.unpricedNodes).toEqual([]);
  });

  it('quantities in any canonical form: a node whose allocatable memory is 966367641600m (921.6 MiB)', async () => {
    const small = node('ip-10-0-1-3', 't.small', { allocatable: { cpu: '1900m', memory: '966367641600m', pods: '30' } });
    const hog = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'hog', namespace: 'shop', creationTimestamp: '2026-12-03T10:00:00Z' },
      spec: { nodeName: 'ip-10-0-1-3', containers: [{ name: 'c', resources: { requests: { cpu: '100m' } } }] },
      status: { phase: 'Running', startTime: '2026-12-03T10:00:00Z' },
    };
    const types = catalogueFile();
    // 900 MiB = 943,718,400 bytes fits under 966,367,641.6; 930 MiB = 975,175,680 does not
    const fits = await json(file(yamlStream(nodePool('general'), small, hog, deployment('m', 1, { cpu: '100m', memory: '900Mi' }))), [
      '--instance-types',
      types,
    ]);
    expect(fits.provisioning.nodeClaims).toEqual([]);
    const over = await json(file(yamlStream(nodePool('general'), small, hog, deployment('m', 1, { cpu: '100m', memory: '930Mi' }))), [
      '--instance-types',
      types,
    ]);
    expect(over.provisioning.nodeClaims.map((nc) => nc.pods)).toEqual([['shop/m-0']]);
  });

  it.each([
    ['a number', 4],
    ['a string', '4'],
    ['millicores', '4000m'],
  ])('spec.limits.cpu as %s: 5 anti-affine 1-CPU pods on t.small (2 CPU) → 2 NodeClaims, 3 over the limit', async (_name, cpu) => {
    const onlySmall = [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['t.small'] }];
    const apart = {
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { labelSelector: { matchLabels: { app: 'w' } }, topologyKey: 'kubernetes.io/hostname' },
          ],
        },
      },
    };
    const r = await json(
      file(yamlStream(nodePool('general', { limits: { cpu }, requirements: onlySmall }), deployment('w', 5, { cpu: '1' }, apart))),
      ['--instance-types', catalogueFile()],
    );
    expect(r.provisioning.nodeClaims).toHaveLength(2);
    expect(r.provisioning.unschedulable.map((u) => u.pod)).toEqual(['shop/w-2', 'shop/w-3', 'shop/w-4']);
    expect(r.provisioning.unschedulable[0].reason).toContain('all available instance types exceed limits for nodepool');
  });
});

describe('simulate: spot-to-spot, --db spot prices, the region', () => {
  /** A spot t.xlarge ($0.14/h) running one 1-CPU pod since 10:00, in a spot-only NodePool. */
  function spotCluster(): string {
    const n = node('ip-10-0-2-1', 't.xlarge', { capacityType: 'spot', allocatable: { cpu: '7900m', memory: '31Gi', pods: '30' } });
    const p = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'one', namespace: 'shop', creationTimestamp: '2026-12-03T10:00:00Z' },
      spec: { nodeName: 'ip-10-0-2-1', containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] },
      status: { phase: 'Running', startTime: '2026-12-03T10:00:00Z' },
    };
    return file(yamlStream(nodePool('general', { capacityTypes: ['spot'] }), n, p));
  }
  /** t.xlarge and 16 cheaper 2-CPU types s.0 … s.15 at $0.010 … $0.025 spot. */
  const sixteenCheaper = () =>
    catalogueFile([
      type('t.xlarge', 8, 32, 0.4, 0.14),
      ...Array.from({ length: 16 }, (_, i) => type(`s.${i}`, 2, 4, 0.05, Number((0.01 + i * 0.001).toFixed(3)))),
    ]);

  it("gate off: the spot node stays with Karpenter's message (consolidation.go spot-to-spot check)", async () => {
    const r = await json(spotCluster(), ['--instance-types', sixteenCheaper()]);
    expect(r.consolidation.decisions).toEqual([]);
    expect(r.consolidation.unconsolidatable).toEqual([
      {
        node: 'ip-10-0-2-1',
        nodePool: 'general',
        reason: "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node",
        wording: 'karpenter',
        usdPerHour: 0.14,
      },
    ]);
  });

  it('the readable report of a consolidation round: the node that stays with its reason and price, or the delete and the monthly saving', async () => {
    const stays = await run(['--objects', spotCluster(), '--instance-types', sixteenCheaper(), '--now', NOW]);
    expect(stays.code).toBe(0);
    expect(stays.out).toContain('Consolidation (the next disruption round):\n  no action');
    expect(stays.out).toMatch(
      /Nodes that stay: 1\n +NODE +NODEPOOL +USD\/H +REASON\n +ip-10-0-2-1 +general +\$0\.1400 +SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node\n/,
    );
    const empty = await run([
      '--objects',
      file(yamlStream(nodePool('general'), node('ip-10-0-1-1', 't.large'))),
      '--instance-types',
      catalogueFile(),
      '--now',
      NOW,
    ]);
    expect(empty.out).toContain('  delete ip-10-0-1-1: Empty, emptiness, saves $0.2000/h');
    // 0.20 × 730 hours = 146.00 a month
    expect(empty.out).toContain('Cost per hour: before $0.2000, after $0.0000 (−$0.2000/h, −$146.00/month)');
  });

  it('gate on, 16 cheaper spot types: replaced by s.0 at $0.010 (the 15 cheapest kept), saving $0.13/h', async () => {
    const r = await json(spotCluster(), ['--instance-types', sixteenCheaper(), '--feature-gates', 'SpotToSpotConsolidation=true']);
    expect(r.consolidation.decisions).toHaveLength(1);
    const d = r.consolidation.decisions[0];
    expect([d.action, d.candidates, d.replacement?.instanceType, d.replacement?.capacityType]).toEqual([
      'replace',
      ['ip-10-0-2-1'],
      's.0',
      'spot',
    ]);
    expect(d.replacement?.instanceTypeOptions).toEqual(Array.from({ length: 15 }, (_, i) => `s.${i}`));
    expect(d.savingsUsdPerHour).toBeCloseTo(0.13, 10);
    expect(r.costUsdPerHour.before).toBe(0.14);
    expect(r.costUsdPerHour.after).toBeCloseTo(0.01, 10);
  });

  it('gate on, only 2 cheaper types: Karpenter\'s "requires 15 cheaper instance type options" message', async () => {
    const r = await json(spotCluster(), ['--instance-types', catalogueFile(), '--feature-gates', 'SpotToSpotConsolidation=true']);
    expect(r.consolidation.unconsolidatable.map((u) => u.reason)).toEqual([
      'SpotToSpotConsolidation requires 15 cheaper instance type options than the current candidate to consolidate, got 2',
    ]);
  });

  it('--db: the newest spot price at --now joins the built-in catalogue (a later one does not)', async () => {
    const dbPath = join(dir, 'prices.db');
    const db = openDb({ path: dbPath });
    const row = {
      kind: 'spot' as const,
      region: 'us-east-1',
      instanceType: 'm5.large',
      zone: 'us-east-1a',
      currency: 'USD' as const,
      source: 'spot-history' as const,
    };
    createPricesRepository(db).insertPrices([
      { ...row, effectiveAt: Date.parse('2026-12-03T06:00:00Z'), pricePerHour: 0.035 },
      { ...row, effectiveAt: Date.parse('2026-12-03T13:00:00Z'), pricePerHour: 0.001 },
    ]);
    db.close();
    const zoneA = [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] }];
    const objects = file(
      yamlStream(nodePool('spot', { capacityTypes: ['spot'], requirements: zoneA }), deployment('web', 1, { cpu: '1' })),
    );
    const r = await json(objects, ['--region', 'us-east-1', '--db', dbPath]);
    expect(r.provisioning.nodeClaims.map((nc) => [nc.instanceType, nc.capacityType, nc.zone, nc.usdPerHour])).toEqual([
      ['m5.large', 'spot', 'us-east-1a', 0.035],
    ]);
    expect([r.input.catalogue, r.input.spotPrices]).toEqual(['built-in us-east-1', 1]);
  });

  it("nodes in another region than the built-in catalogue's: a warning saying which --region to pass", async () => {
    const n = node('ip-10-0-3-1', 'm5.large', { zone: 'us-west-2a' });
    n.metadata.labels['topology.kubernetes.io/region'] = 'us-west-2';
    const r = await json(file(yamlStream(nodePool('general'), n)), ['--region', 'us-east-1']);
    expect(r.warnings).toContain(
      "nodes are in us-west-2 but the built-in catalogue holds us-east-1's prices: pass --region us-west-2 (or set AWS_REGION)",
    );
  });
});

describe('simulate: the Karpenter of v1.14 in the objects (issue 22)', () => {
  const web = deployment('web', 1, { cpu: '1', memory: '1Gi' });
  /** A NodePool written out in full, for the fields the helper above does not set. */
  const pool = (name: string, o: { policy?: string; replicas?: number; capacityTypes?: string[]; requirements?: unknown[] } = {}) => ({
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name },
    spec: {
      ...(o.replicas !== undefined ? { replicas: o.replicas } : {}),
      disruption: { consolidationPolicy: o.policy ?? 'WhenEmptyOrUnderutilized', consolidateAfter: '1m', budgets: [{ nodes: '100%' }] },
      template: {
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
          requirements: [
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: o.capacityTypes ?? ['on-demand'] },
            ...(o.requirements ?? []),
          ],
        },
      },
    },
  });
  const overlay = (name: string, spec: Record<string, unknown>) => ({
    apiVersion: 'karpenter.sh/v1alpha1',
    kind: 'NodeOverlay',
    metadata: { name },
    spec,
  });
  const bound = (name: string, nodeName: string, requests: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'shop',
      creationTimestamp: '2026-12-03T10:00:00Z',
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', controller: true }],
    },
    spec: { nodeName, containers: [{ name: 'app', resources: { requests } }] },
    status: { phase: 'Running', startTime: '2026-12-03T10:00:00Z' },
  });

  it('NodeOverlay (karpenter.sh/v1alpha1) with --feature-gates NodeOverlay=true: t.large at −80% ($0.20 → $0.04) beats t.small ($0.05); priced by the overlay', async () => {
    const edp = overlay('edp', {
      requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['t.large'] }],
      priceAdjustment: '-80%',
    });
    const objects = file(yamlStream(pool('general'), web, edp));
    const r = await json(objects, ['--instance-types', catalogueFile(), '--feature-gates', 'NodeOverlay=true']);
    expect(r.provisioning.nodeClaims.map((nc) => [nc.instanceType, nc.usdPerHour, nc.priceOverlay, nc.annotations])).toEqual([
      [
        't.large',
        expect.closeTo(0.04, 12),
        'edp',
        { 'karpenter.sh/price-overlay-applied': 'true', 'karpenter.sh/nodeclaim-min-values-relaxed': 'false' },
      ],
    ]);
    // every offering of t.large: three zones, on-demand and spot
    expect(r.overlays).toEqual([{ name: 'edp', weight: 0, applied: true, pricedOfferings: 6, capacityTypes: 0 }]);
    expect(r.karpenter.featureGates.nodeOverlay).toBe(true);
    // the gate off (Karpenter's default): not applied, and said
    const off = await json(objects, ['--instance-types', catalogueFile()]);
    expect(off.provisioning.nodeClaims.map((nc) => [nc.instanceType, nc.usdPerHour])).toEqual([['t.small', 0.05]]);
    expect(off.warnings).toContain(
      '1 NodeOverlay(s) given but the NodeOverlay feature gate is off: not applied (Karpenter ignores them too)',
    );
  });
  it('a static NodePool (spec.replicas): its node never consolidated, its fixed cost reported, no NodeClaim for a pending pod', async () => {
    // the static node is full, so the pending pod has nowhere to go: a static NodePool launches nothing for it
    const full = node('s1', 't.large', { pool: 'fixed', allocatable: { cpu: '100m', memory: '100Mi', pods: '30' } });
    const r = await json(file(yamlStream(pool('fixed', { replicas: 2 }), full, web)), [
      '--instance-types',
      catalogueFile(),
      '--feature-gates',
      'StaticCapacity=true',
    ]);
    expect(r.provisioning.unschedulable.map((u) => [u.pod, u.reason])).toEqual([['shop/web-0', 'no nodepools found']]);
    expect(r.staticNodePools).toEqual([{ nodePool: 'fixed', replicas: 2, nodes: 1, costUsdPerHour: 0.2 }]);
    expect(r.consolidation.unconsolidatable.map((u) => u.reason)).toEqual([
      'NodePool "fixed" is static (spec.replicas 2): Karpenter never consolidates its nodes',
    ]);
  });
  it('consolidationPolicy Balanced: t.xlarge ($0.40) with one pod → t.small ($0.05): 87.5% saved for 100% disrupted, score 0.88 ≥ 0.50', async () => {
    const r = await json(
      file(
        yamlStream(pool('general', { policy: 'Balanced' }), node('x1', 't.xlarge'), bound('web-1-a', 'x1', { cpu: '1', memory: '1Gi' })),
      ),
      ['--instance-types', catalogueFile()],
    );
    const [d] = r.consolidation.decisions;
    expect(d).toMatchObject({
      action: 'replace',
      candidates: ['x1'],
      replacement: { instanceType: 't.small', usdPerHour: 0.05 },
      savingsUsdPerHour: expect.closeTo(0.35, 12),
    });
    expect(d.scores.map((sc) => sc.message)).toEqual(['score 0.88 >= threshold 0.50 (k: 2, savings 87.5%, disruption 100.0%)']);
    const text = await run([
      '--objects',
      file(
        yamlStream(pool('general', { policy: 'Balanced' }), node('x1', 't.xlarge'), bound('web-1-a', 'x1', { cpu: '1', memory: '1Gi' })),
      ),
      '--instance-types',
      catalogueFile(),
      '--now',
      NOW,
    ]);
    expect(text.out).toContain(
      'ConsolidationApproved (NodePool general): score 0.88 >= threshold 0.50 (k: 2, savings 87.5%, disruption 100.0%)',
    );
    // v1.13.0 had no Balanced policy: refused, naming the NodePool
    const old = await run([
      '--objects',
      file(yamlStream(pool('general', { policy: 'Balanced' }))),
      '--instance-types',
      catalogueFile(),
      '--karpenter-version',
      '1.13.0',
    ]);
    expect([old.code, old.err]).toEqual([
      2,
      'simulate: NodePool general: spec.disruption.consolidationPolicy "Balanced" arrived in Karpenter v1.14.0 (karpenterVersion 1.13.0 refuses it)',
    ]);
  });
  it('reserved offerings in a catalogue file: the first pod gets the one instance left (cr-0a, priced as written), the replacement of a dear node too', async () => {
    const types = CATALOGUE.map((t) =>
      t.name === 't.small'
        ? {
            ...t,
            offerings: [
              ...t.offerings,
              {
                zone: 'us-east-1a',
                capacityType: 'reserved',
                priceUsdPerHour: 0.005,
                available: true,
                reservationId: 'cr-0a',
                reservationCapacity: 1,
              },
            ],
          }
        : t,
    );
    const both = pool('general', { capacityTypes: ['on-demand', 'reserved'] });
    const anti = {
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'web' } } },
          ],
        },
      },
    };
    const r = await json(file(yamlStream(both, deployment('web', 2, { cpu: '1', memory: '1Gi' }, anti))), [
      '--instance-types',
      catalogueFile(types),
    ]);
    expect(r.provisioning.nodeClaims.map((nc) => [nc.instanceType, nc.capacityType, nc.reservationId ?? null, nc.usdPerHour])).toEqual([
      ['t.small', 'reserved', 'cr-0a', 0.005],
      ['t.small', 'on-demand', null, 0.05],
    ]);
    expect(r.reservations).toEqual([{ reservationId: 'cr-0a', nodes: 0, launched: 1, instancesLeft: 0 }]);
    const replaced = await json(file(yamlStream(both, node('x1', 't.xlarge'), bound('web-1-a', 'x1', { cpu: '1', memory: '1Gi' }))), [
      '--instance-types',
      catalogueFile(types),
    ]);
    expect(replaced.consolidation.decisions[0].replacement).toMatchObject({
      instanceType: 't.small',
      capacityType: 'reserved',
      reservationId: 'cr-0a',
      usdPerHour: 0.005,
    });
  });
  it('EC2NodeClass status.capacityReservations feed the built-in catalogue: the pod launches into cr-0123 at on-demand ÷ 10^7; a node of a reservation that has ended is on-demand', async () => {
    const nodeClass = {
      apiVersion: 'karpenter.k8s.aws/v1',
      kind: 'EC2NodeClass',
      metadata: { name: 'default' },
      spec: {},
      status: {
        capacityReservations: [
          {
            id: 'cr-0123',
            instanceType: 'c6a.large',
            availabilityZone: 'us-east-1a',
            instanceMatchCriteria: 'targeted',
            ownerID: '123456789012',
            reservationType: 'default',
            state: 'active',
          },
          {
            id: 'cr-0ended',
            instanceType: 'm6a.large',
            availabilityZone: 'us-east-1a',
            instanceMatchCriteria: 'targeted',
            ownerID: '123456789012',
            endTime: '2026-12-03T11:00:00Z',
          },
        ],
      },
    };
    const r = await json(file(yamlStream(pool('general', { capacityTypes: ['on-demand', 'reserved'] }), nodeClass, web)), [
      '--region',
      'us-east-1',
    ]);
    const onDemand = loadStaticTables().get('us-east-1')?.prices;
    expect(r.provisioning.nodeClaims.map((nc) => [nc.instanceType, nc.capacityType, nc.reservationId])).toEqual([
      ['c6a.large', 'reserved', 'cr-0123'],
    ]);
    expect(r.provisioning.nodeClaims[0].usdPerHour).toBeCloseTo((onDemand?.get('c6a.large') ?? NaN) / 1e7, 15);
    expect(r.input.reservedOfferings).toBe(1);
    // a node still labelled reserved in cr-0ended, which ended at 11:00: demoted, priced on-demand
    const demoted = node('old', 'm6a.large', { capacityType: 'reserved' });
    demoted.metadata.labels['karpenter.k8s.aws/capacity-reservation-id'] = 'cr-0ended';
    const after = await json(file(yamlStream(pool('general', { capacityTypes: ['on-demand', 'reserved'] }), nodeClass, demoted)), [
      '--region',
      'us-east-1',
    ]);
    expect(after.costUsdPerHour.before).toBe(onDemand?.get('m6a.large'));
    const text = await run([
      '--objects',
      file(yamlStream(pool('general', { capacityTypes: ['on-demand', 'reserved'] }), nodeClass, web)),
      '--region',
      'us-east-1',
      '--now',
      NOW,
    ]);
    expect(text.out).toContain('AWS bills a reservation whether it is used or not');
    expect(text.out).toMatch(/general +c6a\.large +reserved cr-0123 +us-east-1a/);
  });
  it('a PersistentVolumeClaim bound to a PersistentVolume in us-east-1b pins its StatefulSet pod there (without it: us-east-1a, the first)', async () => {
    const sts = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: 'shop' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'db' } },
        template: {
          metadata: { labels: { app: 'db' } },
          spec: {
            containers: [{ name: 'db', resources: { requests: { cpu: '1', memory: '1Gi' } } }],
            volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-db-0' } }],
          },
        },
      },
    };
    const pvc = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data-db-0', namespace: 'shop' },
      spec: { storageClassName: 'gp3', volumeName: 'pv-1' },
    };
    const pv = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pv-1' },
      spec: {
        csi: { driver: 'ebs.csi.aws.com' },
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1b'] }] }],
          },
        },
      },
    };
    const sc = {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'gp3' },
      provisioner: 'ebs.csi.aws.com',
      volumeBindingMode: 'WaitForFirstConsumer',
    };
    const pinned = await json(file(yamlStream(pool('general'), sts, pvc, pv, sc)), ['--instance-types', catalogueFile()]);
    expect(pinned.provisioning.nodeClaims.map((nc) => nc.zone)).toEqual(['us-east-1b']);
    expect(pinned.input.ignored).toEqual([]);
    const free = await json(file(yamlStream(pool('general'), sts)), ['--instance-types', catalogueFile()]);
    expect(free.provisioning.nodeClaims.map((nc) => nc.zone)).toEqual(['us-east-1a']);
  });
  it('--min-values-policy BestEffort: a NodePool asking for 4 types of 3 still launches, annotated karpenter.sh/nodeclaim-min-values-relaxed "true"', async () => {
    const picky = pool('general', {
      requirements: [
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['t.small', 't.large', 't.xlarge', 't.huge'], minValues: 4 },
      ],
    });
    const objects = file(yamlStream(picky, web));
    const strict = await json(objects, ['--instance-types', catalogueFile()]);
    expect(strict.provisioning.nodeClaims).toEqual([]);
    const best = await json(objects, ['--instance-types', catalogueFile(), '--min-values-policy', 'BestEffort']);
    expect(best.provisioning.nodeClaims.map((nc) => [nc.instanceType, nc.annotations])).toEqual([
      ['t.small', { 'karpenter.sh/nodeclaim-min-values-relaxed': 'true' }],
    ]);
    expect(best.karpenter.minValuesPolicy).toBe('BestEffort');
  });
  it('a NodeOverlay the CRD would refuse is one message naming it, exit 2', async () => {
    const bad = overlay('discount', { requirements: [], priceAdjustment: '15%' });
    const r = await run([
      '--objects',
      file(yamlStream(pool('general'), bad)),
      '--instance-types',
      catalogueFile(),
      '--feature-gates',
      'NodeOverlay=true',
    ]);
    expect([r.code, r.err]).toEqual([
      2,
      'simulate: NodeOverlay discount: spec.priceAdjustment "15%" must be "+N", "-N", "+N%" or "-N%" (down to "-100%")',
    ]);
  });
});

describe('simulate: bad input is one message on stderr naming the object or flag, exit 2', () => {
  const pool = stringify(nodePool('general'));
  it.each([
    [
      'objects that are not YAML',
      () => ['--objects', file('kind: Pod\nmetadata: {name: a\n')],
      /^simulate: .*f\d+\.yaml document 1: not valid YAML or JSON at line \d+, column \d+/,
    ],
    [
      'a NodePool of an API the engine does not read',
      () => ['--objects', file(pool.replace('karpenter.sh/v1', 'karpenter.sh/v1beta1'))],
      /document 1 \(NodePool general\): apiVersion "karpenter\.sh\/v1beta1" is not one the simulator reads/,
    ],
    ['no NodePool at all', () => ['--objects', file(stringify(deployment('w', 1, { cpu: '1' })))], /holds no karpenter\.sh\/v1 NodePool/],
    [
      'a Karpenter node of a type the catalogue lacks',
      () => ['--objects', file(yamlStream(pool, node('ip-1', 'z.huge'))), '--instance-types', catalogueFile()],
      /^simulate: Node ip-1: instance type z\.huge is not in the catalogue \(.*\.json\); add it with --instance-types$/,
    ],
    [
      'a spot node on the built-in catalogue without spot prices',
      () => ['--objects', file(yamlStream(pool, node('ip-2', 'm5.large', { capacityType: 'spot' }))), '--region', 'us-east-1'],
      /^simulate: Node ip-2: the catalogue \(built-in us-east-1\) has no spot price for m5\.large in us-east-1a \(spot prices come from --db/,
    ],
    [
      'a pod with a quantity that is not one',
      () => ['--objects', file(yamlStream(pool, deployment('w', 1, { cpu: 'lots' }))), '--instance-types', catalogueFile()],
      /^simulate: Pod shop\/w-0: .*lots/,
    ],
    ['a missing objects file', () => ['--objects', join(dir, 'nope.yaml')], /^simulate: --objects .*nope\.yaml: no such file$/],
    [
      'a missing catalogue file',
      () => ['--objects', file(pool), '--instance-types', join(dir, 'nope.json')],
      /^simulate: --instance-types .*nope\.json: no such file$/,
    ],
    [
      'a catalogue file that is not an array',
      () => ['--objects', file(pool), '--instance-types', file('{"name":"x"}', 'json')],
      /must hold a JSON array/,
    ],
    ['a missing --db', () => ['--objects', file(pool), '--db', join(dir, 'nope.db')], /^simulate: --db .*nope\.db: no such file/],
  ])('%s', async (_name, argv, message) => {
    const r = await run([...argv(), '--now', NOW, '--json']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(message);
    expect(r.err).not.toMatch(/\n\s+at /); // no stack trace
  });

  it.each([
    [['--feature-gates', 'SpotToSpotConsolidation=yes'], '--feature-gates "SpotToSpotConsolidation=yes" is not Name=true or Name=false'],
    [['--feature-gates', 'NodeRepair=true'], '--feature-gates NodeRepair=true: the simulator does not model NodeRepair'],
    [['--feature-gates', 'Balanced=true'], '--feature-gates: "Balanced" is not a Karpenter feature gate'],
    [['--min-values-policy', 'Loose'], '--min-values-policy must be Strict or BestEffort'],
    [['--karpenter-version', '0.37.0'], '--karpenter-version "0.37.0": the engine models Karpenter v1 releases'],
    [['--now', 'yesterday'], '--now must be an ISO 8601 time with its zone'],
    [['--region', 'mars-1'], '--region must be an AWS region name like us-east-1, got "mars-1"'],
    [['--db', 'x.db', '--instance-types', 'x.json'], 'give one or the other'],
  ])('flag %j: refused with the usage', async (flags, message) => {
    const r = await run(['--objects', 'x.yaml', ...flags]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
    expect(r.err).toContain('Usage: nodepool-ledger simulate');
  });

  it('without --objects: refused with the usage; --help prints it', async () => {
    const r = await run([]);
    expect([r.code, r.err.split('\n')[0]]).toEqual([
      2,
      "simulate needs --objects FILE.yaml (what 'kubectl get -o yaml' prints; '-' for stdin)",
    ]);
    const h = await run(['--help']);
    expect(h.code).toBe(0);
    expect(h.out).toContain('--instance-types FILE.json');
  });
});
