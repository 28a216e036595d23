import { useMemo } from 'react';
import { PageHeader } from '../components/ui/page-header';
import { Segmented } from '../components/ui/segmented';
import { BillPanel } from '../features/bill/components/bill-panel';
import { CurPanel } from '../features/bill/components/cur-panel';
import { useCurLines } from '../features/bill/api/use-bill-cur';
import { PracticePanel } from '../features/bill/components/practice-panel';
import { parseBillPage } from '../features/bill/utils/bill-days';
import { useNodePoolColors } from '../features/filters/api/use-nodepool-colors';
import { FilterBar } from '../features/filters/components/filter-bar';
import { useUrlFilters } from '../features/filters/hooks/use-url-filters';

const MODES = [
  { value: 'bill', label: 'Your bill' },
  { value: 'cur', label: 'CUR lines' },
  { value: 'practice', label: 'Practice' },
] as const;

/** Explain this bill: a stored or imported bill line by line, or a practice bill with hidden answers. Composes only. */
export default function BillPage() {
  const { filters, params, update } = useUrlFilters();
  const colors = useNodePoolColors();
  const state = useMemo(() => parseBillPage(params), [params]);
  // The metric the CUR lines are in when none is chosen (the panel's own request: one cache entry).
  const curMetric = useCurLines({ day: state.day, nodepool: filters.nodePool, metric: filters.metric }, state.mode === 'cur').data?.metric;
  return (
    <>
      <PageHeader
        title="Explain this bill"
        question="Which NodeClaims make up each line of the bill, why did Karpenter launch them, and what is left over?"
      >
        <div className="filters">
          <Segmented
            label="Mode"
            value={state.mode}
            options={MODES}
            onChange={(m) => update({ mode: m === 'bill' ? undefined : m, line: undefined, resource: undefined, day: undefined })}
          />
          {state.mode === 'bill' ? (
            <FilterBar filters={filters} resolved={undefined} range={false} onChange={(u) => update({ ...u, line: undefined })} />
          ) : null}
          {state.mode === 'cur' ? (
            <FilterBar
              filters={filters}
              resolved={undefined}
              range={false}
              metric={{ inEffect: curMetric }}
              onChange={(u) => update({ ...u, resource: undefined })}
            />
          ) : null}
        </div>
      </PageHeader>
      {state.mode === 'practice' ? (
        <PracticePanel seed={state.seed} onSeed={(s) => update({ seed: String(s) })} colors={colors} />
      ) : state.mode === 'cur' ? (
        <CurPanel state={state} nodePool={filters.nodePool} metric={filters.metric} onChange={update} colors={colors} />
      ) : (
        <BillPanel state={state} nodePool={filters.nodePool} onChange={update} colors={colors} />
      )}
    </>
  );
}
