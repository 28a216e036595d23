import { useEffect, useLayoutEffect, useState } from 'react';
import { rowWindow, type RowWindow } from '../utils/row-window';

interface Viewport {
  scrollTop: number;
  /** The scroller's visible height less its sticky header's, px. */
  rowsPx: number;
}

/**
 * Which rows of a scrolling table to draw: attach `scrollerRef` to the element that scrolls (its sticky thead
 * included) and `rowRef` to a drawn row (its height is measured; every row is as tall). Re-renders when the scroll
 * position or the scroller's size changes, at most once an animation frame.
 */
export function useRowWindow(count: number, { estimateRowPx, overscan }: { estimateRowPx: number; overscan: number }) {
  const [scroller, scrollerRef] = useState<HTMLElement | null>(null);
  const [row, rowRef] = useState<HTMLElement | null>(null);
  const [rowPx, setRowPx] = useState(estimateRowPx);
  // Before the scroller is drawn: a screenful at an estimated height, so the first answer fills the first screen.
  const [view, setView] = useState<Viewport>({ scrollTop: 0, rowsPx: 900 });

  useEffect(() => {
    if (scroller === null) return;
    let frame = 0;
    const read = () => {
      frame = 0;
      const head = scroller.querySelector('thead')?.getBoundingClientRect().height ?? 0;
      setView((v) => {
        const next = { scrollTop: scroller.scrollTop, rowsPx: Math.max(0, scroller.clientHeight - head) };
        return v.scrollTop === next.scrollTop && v.rowsPx === next.rowsPx ? v : next;
      });
    };
    const schedule = () => {
      if (frame === 0) frame = requestAnimationFrame(read);
    };
    read();
    scroller.addEventListener('scroll', schedule, { passive: true });
    const resized = new ResizeObserver(schedule);
    resized.observe(scroller);
    return () => {
      scroller.removeEventListener('scroll', schedule);
      resized.disconnect();
      if (frame !== 0) cancelAnimationFrame(frame);
    };
  }, [scroller]);

  // Rows are as tall as the CSS makes them: measured once drawn (fonts and zoom differ), before the browser paints.
  useLayoutEffect(() => {
    if (row === null) return;
    const px = row.getBoundingClientRect().height;
    if (px > 0) setRowPx((old) => (Math.abs(old - px) < 0.5 ? old : px));
  }, [row]);

  const window: RowWindow = rowWindow({ scrolledPx: view.scrollTop, viewportPx: view.rowsPx, rowPx, count, overscan });
  return { scrollerRef, rowRef, rowPx, window, scroller };
}
