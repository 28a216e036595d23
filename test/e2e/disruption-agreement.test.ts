import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disruptionFromConditions } from '../../core/karpenter/events.js';
import type { EventRecord, KubeSnapshot, NodeClaimRecord, NodeRecord } from '../../core/model.js';
import { buildSnapshotRows } from '../../core/rollup.js';
import { type Db, openDb } from '../../db/open-db.js';
import { createFixturesRepository } from '../../db/repositories/fixtures-repository.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { buildApp } from '../../server/app.js';
import type { BillLinesResponse, Explanation } from '../../server/schemas/bill.js';
import type { ConsolidationEventsResponse, DisruptionEvent } from '../../server/schemas/consolidation.js';
import { DAY_MS, HOUR_MS } from '../../core/time.js';

/*
 * The Consolidation page and Explain this bill read the same kept disruptions, so they can never disagree about a
 * NodeClaim. Every wording a Karpenter release has written (core/karpenter/events.test.ts has the origins), with
 * and without a replacement, an interruption, a wording no release wrote, and NodeClaims gone without events (known
 * from a DisruptionReason condition, from their expireAfter, or not at all) go through the collector's write path
 * into SQLite, then both readers are asked over HTTP and compared NodeClaim by NodeClaim.
 */

interface Variant {
  what: string;
  reason?: string;
  node?: string;
  claim?: string;
  /** A replacement launched a minute before, with this DisruptionLaunching (or none: created without an event). */
  launch?: { reason: string; message: string } | 'no-event';
  spot?: boolean;
  /** Gone without events: the final conditions a watch saw, and its expireAfter. */
  final?: NodeClaimRecord['conditions'];
  expireAfter?: string;
}

