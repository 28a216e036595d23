import type { ApiResponse } from '@schemas/api-routes';

export type NodeDecision = ApiResponse<'/api/whatif/why-not'>['nodes'][number];
export type DecisionSort = 'node' | 'nodePool' | 'usdPerHour' | 'decision' | 'reason';

const text = (v: string | null): string => v ?? '';

/** The why-not table's order: by the column, then by node name; unpriced nodes last whichever the order. */
export function sortDecisions(rows: readonly NodeDecision[], sort: DecisionSort, order: 'asc' | 'desc'): NodeDecision[] {
  const sign = order === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    let c: number;
    if (sort !== 'usdPerHour') c = sign * text(a[sort]).localeCompare(text(b[sort]));
    // unpriced nodes last, whichever the order
    else if (a.usdPerHour === null || b.usdPerHour === null) c = a.usdPerHour === b.usdPerHour ? 0 : a.usdPerHour === null ? 1 : -1;
    else c = sign * (a.usdPerHour - b.usdPerHour);
    return c !== 0 ? c : a.node.localeCompare(b.node);
  });
}
