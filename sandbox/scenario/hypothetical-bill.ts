import { TAG_NODEPOOL } from '../../core/labels.js';
import { type BillLine, computeBill, formatCeAmount, publishedSpotUsd } from './bill.js';
import { Rng } from './rng.js';
import type { EpochMs, Scenario, SpotPricePoint } from './types.js';
import { DAY_MS } from '../../core/time.js';

/**
 * Hypothetical bills for the "explain this bill" practice mode: the sandbox's own bill for chosen days, optionally
 * perturbed the way real bills go wrong, delivered as the Cost Explorer console's CSV download (grouped by the
 * karpenter.sh/nodepool tag) so it is explained through the same import path as a real export. Pure and
 * deterministic: the same scenario, days, perturbation and seed give the same bytes.
 */

export const PERTURBATIONS = ['none', 'untagged-node', 'spot-hourly-price', 'tags-inactive'] as const;
export type Perturbation = (typeof PERTURBATIONS)[number];

export interface HypotheticalBillOptions {
  /** [fromMs, toMs): whole UTC days inside the scenario. */
  fromMs: EpochMs;
  toMs: EpochMs;
  perturbation: Perturbation;
  /** Picks what the perturbation touches (which NodeClaim goes untagged). */
  seed: number;
}

export interface HypotheticalBill {
  fromMs: EpochMs;
  toMs: EpochMs;
  perturbation: Perturbation;
  /** What was changed, in words: the answer, not the question. */
  whatChanged: string;
  /** The NodeClaim (or instance) the perturbation touched, if one. */
  touched: { nodeClaim: string | null; instanceId: string; nodePool: string | null } | null;
  /** Hourly per-instance lines after the perturbation. */
  lines: BillLine[];
  /** Per UTC day and NodePool tag value ('' = untagged), USD, as Cost Explorer would sum them. */
  days: { day: string; nodePool: string; usd: number }[];
  /** The Cost Explorer console "Download CSV" of that report. */
  csv: string;
}

const usd2 = (n: number): string => `$${n.toFixed(2)}`;

function marketIndex(points: readonly SpotPricePoint[]): Map<string, SpotPricePoint[]> {
  const out = new Map<string, SpotPricePoint[]>();
  for (const p of points) {
    const k = `${p.instanceType} ${p.zone}`;
    const list = out.get(k);
    if (list) list.push(p);
    else out.set(k, [p]);
  }
  for (const list of out.values()) list.sort((a, b) => a.at - b.at);
  return out;
}

/** The published spot price in effect at t (the market's first price before it starts). */
function spotAt(points: readonly SpotPricePoint[], t: EpochMs): number {
  let found = points[0];
  for (const p of points) {
    if (p.at > t) break;
    found = p;
  }
  return publishedSpotUsd(found.usdPerHour);
}

export function checkWindow(scenario: Scenario, fromMs: EpochMs, toMs: EpochMs): void {
  if (fromMs % DAY_MS !== 0 || toMs % DAY_MS !== 0) throw new RangeError('a hypothetical bill covers whole UTC days');
  if (!(fromMs < toMs)) throw new RangeError('the bill window is empty');
  if (fromMs < scenario.start || toMs > scenario.end) {
    throw new RangeError(
      `scenario ${scenario.name} covers ${new Date(scenario.start).toISOString().slice(0, 10)} to ${new Date(scenario.end - DAY_MS).toISOString().slice(0, 10)}`,
    );
  }
}

function perturb(
  scenario: Scenario,
  base: BillLine[],
  opts: HypotheticalBillOptions,
): Pick<HypotheticalBill, 'lines' | 'whatChanged' | 'touched'> {
  switch (opts.perturbation) {
    case 'none':
      return {
        lines: base,
        touched: null,
        whatChanged: "Nothing: this is the sandbox's own bill for those days, every hour tagged as Karpenter tagged it.",
      };
    case 'tags-inactive':
      return {
        lines: base.map((l) => ({ ...l, nodePool: null })),
        touched: null,
        whatChanged: `${TAG_NODEPOOL} was never activated as a cost allocation tag, so Cost Explorer billed every instance under "No tag key": the bill cannot be split by NodePool.`,
      };
    case 'untagged-node': {
      // The NodeClaim with the most hours in the window, among a seeded few, so the missing money is visible.
      const hours = new Map<string, { line: BillLine; hours: number; usd: number }>();
      for (const l of base) {
        if (l.nodePool === null) continue;
        const h = hours.get(l.instanceId);
        hours.set(l.instanceId, { line: l, hours: (h?.hours ?? 0) + l.usageHours, usd: (h?.usd ?? 0) + l.unblendedUsd });
      }
      const candidates = [...hours.values()]
        .sort((a, b) => b.usd - a.usd || a.line.instanceId.localeCompare(b.line.instanceId))
        .slice(0, 5);
      if (candidates.length === 0) return perturb(scenario, base, { ...opts, perturbation: 'none' });
      const victim = new Rng(opts.seed).pick(candidates);
      const id = victim.line.instanceId;
      return {
        lines: base.map((l) => (l.instanceId === id ? { ...l, nodePool: null } : l)),
        touched: { nodeClaim: victim.line.nodeClaim, instanceId: id, nodePool: victim.line.nodePool },
        whatChanged: `Instance ${id} (NodeClaim ${victim.line.nodeClaim ?? '?'}, NodePool ${victim.line.nodePool ?? '?'}, ${victim.line.instanceType}) lost its ${TAG_NODEPOOL} tag: its ${usd2(victim.usd)} for ${Number(victim.hours.toFixed(2))} h moved from ${victim.line.nodePool ?? '?'} to the untagged line.`,
      };
    }
    case 'spot-hourly-price': {
      const markets = marketIndex(scenario.spotPrices);
      const launchedAt = new Map(scenario.nodes.map((n) => [n.instanceId, n.createdAt]));
      let delta = 0;
      const lines = base.map((l) => {
        if (l.capacityType !== 'spot') return l;
        const points = markets.get(`${l.instanceType} ${l.zone}`);
        if (!points || points.length === 0) return l;
        // Each instance-hour slice at the price in effect when it began, instead of by the second.
        const startedAt = Math.max(l.hourStart, launchedAt.get(l.instanceId) ?? l.hourStart);
        const usd = l.usageHours * spotAt(points, startedAt);
        delta += usd - l.unblendedUsd;
        return { ...l, unblendedUsd: usd };
      });
      return {
        lines,
        touched: null,
        whatChanged: `Spot usage billed at the price in effect at the start of each instance-hour instead of by the second: ${delta >= 0 ? '+' : '-'}${usd2(Math.abs(delta))} in all, spread over the spot lines.`,
      };
    }
  }
}

