import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CoreV1Event } from '@kubernetes/client-node';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapEvent } from '../../collectors/kubernetes/map.js';
import { openDb, type Db } from '../../db/open-db.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { CURRENT_KARPENTER_VERSION } from '../../sandbox/scenario/karpenter-profile.js';
import { loadScenarioFile } from '../../sandbox/scenario/scenario-file.js';
import { type ConsolidationRound, simulate } from '../../sandbox/scenario/simulate.js';
import type { Scenario } from '../../sandbox/scenario/types.js';
import { eventObject } from '../../sandbox/serve/kube-objects.js';
import { buildApp } from '../../server/app.js';
import type { KarpenterExplanationRow, KarpenterExplanationsResponse } from '../../server/schemas/karpenter-explanations.js';

/*
 * Issue 22: round by round, the engine's consolidation decision and Karpenter's event for the same round agree, on
 * the sandbox's v1.14 profile (1.14.1). The first day of week4 (one day alone: ~8 s of simulation), with one spot
 * interruption in `general` at 12:05:10, inside the 15 s validation window of the 12:05 round (validation.go), so
 * that a rejection is among the rounds. Every round the sandbox's Karpenter decided (the engine's command, watched)
 * is set beside what the ledger shows for it: the events as the sandbox serves them (kube-objects.ts eventObject, as
 * JSON on the wire), mapped by the collector (mapEvent), stored (kube-repository upsertEvents, a SQLite file) and
 * read back over HTTP on loopback (GET /api/consolidation/karpenter-explanations).
 * What v1.14.1 writes per round (pkg/controllers/disruption, events/events.go, types.go):
 * - a replace: ConsolidationCandidate per candidate, "<command> (savings: $X)" to the cent (EstimatedSavings);
 * - a delete, and Emptiness: no candidate event (computeConsolidation returns before EmitCandidateEvents);
 * - a command failing validation: ConsolidationRejected per candidate 15 s later with validation's reason;
 * - a Balanced approval: ConsolidationApproved (none of week4's first day's rounds is in the Balanced `steady` pool).
 */

const DAY_START = Date.parse('2026-11-01T00:00:00Z');
const INTERRUPTED_AT = '2026-11-01T12:05:10Z';
const cents = (usd: number) => Math.round(usd * 100) / 100;

let dir: string;
let db: Db;
let app: FastifyInstance;
let base: string;
let scenario: Scenario;
const rounds: ConsolidationRound[] = [];
let rows: KarpenterExplanationRow[] = [];

