import { countByReason, reasonColor, reasonText } from '../utils/reasons';

/** The event markers' colours, with counts: the part of the legend Recharts cannot draw for reference lines. */
export function ReasonLegend({ events }: { events: readonly { reason: string; count: number }[] }) {
  const counts = countByReason(events);
  if (counts.length === 0) return <p className="chart-note">No disruptions in this range.</p>;
  return (
    <ul className="reason-legend" aria-label="Disruption events in this range">
      {counts.map((c) => (
        <li key={c.reason} title={reasonText(c.reason)}>
          <span className="swatch swatch-line" style={{ background: reasonColor(c.reason) }} />
          {c.reason || 'Other'}: {c.count}
        </li>
      ))}
    </ul>
  );
}
