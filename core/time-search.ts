/**
 * "In effect at t" over a time-sorted list (price points, spot history): a binary search, so a lookup per node
 * per snapshot stays cheap over months of history. Pure.
 */

/**
 * Index of the last item whose time is <= t, or -1 when every item is later (or there is none).
 * `items` must be sorted by `timeOf` ascending; among equal times the last one wins.
 */
export function lastIndexAtOrBefore<T>(items: readonly T[], t: number, timeOf: (item: T) => number): number {
  let lo = 0;
  let hi = items.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (timeOf(items[mid]) <= t) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}
