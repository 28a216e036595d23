import { useId } from 'react';
import { Segmented } from '../../../components/ui/segmented';
import { nodePoolLabel } from '../../../lib/format';
import { useNodePools } from '../api/use-nodepools';
import { RANGE_PRESET_DAYS, type RangePresetDays } from '../utils/range-presets';

interface RangeFilterProps {
  days: RangePresetDays;
  onDaysChange: (days: RangePresetDays) => void;
  nodePool: string | undefined;
  onNodePoolChange: (nodePool: string | undefined) => void;
}

const PRESETS = RANGE_PRESET_DAYS.map((d) => ({ value: String(d) as `${RangePresetDays}`, label: `${d} days` }));

/** Range (days ending at the newest data) and NodePool filter for the overview. */
export function RangeFilter({ days, onDaysChange, nodePool, onNodePoolChange }: RangeFilterProps) {
  const nodePools = useNodePools();
  const selectId = useId();
  return (
    <div className="filters">
      <Segmented
        label="Range"
        value={String(days) as `${RangePresetDays}`}
        options={PRESETS}
        onChange={(v) => onDaysChange(Number(v) as RangePresetDays)}
      />
      <label className="select-label" htmlFor={selectId}>
        NodePool
      </label>
      <select
        id={selectId}
        value={nodePool ?? ''}
        onChange={(e) => onNodePoolChange(e.target.value === '' ? undefined : e.target.value)}
        disabled={nodePools.isPending}
      >
        <option value="">All NodePools</option>
        {(nodePools.data?.items ?? []).map((n) => (
          <option key={n.name} value={n.name}>
            {nodePoolLabel(n.name)}
          </option>
        ))}
      </select>
    </div>
  );
}
