import { useId, useMemo } from 'react';
import { Panel } from '../../../components/ui/panel';
import { EmptyState, ErrorState, LoadingState } from '../../../components/ui/state-message';
import type { NodePoolColors } from '../../../lib/colors';
import { formatDayShort, formatUsd, nodePoolLabel } from '../../../lib/format';
import type { ParamUpdates } from '../../../lib/url-params';
import { useBillLines } from '../api/use-bill';
import { dayBill, groupByLabel, lineDays, pickDay, sourceLabel, toggleLineUpdates, type BillPageState } from '../utils/bill-days';
import { BillLinesTable } from './bill-lines-table';
import { ImportDrop } from './import-drop';
import { StoredExplanation } from './stored-explanation';

interface BillPanelProps {
  state: BillPageState;
  nodePool: string | undefined;
  onChange: (updates: ParamUpdates) => void;
  colors: NodePoolColors;
}

/** A stored bill (synced or imported), one UTC day at a time; each line expands into its NodeClaims. */
export function BillPanel({ state, nodePool, onChange, colors }: BillPanelProps) {
  const ids = { source: useId(), groupBy: useId(), day: useId() };
  const lines = useBillLines({ source: state.source, groupBy: state.groupBy, nodepool: nodePool });
  const days = useMemo(() => lineDays(lines.data?.lines ?? []), [lines.data]);
  const day = pickDay(days, state.day);
  const bill = useMemo(() => dayBill(lines.data?.lines ?? [], day), [lines.data, day]);
  const expanded = useMemo(() => new Set(state.lines.map(String)), [state.lines]);
  const dayIndex = day === undefined ? -1 : days.indexOf(day);

  const controls =
    lines.data === undefined ? null : (
      <div className="panel-tools">
        <span className="field">
          <label className="select-label" htmlFor={ids.source}>
            Bill
          </label>
          <select
            id={ids.source}
            value={lines.data.source}
            onChange={(e) =>
              onChange({
                source: e.target.value === 'cost-explorer' ? undefined : e.target.value,
                day: undefined,
                line: undefined,
                groupBy: undefined,
              })
            }
          >
            {lines.data.sources.length === 0 ? <option value="cost-explorer">Cost Explorer (synced)</option> : null}
            {lines.data.sources.map((s) => (
              <option key={s.source} value={s.source}>
                {sourceLabel(s)}
              </option>
            ))}
          </select>
        </span>
        {lines.data.availableGroupBys.length > 1 ? (
          <span className="field">
            <label className="select-label" htmlFor={ids.groupBy}>
              Lines by
            </label>
            <select id={ids.groupBy} value={lines.data.groupBy} onChange={(e) => onChange({ groupBy: e.target.value, line: undefined })}>
              {lines.data.availableGroupBys.map((g) => (
                <option key={g} value={g}>
                  {groupByLabel(g)}
                </option>
              ))}
            </select>
          </span>
        ) : null}
        {days.length === 0 ? null : (
          <span className="field day-picker">
            <button
              type="button"
              className="button"
              aria-label="Previous day"
              disabled={dayIndex <= 0}
              onClick={() => onChange({ day: days[dayIndex - 1], line: undefined })}
            >
              ←
            </button>
            <label className="select-label" htmlFor={ids.day}>
              Day (UTC)
            </label>
            <select id={ids.day} value={day} onChange={(e) => onChange({ day: e.target.value, line: undefined })}>
              {days.map((d) => (
                <option key={d} value={d}>
                  {d}
                </option>
              ))}
            </select>
            <button
              type="button"
              className="button"
              aria-label="Next day"
              disabled={dayIndex >= days.length - 1}
              onClick={() => onChange({ day: days[dayIndex + 1], line: undefined })}
            >
              →
            </button>
          </span>
        )}
      </div>
    );

  const body = (() => {
    if (lines.isPending) return <LoadingState label="Loading the bill…" />;
    if (lines.isError) return <ErrorState title="Could not load the bill." error={lines.error} onRetry={() => void lines.refetch()} />;
    if (bill.lines.length === 0) {
      return (
        <EmptyState title="No bill lines.">
          The Cost Explorer collector stores the bill once the karpenter.sh/nodepool tag is active as a cost allocation tag (activation
          takes up to 24 h and is not retroactive). Meanwhile, import a Cost Explorer CSV above
          {nodePool === undefined ? '' : ', or clear the NodePool filter'}.
        </EmptyState>
      );
    }
    return (
      <>
        <dl className="summary">
          <div>
            <dt>{day === undefined ? 'Total' : `${formatDayShort(day)} total`}</dt>
            <dd>{formatUsd(bill.totalUsd)}</dd>
          </div>
          {bill.byNodePool.map((p) => (
            <div key={`${p.cluster ?? ''}/${p.nodePool}`}>
              <dt>{p.cluster === undefined ? nodePoolLabel(p.nodePool) : `${nodePoolLabel(p.nodePool)} (${p.cluster})`}</dt>
              <dd>{formatUsd(p.usd)}</dd>
            </div>
          ))}
          {bill.anyEstimated ? <div className="summary-note">Cost Explorer has not finalised this day yet.</div> : null}
        </dl>
        <BillLinesTable
          lines={bill.lines}
          keyOf={(l, i) => String(l.id ?? `i${i}`)}
          expanded={expanded}
          onToggle={(l) => {
            if (l.id !== null) onChange(toggleLineUpdates(state, l.id));
          }}
          detail={(l) => (l.id === null ? null : <StoredExplanation lineId={l.id} />)}
          colors={colors}
          caption={`Bill lines of ${day ?? 'the range'}`}
        />
      </>
    );
  })();

  return (
    <Panel
      title="Bill lines"
      subtitle="Cost Explorer UnblendedCost by the karpenter.sh/nodepool tag, one UTC day. Expand a line for the NodeClaims that make it up, why each was launched and removed, and what is left over."
      actions={controls ?? undefined}
    >
      <ImportDrop onImported={(r) => onChange({ source: r.source, day: undefined, line: undefined, groupBy: undefined })} />
      <div className={lines.isFetching && !lines.isPending ? 'panel-body is-refreshing' : 'panel-body'}>{body}</div>
    </Panel>
  );
}
