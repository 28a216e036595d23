import type { NodeRow, NodeSort } from '@schemas/efficiency';
import { SortHeader } from '../../../components/ui/sort-header';
import { colorOf, type NodePoolColors } from '../../../lib/colors';
import { currencyCode, formatUsdPerHour, nodePoolLabel } from '../../../lib/format';
import { idleRatesText } from '../../../lib/idle-weighting';
import { formatAge } from '../utils/node-table';
import { PackingBar } from './packing-bar';

interface NodesTableProps {
  rows: readonly NodeRow[];
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

/** One row per node, each with its cpu and memory packing bars. */
export function NodesTable({ rows, sort, order, onSort, colors, caption }: NodesTableProps) {
  return (
    <div className="table-scroll">
      <table className="data-table nodes-table" data-testid="nodes-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns(currencyCode()).map((c) => (
              <SortHeader key={c.key} column={c.key} sort={sort} order={order} onSort={onSort} className={c.className}>
                {c.label}
              </SortHeader>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((n) => (
            <tr key={n.name}>
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
          ))}
        </tbody>
      </table>
    </div>
  );
}
