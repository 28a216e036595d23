import { describe, expect, it } from 'vitest';
import {
  DEFAULT_ALERT_SETTINGS,
  type AlertRule,
  type AlertSettings,
  type AlertState,
  type AlertTransition,
  type RuleVerdict,
} from './alert-model.js';
import {
  billGapRule,
  budgetThresholdRule,
  collectorStaleRule,
  idleShareRule,
  limitNodePoolOf,
  nearLimitRule,
  packingDropRule,
  spotFallbackRule,
  tagInactiveRule,
  unschedulableLimitsRule,
  type PoolCapacityCost,
} from './alert-rules.js';
import { stepAlerts } from './alert-state.js';
import type { BudgetStatus } from './budget-model.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = Date.parse('2026-11-10T00:00:00Z');
const S: AlertSettings = DEFAULT_ALERT_SETTINGS;

/**
 * Runs evaluations in order through stepAlerts, the open states carried from one to the next through JSON (as the
 * database keeps them), and returns every transition with the evaluation's time. `restartAt` replays that
 * evaluation a second time with the states as stored after it (a collector restarted right after it).
 */
function run(rule: AlertRule, evaluations: { atMs: number; verdict: RuleVerdict }[], settings = S, restartAt?: number) {
  let open: AlertState[] = [];
  const transitions: AlertTransition[] = [];
  const apply = (atMs: number, verdict: RuleVerdict) => {
    const step = stepAlerts(open, { [rule]: verdict }, atMs, settings);
    transitions.push(...step.transitions);
    const byKey = new Map(open.map((s) => [s.subject, s]));
    for (const d of step.dropped) byKey.delete(d.subject);
    for (const c of step.changed) {
      if (c.phase === 'resolved') byKey.delete(c.subject);
      else byKey.set(c.subject, c);
    }
    open = JSON.parse(JSON.stringify([...byKey.values()])) as AlertState[];
  };
  for (const e of evaluations) {
    apply(e.atMs, e.verdict);
    if (e.atMs === restartAt) apply(e.atMs, e.verdict);
  }
  return { transitions: transitions.map((t) => ({ kind: t.kind, subject: t.state.subject, atMs: t.atMs })), open };
}

const every5min = (fromMs: number, toMs: number): number[] => {
  const out: number[] = [];
  for (let t = fromMs; t <= toMs; t += 5 * MIN) out.push(t);
  return out;
};