const VARIANTS: Variant[] = [
  {
    what: 'v0.30 Consolidation/Delete',
    reason: 'DeprovisioningTerminating',
    node: 'Deprovisioning Node: Consolidation/Delete',
    claim: 'Deprovisioning NodeClaim: Consolidation/Delete',
  },
  {
    what: 'v0.30 Drift/Replace',
    reason: 'DeprovisioningTerminating',
    node: 'Deprovisioning Node: Drift/Replace',
    claim: 'Deprovisioning NodeClaim: Drift/Replace',
    launch: { reason: 'DeprovisioningLaunching', message: 'Launching NodeClaim: Drift/Replace' },
  },
  {
    what: 'v0.32 Emptiness/Delete',
    reason: 'DisruptionTerminating',
    node: 'Disrupting Node: Emptiness/Delete',
    claim: 'Disrupting NodeClaim: Emptiness/Delete',
  },
  {
    what: 'v0.33 Consolidation/Replace',
    reason: 'DisruptionTerminating',
    node: 'Disrupting Node: Consolidation/Replace',
    claim: 'Disrupting NodeClaim: Consolidation/Replace',
    launch: { reason: 'DisruptionLaunching', message: 'Launching NodeClaim: Consolidation/Replace' },
  },
  {
    what: 'v0.37 Expiration/Replace',
    reason: 'DisruptionTerminating',
    node: 'Disrupting Node: Expiration/Replace',
    claim: 'Disrupting NodeClaim: Expiration/Replace',
    launch: { reason: 'DisruptionLaunching', message: 'Launching NodeClaim: Expiration/Replace' },
  },
  {
    what: 'v1.0 Underutilized/Delete',
    reason: 'DisruptionTerminating',
    node: 'Disrupting Node: Underutilized/Delete',
    claim: 'Disrupting NodeClaim: Underutilized/Delete',
  },
  {
    what: 'v1.0 Underutilized/Replace',
    reason: 'DisruptionTerminating',
    node: 'Disrupting Node: Underutilized/Replace',
    claim: 'Disrupting NodeClaim: Underutilized/Replace',
    launch: { reason: 'DisruptionLaunching', message: 'Launching NodeClaim: Underutilized/Replace' },
  },
  {
    what: 'v1.5 Drifted/Replace',
    reason: 'DisruptionTerminating',
    node: 'Disrupting Node: Drifted/Replace',
    claim: 'Disrupting NodeClaim: Drifted/Replace',
    launch: { reason: 'DisruptionLaunching', message: 'Launching NodeClaim: Drifted/Replace' },
  },
  {
    what: 'v1.5 Replace, its launch lost',
    reason: 'DisruptionTerminating',
    node: 'Disrupting Node: Underutilized/Replace',
    claim: 'Disrupting NodeClaim: Underutilized/Replace',
    launch: 'no-event',
  },
  {
    what: 'v1.6 Underutilized, replaced',
    reason: 'DisruptionTerminating',
    node: 'Disrupting Node: Underutilized',
    claim: 'Disrupting NodeClaim: Underutilized',
    launch: { reason: 'DisruptionLaunching', message: 'Launching NodeClaim: Underutilized' },
  },
  {
    what: 'v1.6 Underutilized, deleted',
    reason: 'DisruptionTerminating',
    node: 'Disrupting Node: Underutilized',
    claim: 'Disrupting NodeClaim: Underutilized',
  },
  {
    what: 'v1.6 Drifted, replaced',
    reason: 'DisruptionTerminating',
    node: 'Disrupting Node: Drifted',
    claim: 'Disrupting NodeClaim: Drifted',
    launch: { reason: 'DisruptionLaunching', message: 'Launching NodeClaim: Drifted' },
  },
  { what: 'v1.14 Empty', reason: 'DisruptionTerminating', node: 'Disrupting Node: Empty', claim: 'Disrupting NodeClaim: Empty' },
  {
    what: 'lower case',
    reason: 'DisruptionTerminating',
    node: 'disrupting node: underutilized/replace',
    claim: 'disrupting nodeclaim: underutilized/replace',
    launch: { reason: 'DisruptionLaunching', message: 'launching nodeclaim: underutilized/replace' },
  },
  {
    what: 'odd spacing',
    reason: 'DisruptionTerminating',
    node: 'Disrupting Node:Drifted / Replace',
    claim: 'Disrupting NodeClaim:Drifted / Replace',
    launch: { reason: 'DisruptionLaunching', message: 'Launching  NodeClaim :  Drifted' },
  },
  {
    what: 'spot interruption (AWS provider)',
    reason: 'TerminatingOnInterruption',
    node: 'Interruption triggered termination for the Node',
    claim: 'Interruption triggered termination for the NodeClaim',
    spot: true,
  },
  {
    what: 'a wording no release wrote',
    reason: 'DisruptionTerminating',
    node: 'Disrupting Node: Rebalanced',
    claim: 'Disrupting NodeClaim: Rebalanced',
  },
  {
    what: 'gone without events, DisruptionReason as v1.2.0 wrote it, a NodeClaim created at that moment',
    launch: 'no-event',
    final: [{ type: 'DisruptionReason', status: 'True', reason: 'DisruptionReason', message: 'Underutilized', lastTransitionTime: '' }],
  },
  { what: 'gone without events past its expireAfter (v1 expiration)', expireAfter: '1h' },
  { what: 'gone without events or reason (deleted by hand)' },
];

const T0 = Date.parse('2026-11-02T00:00:00Z');
const MIN = 60_000;
const at = (i: number): number => T0 + (i + 1) * 40 * MIN;
const claimName = (i: number) => `general-v${String(i).padStart(2, '0')}`;
const replacementName = (i: number) => `general-r${String(i).padStart(2, '0')}`;

const node = (name: string, claim: string, createdAt: number, spot = false): NodeRecord => ({
  name,
  nodeClaim: claim,
  nodePool: 'general',
  instanceType: 'm5.large',
  capacityType: spot ? 'spot' : 'on-demand',
  zone: 'us-east-1a',
  instanceId: `i-0${claim.slice(-2)}${name.length}`,
  createdAt,
  allocatable: { cpuMillicores: 1930, memoryBytes: 7 * 2 ** 30, pods: 29, gpu: 0 },
  labels: { 'node.kubernetes.io/instance-type': 'm5.large', 'karpenter.sh/capacity-type': spot ? 'spot' : 'on-demand' },
});
const claimOf = (n: NodeRecord, expireAfter = '720h', conditions: NodeClaimRecord['conditions'] = []): NodeClaimRecord => ({
  name: n.nodeClaim ?? '',
  nodePool: n.nodePool,
  nodeName: n.name,
  instanceType: n.instanceType,
  capacityType: n.capacityType,
  zone: n.zone,
  instanceId: n.instanceId,
  createdAt: n.createdAt,
  disruptionReason: null,
  expireAfter,
  conditions,
});