beforeAll(async () => {
  const week4 = loadScenarioFile('week4');
  scenario = simulate({ ...week4, days: 1, incidents: [{ kind: 'spot-interruption', at: INTERRUPTED_AT, nodePool: 'general' }] }, 42, (r) =>
    rounds.push(r),
  );
  dir = mkdtempSync(join(tmpdir(), 'ledger-karpenter-rounds-'));
  db = openDb({ path: join(dir, 'ledger.db') });
  // on the wire: JSON, as the collector's client receives it
  const wire = scenario.events.map((e) => JSON.parse(JSON.stringify(eventObject(e))) as CoreV1Event);
  createKubeRepository(db).upsertEvents(wire.map(mapEvent));
  app = buildApp({ db, webRoot: join(dir, 'no-web'), now: () => DAY_START + 86_400_000 });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const res = await fetch(`${base}/api/consolidation/karpenter-explanations?from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00Z`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as KarpenterExplanationsResponse;
  expect(body.total).toBe(body.rows.length);
  rows = body.rows;
  nodeOfClaim = new Map(scenario.nodes.flatMap((n) => (n.nodeClaimName === null ? [] : [[n.nodeClaimName, n.name] as const])));
}, 60_000);

afterAll(async () => {
  await app?.close();
  db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/*
 * The store pairs a NodeClaim's copy of an event with its Node's through the stored nodes; these events come alone,
 * so each copy is its own row here: the NodeClaim's named back to its node from the scenario.
 */
let nodeOfClaim = new Map<string, string>();
const nodeOf = (r: KarpenterExplanationRow) => r.nodeName ?? nodeOfClaim.get(r.nodeClaim ?? '') ?? null;
const rowsAt = (kind: KarpenterExplanationRow['kind'], at: number) => rows.filter((r) => r.kind === kind && r.atMs === at);
/** The nodes a set of rows names, each once: the Node's and the NodeClaim's copies must both be there. */
function namedNodes(said: KarpenterExplanationRow[]): string[] {
  const nodeCopies = said.filter((x) => x.nodeName !== null).map(nodeOf);
  const claimCopies = said.filter((x) => x.nodeName === null).map(nodeOf);
  expect(claimCopies.sort()).toEqual([...nodeCopies].sort());
  return nodeCopies.map((n) => n ?? '').sort();
}

describe(`week4's first day on the v${CURRENT_KARPENTER_VERSION} profile: each round's decision beside Karpenter's events`, () => {
  it('the day has replaces (single- and multi-node), deletes, Emptiness and one rejection to compare', () => {
    expect(scenario.karpenterVersion).toBe(CURRENT_KARPENTER_VERSION);
    const kinds = new Set(rounds.map((r) => `${r.method} ${r.replacement ? 'replace' : 'delete'}`));
    expect(kinds).toEqual(new Set(['single-node replace', 'single-node delete', 'multi-node replace', 'emptiness delete']));
    expect(rounds.filter((r) => r.rejected !== null)).toHaveLength(1);
  });

  it('a replace: one ConsolidationCandidate per candidate, the same nodes, the same share of the command, savings to the cent', () => {
    const replaces = rounds.filter((r) => r.replacement);
    expect(replaces.length).toBeGreaterThan(3);
    for (const r of replaces) {
      const said = rowsAt('candidate', r.at);
      expect(namedNodes(said), new Date(r.at).toISOString()).toEqual([...r.candidates].sort());
      for (const x of said) {
        expect(x).toMatchObject({
          decision: 'replace',
          nodesInCommand: r.candidates.length,
          savingsUsdPerHour: cents(r.savingsUsdPerHour),
        });
      }
    }
  });

  it('a delete (single-node or Emptiness) writes no candidate event, as computeConsolidation returns before it', () => {
    for (const r of rounds.filter((x) => !x.replacement)) expect(rowsAt('candidate', r.at)).toEqual([]);
  });

  it('the 12:05 command that the 12:05:10 interruption invalidates: ConsolidationRejected 15 s later, reason budget', () => {
    const [r] = rounds.filter((x) => x.rejected !== null);
    expect(new Date(r.at).toISOString()).toBe('2026-11-01T12:05:00.000Z');
    // general's budget is 10 % of its nodes (1 here); the interrupted node counts as disrupting (helpers.go)
    expect(r.rejected).toBe('budget');
    const said = rowsAt('rejected', r.at + 15_000);
    expect(namedNodes(said)).toEqual([...r.candidates].sort());
    for (const x of said) {
      expect(x).toMatchObject({ rejection: 'budget', decision: 'replace', savingsUsdPerHour: cents(r.savingsUsdPerHour) });
      expect(x.said).toBe('ConsolidationRejected (budget)');
    }
    // not carried out: no "Disrupting Node" for its candidates at 12:05
    const disrupted = scenario.events.filter((e) => e.reason === 'DisruptionTerminating' && e.at === r.at);
    expect(disrupted).toEqual([]);
  });

  it('nothing the ledger shows lacks its round: every candidate, rejection and approval row is one of them', () => {
    const expected = new Set<string>();
    for (const r of rounds) {
      if (r.replacement) for (const n of r.candidates) expected.add(`candidate ${r.at} ${n}`);
      if (r.rejected !== null) for (const n of r.candidates) expected.add(`rejected ${r.at + 15_000} ${n}`);
      if (r.approvals.length > 0) for (const n of r.candidates) expected.add(`approved ${r.at} ${n}`);
    }
    const shown = rows.filter((x) => x.kind !== 'unconsolidatable').map((x) => `${x.kind} ${x.atMs} ${nodeOf(x)}`);
    expect(new Set(shown)).toEqual(expected);
  });
});
