import { parse } from 'csv-parse/sync';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../db/open-db.js';
import { createRunsRepository } from '../../db/repositories/runs-repository.js';
import { DEFAULT_SCENARIO, DEFAULT_SEED, loadScenario } from '../../sandbox/index.js';
import { hypotheticalBill } from '../../sandbox/scenario/hypothetical-bill.js';
import { CURRENT_KARPENTER_VERSION, LEGACY_KARPENTER_VERSION } from '../../sandbox/scenario/karpenter-profile.js';
import type { Scenario, SimNode } from '../../sandbox/scenario/types.js';
import { sandboxPracticeBills } from '../../sandbox/practice-bills.js';
import { buildApp } from '../../server/app.js';
import type {
  BillGroupBy,
  BillLinesResponse,
  Explanation,
  ImportResponse,
  PracticeAnswers,
  PracticeQuestion,
} from '../../server/schemas/bill.js';
import { DAY_MS } from '../../core/time.js';
import { seededDb, type SeededDb } from '../fixtures/seeded-api.js';

/**
 * Explain this bill, end to end: the sandbox's week4 scenario collected through the real clients into SQLite for
 * its first DAYS days (through the spot interruption of 11-06), then every synced Cost Explorer line explained
 * over the API. The sandbox bills exactly node lifetimes x published prices, so every line must be matched by its
 * NodeClaims to under a cent, and every reason must agree with what the simulation actually did. Everything runs
 * twice, the sandbox imitating Karpenter 1.5.0 and the current release, whose disruption events differ in wording
 * only: the explanations must be the same but for the words of the events they list.
 * Each release's six days come from the seeded-database cache (test/fixtures/seeded-api.ts): the current release's
 * are the ones foundation.test.ts reads too, seeded once for both.
 */
const DAYS = 6;
const PROFILES = [LEGACY_KARPENTER_VERSION, CURRENT_KARPENTER_VERSION];

interface Seeded {
  /** The history the sandbox served while the database was seeded. */
  scenario: Scenario;
  seededDb: SeededDb;
  db: Db;
  app: FastifyInstance;
  base: string;
  /** The synced lines grouped by purchase type, explained once over the API (several tests read them). */
  byPurchase: Explanation[];
}
const seeded = new Map<string, Seeded>();
const saved = { ...process.env };

const getJsonFrom = async <T>(base: string, path: string): Promise<T> => {
  const res = await fetch(`${base}${path}`);
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
};

async function explainAllFrom(base: string, source: string, groupBy: BillGroupBy, granularity = 'DAILY'): Promise<Explanation[]> {
  const lines = await getJsonFrom<BillLinesResponse>(
    base,
    `/api/bill/lines?source=${source}&groupBy=${groupBy}&granularity=${granularity}&from=2026-11-01&to=2026-11-15`,
  );
  return Promise.all(lines.lines.map((l) => getJsonFrom<Explanation>(base, `/api/bill/explain?lineId=${l.id}`)));
}

beforeAll(async () => {
  // One after the other: a seeding points the AWS SDK at its sandbox through process.env.
  for (const karpenterVersion of PROFILES) {
    const seededDbOf = await seededDb({ prefix: 'ledger-bill-', days: DAYS, karpenterVersion });
    const db = seededDbOf.db;
    const sc = loadScenario(DEFAULT_SCENARIO, DEFAULT_SEED, karpenterVersion);
    // What `demo` records, so practice bills know the scenario behind the database.
    createRunsRepository(db).setSetting('demo.seeded', `${sc.name}|${sc.seed}|v1|karpenter=${sc.karpenterVersion}`);
    const app = buildApp({ db, now: () => sc.start + DAYS * DAY_MS, practiceBills: sandboxPracticeBills });
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    seeded.set(karpenterVersion, {
      scenario: sc,
      seededDb: seededDbOf,
      db,
      app,
      base,
      byPurchase: await explainAllFrom(base, 'cost-explorer', 'PURCHASE_TYPE'),
    });
  }
}, 420_000);

afterAll(async () => {
  for (const s of seeded.values()) {
    await s.app.close();
    await s.seededDb.close();
  }
  process.env = saved;
});

