import { describe, expect, it } from 'vitest';
import { TINY_END, tinyScenario } from '../../test/fixtures/tiny-scenario.js';
import { type BillLine, computeBill } from './bill.js';
import { applySavingsPlan, defaultSavingsPlan, otherLines, type SavingsPlanSpec } from './volumes-savings-plan.js';
import { DAY_MS } from '../../core/time.js';

const H = Date.parse('2026-11-02T06:00:00Z');
const HOUR = 3_600_000;
const bill = (o: Partial<BillLine> & Pick<BillLine, 'instanceId' | 'capacityType' | 'unblendedUsd'>): BillLine => ({
  hourStart: H,
  nodePool: 'general',
  nodeClaim: null,
  instanceType: 'm5.large',
  zone: 'us-east-1a',
  usageHours: 1,
  ...o,
});
const PLAN: SavingsPlanSpec = {
  arn: 'arn:aws:savingsplans::111122223333:savingsplan/sp-test',
  commitmentUsdPerHour: 0.1,
  discountFraction: 0.28,
};

describe('applySavingsPlan: the commitment covers on-demand usage hour by hour, in bill order, at the plan rate', () => {
  // Hour 1: a (0.096 on-demand), b (0.192 on-demand), c (spot). a at the plan rate is 0.06912: wholly covered; b gets
  // the 0.03088 left, which covers 0.03088 / 0.72 = 0.042889 of its on-demand cost. Hour 2: half an hour of a (0.048,
  // 0.03456 at the plan rate), 0.06544 of the commitment unused.
  const lines = [
    bill({ instanceId: 'i-a', capacityType: 'on-demand', unblendedUsd: 0.096 }),
    bill({ instanceId: 'i-b', capacityType: 'on-demand', unblendedUsd: 0.192, nodePool: null }),
    bill({ instanceId: 'i-c', capacityType: 'spot', unblendedUsd: 0.05 }),
    bill({ instanceId: 'i-a', capacityType: 'reserved', unblendedUsd: 0.048, usageHours: 0.5, hourStart: H + HOUR }),
  ];
  const out = applySavingsPlan(lines, PLAN);
  describe.each([
    ['a, wholly covered', 0, 0.096, 0.06912, 0.06912],
    ['b, covered in part', 1, 0.03088 / 0.72, 0.03088, 0.192 - 0.03088 / 0.72 + 0.03088],
    ['c, spot: never covered', 2, 0, 0, 0.05],
    ['a in a capacity reservation (billed on demand), half an hour', 3, 0.048, 0.03456, 0.03456],
  ])('%s', (_name, i, coveredUsd, effectiveUsd, amortizedUsd) => {
    it(`covers ${coveredUsd.toFixed(6)} on demand at ${effectiveUsd.toFixed(6)}; amortized ${amortizedUsd.toFixed(6)}, unblended unchanged`, () => {
      expect(out.lines[i].coveredOnDemandUsd).toBeCloseTo(coveredUsd, 12);
      expect(out.lines[i].savingsPlanEffectiveUsd).toBeCloseTo(effectiveUsd, 12);
      expect(out.lines[i].costs.amortizedUsd).toBeCloseTo(amortizedUsd, 12);
      expect(out.lines[i].costs.unblendedUsd).toBe(lines[i].unblendedUsd);
    });
  });
  it('hour 1 uses the whole commitment; hour 2 leaves 0.06544 unused', () => {
    expect(out.hours.map((h) => [h.hourStart, Number(h.usedUsd.toFixed(10)), Number(h.unusedUsd.toFixed(10))])).toEqual([
      [H, 0.1, 0],
      [H + HOUR, 0.03456, 0.06544],
    ]);
  });
  it('no plan: amortized = unblended; credits of 5 %: net = 0.95 x gross', () => {
    const none = applySavingsPlan(lines, null, 0.05);
    expect(none.hours).toEqual([]);
    expect(none.lines.map((l) => l.costs.amortizedUsd)).toEqual(lines.map((l) => l.unblendedUsd));
    expect(none.lines[1].costs.netUnblendedUsd).toBeCloseTo(0.192 * 0.95, 12);
    expect(applySavingsPlan(lines, PLAN, 0.05).lines[1].costs.netAmortizedUsd).toBeCloseTo((0.192 - 0.03088 / 0.72 + 0.03088) * 0.95, 12);
  });
});

