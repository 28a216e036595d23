import type { NodeSort } from '@schemas/efficiency';
import type { JsonParams } from '../../../lib/api-client';
import type { ParamUpdates } from '../../../lib/url-params';

/**
 * The node table's own URL state (beside the shared filters):
 *   ?sort=cpu&order=asc   a column of /api/nodes, ascending or descending
 *   &capacity=spot        on-demand | spot | reserved
 *   &at=2026-11-09T10:00:00Z  the snapshot at or before this instant (default: the newest)
 *   &q=m5.                text to look for in name, NodeClaim, instance type, NodePool and zone
 */

export const NODE_SORTS: readonly NodeSort[] = [
  'name',
  'nodePool',
  'instanceType',
  'capacityType',
  'zone',
  'ageHours',
  'usdPerHour',
  'cpu',
  'memory',
  'idleUsdPerHour',
];
export type CapacityFilter = 'on-demand' | 'spot' | 'reserved';
const CAPACITIES: readonly CapacityFilter[] = ['on-demand', 'spot', 'reserved'];

export interface NodeTableState {
  sort: NodeSort;
  order: 'asc' | 'desc';
  capacityType: CapacityFilter | undefined;
  /** ISO instant, or undefined for the newest snapshot. */
  at: string | undefined;
  /** Search text (at most 100 characters, as /api/nodes takes), or undefined for every node. */
  q: string | undefined;
}

/** The worst-packed nodes first: what a reader of this page is usually after. */
export const DEFAULT_NODE_TABLE: NodeTableState = {
  sort: 'cpu',
  order: 'asc',
  capacityType: undefined,
  at: undefined,
  q: undefined,
};

/** The longest search /api/nodes takes. */
export const MAX_SEARCH_LENGTH = 100;

/** Search text as the API takes it: control characters dropped (the server refuses them), at most 100 characters; '' = none. */
export function searchText(raw: string | null): string | undefined {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what it drops
  const text = (raw ?? '').replace(/[\u0000-\u001f\u007f]/g, '').slice(0, MAX_SEARCH_LENGTH);
  return text === '' ? undefined : text;
}

/** Columns whose natural first click is descending (biggest, most expensive, oldest first). */
const DESC_FIRST: ReadonlySet<NodeSort> = new Set(['ageHours', 'usdPerHour', 'idleUsdPerHour']);

const AT_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z$/;

export function parseNodeTable(params: URLSearchParams): NodeTableState {
  const sort = NODE_SORTS.find((s) => s === params.get('sort')) ?? DEFAULT_NODE_TABLE.sort;
  const orderParam = params.get('order');
  const order = orderParam === 'asc' || orderParam === 'desc' ? orderParam : DEFAULT_NODE_TABLE.order;
  const capacityType = CAPACITIES.find((c) => c === params.get('capacity'));
  const at = params.get('at');
  return {
    sort,
    order,
    capacityType,
    at: at !== null && AT_RE.test(at) && Number.isFinite(Date.parse(at)) ? at : undefined,
    q: searchText(params.get('q')),
  };
}

/** Clicking a column: the same column flips the order; a new one starts in its natural order. */
export function sortUpdates(current: NodeTableState, column: NodeSort): ParamUpdates {
  const order = column === current.sort ? (current.order === 'asc' ? 'desc' : 'asc') : DESC_FIRST.has(column) ? 'desc' : 'asc';
  return { sort: column, order };
}

/** Rows the table asks /api/nodes for at a time: a window of the table needs one or two such chunks. */
export const CHUNK_ROWS = 100;

/** The query of /api/nodes for this state, every matching node (the CSV's; the table adds a chunk's limit and offset). */
export function nodesQuery(state: NodeTableState, nodePool: string | undefined): JsonParams<'/api/nodes'> {
  return { sort: state.sort, order: state.order, nodepool: nodePool, capacityType: state.capacityType, at: state.at, q: state.q };
}

/** The query of chunk `index` (0-based): rows index × CHUNK_ROWS onwards. */
export const chunkQuery = (query: JsonParams<'/api/nodes'>, index: number): JsonParams<'/api/nodes'> => ({
  ...query,
  limit: CHUNK_ROWS,
  offset: index * CHUNK_ROWS,
});

/** "45 min", "5 h", "3 d 4 h": short enough for a table cell. */
export function formatAge(hours: number): string {
  if (hours < 1) return `${Math.max(0, Math.round(hours * 60))} min`;
  if (hours < 48) return `${Math.floor(hours)} h`;
  const days = Math.floor(hours / 24);
  const rest = Math.floor(hours - days * 24);
  return rest === 0 ? `${days} d` : `${days} d ${rest} h`;
}

/** A packing bar's width (0..100, capped) and whether requests exceed allocatable. */
export function packingWidth(requested: number, allocatable: number): { percent: number | null; over: boolean } {
  if (!(allocatable > 0)) return { percent: null, over: false };
  const percent = (requested / allocatable) * 100;
  return { percent: Math.min(100, percent), over: percent > 100 };
}