/** Every variant's node, its replacement, and the snapshots and events the collector would have written. */
function history(): KubeSnapshot[] {
  const originals = VARIANTS.map((v, i) => node(`node-v${i}`, claimName(i), T0 - 2 * HOUR_MS, v.spot));
  const replacements = VARIANTS.map((v, i) => (v.launch === undefined ? null : node(`node-r${i}`, replacementName(i), at(i) - MIN)));
  const snapshot = (takenAt: number, events: EventRecord[], gone: NodeClaimRecord[]): KubeSnapshot => {
    const alive = [...originals, ...replacements.filter((r): r is NodeRecord => r !== null)].filter(
      (n) => n.createdAt <= takenAt && !originals.some((o, i) => o === n && at(i) < takenAt),
    );
    return {
      takenAt,
      nodePools: [
        {
          name: 'general',
          weight: null,
          consolidationPolicy: 'WhenEmptyOrUnderutilized',
          consolidateAfter: '0s',
          capacityTypes: ['on-demand', 'spot'],
          requirements: [],
          limits: {},
          budgets: [],
          nodeClass: 'default',
        },
      ],
      namespaces: [],
      nodes: alive,
      nodeClaims: alive.map((n) => claimOf(n, VARIANTS[originals.indexOf(n)]?.expireAfter)),
      pods: [],
      events,
      goneNodeClaims: gone,
    };
  };
  const snapshots = [snapshot(T0, [], [])];
  VARIANTS.forEach((v, i) => {
    const o = originals[i];
    const ev = (name: string, kind: string, reason: string, message: string, k: number): EventRecord => ({
      uid: `ev-${i}-${k}`,
      at: at(i),
      type: v.spot ? 'Warning' : 'Normal',
      reason,
      message,
      kind,
      name,
      namespace: null,
    });
    const events: EventRecord[] = [];
    if (v.spot) {
      events.push(ev(o.name, 'Node', 'SpotInterrupted', 'Spot interruption warning was triggered', 1));
      events.push(ev(claimName(i), 'NodeClaim', 'SpotInterrupted', 'Spot interruption warning was triggered', 2));
    }
    if (v.reason !== undefined && v.node !== undefined && v.claim !== undefined) {
      events.push(ev(o.name, 'Node', v.reason, v.node, 3), ev(claimName(i), 'NodeClaim', v.reason, v.claim, 4));
    }
    if (typeof v.launch === 'object')
      events.push({ ...ev(replacementName(i), 'NodeClaim', v.launch.reason, v.launch.message, 5), at: at(i) - MIN / 2 });
    const gone = v.final
      ? [
          claimOf(
            o,
            v.expireAfter,
            v.final.map((c) => ({ ...c, lastTransitionTime: new Date(at(i) - MIN - 1000).toISOString() })),
          ),
        ]
      : [];
    snapshots.push(snapshot(at(i) + 5 * MIN, events, gone));
  });
  return snapshots;
}

