import { useId, useState, type FormEvent } from 'react';
import { Segmented } from '../../../components/ui/segmented';
import { isDay, lastDayOf, RANGE_PRESET_DAYS, type InstantRange, type RangeChoice, type RangePresetDays } from '../utils/url-filters';

interface RangePickerProps {
  value: RangeChoice;
  /** The range in effect (to prefill the custom days); undefined while unknown. */
  resolved: InstantRange | undefined;
  onChange: (range: RangeChoice) => void;
}

type Choice = `${RangePresetDays}` | 'custom';
const OPTIONS: readonly { value: Choice; label: string }[] = [
  ...RANGE_PRESET_DAYS.map((d) => ({ value: `${d}` as Choice, label: d === 1 ? '24 h' : `${d} days` })),
  { value: 'custom', label: 'Custom' },
];

/** Presets ending at the newest data, or custom UTC days (both inclusive). */
export function RangePicker({ value, resolved, onChange }: RangePickerProps) {
  const [editing, setEditing] = useState(false);
  const showCustom = editing || value.kind === 'custom';
  const current: Choice = showCustom ? 'custom' : (`${value.kind === 'preset' ? value.days : 7}` as Choice);
  return (
    <div className="range-picker">
      <Segmented
        label="Time range"
        value={current}
        options={OPTIONS}
        onChange={(v) => {
          if (v === 'custom') return setEditing(true);
          setEditing(false);
          onChange({ kind: 'preset', days: Number(v) as RangePresetDays });
        }}
      />
      {showCustom ? (
        <CustomDays
          key={value.kind === 'custom' ? `${value.fromDay}/${value.toDay}` : 'new'}
          initial={
            value.kind === 'custom'
              ? value
              : resolved === undefined
                ? undefined
                : { fromDay: resolved.from.slice(0, 10), toDay: lastDayOf(resolved) }
          }
          onApply={(fromDay, toDay) => {
            setEditing(false);
            onChange({ kind: 'custom', fromDay, toDay });
          }}
        />
      ) : null}
    </div>
  );
}

function CustomDays({
  initial,
  onApply,
}: {
  initial: { fromDay: string; toDay: string } | undefined;
  onApply: (fromDay: string, toDay: string) => void;
}) {
  const id = useId();
  const [fromDay, setFromDay] = useState(initial?.fromDay ?? '');
  const [toDay, setToDay] = useState(initial?.toDay ?? '');
  const [problem, setProblem] = useState<string | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!isDay(fromDay) || !isDay(toDay)) return setProblem('Pick both days.');
    if (fromDay > toDay) return setProblem('The first day must not be after the last day.');
    setProblem(null);
    onApply(fromDay, toDay);
  };
  return (
    <form className="custom-range" onSubmit={submit} aria-label="Custom range (UTC days)">
      <label htmlFor={`${id}-from`}>From</label>
      <input id={`${id}-from`} type="date" value={fromDay} onChange={(e) => setFromDay(e.target.value)} required />
      <label htmlFor={`${id}-to`}>to</label>
      <input id={`${id}-to`} type="date" value={toDay} min={fromDay || undefined} onChange={(e) => setToDay(e.target.value)} required />
      <button type="submit" className="button">
        Apply
      </button>
      {problem === null ? (
        <span className="hint">UTC, both days included</span>
      ) : (
        <span className="form-error" role="alert">
          {problem}
        </span>
      )}
    </form>
  );
}