describe('stepAlerts: hold time, once, restart', () => {
  const obs = (breaching: boolean) => [
    { rule: 'idle-share' as const, subject: 'general', breaching, figures: {}, sentence: 's', link: { href: '/', label: 'l' } },
  ];
  const hold2h = S.rules['idle-share'].holdMs; // 2 h

  it('breaching from 00:00 with a 2 h hold: pending at 01:55, fires at 02:00 (not before), once', () => {
    const times = every5min(T0, T0 + 3 * HOUR);
    const r = run(
      'idle-share',
      times.map((atMs) => ({ atMs, verdict: obs(true) })),
    );
    expect(hold2h).toBe(2 * HOUR);
    expect(r.transitions).toEqual([{ kind: 'firing', subject: 'general', atMs: T0 + 2 * HOUR }]);
  });

  it('a breach that clears at 01:55 never fires, and the next breach starts its hold afresh', () => {
    const times = every5min(T0, T0 + 5 * HOUR);
    // breaching 00:00-01:50, clear 01:55, breaching again from 02:00: fires at 04:00, not at 02:00
    const r = run(
      'idle-share',
      times.map((atMs) => ({ atMs, verdict: obs(atMs !== T0 + 115 * MIN) })),
    );
    expect(r.transitions).toEqual([{ kind: 'firing', subject: 'general', atMs: T0 + 4 * HOUR }]);
  });

  it('resolves once at the first evaluation without the breach, and stays resolved', () => {
    const times = every5min(T0, T0 + 4 * HOUR);
    const r = run(
      'idle-share',
      times.map((atMs) => ({ atMs, verdict: obs(atMs < T0 + 3 * HOUR) })),
    );
    expect(r.transitions).toEqual([
      { kind: 'firing', subject: 'general', atMs: T0 + 2 * HOUR },
      { kind: 'resolved', subject: 'general', atMs: T0 + 3 * HOUR },
    ]);
  });

  it('a restart that evaluates the firing moment again delivers nothing more', () => {
    const times = every5min(T0, T0 + 4 * HOUR);
    const r = run(
      'idle-share',
      times.map((atMs) => ({ atMs, verdict: obs(atMs < T0 + 3 * HOUR) })),
      S,
      T0 + 2 * HOUR,
    );
    expect(r.transitions.filter((t) => t.kind === 'firing')).toHaveLength(1);
    const r2 = run(
      'idle-share',
      times.map((atMs) => ({ atMs, verdict: obs(atMs < T0 + 3 * HOUR) })),
      S,
      T0 + 3 * HOUR,
    );
    expect(r2.transitions.filter((t) => t.kind === 'resolved')).toHaveLength(1);
  });

  it('no data (verdict null) keeps a firing alert open; a subject no longer reported resolves', () => {
    const r = run('idle-share', [
      { atMs: T0, verdict: obs(true) },
      { atMs: T0 + 2 * HOUR, verdict: obs(true) },
      { atMs: T0 + 3 * HOUR, verdict: null },
      { atMs: T0 + 4 * HOUR, verdict: [] },
    ]);
    expect(r.transitions).toEqual([
      { kind: 'firing', subject: 'general', atMs: T0 + 2 * HOUR },
      { kind: 'resolved', subject: 'general', atMs: T0 + 4 * HOUR },
    ]);
  });

  it('a disabled rule neither fires nor resolves', () => {
    const off: AlertSettings = { ...S, rules: { ...S.rules, 'idle-share': { ...S.rules['idle-share'], enabled: false } } };
    expect(
      run(
        'idle-share',
        [
          { atMs: T0, verdict: obs(true) },
          { atMs: T0 + 3 * HOUR, verdict: obs(true) },
        ],
        off,
      ).transitions,
    ).toEqual([]);
  });
});

describe('budget-threshold', () => {
  // A 1,000 USD monthly budget with thresholds 80 % and 100 %: 850 spent (85 %), forecast 1,100 (110 %).
  const status = (spent: number, forecast: number): BudgetStatus => ({
    budget: {
      name: 'general-monthly',
      scope: { kind: 'nodepool', name: 'general' },
      period: 'monthly',
      amount: 1000,
      currency: 'USD',
      costMetric: 'unblended',
      thresholds: [0.8, 1],
      dollarLimit: false,
      source: 'api',
    },
    periodStartMs: Date.parse('2026-11-01T00:00:00Z'),
    periodEndMs: Date.parse('2026-12-01T00:00:00Z'),
    spent,
    forecast,
    forecastLow: forecast - 50,
    forecastHigh: forecast + 50,
    forecastMethod: '7-day moving average of final days plus today',
    spentShare: spent / 1000,
    forecastShare: forecast / 1000,
    nodesBeforeLimit: null,
  });

  it('850 spent and 1,100 forecast of 1,000: spent crosses 80 % only, the forecast both 80 % and 100 %', () => {
    const v = budgetThresholdRule([status(850, 1100)]) ?? [];
    expect(v.filter((o) => o.breaching).map((o) => o.subject)).toEqual([
      'budget/general-monthly/spent/0.8',
      'budget/general-monthly/forecast/0.8',
      'budget/general-monthly/forecast/1',
    ]);
    const spent = v.find((o) => o.subject === 'budget/general-monthly/spent/0.8');
    expect(spent?.sentence).toBe(
      'Budget general-monthly (nodepool general, monthly) has spent USD 850.00 of USD 1000.00, 85 %, at or above its 80 % threshold.',
    );
    expect(spent?.link.href).toBe('/budgets?budget=general-monthly&from=2026-11-01&to=2026-11-30');
  });

  it('fires at the evaluation that sees the crossing (hold 0), once, and resolves in the next period (budget-service gives a fresh status)', () => {
    const r = run('budget-threshold', [
      { atMs: T0, verdict: budgetThresholdRule([status(700, 900)]) },
      { atMs: T0 + HOUR, verdict: budgetThresholdRule([status(800, 950)]) },
      { atMs: T0 + 2 * HOUR, verdict: budgetThresholdRule([status(810, 960)]) },
      { atMs: T0 + 3 * HOUR, verdict: budgetThresholdRule([status(0, 0)]) },
    ]);
    expect(r.transitions).toEqual([
      { kind: 'firing', subject: 'budget/general-monthly/forecast/0.8', atMs: T0 },
      { kind: 'firing', subject: 'budget/general-monthly/spent/0.8', atMs: T0 + HOUR },
      { kind: 'resolved', subject: 'budget/general-monthly/spent/0.8', atMs: T0 + 3 * HOUR },
      { kind: 'resolved', subject: 'budget/general-monthly/forecast/0.8', atMs: T0 + 3 * HOUR },
    ]);
  });

  it('no provider (null): nothing judged', () => {
    expect(budgetThresholdRule(null)).toBeNull();
  });
});