/** Sums hourly lines into UTC days x NodePool tag value ('' = untagged). */
export function dailyByNodePool(lines: readonly BillLine[]): { day: string; nodePool: string; usd: number }[] {
  const sums = new Map<string, number>();
  for (const l of lines) {
    const key = `${new Date(Math.floor(l.hourStart / DAY_MS) * DAY_MS).toISOString().slice(0, 10)}\n${l.nodePool ?? ''}`;
    sums.set(key, (sums.get(key) ?? 0) + l.unblendedUsd);
  }
  return [...sums]
    .map(([k, usd]) => {
      const [day, nodePool] = k.split('\n');
      return { day, nodePool, usd };
    })
    .sort((a, b) => a.day.localeCompare(b.day) || a.nodePool.localeCompare(b.nodePool));
}

const q = (s: string): string => `"${s.replaceAll('"', '""')}"`;

/**
 * The console's CSV: the grouping (the tag key) first, one "<value>($)" column per tag value — untagged as
 * "No tag key: <key>($)" — ordered by total cost, "Total costs($)" last; the "<key> total" row; then one row per
 * day, empty where a group had no cost. Amounts as Cost Explorer prints them (up to 10 decimals).
 */
export function toCostExplorerConsoleCsv(
  days: readonly { day: string; nodePool: string; usd: number }[],
  fromMs: EpochMs,
  toMs: EpochMs,
): string {
  const totals = new Map<string, number>();
  for (const d of days) totals.set(d.nodePool, (totals.get(d.nodePool) ?? 0) + d.usd);
  const columns = [...totals].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([p]) => p);
  const label = (p: string): string => (p === '' ? `No tag key: ${TAG_NODEPOOL}($)` : `${p}($)`);
  const rows: string[][] = [[TAG_NODEPOOL, ...columns.map(label), 'Total costs($)']];
  const grand = [...totals.values()].reduce((a, b) => a + b, 0);
  rows.push([`${TAG_NODEPOOL} total`, ...columns.map((p) => formatCeAmount(totals.get(p) ?? 0)), formatCeAmount(grand)]);
  for (let t = fromMs; t < toMs; t += DAY_MS) {
    const day = new Date(t).toISOString().slice(0, 10);
    const cells = columns.map((p) => days.find((d) => d.day === day && d.nodePool === p)?.usd);
    const sum = cells.reduce<number>((a, b) => a + (b ?? 0), 0);
    rows.push([day, ...cells.map((c) => (c === undefined ? '' : formatCeAmount(c))), formatCeAmount(sum)]);
  }
  return `${rows.map((r) => r.map(q).join(',')).join('\n')}\n`;
}

/** A bill for whole days of the scenario, perturbed as asked, with its console CSV. */
export function hypotheticalBill(scenario: Scenario, opts: HypotheticalBillOptions): HypotheticalBill {
  checkWindow(scenario, opts.fromMs, opts.toMs);
  const base = computeBill(scenario, scenario.end).filter((l) => l.hourStart >= opts.fromMs && l.hourStart < opts.toMs);
  const { lines, whatChanged, touched } = perturb(scenario, base, opts);
  const days = dailyByNodePool(lines);
  return {
    fromMs: opts.fromMs,
    toMs: opts.toMs,
    perturbation: opts.perturbation,
    whatChanged,
    touched,
    lines,
    days,
    csv: toCostExplorerConsoleCsv(days, opts.fromMs, opts.toMs),
  };
}
