import { memo, type Ref } from 'react';
import type { NodeRow, NodeSort } from '@schemas/efficiency';
import { SortHeader } from '../../../components/ui/sort-header';
import { colorOf, type NodePoolColors } from '../../../lib/colors';
import { currencyCode, formatUsdPerHour, nodePoolLabel } from '../../../lib/format';
import { idleRatesText } from '../../../lib/idle-weighting';
import type { RowWindow } from '../utils/row-window';
import { formatAge } from '../utils/node-table';
import { PackingBar } from './packing-bar';

interface NodesTableProps {
  /** Every node matching the query (the table is that many rows tall). */
  total: number;
  /** The row at an index, once its chunk has arrived. */
  rowAt: (index: number) => NodeRow | undefined;
  /** The rows drawn; the others are empty space of the same height. */
  drawn: RowWindow;
  rowPx: number;
  scrollerRef: Ref<HTMLDivElement>;
  /** Given to the first drawn row, to measure the row height. */
  rowRef: Ref<HTMLTableRowElement>;
  sort: NodeSort;
  order: 'asc' | 'desc';
  onSort: (column: NodeSort) => void;
  colors: NodePoolColors;
  caption: string;
}

/** The columns; money ones are labelled in the data's currency. */
const columns = (currency: string): readonly { key: NodeSort; label: string; className?: string }[] => [
  { key: 'name', label: 'Node' },
  { key: 'nodePool', label: 'NodePool' },
  { key: 'instanceType', label: 'Instance type' },
  { key: 'capacityType', label: 'Capacity' },
  { key: 'zone', label: 'Zone' },
  { key: 'ageHours', label: 'Age', className: 'num' },
  { key: 'usdPerHour', label: `${currency} / h`, className: 'num' },
  { key: 'cpu', label: 'CPU requested / allocatable', className: 'col-packing' },
  { key: 'memory', label: 'Memory requested / allocatable', className: 'col-packing' },
  { key: 'idleUsdPerHour', label: `Idle ${currency} / h`, className: 'num' },
];
const COLUMNS = 10;

/** Room for rows not drawn: one empty row of their total height (none when there is nothing to stand for). */
function Spacer({ px }: { px: number }) {
  if (px <= 0) return null;
  return (
    <tr className="row-spacer" aria-hidden="true" style={{ height: px }}>
      <td colSpan={COLUMNS} />
    </tr>
  );
}

/**
 * Every node of the query as one scrolling table, only the rows in view drawn (and a few either side): 5,000 nodes
 * cost the page what 30 do. The scroller takes the keyboard (arrows, Page Up/Down, Home/End) once focused; the header
 * stays in view; aria-rowcount and aria-rowindex tell a screen reader where each drawn row sits in the whole.
 */
export function NodesTable({ total, rowAt, drawn, rowPx, scrollerRef, rowRef, sort, order, onSort, colors, caption }: NodesTableProps) {
  const indexes = Array.from({ length: Math.max(0, drawn.end - drawn.start) }, (_, i) => drawn.start + i);
  return (
    <div className="table-scroll nodes-scroll" ref={scrollerRef} tabIndex={0} role="region" aria-label={`${caption}, scrollable`}>
      <table className="data-table nodes-table" data-testid="nodes-table" aria-rowcount={total + 1}>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr aria-rowindex={1}>
            {columns(currencyCode()).map((c) => (
              <SortHeader key={c.key} column={c.key} sort={sort} order={order} onSort={onSort} className={c.className}>
                {c.label}
              </SortHeader>
            ))}
          </tr>
        </thead>
        <tbody>
          <Spacer px={drawn.start * rowPx} />
          {indexes.map((i) => {
            const n = rowAt(i);
            return n === undefined ? (
              <tr key={`loading-${i}`} className="node-row row-loading" aria-rowindex={i + 2}>
                <td colSpan={COLUMNS}>Loading…</td>
              </tr>
            ) : (
              <NodeTableRow key={n.name} n={n} index={i} colors={colors} rowRef={i === drawn.start ? rowRef : undefined} />
            );
          })}
          <Spacer px={(total - drawn.end) * rowPx} />
        </tbody>
      </table>
    </div>
  );
}

interface NodeTableRowProps {
  n: NodeRow;
  index: number;
  colors: NodePoolColors;
  rowRef: Ref<HTMLTableRowElement> | undefined;
}

/** One node with its cpu and memory packing bars; drawn again only when its node (or place) changes. */
const NodeTableRow = memo(function NodeTableRow({ n, index, colors, rowRef }: NodeTableRowProps) {
  return (
    <tr ref={rowRef} className="node-row" aria-rowindex={index + 2} data-node={n.name}>
      <th scope="row" className="node-name">
        <span title={n.name}>{n.name}</span>
        {n.nodeClaim === null ? null : <span className="sub">{n.nodeClaim}</span>}
      </th>
      <td>
        <span className="swatch" style={{ background: colorOf(n.nodePool, colors) }} />
        {nodePoolLabel(n.nodePool, 'nodes')}
      </td>
      <td>{n.instanceType}</td>
      <td>
        <span className={`capacity capacity-${n.capacityType}`}>{n.capacityType}</span>
      </td>
      <td>{n.zone}</td>
      <td className="num">{formatAge(n.ageHours)}</td>
      <td className="num" title={n.priceSource === null ? undefined : `price from ${n.priceSource}, ${n.currency}`}>
        {n.usdPerHour === null ? '—' : formatUsdPerHour(n.usdPerHour)}
        {/* Which source priced the node, visibly: a static table (and which region's) is an estimate's estimate. */}
        {n.priceSource === null ? null : (
          <span className="sub price-source" data-testid="price-source">
            {n.priceSource}
          </span>
        )}
      </td>
      <td>
        <PackingBar resource="CPU" requested={n.requestedVcpu} allocatable={n.allocatableVcpu} unit="vCPU" />
      </td>
      <td>
        <PackingBar resource="Memory" requested={n.requestedMemoryGiB} allocatable={n.allocatableMemoryGiB} unit="GiB" />
      </td>
      <td className="num">
        {formatUsdPerHour(n.idleUsdPerHour)}
        {/* The rates this node's idle was priced at (relative price over what it offers). */}
        {n.idleRates === null ? null : (
          <span className="sub idle-rates" data-testid="idle-rates">
            {idleRatesText(n.idleRates)}
          </span>
        )}
      </td>
    </tr>
  );
});