describe('spot-fallback', () => {
  // general: 1.00/h on-demand + 3.00/h spot (25 % on-demand) until 10:00; from 10:00 spot runs short and it is
  // 4.00/h on-demand + 1.00/h spot (80 %): 55 points above the 25 % baseline, over the 30-point threshold. Back at 13:00.
  const cost = (atMs: number): PoolCapacityCost =>
    atMs >= T0 + 10 * HOUR && atMs < T0 + 13 * HOUR
      ? { atMs, nodePool: 'general', onDemandPerHour: 4, spotPerHour: 1, otherPerHour: 0 }
      : { atMs, nodePool: 'general', onDemandPerHour: 1, spotPerHour: 3, otherPerHour: 0 };
  const times = every5min(T0, T0 + 15 * HOUR);
  const history = times.map(cost);
  const verdictAt = (atMs: number) => spotFallbackRule({ atMs, spotPools: ['general'], history, currency: 'USD' }, S);

  it('the sentence at 10:00 carries the shares and amounts', () => {
    const v = verdictAt(T0 + 10 * HOUR);
    expect(v?.[0].breaching).toBe(true);
    expect(v?.[0].sentence).toBe(
      'NodePool general allows spot, yet 80 % of its cost per hour at on-demand prices (USD 4.00 of USD 5.00) is on-demand, up from 25 % at its lowest in the previous 24 h: spot capacity fell back to on-demand.',
    );
  });

  it('a share 25 % -> 50 % (25 points, under 30) does not breach', () => {
    const h = [cost(T0), { atMs: T0 + HOUR, nodePool: 'general', onDemandPerHour: 2, spotPerHour: 2, otherPerHour: 0 }];
    expect(spotFallbackRule({ atMs: T0 + HOUR, spotPools: ['general'], history: h, currency: 'USD' }, S)?.[0].breaching).toBe(false);
  });

  it('fires at 11:00 (the 1 h hold after 10:00), not at 10:55; resolves at 13:00; once each across a restart', () => {
    const r = run(
      'spot-fallback',
      times.map((atMs) => ({ atMs, verdict: verdictAt(atMs) })),
      S,
      T0 + 11 * HOUR,
    );
    expect(r.transitions).toEqual([
      { kind: 'firing', subject: 'general', atMs: T0 + 11 * HOUR },
      { kind: 'resolved', subject: 'general', atMs: T0 + 13 * HOUR },
    ]);
  });

  it('spot shrinking at night (1.00/h on-demand + 3.00 spot -> 1.00 + 0.50: 25 % -> 67 %) is no fallback: no on-demand launched', () => {
    const h = [cost(T0), { atMs: T0 + HOUR, nodePool: 'general', onDemandPerHour: 1, spotPerHour: 0.5, otherPerHour: 0 }];
    expect(spotFallbackRule({ atMs: T0 + HOUR, spotPools: ['general'], history: h, currency: 'USD' }, S)?.[0].breaching).toBe(false);
  });

  it('a NodePool not allowing spot is not judged', () => {
    expect(spotFallbackRule({ atMs: T0 + 10 * HOUR, spotPools: [], history, currency: 'USD' }, S)).toEqual([]);
  });
});