describe.each(PROFILES)('Karpenter %s', (karpenterVersion) => {
  let sb: { scenario: Scenario };
  let db: Db;
  let base: string;
  let byPurchase: Explanation[];
  beforeAll(() => {
    const s = seeded.get(karpenterVersion);
    if (s === undefined) throw new Error(`not seeded: ${karpenterVersion}`);
    ({ db, base, byPurchase } = s);
    sb = { scenario: s.scenario };
  });
  const getJson = <T>(path: string): Promise<T> => getJsonFrom<T>(base, path);
  const explainAll = (source: string, groupBy: BillGroupBy, granularity = 'DAILY'): Promise<Explanation[]> =>
    explainAllFrom(base, source, groupBy, granularity);

  const simNode = (name: string): SimNode | undefined => sb.scenario.nodes.find((n) => n.name === name);
  const KIND_OF: Record<string, string> = {
    Underutilized: 'consolidation',
    Empty: 'consolidation',
    Drifted: 'drift',
    Interrupted: 'interruption',
  };

  describe('every synced week4 bill line is explained', () => {
    it('NodeClaims add up to each line to under a cent, with no unexplained remainder', async () => {
      const byType = await explainAll('cost-explorer', 'INSTANCE_TYPE');
      expect(byPurchase.length).toBeGreaterThanOrEqual(DAYS * 3);
      expect(byType.length).toBeGreaterThan(byPurchase.length);
      // Any other grouping or granularity the collector stored (hourly, per instance) too.
      const { availableGroupBys } = await getJson<BillLinesResponse>('/api/bill/lines');
      const others: Explanation[] = [];
      // EC2 - Other lines (volumes, data transfer) are the NodePool's, never a NodeClaim's: explained apart, below.
      expect(availableGroupBys).toContain('USAGE_TYPE');
      for (const groupBy of availableGroupBys.filter((g) => g !== 'USAGE_TYPE')) {
        const { availableGranularities } = await getJson<BillLinesResponse>(`/api/bill/lines?groupBy=${groupBy}`);
        for (const g of availableGranularities)
          if (!(g === 'DAILY' && (groupBy === 'PURCHASE_TYPE' || groupBy === 'INSTANCE_TYPE')))
            others.push(...(await explainAll('cost-explorer', groupBy, g)));
      }
      for (const e of [...byPurchase, ...byType, ...others]) {
        expect(e.status, e.summary).toBe('explained');
        expect(Math.abs(e.remainderUsd), e.summary).toBeLessThan(0.01);
        expect(e.nodeClaims.length).toBeGreaterThan(0);
        expect(e.remainderCauses.every((c) => c.code === 'rounding')).toBe(true);
      }
      // Both groupings hold the same money.
      const sum = (es: Explanation[]) => es.reduce((s, e) => s + e.lineUsd, 0);
      expect(sum(byType)).toBeCloseTo(sum(byPurchase), 6);
    });

    it('EC2 - Other lines (root volumes, data transfer) are listed and say why no NodeClaim explains them', async () => {
      const other = await explainAll('cost-explorer', 'USAGE_TYPE');
      expect(new Set(other.map((e) => e.line.nodePool))).toEqual(new Set(['', 'dedicated', 'general', 'spot-batch', 'steady', 'system']));
      for (const e of other) {
        expect(e.nodeClaims).toEqual([]);
        expect(e.notes.join(' ')).toContain('EC2 - Other');
      }
    });

    it('the untagged line is the managed node group: two m5.large not launched by Karpenter, 24 h a day', () => {
      const untagged = byPurchase.filter((e) => e.line.nodePool === '');
      expect(untagged).toHaveLength(DAYS);
      for (const e of untagged) {
        expect(e.nodeClaims.map((n) => [n.nodeClaim, n.nodePool, n.instanceType, n.hours, n.reasons.created.kind])).toEqual([
          [null, null, 'm5.large', 24, 'not-karpenter'],
          [null, null, 'm5.large', 24, 'not-karpenter'],
        ]);
        // 2 x 24 h x 0.096 USD/h.
        expect(e.lineUsd).toBeCloseTo(4.608, 6);
      }
    });

    it('the system NodePool: reserved NodeClaims under On Demand Instances at the on-demand rate (on-demand before v1.6)', () => {
      // Before v1.6 Karpenter does not use capacity reservations by default (sandbox/scenario/release-shape.ts): the
      // same m6i.large launches on-demand, at the same price.
      const reserved = karpenterVersion === CURRENT_KARPENTER_VERSION;
      const system = byPurchase.filter((e) => e.line.nodePool === 'system');
      expect(system).toHaveLength(DAYS);
      for (const e of system) {
        expect(e.line.dimensionValue).toBe('On Demand Instances');
        // coredns' zone spread keeps two system nodes, in us-east-1a and us-east-1b; only us-east-1b holds the
        // reservation, so one of them runs in it from v1.6.
        expect(e.nodeClaims.map((n) => [n.instanceType, n.capacityType, n.unitPriceUsdPerHour.toFixed(6), n.hours])).toEqual([
          ['m6i.large', 'on-demand', '0.096000', 24],
          ['m6i.large', reserved ? 'reserved' : 'on-demand', '0.096000', 24],
        ]);
        if (reserved)
          expect(e.nodeClaims[1].reasons.capacityType.summary).toContain('into a capacity reservation with room (cr-0a1b2c3d4e5f60718)');
        // Two m6i.large all day at 0.096 USD/h: 4.608, the sandbox billing reservation hours as On Demand usage.
        expect(e.lineUsd).toBeCloseTo(4.608, 6);
        expect(e.status).toBe('explained');
      }
    });

    it('gives the reasons the simulation actually had: launches, replacements, consolidations and the interruption', () => {
      const claims = new Map(
        byPurchase
          .flatMap((e) => e.nodeClaims)
          .filter((n) => n.nodeClaim !== null)
          .map((n) => [n.nodeName, n]),
      );
      let replacements = 0;
      let interruptions = 0;
      for (const n of claims.values()) {
        const truth = simNode(n.nodeName);
        if (!truth) throw new Error(`${n.nodeName} is not in the scenario`);
        expect(
          n.reasons.instanceType.requirements.every((r) => r.satisfied),
          n.reasons.instanceType.summary,
        ).toBe(true);
        if (truth.launchReason.kind === 'replacement') {
          replacements += 1;
          expect(n.reasons.created).toMatchObject({
            kind: 'replacement',
            reason: truth.launchReason.reason,
            // By name: a multi-node consolidation lists its candidates in the engine's order.
            replaces: [...truth.launchReason.replaces].sort(),
          });
        } else if (truth.createdAt >= sb.scenario.start && truth.launchReason.kind === 'pending-pods') {
          expect(n.reasons.created.kind).toBe('provisioning');
          // The pods it was launched for are on it at its first snapshot.
          const atLaunch = new Set(n.reasons.size.launchPods.map((p) => p.name));
          for (const pod of truth.launchReason.podNames) expect(atLaunch.has(pod), `${pod} on ${n.nodeName}`).toBe(true);
          expect(n.reasons.size.requested.cpuMillicores).toBeLessThanOrEqual(n.reasons.size.allocatable.cpuMillicores);
        }
        // An instance that ends at the last instant is still there at the last snapshot (5 minutes before).
        const endedInData = truth.deletedAt !== null && truth.deletedAt < sb.scenario.start + DAYS * DAY_MS;
        if (endedInData && truth.deletionReason !== null) {
          expect(n.reasons.removed.kind, n.reasons.removed.summary).toBe(KIND_OF[truth.deletionReason]);
          if (truth.deletionReason === 'Interrupted') interruptions += 1;
        } else if (!endedInData) {
          expect(n.reasons.removed.kind).toBe('still-running');
        }
        expect(n.capacityType === 'spot' ? n.priceSource : 'pricing-api').toMatch(/spot-history|pricing-api/);
      }
      expect(replacements).toBeGreaterThan(0);
      expect(interruptions).toBe(1);
    });

    it('downloads the explained table as CSV, one row per NodeClaim plus the line and its remainder', async () => {
      const e = byPurchase.find((x) => x.line.nodePool === 'general') ?? byPurchase[0];
      // The old .csv path and the one convention (?format=csv) give the same file.
      const res = await fetch(`${base}/api/bill/explain.csv?lineId=${e.line.id}`);
      expect(res.headers.get('content-type')).toContain('text/csv');
      const text = await res.text();
      expect(await (await fetch(`${base}/api/bill/explain?lineId=${e.line.id}&format=csv`)).text()).toBe(text);
      const rows = parse(text) as string[][];
      expect(rows[0].slice(0, 3)).toEqual(['line_id', 'period_start', 'line_nodepool']);
      expect(rows).toHaveLength(1 + e.nodeClaims.length + 2);
      expect(rows.slice(1).map((r) => r[4])).toEqual([...e.nodeClaims.map(() => 'nodeclaim'), 'line', 'remainder']);
    });
  });

  describe('an imported Cost Explorer console CSV', () => {
    const from = Date.parse('2026-11-01T00:00:00Z');
    const to = from + DAYS * DAY_MS;

    it('round-trips to the same explanations as the synced lines', async () => {
      const csv = hypotheticalBill(sb.scenario, { fromMs: from, toMs: to, perturbation: 'none', seed: 1 }).csv;
      const form = new FormData();
      form.append('file', new Blob([csv], { type: 'text/csv' }), 'costs.csv');
      const res = await fetch(`${base}/api/bill/import`, { method: 'POST', body: form });
      expect(res.status).toBe(201);
      const imported = (await res.json()) as ImportResponse;
      expect(imported).toMatchObject({ source: 'csv:costs', fileName: 'costs.csv', granularity: 'DAILY', periods: DAYS, replaced: false });
      expect(imported.nodePools).toEqual(['', 'dedicated', 'general', 'spot-batch', 'steady', 'system']);

      const fromCsv = await explainAll('csv:costs', 'NONE');
      const synced = byPurchase;
      expect(fromCsv).toHaveLength(imported.lines);
      for (const e of fromCsv) {
        const same = synced.filter((s) => s.line.periodStart === e.line.periodStart && s.line.nodePool === e.line.nodePool);
        expect(same.length).toBeGreaterThan(0);
        expect(e.status).toBe('explained');
        expect(e.lineUsd).toBeCloseTo(
          same.reduce((s, x) => s + x.lineUsd, 0),
          8,
        );
        expect(e.computedUsd).toBeCloseTo(
          same.reduce((s, x) => s + x.computedUsd, 0),
          8,
        );
        const names = (es: Explanation[]) => es.flatMap((x) => x.nodeClaims.map((n) => n.nodeName)).sort();
        expect(names([e])).toEqual(names(same));
      }
    });

    it('refuses malformed files with a clear 4xx and imports nothing from them', async () => {
      const good = '"karpenter.sh/nodepool","general($)","Total costs($)"\n"2026-11-02","1.5","1.5"\n';
      const first = await fetch(`${base}/api/bill/import?name=kept`, {
        method: 'POST',
        headers: { 'content-type': 'text/csv' },
        body: good,
      });
      expect(first.status).toBe(201);
      const count = () => db.prepare(`SELECT COUNT(*) FROM cost_lines`).pluck().get() as number;
      const before = count();
      const enc = new TextEncoder();
      const cases: { what: string; body: Uint8Array<ArrayBuffer>; type?: string; status: number; says: string }[] = [
        { what: 'empty', body: new Uint8Array(0), status: 400, says: 'empty' },
        { what: 'over the limit', body: new Uint8Array(6 * 1024 * 1024).fill(0x31), status: 413, says: '5 MB' },
        {
          what: 'wrong columns',
          body: enc.encode('"Service","EC2-Instances($)","Total costs($)"\n"2026-11-02","1","1"\n'),
          status: 422,
          says: 'Tag karpenter.sh/nodepool',
        },
        {
          what: 'UTF-16',
          body: Uint8Array.from([0xff, 0xfe, ...[...good].flatMap((c) => [c.charCodeAt(0), 0])]),
          status: 415,
          says: 'UTF-16',
        },
        {
          what: 'Latin-1',
          body: Uint8Array.from([
            ...enc.encode(good.replace('general', 'gen')),
            ...enc.encode('"2026-11-03","'),
            0xa3,
            ...enc.encode('1","1"\n'),
          ]),
          status: 415,
          says: 'not valid UTF-8',
        },
        {
          what: 'a formula',
          body: enc.encode('"karpenter.sh/nodepool","general($)","Total costs($)"\n"2026-11-02","=1+2","3"\n'),
          status: 422,
          says: 'formulas are refused',
        },
        { what: 'a JSON body', body: enc.encode('{"lines":[]}'), type: 'application/json', status: 415, says: 'text/csv or multipart' },
      ];
      for (const c of cases) {
        const res = await fetch(`${base}/api/bill/import?name=kept`, {
          method: 'POST',
          headers: { 'content-type': c.type ?? 'text/csv' },
          body: c.body,
        });
        const body = (await res.json()) as { message: string };
        expect([c.what, res.status]).toEqual([c.what, c.status]);
        expect(body.message, c.what).toContain(c.says);
      }
      // Nothing half-imported, and the earlier import of that name is untouched.
      expect(count()).toBe(before);
      const kept = await getJson<BillLinesResponse>('/api/bill/lines?source=csv:kept&from=2026-11-01&to=2026-11-08');
      expect(kept.lines.map((l) => [l.nodePool, l.unblendedUsd])).toEqual([['general', 1.5]]);
    });
  });

  describe('practice bills made by the sandbox', () => {
    const practice = async (q: string) => ({
      question: await getJson<PracticeQuestion>(`/api/bill/practice?${q}`),
      answers: await getJson<PracticeAnswers>(`/api/bill/practice/answers?${q}`),
    });

    it('a NodeClaim billed without its tag: the short line and the untagged surplus are matched, naming it', async () => {
      const { question, answers } = await practice('seed=3&day=2026-11-03&perturbation=untagged-node');
      expect(question.csv.split('\n')[0]).toMatch(/^"karpenter.sh\/nodepool",/);
      expect(JSON.stringify(question)).not.toContain('untagged-node');
      const focus = answers.explanations[question.focusLine];
      expect(focus.status).toBe('partly-explained');
      expect(focus.remainderUsd).toBeLessThan(-0.01);
      const untagged = answers.explanations.find((e) => e.line.nodePool === '');
      expect(untagged?.remainderUsd).toBeCloseTo(-focus.remainderUsd, 6);
      const touched = /NodeClaim ([a-z0-9-]+)/.exec(answers.whatChanged)?.[1] ?? 'none';
      expect(untagged?.remainderCauses.find((c) => c.code === 'untagged-hours')?.message).toContain(touched);
    });

    it('spot billed at hour-start prices stays explained, inside the spot-within-the-hour tolerance', async () => {
      const { answers } = await practice('seed=4&day=2026-11-06&perturbation=spot-hourly-price');
      const notExplained = answers.explanations.filter((e) => e.status !== 'explained');
      expect(notExplained.map((e) => [e.line.nodePool, e.line.dimensionValue, e.status, e.remainderUsd, e.remainderCauses])).toEqual([]);
      const spot = answers.explanations.find((e) => e.line.nodePool === 'spot-batch');
      expect(Math.abs(spot?.remainderUsd ?? 0)).toBeGreaterThan(0);
      expect(Math.abs(spot?.remainderUsd ?? 1)).toBeLessThanOrEqual(spot?.toleranceUsd ?? 0);
      // That day's spot interruption is in the answer.
      expect(spot?.nodeClaims.some((n) => n.reasons.removed.kind === 'interruption')).toBe(true);
    });

    it('tags not active: one untagged line that cannot be split, said plainly', async () => {
      const { question, answers } = await practice('seed=5&day=2026-11-04&perturbation=tags-inactive');
      expect(question.lines.map((l) => l.nodePool)).toEqual(['']);
      expect(answers.explanations[0].status).toBe('cannot-explain');
      // The reason first; a node's drain step (disrupted, then terminated 5 minutes later) may add the uncertainty of
      // its deletion time.
      expect(answers.explanations[0].remainderCauses[0].code).toBe('tags-not-active');
      expect(answers.explanations[0].remainderCauses.slice(1).every((c) => c.code === 'deletion-time-uncertain')).toBe(true);
      expect(Math.abs(answers.explanations[0].remainderUsd)).toBeLessThan(0.01);
    });

    it('refuses a day outside the scenario with 400 naming the parameter', async () => {
      const res = await fetch(`${base}/api/bill/practice?day=2027-01-01`);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain('"day"');
    });
  });
});

