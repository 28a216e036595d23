import { MINUTE_MS } from '../../time.js';
import type { DisruptionBudget, DisruptionReason, NodePoolSpec } from './nodepools.js';

/**
 * NodePool disruption budgets (kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go GetAllowedDisruptionsByReason,
 * v1.14.1): the fewest nodes any active budget for the reason allows, a percentage of the NodePool's nodes rounded
 * up; a budget with a schedule is active for `duration` after each cron hit (UTC).
 */

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

interface CronField {
  allowed: Set<number>;
  star: boolean;
}

function parseField(text: string, min: number, max: number, names: string[] | null, name: string): CronField {
  const allowed = new Set<number>();
  const star = text.startsWith('*') || text.startsWith('?');
  const value = (s: string) => {
    const i = names ? names.indexOf(s.toLowerCase()) : -1;
    const n = i >= 0 ? i + (names === MONTHS ? 1 : 0) : Number(s);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`cron ${name} "${s}" is outside ${min}-${max}`);
    return n;
  };
  for (const part of text.split(',')) {
    const [range, stepText] = part.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1) throw new Error(`cron ${name} step "${stepText}" is not a positive integer`);
    let lo: number;
    let hi: number;
    if (range === '*' || range === '?') [lo, hi] = [min, max];
    else if (range.includes('-')) {
      const [a, b] = range.split('-');
      [lo, hi] = [value(a), value(b)];
    } else {
      lo = value(range);
      hi = stepText === undefined ? lo : max;
    }
    for (let v = lo; v <= hi; v += step) allowed.add(name === 'day of week' && v === 7 ? 0 : v);
  }
  return { allowed, star };
}

/** A standard five-field cron schedule in UTC (robfig/cron ParseStandard, as Karpenter uses). */
export class CronSchedule {
  private readonly minute: CronField;
  private readonly hour: CronField;
  private readonly dom: CronField;
  private readonly month: CronField;
  private readonly dow: CronField;

  constructor(spec: string) {
    const fields = (DESCRIPTORS[spec.trim()] ?? spec).trim().split(/\s+/);
    if (fields.length !== 5) throw new Error(`cron schedule "${spec}" needs five fields (minute hour day-of-month month day-of-week)`);
    this.minute = parseField(fields[0], 0, 59, null, 'minute');
    this.hour = parseField(fields[1], 0, 23, null, 'hour');
    this.dom = parseField(fields[2], 1, 31, null, 'day of month');
    this.month = parseField(fields[3], 1, 12, MONTHS, 'month');
    this.dow = parseField(fields[4], 0, 7, DAYS, 'day of week');
  }

  private dayMatches(d: Date): boolean {
    const dom = this.dom.allowed.has(d.getUTCDate());
    const dow = this.dow.allowed.has(d.getUTCDay());
    // both restricted: either may match (cron's OR rule)
    return this.dom.star || this.dow.star ? dom && dow : dom || dow;
  }

  /** Whether the schedule fires at some whole minute in (from, to]. */
  firesBetween(fromMs: number, toMs: number): boolean {
    let t = Math.floor(fromMs / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
    while (t <= toMs) {
      const d = new Date(t);
      if (!this.month.allowed.has(d.getUTCMonth() + 1) || !this.dayMatches(d)) {
        t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
        continue;
      }
      if (!this.hour.allowed.has(d.getUTCHours())) {
        t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours() + 1);
        continue;
      }
      if (this.minute.allowed.has(d.getUTCMinutes())) return true;
      t += MINUTE_MS;
    }
    return false;
  }
}

/** Whether a budget is in force now: always without a schedule, else within `duration` after a cron hit. */
export function budgetActive(b: DisruptionBudget, now: number): boolean {
  if (b.schedule === undefined) return true;
  return new CronSchedule(b.schedule).firesBetween(now - (b.durationMs ?? 0), now);
}

/** How many nodes the budget allows disrupting out of `numNodes` (percentages round up). */
export function budgetAllows(b: DisruptionBudget, numNodes: number, now: number): number {
  if (!budgetActive(b, now)) return Number.MAX_SAFE_INTEGER;
  const m = /^(\d+)%$/.exec(b.nodes);
  return m ? Math.ceil((Number(m[1]) * numNodes) / 100) : Number(b.nodes);
}

/** The nodes a NodePool may disrupt for `reason` now (Karpenter's GetAllowedDisruptionsByReason). */
export function allowedDisruptions(pool: NodePoolSpec, numNodes: number, reason: DisruptionReason, now: number): number {
  let allowed = Number.MAX_SAFE_INTEGER;
  for (const b of pool.budgets) {
    if (b.reasons === undefined || b.reasons.includes(reason)) allowed = Math.min(allowed, budgetAllows(b, numNodes, now));
  }
  return allowed;
}