describe('the sandbox bill (tiny scenario, default plan): amortized = unblended − covered usage + its share of the commitment', () => {
  const scenario = tinyScenario();
  const compute = computeBill(scenario, TINY_END);
  const covered = applySavingsPlan(compute, defaultSavingsPlan(scenario));

  it('per NodePool per day, to the cent; the plan never spends more than its hourly commitment', () => {
    const days = new Map<string, { unblended: number; amortized: number; covered: number; share: number }>();
    for (const c of covered.lines) {
      const key = `${c.line.nodePool ?? ''}|${Math.floor(c.line.hourStart / DAY_MS)}`;
      const d = days.get(key) ?? { unblended: 0, amortized: 0, covered: 0, share: 0 };
      d.unblended += c.costs.unblendedUsd;
      d.amortized += c.costs.amortizedUsd;
      d.covered += c.coveredOnDemandUsd;
      d.share += c.savingsPlanEffectiveUsd;
      days.set(key, d);
    }
    expect(days.size).toBe(16); // 14 days of the managed node, general's day and spot-batch's day
    for (const [key, d] of days) expect(Math.round(d.amortized * 100), key).toBe(Math.round((d.unblended - d.covered + d.share) * 100));
    for (const h of covered.hours) expect(h.usedUsd + h.unusedUsd).toBeCloseTo(0.1, 12);
    // The always-on m5.xlarge alone in a full hour: 0.10 covers 0.10 / 0.72 of its 0.192, saving 0.0388889.
    const first = covered.lines[0];
    expect(first.costs.unblendedUsd - first.costs.amortizedUsd).toBeCloseTo((0.1 / 0.72) * 0.28, 12);
  });
});

describe('otherLines: a gp3 root volume and inter-AZ traffic per instance hour, tagged with its NodePool', () => {
  const scenario = tinyScenario();
  const compute = computeBill(scenario, TINY_END);
  const other = otherLines(scenario, compute);

  it('every NodePool that ran, and the untagged node, has its volume', () => {
    const pools = new Set(other.filter((l) => l.usageType === 'EBS:VolumeUsage.gp3').map((l) => l.nodePool));
    expect(pools).toEqual(new Set([null, 'general', 'spot-batch']));
  });
  it('20 GiB for a whole November hour is 20 / 720 GB-Mo at USD 0.08 (us-east-1); 50 GiB when the NodeClass says so', () => {
    const volume = other.find((l) => l.usageType === 'EBS:VolumeUsage.gp3');
    expect(volume?.usageQuantity).toBeCloseTo(20 / 720, 12);
    expect(volume?.costs.unblendedUsd).toBeCloseTo((20 / 720) * 0.08, 12);
    expect(otherLines(scenario, compute, { rootVolumeGiB: 50 })[0].costs.unblendedUsd).toBeCloseTo((50 / 720) * 0.08, 12);
  });
  it('general ran 10 h: its volume is 20 x 10 / 720 GB-Mo, and the same seed gives the same traffic', () => {
    const general = other.filter((l) => l.nodePool === 'general' && l.usageType === 'EBS:VolumeUsage.gp3');
    expect(general.reduce((t, l) => t + l.usageQuantity, 0)).toBeCloseTo((20 * 10) / 720, 12);
    expect(otherLines(scenario, compute)).toEqual(other);
    const traffic = other.filter((l) => l.usageTypeGroup === 'EC2: Data Transfer - Inter AZ' && l.usageQuantity > 0);
    for (const t of traffic) expect(t.costs.unblendedUsd).toBeCloseTo(t.usageQuantity * 0.01, 12);
  });
});
