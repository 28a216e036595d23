import { useId } from 'react';
import type { ParamUpdates } from '../../../lib/url-params';
import { nodePoolLabel } from '../../../lib/format';
import { useNodePools } from '../api/use-nodepools';
import { COST_METRICS, rangeUpdates, type Filters, type InstantRange } from '../utils/url-filters';
import { RangePicker } from './range-picker';

interface FilterBarProps {
  filters: Filters;
  /** The range in effect, for the custom-range defaults. */
  resolved: InstantRange | undefined;
  onChange: (updates: ParamUpdates) => void;
  /** Show the NodePool select (default true). */
  nodePool?: boolean;
  /** Teams to offer; undefined hides the team select. */
  teams?: readonly string[];
  /** Show the time range (default true). */
  range?: boolean;
  /** The team select's label (default "Team"). */
  teamLabel?: string;
  /** Show the cost metric switch (pages with bill figures); the metric the server chose when none is in the URL. */
  metric?: { inEffect: string | undefined };
}

/** Time range, NodePool and team, written to the URL. */
export function FilterBar({
  filters,
  resolved,
  onChange,
  nodePool = true,
  teams,
  range = true,
  teamLabel = 'Team',
  metric,
}: FilterBarProps) {
  const nodePools = useNodePools();
  const poolId = useId();
  const teamId = useId();
  const metricId = useId();
  const inEffect = COST_METRICS.find((m) => m.value === metric?.inEffect)?.label;
  return (
    <div className="filters" role="group" aria-label="Filters">
      {range ? <RangePicker value={filters.range} resolved={resolved} onChange={(r) => onChange(rangeUpdates(r))} /> : null}
      {nodePool ? (
        <span className="field">
          <label className="select-label" htmlFor={poolId}>
            NodePool
          </label>
          <select id={poolId} value={filters.nodePool ?? ''} onChange={(e) => onChange({ nodepool: e.target.value })}>
            <option value="">All NodePools</option>
            {/* Under All clusters a name two clusters hold is listed once (the filter takes both clusters' NodePool). */}
            {[...new Set((nodePools.data?.items ?? []).map((n) => n.name))].map((name) => (
              <option key={name} value={name}>
                {nodePoolLabel(name)}
              </option>
            ))}
            {/* A NodePool from a link is shown while the list loads, and flagged if the cluster has no such NodePool. */}
            {filters.nodePool !== undefined && (nodePools.data?.items.every((n) => n.name !== filters.nodePool) ?? true) ? (
              <option value={filters.nodePool}>{nodePools.isSuccess ? `${filters.nodePool} (not found)` : filters.nodePool}</option>
            ) : null}
          </select>
        </span>
      ) : null}
      {metric === undefined ? null : (
        <span className="field">
          <label className="select-label" htmlFor={metricId}>
            Cost metric
          </label>
          <select id={metricId} value={filters.metric ?? ''} onChange={(e) => onChange({ metric: e.target.value })}>
            <option value="">{inEffect === undefined ? 'Default' : `Default (${inEffect})`}</option>
            {COST_METRICS.map((m) => (
              <option key={m.value} value={m.value}>
                {m.label}
              </option>
            ))}
          </select>
        </span>
      )}
      {teams === undefined ? null : (
        <span className="field">
          <label className="select-label" htmlFor={teamId}>
            {teamLabel}
          </label>
          <select id={teamId} value={filters.team ?? ''} onChange={(e) => onChange({ team: e.target.value })}>
            <option value="">All</option>
            {teams.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
            {filters.team !== undefined && !teams.includes(filters.team) ? <option value={filters.team}>{filters.team}</option> : null}
          </select>
        </span>
      )}
    </div>
  );
}
