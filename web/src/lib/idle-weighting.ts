import type { IdleRates } from '@schemas/efficiency';
import { formatUsdPerHour } from './format';

/**
 * The one weighting of idle (core/cost-weights.ts), said on every page that shows idle: each node's price split
 * between CPU, memory and GPU by relative price, as OpenCost splits it, and the rates that split gave.
 */
export const IDLE_WEIGHTING =
  "Idle is the part of each node's price its pods' requests do not cover, the price split between CPU, memory and GPU by relative price as OpenCost splits it (0.031611 a core-hour to 0.004237 a GiB-hour to 0.95 a GPU-hour, times what the node offers)";

/** "$0.0325 a vCPU-hour, $0.0044 a GiB-hour" (and GPUs when offered); '' without rates. */
export function idleRatesText(rates: IdleRates | null | undefined): string {
  if (rates == null) return '';
  const parts = [
    rates.usdPerVcpuHour === null ? null : `${formatUsdPerHour(rates.usdPerVcpuHour)} a vCPU-hour`,
    rates.usdPerGiBHour === null ? null : `${formatUsdPerHour(rates.usdPerGiBHour)} a GiB-hour`,
    rates.usdPerGpuHour === null ? null : `${formatUsdPerHour(rates.usdPerGpuHour)} a GPU-hour`,
  ].filter((p): p is string => p !== null);
  return parts.join(', ');
}

/** The weighting in a sentence, with the rates it gave `where` ("over the range", "at this snapshot") when known. */
export function idleWeightingSentence(rates?: IdleRates | null, where = ''): string {
  const text = idleRatesText(rates);
  return text === '' ? `${IDLE_WEIGHTING}.` : `${IDLE_WEIGHTING}: ${text}${where === '' ? '' : ` ${where}`}.`;
}