describe('the legacy and the current Karpenter release', () => {
  // Until v1.14 the two releases explained every line alike (the NodeClaims, costs and reasons, words aside). v1.14.0
  // does not simulate pods onto nodes whose last pod event is younger than consolidateAfter, so on week4 it
  // consolidates later and less (sandbox/scenario/simulate.test.ts): the NodeClaims behind a line differ by design.
  // What stays: the bill has the same lines (each explained per release above) and each release's words.
  it('explain the same bill lines; the events they list keep each release’s words', () => {
    const of = (version: string) => {
      const s = seeded.get(version);
      if (s === undefined) throw new Error(`not seeded: ${version}`);
      return s.byPurchase;
    };
    const legacy = of(LEGACY_KARPENTER_VERSION);
    const current = of(CURRENT_KARPENTER_VERSION);
    const lines = (es: Explanation[]) => es.map((e) => `${e.line.periodStart} ${e.line.nodePool} ${e.line.dimensionValue}`).sort();
    expect(lines(current)).toEqual(lines(legacy));
    const messages = (es: Explanation[]) =>
      new Set(
        es.flatMap((e) => e.nodeClaims.flatMap((n) => [...n.reasons.created.events, ...n.reasons.removed.events].map((x) => x.message))),
      );
    expect(messages(legacy)).toContain('Disrupting Node: Underutilized/Replace');
    expect(messages(current)).toContain('Disrupting Node: Underutilized');
    expect(messages(current)).not.toContain('Disrupting Node: Underutilized/Replace');
  });
});