let dir: string;
let db: Db;
let app: FastifyInstance;
let base: string;
let rows: DisruptionEvent[];
let explained: Map<string, Explanation['nodeClaims'][number]>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-agreement-'));
  db = openDb({ path: join(dir, 'ledger.db') });
  const kube = createKubeRepository(db);
  for (const s of history()) {
    // A watch's last look at a deleted NodeClaim, its conditions read as the collector reads them.
    const gone = (s.goneNodeClaims ?? []).map((c) => {
      const d = disruptionFromConditions(c.conditions);
      return { ...c, disruptionReason: d?.text ?? null, disruptionAt: d?.atMs ?? null };
    });
    kube.writeSnapshot({
      snapshot: { ...s, goneNodeClaims: gone },
      ...buildSnapshotRows(s, () => ({ pricePerHour: 0.096, currency: 'USD', source: 'pricing-api' })),
      runId: null,
    });
  }
  // A bill of that day (as an import: no "read at" time to cut it short), on-demand and spot.
  createFixturesRepository(db).insertCostLines(
    ['On Demand Instances', 'Spot Instances'].map((dimensionValue) => ({
      source: 'csv:agreement',
      periodStart: '2026-11-02',
      nodePool: 'general',
      dimensionValue,
      unblendedUsd: 10,
    })),
  );
  app = buildApp({ db, webRoot: join(dir, 'no-web'), now: () => T0 + DAY_MS });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
  const get = async <T>(path: string): Promise<T> => (await (await fetch(`${base}${path}`)).json()) as T;
  const range = 'from=2026-11-01T00:00:00Z&to=2026-11-04T00:00:00Z';
  rows = (await get<ConsolidationEventsResponse>(`/api/consolidation/events?${range}&limit=1000`)).rows;
  const lines = await get<BillLinesResponse>(`/api/bill/lines?source=csv:agreement&from=2026-11-02&to=2026-11-03&groupBy=PURCHASE_TYPE`);
  explained = new Map();
  for (const l of lines.lines) {
    const e = await get<Explanation>(`/api/bill/explain?lineId=${l.id}`);
    for (const n of e.nodeClaims) if (n.nodeClaim !== null) explained.set(n.nodeClaim, n);
  }
}, 60_000);

afterAll(async () => {
  await app?.close();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const KIND: Record<string, string> = {
  Underutilized: 'consolidation',
  Empty: 'consolidation',
  Drifted: 'drift',
  Expired: 'expiry',
  Interrupted: 'interruption',
};

describe('the Consolidation page and Explain this bill about each NodeClaim', () => {
  it.each(VARIANTS.map((v, i) => [v.what, i] as const))('%s', (_what, i) => {
    const claim = claimName(i);
    const row = rows.find((r) => r.nodeClaim === claim);
    const n = explained.get(claim);
    expect(n, `${claim} explained`).toBeDefined();
    if (row === undefined) {
      // No disruption listed: Explain says it went without one.
      expect(n?.reasons.removed).toMatchObject({ kind: 'deleted', reason: null, replacedBy: [] });
      return;
    }
    expect(n?.reasons.removed).toMatchObject({ reason: row.reason, replacedBy: row.replacements, at: row.at });
    expect(n?.reasons.removed.kind).toBe(KIND[row.reason] ?? 'deleted');
    if (row.action === 'Replace' && row.replacements.length > 0) expect(n?.reasons.removed.summary).toMatch(/replaced|Replaced/);
    if (row.action === 'Delete') expect(n?.reasons.removed.summary).not.toMatch(/replaced by|a cheaper replacement/);
    // Each replacement the page lists says, in Explain, what it replaced.
    for (const r of row.replacements)
      expect(explained.get(r)?.reasons.created).toMatchObject({ kind: 'replacement', reason: row.reason, replaces: [claim] });
  });

  it('a replacement NodeClaim is one in Explain exactly when the page lists it as one', () => {
    const listed = new Set(rows.flatMap((r) => r.replacements));
    // Every original and every replacement is in the day's bill.
    expect(explained.size).toBe(VARIANTS.length + VARIANTS.filter((v) => v.launch !== undefined).length);
    for (const [claim, n] of explained) expect([claim, n.reasons.created.kind === 'replacement']).toEqual([claim, listed.has(claim)]);
    expect(listed.size).toBeGreaterThan(8);
  });

  it('covers every kind of answer: replaced, deleted, interrupted, expired, unrecognised, none', () => {
    const shape = VARIANTS.map((_v, i) => {
      const r = rows.find((x) => x.nodeClaim === claimName(i));
      return r === undefined ? 'none' : `${r.reason}/${r.action}`;
    });
    expect(shape).toEqual([
      'Underutilized/Delete',
      'Drifted/Replace',
      'Empty/Delete',
      'Underutilized/Replace',
      'Expired/Replace',
      'Underutilized/Delete',
      'Underutilized/Replace',
      'Drifted/Replace',
      'Underutilized/Replace',
      'Underutilized/Replace',
      'Underutilized/Delete',
      'Drifted/Replace',
      'Empty/Delete',
      'Underutilized/Replace',
      'Drifted/Replace',
      'Interrupted/Delete',
      'Unrecognised/null',
      'Underutilized/Replace',
      'Expired/Delete',
      'none',
    ]);
  });
});
