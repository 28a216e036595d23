import { useEffect, useId, useState, type FormEvent } from 'react';
import { Panel } from '../../../components/ui/panel';
import { Segmented } from '../../../components/ui/segmented';
import { EmptyState, ErrorState, LoadingState } from '../../../components/ui/state-message';
import { apiUrl } from '../../../lib/api-client';
import type { NodePoolColors } from '../../../lib/colors';
import { currencyCode, formatCount, formatIsoUtc } from '../../../lib/format';
import { IDLE_WEIGHTING } from '../../../lib/idle-weighting';
import type { ParamUpdates } from '../../../lib/url-params';
import { useNodeChunks } from '../api/use-nodes';
import { useRowWindow } from '../hooks/use-row-window';
import { chunksOf } from '../utils/row-window';
import { CHUNK_ROWS, nodesQuery, sortUpdates, type CapacityFilter, type NodeTableState } from '../utils/node-table';
import { NodeSearch } from './node-search';
import { NodesTable } from './nodes-table';

interface NodesPanelProps {
  state: NodeTableState;
  nodePool: string | undefined;
  onChange: (updates: ParamUpdates) => void;
  colors: NodePoolColors;
}

type CapacityChoice = CapacityFilter | 'all';
const CAPACITY_OPTIONS: readonly { value: CapacityChoice; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'on-demand', label: 'On-demand' },
  { value: 'spot', label: 'Spot' },
  { value: 'reserved', label: 'Reserved' },
];

/** Rows drawn beyond the screen either side: a Page Down's worth, so scrolling never shows an empty row first. */
const OVERSCAN_ROWS = 12;
/** A row's height before one is measured (the CSS fixes it near this). */
const ESTIMATE_ROW_PX = 48;

/** Every node at a snapshot, sortable and searched, in one scrolling table that draws only the rows in view. */
export function NodesPanel({ state, nodePool, onChange, colors }: NodesPanelProps) {
  const query = nodesQuery(state, nodePool);
  const [total, setTotal] = useState(0);
  const rows = useRowWindow(total, { estimateRowPx: ESTIMATE_ROW_PX, overscan: OVERSCAN_ROWS });
  // A table that fits in one chunk is drawn whole; a longer one, the window in view.
  const drawn = total <= CHUNK_ROWS ? { start: 0, end: total } : rows.window;
  const nodes = useNodeChunks(query, chunksOf(drawn, CHUNK_ROWS));
  // The row count of the query: the last one answered while the chunks now in view are on their way (a count of 0
  // then would draw the top of the table, ask for its chunk, and flip back when it answered).
  if (nodes.total !== undefined && nodes.total !== total) setTotal(nodes.total);
  const known = nodes.total ?? total;
  // A new sort, search or filter starts at the top.
  const queryKey = JSON.stringify(query);
  const { scroller } = rows;
  useEffect(() => {
    if (scroller !== null) scroller.scrollTop = 0;
  }, [queryKey, scroller]);
  // The CSV holds every node matching the search.
  const csvHref = apiUrl('/api/nodes', { ...query, format: 'csv' });

  const body = (() => {
    if (nodes.isPending) return <LoadingState label="Loading nodes…" />;
    if (nodes.error !== null && nodes.total === undefined)
      return <ErrorState title="Could not load the nodes." error={nodes.error} onRetry={nodes.refetch} />;
    if (nodes.snapshotAt === null) {
      return (
        <EmptyState title="No snapshot at or before this time.">Pick a later time, or clear it to see the newest snapshot.</EmptyState>
      );
    }
    if (known === 0) {
      return (
        <EmptyState title="No nodes match the filters.">
          {state.q === undefined
            ? 'Clear the NodePool or capacity type filter.'
            : 'Change the search (Esc clears it), or clear the NodePool or capacity type filter.'}
        </EmptyState>
      );
    }
    const shownFrom = Math.min(known, drawn.start + 1);
    return (
      <>
        {nodes.error === null ? null : <ErrorState title="Could not load some of the nodes." error={nodes.error} onRetry={nodes.refetch} />}
        <NodesTable
          total={known}
          rowAt={nodes.rowAt}
          drawn={drawn}
          rowPx={rows.rowPx}
          scrollerRef={rows.scrollerRef}
          rowRef={rows.rowRef}
          sort={state.sort}
          order={state.order}
          onSort={(c) => onChange(sortUpdates(state, c))}
          colors={colors}
          caption={`Nodes at ${formatIsoUtc(nodes.snapshotAt ?? '')}, sorted by ${state.sort} ${state.order === 'asc' ? 'ascending' : 'descending'}`}
        />
        <p className="nodes-range hint" data-testid="nodes-range">
          {formatCount(known)} {known === 1 ? 'node' : 'nodes'}
          {known > CHUNK_ROWS ? ` · rows ${formatCount(shownFrom)}–${formatCount(drawn.end)} drawn` : ''}
        </p>
      </>
    );
  })();

  return (
    <Panel
      title={nodes.snapshotAt == null ? 'Nodes' : `Nodes at ${formatIsoUtc(nodes.snapshotAt)}`}
      subtitle={`Each bar: the pods' requests against the node's allocatable. Idle ${currencyCode()} / h: ${IDLE_WEIGHTING.replace(/^Idle is /, '')}; each node's rates under its idle. Under each price, where it came from.`}
      actions={
        <div className="panel-tools">
          <NodeSearch q={state.q} onSearch={(q) => onChange({ q })} />
          <Segmented
            label="Capacity type"
            value={state.capacityType ?? 'all'}
            options={CAPACITY_OPTIONS}
            onChange={(v) => onChange({ capacity: v === 'all' ? undefined : v })}
          />
          <SnapshotPicker at={state.at} onAt={(at) => onChange({ at })} />
          <a className="button" href={csvHref} download>
            Download CSV
          </a>
        </div>
      }
    >
      <div className={nodes.isRefreshing && !nodes.isPending ? 'panel-body is-refreshing' : 'panel-body'}>{body}</div>
    </Panel>
  );
}

/** A UTC time for the snapshot; empty = the newest. */
function SnapshotPicker({ at, onAt }: { at: string | undefined; onAt: (at: string | undefined) => void }) {
  const id = useId();
  const [value, setValue] = useState(at?.slice(0, 16) ?? '');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onAt(value === '' ? undefined : `${value}:00Z`);
  };
  return (
    <form className="snapshot-picker" onSubmit={submit}>
      <label htmlFor={id}>At (UTC)</label>
      <input id={id} type="datetime-local" value={value} onChange={(e) => setValue(e.target.value)} />
      <button type="submit" className="button">
        Show
      </button>
      {at === undefined ? null : (
        <button
          type="button"
          className="button"
          onClick={() => {
            setValue('');
            onAt(undefined);
          }}
        >
          Newest
        </button>
      )}
    </form>
  );
}
