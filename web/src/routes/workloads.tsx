import { useMemo } from 'react';
import { PageHeader } from '../components/ui/page-header';
import { useUrlFilters } from '../features/filters/hooks/use-url-filters';
import { WorkloadsPanel } from '../features/workloads/components/workloads-panel';
import { parseWorkloadTable } from '../features/workloads/utils/workload-table';

/** Workloads: what each asks for beside what it uses, the right-sized requests and what they would save. Composes only. */
export default function WorkloadsPage() {
  const { params, update } = useUrlFilters();
  const state = useMemo(() => parseWorkloadTable(params), [params]);
  return (
    <>
      <PageHeader
        title="Workloads"
        question="Which workloads ask for more than they use, what should they request, and what would that save once Karpenter re-packs?"
      />
      <WorkloadsPanel state={state} window="14d" onChange={update} />
    </>
  );
}
