import type { RecommendationRow } from '@schemas/workloads';
import type { ParamUpdates } from '../../../lib/url-params';

/**
 * The Workloads table's URL state: ?sort=savings&order=asc (a column, ascending or descending) and &w=<key>, the
 * workload container whose chart and recommendation are open. Pure, so the sort is tested without a browser.
 */

export type WorkloadSort = 'savings' | 'workload' | 'cpu' | 'memory' | 'idle';
export const WORKLOAD_SORTS: readonly WorkloadSort[] = ['savings', 'workload', 'cpu', 'memory', 'idle'];

export interface WorkloadTableState {
  sort: WorkloadSort;
  order: 'asc' | 'desc';
  /** The open row's key (rowKey), or undefined. */
  open: string | undefined;
}

/** Biggest saving first: the most negative monthly effect. */
export const DEFAULT_WORKLOAD_TABLE: WorkloadTableState = { sort: 'savings', order: 'asc', open: undefined };

export function parseWorkloadTable(params: URLSearchParams): WorkloadTableState {
  const sort = params.get('sort');
  const order = params.get('order');
  return {
    sort: WORKLOAD_SORTS.find((s) => s === sort) ?? DEFAULT_WORKLOAD_TABLE.sort,
    order: order === 'asc' || order === 'desc' ? order : DEFAULT_WORKLOAD_TABLE.order,
    open: params.get('w') ?? undefined,
  };
}

/** Clicking a column: the same one flips the order; another starts in its natural order (savings and names ascending). */
export function sortUpdates(state: WorkloadTableState, column: WorkloadSort): ParamUpdates {
  const order =
    column === state.sort ? (state.order === 'asc' ? 'desc' : 'asc') : column === 'savings' || column === 'workload' ? 'asc' : 'desc';
  return { sort: column === DEFAULT_WORKLOAD_TABLE.sort && order === DEFAULT_WORKLOAD_TABLE.order ? undefined : column, order };
}

/**
 * A row's key: its workload container, preceded by its cluster under "All clusters" of several (`alpha:shop/…`), where
 * the same workload in two clusters is two rows.
 */
export const rowKey = (r: Pick<RecommendationRow, 'cluster' | 'namespace' | 'workloadKind' | 'workloadName' | 'container'>): string =>
  `${r.cluster === undefined ? '' : `${r.cluster}:`}${r.namespace}/${r.workloadKind}/${r.workloadName}/${r.container}`;

const valueOf = (r: RecommendationRow, sort: WorkloadSort): number | string | null => {
  switch (sort) {
    case 'savings':
      return r.monthlyEffectUsd;
    case 'workload':
      return rowKey(r);
    case 'cpu':
      return r.cpuUsageOverRequest;
    case 'memory':
      return r.memoryUsageOverRequest;
    case 'idle':
      return r.idleUsdPerMonth;
  }
};

/** Sorted rows; rows without a figure last in either order, ties by request share then name. */
export function sortRows(rows: readonly RecommendationRow[], state: Pick<WorkloadTableState, 'sort' | 'order'>): RecommendationRow[] {
  const sign = state.order === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = valueOf(a, state.sort);
    const y = valueOf(b, state.sort);
    if (x !== y) {
      if (x === null) return 1;
      if (y === null) return -1;
      return sign * (x < y ? -1 : 1);
    }
    const sa = a.requestShareMonthlyUsd ?? 0;
    const sb = b.requestShareMonthlyUsd ?? 0;
    if (sa !== sb) return sign * (sa - sb);
    return rowKey(a) < rowKey(b) ? -1 : rowKey(a) > rowKey(b) ? 1 : 0;
  });
}
