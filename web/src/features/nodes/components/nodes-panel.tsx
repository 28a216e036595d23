import { useId, useState, type FormEvent } from 'react';
import { Panel } from '../../../components/ui/panel';
import { Pager } from '../../../components/ui/pager';
import { Segmented } from '../../../components/ui/segmented';
import { EmptyState, ErrorState, LoadingState } from '../../../components/ui/state-message';
import { apiUrl } from '../../../lib/api-client';
import type { NodePoolColors } from '../../../lib/colors';
import { currencyCode, formatIsoUtc } from '../../../lib/format';
import { IDLE_WEIGHTING } from '../../../lib/idle-weighting';
import type { ParamUpdates } from '../../../lib/url-params';
import { useNodes } from '../api/use-nodes';
import { nodesQuery, pageCount, PAGE_SIZES, sortUpdates, type CapacityFilter, type NodeTableState } from '../utils/node-table';
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

/** Every node at a snapshot, sortable and paged, with cpu and memory packing bars. */
export function NodesPanel({ state, nodePool, onChange, colors }: NodesPanelProps) {
  const query = nodesQuery(state, nodePool);
  const nodes = useNodes(query);
  const total = nodes.data?.total ?? 0;
  const pages = pageCount(total, state.pageSize);
  // The CSV holds every node matching the search, not the page shown.
  const csvHref = apiUrl('/api/nodes', { ...query, limit: undefined, offset: undefined, format: 'csv' });

  const body = (() => {
    if (nodes.isPending) return <LoadingState label="Loading nodes…" />;
    if (nodes.isError) return <ErrorState title="Could not load the nodes." error={nodes.error} onRetry={() => void nodes.refetch()} />;
    if (nodes.data.snapshotAt === null) {
      return (
        <EmptyState title="No snapshot at or before this time.">Pick a later time, or clear it to see the newest snapshot.</EmptyState>
      );
    }
    if (nodes.data.rows.length === 0) {
      return (
        <EmptyState title={total > 0 ? 'No nodes on this page.' : 'No nodes match the filters.'}>
          {total > 0
            ? 'Go back to the first page.'
            : state.q === undefined
              ? 'Clear the NodePool or capacity type filter.'
              : 'Change the search (Esc clears it), or clear the NodePool or capacity type filter.'}
        </EmptyState>
      );
    }
    return (
      <>
        <NodesTable
          rows={nodes.data.rows}
          sort={state.sort}
          order={state.order}
          onSort={(c) => onChange(sortUpdates(state, c))}
          colors={colors}
          caption={`Nodes at ${formatIsoUtc(nodes.data.snapshotAt)}, sorted by ${state.sort} ${state.order === 'asc' ? 'ascending' : 'descending'}`}
        />
        <Pager
          page={Math.min(state.page, pages)}
          pageCount={pages}
          total={total}
          pageSize={state.pageSize}
          pageSizes={PAGE_SIZES}
          noun="nodes"
          onPage={(p) => onChange({ page: p <= 1 ? undefined : String(p) })}
          onPageSize={(s) => onChange({ size: String(s), page: undefined })}
        />
      </>
    );
  })();

  return (
    <Panel
      title={nodes.data?.snapshotAt == null ? 'Nodes' : `Nodes at ${formatIsoUtc(nodes.data.snapshotAt)}`}
      subtitle={`Each bar: the pods' requests against the node's allocatable. Idle ${currencyCode()} / h: ${IDLE_WEIGHTING.replace(/^Idle is /, '')}; each node's rates under its idle. Under each price, where it came from.`}
      actions={
        <div className="panel-tools">
          <NodeSearch q={state.q} onSearch={(q) => onChange({ q, page: undefined })} />
          <Segmented
            label="Capacity type"
            value={state.capacityType ?? 'all'}
            options={CAPACITY_OPTIONS}
            onChange={(v) => onChange({ capacity: v === 'all' ? undefined : v, page: undefined })}
          />
          <SnapshotPicker at={state.at} onAt={(at) => onChange({ at, page: undefined })} />
          <a className="button" href={csvHref} download>
            Download CSV
          </a>
        </div>
      }
    >
      <div className={nodes.isFetching && !nodes.isPending ? 'panel-body is-refreshing' : 'panel-body'}>{body}</div>
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