describe('idle-share', () => {
  it('2.60 idle of 4.00/h is 65 % > 50 %; 1.60 of 4.00 is 40 %', () => {
    const v = idleShareRule(
      {
        atMs: T0,
        pools: [
          { nodePool: 'general', costPerHour: 4, idlePerHour: 2.6 },
          { nodePool: 'steady', costPerHour: 4, idlePerHour: 1.6 },
        ],
        currency: 'USD',
      },
      S,
    );
    expect(v?.map((o) => [o.subject, o.breaching])).toEqual([
      ['general', true],
      ['steady', false],
    ]);
    expect(v?.[0].sentence).toBe(
      'NodePool general spends USD 2.60 of its USD 4.00 per hour, 65 %, on capacity no pod requests (above 50 %).',
    );
  });
});

describe('packing-drop', () => {
  // steady: CPU packing 0.80 at each snapshot before a consolidation at 12:00, 0.60 after it until 15:00, 0.80 after.
  const change = { atMs: T0 + 12 * HOUR, nodePool: 'steady', what: 'a consolidation (Underutilized)' };
  const times = every5min(T0 + 6 * HOUR, T0 + 18 * HOUR);
  const samples = times.map((atMs) => ({ atMs, nodePool: 'steady', cpuPacking: atMs >= change.atMs && atMs < T0 + 15 * HOUR ? 0.6 : 0.8 }));
  const verdictAt = (atMs: number) => packingDropRule({ atMs, nodePools: ['steady'], samples, changes: [change] }, S);

  it('at 12:30: before 0.80 (11:30-11:55), after 0.60 (12:00-12:30): 20 points down, breaching', () => {
    const v = verdictAt(T0 + 12 * HOUR + 30 * MIN);
    expect(v?.[0]).toMatchObject({ breaching: true, figures: { cpuPackingBefore: 0.8, cpuPackingAfter: 0.6 } });
    expect(v?.[0].sentence).toBe(
      "NodePool steady's CPU packing fell from 80 % in the 30 min before a consolidation (Underutilized) at 2026-11-10T12:00Z to 60 % in the 30 min from it.",
    );
  });

  it('pods finishing an hour after the change are not laid at its door: 0.80 to 12:55, then 0.30 (batch done)', () => {
    // At 14:00 the 3 h since the change would average (12 x 0.80 + 13 x 0.30) / 25 = 0.54, 26 points down; the
    // 30 min from it (12:00-12:30, 7 samples) are all 0.80 against 0.80 before: no drop.
    const finishing = times.map((atMs) => ({ atMs, nodePool: 'steady', cpuPacking: atMs >= T0 + 13 * HOUR ? 0.3 : 0.8 }));
    const v = packingDropRule({ atMs: T0 + 14 * HOUR, nodePools: ['steady'], samples: finishing, changes: [change] }, S);
    expect(v?.[0]).toMatchObject({ breaching: false, figures: { cpuPackingBefore: 0.8, cpuPackingAfter: 0.8 } });
  });

  it('fires at 12:30 (30 min hold from 12:00), not at 12:25; resolves when the change leaves the 3 h window (15:05)', () => {
    const r = run(
      'packing-drop',
      times.map((atMs) => ({ atMs, verdict: verdictAt(atMs) })),
      S,
      T0 + 12 * HOUR + 30 * MIN,
    );
    // At 15:00 the after-mean (12:00-12:30: 7 samples of 0.6) is still 0.60: breaching; at 15:05 the change is
    // 3 h 5 min old, out of the 3 h window.
    expect(r.transitions).toEqual([
      { kind: 'firing', subject: 'steady', atMs: T0 + 12 * HOUR + 30 * MIN },
      { kind: 'resolved', subject: 'steady', atMs: T0 + 15 * HOUR + 5 * MIN },
    ]);
  });
});

