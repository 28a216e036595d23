/** Money rounded to cents so that the parts add up exactly to a rounded total (pure, no I/O). */

/** USD to whole cents, half away from zero, robust to float noise (0.285 → 29, not 28). */
export function toCents(usd: number): number {
  const c = usd * 100;
  return Math.sign(c) * Math.round(Math.abs(c) + 1e-9);
}

/**
 * Largest-remainder rounding: each value floored to cents, then the cents still missing to reach
 * `totalCents` given one each to the values with the largest remainders (or, when the floors already
 * exceed the total, taken from the smallest). Σ result = totalCents exactly. Ties go to the earlier value
 * (and are taken from the later one).
 */
export function allocateCents(valuesUsd: readonly number[], totalCents: number): number[] {
  if (!Number.isInteger(totalCents)) throw new RangeError(`totalCents must be an integer, got ${totalCents}`);
  if (valuesUsd.length === 0) {
    if (totalCents !== 0) throw new RangeError(`no values to carry ${totalCents} cents`);
    return [];
  }
  const scaled = valuesUsd.map((v) => v * 100);
  // Floors with a tolerance, so 0.29 × 100 = 28.999999999999996 floors to 29.
  const floors = scaled.map((c) => Math.floor(c + 1e-9));
  // Remainders compared at 1e-9 cent, so float noise (0.7 × 0.25 = 0.17500000000000002) does not break ties.
  const remainders = scaled.map((c, i) => Math.round((c - floors[i]) * 1e9));
  let missing = totalCents - floors.reduce((t, c) => t + c, 0);
  const byRemainderDesc = remainders
    .map((r, i) => ({ r, i }))
    .sort((a, b) => b.r - a.r || a.i - b.i)
    .map((x) => x.i);
  const out = [...floors];
  for (let k = 0; missing > 0; k++, missing--) out[byRemainderDesc[k % out.length]] += 1;
  const byRemainderAsc = [...byRemainderDesc].reverse();
  for (let k = 0; missing < 0; k++, missing++) out[byRemainderAsc[k % out.length]] -= 1;
  return out;
}
