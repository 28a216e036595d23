import { UsageError } from './usage-error.js';

/** A --port or --seed value: a non-negative integer, or the fallback when absent. */
export function intOption(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a non-negative integer, got "${value}"`);
  return n;
}