describe('packing-drop after an edit of the disruption settings', () => {
  // general: WhenEmptyOrUnderutilized -> WhenEmpty at 19:00; CPU packing 0.84 at each 15-min snapshot before it, then
  // falling 3 points a snapshot as load falls with nothing consolidated (19:00 0.84, 19:15 0.81, ..., 21:00 0.60, then
  // 0.60). Before: 18:30 and 18:45, 0.84. The last 30 min at 20:00 (19:45, 20:00): 0.75, 0.72 -> 0.735, 10.5 points
  // down; at 19:45 (19:30, 19:45): 0.78, 0.75 -> 0.765, 7.5 down.
  const change = {
    atMs: T0 + 19 * HOUR,
    nodePool: 'general',
    what: 'consolidationPolicy WhenEmptyOrUnderutilized -> WhenEmpty',
    kind: 'settings' as const,
  };
  const times: number[] = [];
  for (let t = T0 + 15 * HOUR; t <= T0 + 24 * HOUR; t += 15 * MIN) times.push(t);
  const packingAt = (t: number) => (t < change.atMs ? 0.84 : Math.max(0.6, 0.84 - (0.03 * (t - change.atMs)) / (15 * MIN)));
  const samples = times.map((atMs) => ({ atMs, nodePool: 'general', cpuPacking: packingAt(atMs) }));
  const verdictAt = (atMs: number) =>
    packingDropRule({ atMs, nodePools: ['general'], samples: samples.filter((x) => x.atMs <= atMs), changes: [change] }, S);

  it('reads the last 30 min, not the 30 min from the change: 7.5 points down at 19:45, 10.5 at 20:00 (breaching)', () => {
    expect(verdictAt(T0 + 19 * HOUR + 45 * MIN)?.[0]).toMatchObject({ breaching: false, figures: { cpuPackingAfter: 0.765 } });
    const v = verdictAt(T0 + 20 * HOUR)?.[0];
    expect(v).toMatchObject({ breaching: true, figures: { cpuPackingBefore: 0.84, cpuPackingAfter: 0.735 } });
    expect(v?.sentence).toBe(
      "NodePool general's CPU packing fell from 84 % in the 30 min before consolidationPolicy WhenEmptyOrUnderutilized -> WhenEmpty at 2026-11-10T19:00Z to 74 % in the last 30 min.",
    );
  });

  it('fires at 20:30 (pending from 20:00, 30 min hold), once; resolves at 22:15, the first snapshot past the 3 h window', () => {
    const r = run(
      'packing-drop',
      times.map((atMs) => ({ atMs, verdict: verdictAt(atMs) })),
      S,
      T0 + 20 * HOUR + 30 * MIN,
    );
    expect(r.transitions).toEqual([
      { kind: 'firing', subject: 'general', atMs: T0 + 20 * HOUR + 30 * MIN },
      { kind: 'resolved', subject: 'general', atMs: T0 + 22 * HOUR + 15 * MIN },
    ]);
  });
});

