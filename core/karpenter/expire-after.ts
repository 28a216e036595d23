import { parseKarpenterDuration } from '../duration.js';

/**
 * A NodeClaim's spec.expireAfter as milliseconds. Karpenter writes it as a Go duration ("720h", "1h30m", "720h0m0s",
 * "1.5h") or "Never" (pkg/apis/v1/duration.go NillableDuration), parsed by core/duration.ts. Pure.
 */

/** Milliseconds, or null for "Never", an empty value, or text that is not a positive Go duration. */
export function expireAfterMs(text: string | null | undefined): number | null {
  const s = (text ?? '').trim();
  if (s === '') return null;
  const ms = parseKarpenterDuration(s);
  // Never is Infinity there: a NodeClaim that never expires has no expiry time here.
  if (ms === null || !Number.isFinite(ms) || !(ms > 0)) return null;
  return Math.round(ms);
}
