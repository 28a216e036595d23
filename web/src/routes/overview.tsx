import { useMemo, useState } from 'react';
import { CostPanel } from '../features/cost/components/cost-panel';
import { EfficiencyPanel } from '../features/efficiency/components/efficiency-panel';
import { useNodePools } from '../features/filters/api/use-nodepools';
import { RangeFilter } from '../features/filters/components/range-filter';
import { overviewQuery, type RangePresetDays } from '../features/filters/utils/range-presets';
import { DataSourceBanner } from '../features/status/components/data-source-banner';
import { useStatus } from '../features/status/api/use-status';
import { nodePoolColors } from '../lib/colors';

/** The overview page: data source, filters, cost per day, efficiency over time. Composes only. */
export function OverviewPage() {
  const [days, setDays] = useState<RangePresetDays>(7);
  const [nodePool, setNodePool] = useState<string | undefined>(undefined);
  const status = useStatus();
  const nodePools = useNodePools();
  const colors = useMemo(() => nodePoolColors(nodePools.data?.items.map((n) => n.name) ?? []), [nodePools.data]);
  const query = overviewQuery(days, nodePool, status);

  return (
    <div className="page">
      <header className="page-header">
        <div className="title-row">
          <h1>NodePool Ledger</h1>
          <RangeFilter days={days} onDaysChange={setDays} nodePool={nodePool} onNodePoolChange={setNodePool} />
        </div>
        <DataSourceBanner />
      </header>
      <main className="panels">
        <CostPanel query={query} colors={colors} />
        <EfficiencyPanel query={query} colors={colors} />
      </main>
    </div>
  );
}