describe('nodepool-near-limit and pods-unschedulable-limits', () => {
  it('general at 372 of 400 cores (93 %) breaches 90 %; memory 1,000 of 1,600 GiB is not the top one', () => {
    const v = nearLimitRule(
      {
        atMs: T0,
        limits: [
          { nodePool: 'general', resource: 'cpu', used: 372, limit: 400, unit: 'cores' },
          { nodePool: 'general', resource: 'memory', used: 1000, limit: 1600, unit: 'GiB' },
          { nodePool: 'system', resource: 'cpu', used: 8, limit: 16, unit: 'cores' },
        ],
      },
      S,
    );
    expect(v?.map((o) => [o.subject, o.breaching])).toEqual([
      ['general', true],
      ['system', false],
    ]);
    expect(v?.[0].sentence).toBe('NodePool general uses 372 of its 400 cores cpu limit, 93 % (Karpenter launches nothing more at 100 %).');
  });

  it("reads the NodePool from Karpenter's FailedScheduling message (scheduler.go:718 wrapped by events.go:69)", () => {
    const msg = 'Failed to schedule pod, all available instance types exceed limits for nodepool (NodePool=spot-batch)';
    expect(limitNodePoolOf('FailedScheduling', msg)).toBe('spot-batch');
    expect(limitNodePoolOf('FailedScheduling', 'Failed to schedule pod, incompatible with nodepool "general"')).toBeNull();
    expect(limitNodePoolOf('Nominated', msg)).toBeNull();
  });

  it('two events for one pod in the last hour: fires at once, resolves an hour after the last event', () => {
    const events = [
      { atMs: T0 + 10 * MIN, nodePool: 'spot-batch', pod: 'batch/etl-1' },
      { atMs: T0 + 20 * MIN, nodePool: 'spot-batch', pod: 'batch/etl-1' },
    ];
    const times = every5min(T0, T0 + 2 * HOUR);
    const r = run(
      'pods-unschedulable-limits',
      times.map((atMs) => ({ atMs, verdict: unschedulableLimitsRule({ atMs, nodePools: ['spot-batch'], events }, S) })),
    );
    expect(r.transitions).toEqual([
      { kind: 'firing', subject: 'spot-batch', atMs: T0 + 10 * MIN },
      { kind: 'resolved', subject: 'spot-batch', atMs: T0 + 80 * MIN },
    ]);
  });
});

describe('bill-estimate-gap, nodepool-tag-inactive, collector-stale', () => {
  it('estimate 118.00 against a bill of 100.00 is 18 % above (> 10 %); 105.00 is 5 %', () => {
    const d = (estimate: number) =>
      billGapRule({ newestFinalDay: { dayMs: T0, bill: 100, estimate, currency: 'USD', metric: 'unblended' } }, S);
    expect(d(118)?.[0].breaching).toBe(true);
    expect(d(118)?.[0].sentence).toBe(
      'On 2026-11-10, the newest final day, the estimate (USD 118.00) is 18 % above the bill (USD 100.00 unblended), more than 10 %.',
    );
    expect(d(105)?.[0].breaching).toBe(false);
    expect(billGapRule({ newestFinalDay: null }, S)).toBeNull();
  });

  it('an Inactive or unlisted tag breaches; Active does not', () => {
    const v = (status: 'Active' | 'Inactive' | 'absent') =>
      tagInactiveRule({ atMs: T0, tagKey: 'karpenter.sh/nodepool', status })?.[0].breaching;
    expect([v('Active'), v('Inactive'), v('absent')]).toEqual([false, true, true]);
  });

  it('last snapshot at 00:00, 5 min interval, 3 intervals: not stale at 00:14, stale at 00:15; fresh again resolves', () => {
    const at = (atMs: number, last: number) => ({ atMs, verdict: collectorStaleRule({ atMs, lastSnapshotAtMs: last }, S) });
    expect(collectorStaleRule({ atMs: T0 + 14 * MIN, lastSnapshotAtMs: T0 }, S)?.[0].breaching).toBe(false);
    const r = run('collector-stale', [
      at(T0 + 14 * MIN, T0),
      at(T0 + 15 * MIN, T0),
      at(T0 + 20 * MIN, T0),
      at(T0 + 21 * MIN, T0 + 21 * MIN),
    ]);
    expect(r.transitions).toEqual([
      { kind: 'firing', subject: 'collector', atMs: T0 + 15 * MIN },
      { kind: 'resolved', subject: 'collector', atMs: T0 + 21 * MIN },
    ]);
    expect(collectorStaleRule({ atMs: T0 + 15 * MIN, lastSnapshotAtMs: T0 }, S)?.[0].sentence).toBe(
      'No snapshot since 2026-11-10T00:00Z, 15 min ago: 3 snapshot intervals of 5 min missed (the alert is at 3).',
    );
  });
});
