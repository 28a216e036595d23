/**
 * How long a snapshot stands for: the time until the next snapshot, capped, so a collector gap is not cost.
 * The range reads (range-rollups, analytics-packing-repository) and the reports estimate all weigh snapshots
 * with this one cap.
 */

/** An interval between snapshots longer than this counts only this long (the reports estimate uses the same). */
export const INTERVAL_CAP_MS = 15 * 60_000;
