import { useEffect, useRef, useState, type ReactNode } from 'react';
import { LoadingState } from './state-message';

/** Whether the box is near the viewport: not known before the first IntersectionObserver answer. */
type Seen = 'unknown' | 'away' | 'near';

interface InViewProps {
  /** What is drawn once the box comes near the viewport (a chart), and kept drawn after. */
  children: ReactNode;
  /** The box's height until then, px: the chart's, so the page does not move when it is drawn. */
  minHeight: number;
  /** How far outside the viewport counts as near, px: drawn a little before it is scrolled to. */
  marginPx?: number;
}

/**
 * A chart drawn when it comes near the viewport rather than with the page: below the fold it costs the first render
 * nothing (a Recharts chart's first render is its state work, most of a page's with three charts: /nodepools at 1280 ×
 * 900 has all three below the fold). Until the first IntersectionObserver answer the box shows a loading state, as a
 * chart in view is not drawn yet; known to be away from the viewport, it is an empty box of the chart's height, and
 * nothing the viewer sees is waiting for it.
 */
export function InView({ children, minHeight, marginPx = 200 }: InViewProps) {
  const [seen, setSeen] = useState<Seen>(() => (typeof IntersectionObserver === 'undefined' ? 'near' : 'unknown'));
  const box = useRef<HTMLDivElement>(null);
  const near = seen === 'near';
  useEffect(() => {
    const el = box.current;
    if (near || el === null) return;
    const observer = new IntersectionObserver((entries) => setSeen(entries.some((e) => e.isIntersecting) ? 'near' : 'away'), {
      rootMargin: `${marginPx}px 0px`,
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [near, marginPx]);
  if (near) return children;
  return (
    <div ref={box} className="in-view" style={{ minHeight }} data-in-view={seen}>
      {seen === 'unknown' ? <LoadingState label="Loading chart…" /> : null}
    </div>
  );
}
