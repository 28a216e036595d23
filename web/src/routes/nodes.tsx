import { useMemo } from 'react';
import { PageHeader } from '../components/ui/page-header';
import { useNodePoolColors } from '../features/filters/api/use-nodepool-colors';
import { FilterBar } from '../features/filters/components/filter-bar';
import { useUrlFilters } from '../features/filters/hooks/use-url-filters';
import { NodesPanel } from '../features/nodes/components/nodes-panel';
import { parseNodeTable } from '../features/nodes/utils/node-table';

/** Nodes: every node's packing at a snapshot. Composes only. */
export default function NodesPage() {
  const { filters, params, update } = useUrlFilters();
  const colors = useNodePoolColors();
  const table = useMemo(() => parseNodeTable(params), [params]);
  return (
    <>
      <PageHeader title="Nodes" question="Which nodes are poorly packed or expensive for what they hold, and what are they?">
        <FilterBar filters={filters} resolved={undefined} range={false} onChange={update} />
      </PageHeader>
      <NodesPanel state={table} nodePool={filters.nodePool} onChange={update} colors={colors} />
    </>
  );
}
