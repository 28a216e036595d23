import { packingWidth } from '../utils/node-table';

interface PackingBarProps {
  resource: 'CPU' | 'Memory';
  requested: number;
  allocatable: number;
  unit: 'vCPU' | 'GiB';
}

const num = (v: number): string => (v >= 100 ? v.toFixed(0) : v.toFixed(1));

/** Requested against allocatable, as a bar with the numbers beside it. Over 100 % is flagged, not hidden. */
export function PackingBar({ resource, requested, allocatable, unit }: PackingBarProps) {
  const { percent, over } = packingWidth(requested, allocatable);
  const exact = allocatable > 0 ? Math.round((requested / allocatable) * 100) : null;
  const text = `${num(requested)} / ${num(allocatable)} ${unit}`;
  return (
    <div className="packing">
      <div
        className={over ? 'packing-track is-over' : 'packing-track'}
        role="meter"
        aria-label={`${resource} requested`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={exact ?? 0}
        aria-valuetext={exact === null ? 'nothing allocatable' : `${exact} % (${text})`}
      >
        <div className={`packing-fill packing-${resource.toLowerCase()}`} style={{ width: `${percent ?? 0}%` }} />
      </div>
      <span className="packing-text">
        <span className="packing-percent">{exact === null ? '—' : `${exact} %`}</span> {text}
      </span>
    </div>
  );
}
