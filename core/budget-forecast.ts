import { DAY_MS, HOUR_MS } from './time.js';

/**
 * A budget period's spend and its period-end forecast from the recent daily run-rate (pure; amounts in one currency).
 *
 * Spent: every whole day of the period before today (the bill where the day is final, else our estimate), plus today so
 * far (estimated). Forecast: spent, plus the rest of today at today's run-rate, plus each whole day left at the
 * average of the 7 newest whole days before today that are final on the bill (the estimate's days when none is
 * final yet). Spread: the same with the lowest and the highest of those days (and today's rest at the lower or
 * higher of today's run-rate and that day's hourly rate).
 */

/** One whole UTC day's cost of the budget's scope. */
export interface BudgetDay {
  dayStartMs: number;
  /** The bill's figure when `final`, else our estimate. */
  amount: number;
  /** Every bill line of the day is final (Cost Explorer no longer marks it Estimated). */
  final: boolean;
}

export interface BudgetForecastInput {
  periodStartMs: number;
  periodEndMs: number;
  /** The moment looked from (inside the period). */
  atMs: number;
  /** Whole UTC days before atMs's day: every day of the period, and the days before it the average needs (14 are plenty). */
  days: readonly BudgetDay[];
  /** Today (atMs's UTC day) from its start to atMs, estimated. */
  todaySoFar: number;
  /** Cost per hour now (the estimate over the last hours); null when unknown. */
  runRatePerHour: number | null;
}

export interface BudgetForecast {
  spent: number;
  /** Of `spent`: final days on the bill, and the rest (estimated days and today). */
  spentFinal: number;
  spentEstimated: number;
  finalDays: number;
  estimatedDays: number;
  forecast: number;
  forecastLow: number;
  forecastHigh: number;
  /** The average per day the forecast used, and the days it was made of. */
  dailyAverage: number | null;
  averageDays: number;
  forecastMethod: string;
}

/** Days averaged for the run-rate. */
export const FORECAST_AVERAGE_DAYS = 7;

const round2 = (x: number): string => x.toFixed(2);

export function forecastBudget(input: BudgetForecastInput): BudgetForecast {
  const { periodStartMs, periodEndMs, atMs, days, todaySoFar, runRatePerHour } = input;
  const todayStartMs = Math.floor(atMs / DAY_MS) * DAY_MS;
  const inPeriod = days.filter((d) => d.dayStartMs >= periodStartMs && d.dayStartMs < todayStartMs);
  const finalIn = inPeriod.filter((d) => d.final);
  const spentFinal = finalIn.reduce((s, d) => s + d.amount, 0);
  const spentEstimated = inPeriod.filter((d) => !d.final).reduce((s, d) => s + d.amount, 0) + todaySoFar;
  const spent = spentFinal + spentEstimated;

  // The newest whole days before today, final ones first choice.
  const before = [...days].filter((d) => d.dayStartMs < todayStartMs).sort((a, b) => b.dayStartMs - a.dayStartMs);
  const finals = before.filter((d) => d.final).slice(0, FORECAST_AVERAGE_DAYS);
  const basis = finals.length > 0 ? finals : before.slice(0, FORECAST_AVERAGE_DAYS);
  const basisKind = finals.length > 0 ? 'final days on the bill' : 'estimated days (none final yet)';
  const amounts = basis.map((d) => d.amount);
  const dailyAverage = amounts.length > 0 ? amounts.reduce((s, a) => s + a, 0) / amounts.length : null;

  const todayEndMs = Math.min(todayStartMs + DAY_MS, periodEndMs);
  const restOfTodayHours = Math.max(0, (todayEndMs - atMs) / HOUR_MS);
  const wholeDaysLeft = Math.max(0, Math.round((periodEndMs - Math.max(todayStartMs + DAY_MS, periodStartMs)) / DAY_MS));

  const perDay = dailyAverage ?? (runRatePerHour === null ? 0 : runRatePerHour * 24);
  const lowDay = amounts.length > 0 ? Math.min(...amounts) : perDay;
  const highDay = amounts.length > 0 ? Math.max(...amounts) : perDay;
  const rate = runRatePerHour ?? perDay / 24;
  const forecast = spent + restOfTodayHours * rate + wholeDaysLeft * perDay;
  const forecastLow = spent + restOfTodayHours * Math.min(rate, lowDay / 24) + wholeDaysLeft * lowDay;
  const forecastHigh = spent + restOfTodayHours * Math.max(rate, highDay / 24) + wholeDaysLeft * highDay;

  const todayPart =
    restOfTodayHours > 0
      ? `the rest of today (${restOfTodayHours.toFixed(1)} h) at ${runRatePerHour === null ? 'the daily average' : "today's run-rate"} of ${round2(rate)}/h`
      : '';
  const daysPart =
    wholeDaysLeft === 0
      ? ''
      : dailyAverage === null
        ? `${wholeDaysLeft} day(s) left at today's run-rate × 24 (${round2(perDay)}/day; no whole day recorded yet)`
        : `${wholeDaysLeft} day(s) left at ${round2(perDay)}/day, the average of the ${amounts.length} newest ${basisKind}`;
  const parts = [todayPart, daysPart].filter((p) => p !== '');
  const spread =
    dailyAverage === null ? '' : ` Spread: the same at the lowest (${round2(lowDay)}) and highest (${round2(highDay)}) of those days.`;
  const forecastMethod =
    parts.length === 0
      ? 'Spent so far: the period has ended.'
      : `Spent so far (final days from the bill, the rest estimated), plus ${parts.join(', plus ')}.${spread}`;

  return {
    spent,
    spentFinal,
    spentEstimated,
    finalDays: finalIn.length,
    estimatedDays: inPeriod.length - finalIn.length,
    forecast,
    forecastLow,
    forecastHigh,
    dailyAverage,
    averageDays: amounts.length,
    forecastMethod,
  };
}

/**
 * For a NodePool budget that is a dollar limit: how many more nodes of its current mix fit before the limit. The
 * running nodes keep costing until the period ends (runningCostPerHour × hoursLeft); each node more costs the
 * running nodes' average price per node-hour × hoursLeft. Null when no node runs (no mix to price) or the period is over.
 */
export function nodesBeforeLimit(input: {
  amount: number;
  spent: number;
  runningNodes: number;
  runningCostPerHour: number;
  hoursLeft: number;
}): number | null {
  const { amount, spent, runningNodes, runningCostPerHour, hoursLeft } = input;
  if (runningNodes <= 0 || runningCostPerHour <= 0 || hoursLeft <= 0) return null;
  const perNode = (runningCostPerHour / runningNodes) * hoursLeft;
  const room = amount - spent - runningCostPerHour * hoursLeft;
  return Math.max(0, Math.floor(room / perNode + 1e-9));
}
