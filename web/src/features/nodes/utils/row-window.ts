/**
 * Windowing of a long table: which rows to draw for a scroll position, so 5,000 nodes cost the DOM what the screen
 * shows (and a few rows either side, `overscan`, so a scroll by the keyboard or the wheel never shows a gap first).
 * Rows are of one height (the table's CSS fixes it; the hook measures it).
 */

export interface RowWindow {
  /** First row drawn, 0-based. */
  start: number;
  /** One past the last row drawn. */
  end: number;
}

export interface WindowInput {
  /** How far the rows are scrolled, px (scrollTop less whatever sits above the first row). */
  scrolledPx: number;
  /** Height of the visible part, px. */
  viewportPx: number;
  rowPx: number;
  count: number;
  overscan: number;
}

/** The rows to draw: those the viewport shows, `overscan` more either side, within [0, count). */
export function rowWindow({ scrolledPx, viewportPx, rowPx, count, overscan }: WindowInput): RowWindow {
  if (count <= 0 || !(rowPx > 0)) return { start: 0, end: 0 };
  const first = Math.floor(Math.max(0, scrolledPx) / rowPx);
  const last = Math.ceil((Math.max(0, scrolledPx) + Math.max(0, viewportPx)) / rowPx);
  const start = Math.min(Math.max(0, first - overscan), Math.max(0, count - 1));
  const end = Math.min(count, Math.max(start + 1, last + overscan));
  return { start, end };
}

/** The chunks (of `chunkRows` rows each, 0-based) that hold rows [start, end). */
export function chunksOf({ start, end }: RowWindow, chunkRows: number): number[] {
  if (end <= start) return [0];
  const first = Math.floor(start / chunkRows);
  const last = Math.floor((end - 1) / chunkRows);
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}
